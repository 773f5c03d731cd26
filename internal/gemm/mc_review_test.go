package gemm

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kiln-go/kiln/internal/longtest"
	"github.com/kiln-go/kiln/internal/numerics"
	"github.com/kiln-go/kiln/internal/simd"
)

// Tests of Call.block's row blocks (mcBlock) from the review of 05ef366:
// at the machine's real cache sizes, with binary16 operands, on many
// tiny caches, with workspaces reused across shapes and tiers, and with
// Stop set mid-call. All but the last run under KILN_LONG=1 (longtest):
// they take minutes of naive reference products.

// finiteFill: no Infs, so long sums stay discriminating.
func finiteFill[T Float](rng *rand.Rand) func(n int) []T {
	return func(n int) []T {
		x := make([]T, n)
		for i := range x {
			x[i] = T(rng.NormFloat64() * math.Ldexp(1, rng.IntN(12)-6))
		}
		return x
	}
}

func same16(t *testing.T, name string, c, want []float32) {
	t.Helper()
	for i := range want {
		if !same(c[i], want[i]) {
			t.Fatalf("%s: c[%d] = %v, want %v", name, i, c[i], want[i])
		}
	}
}

// Real cache sizes: shapes that cross mc, kc and nc boundaries.
func TestReviewMCRealCaches(t *testing.T) {
	longtest.Skip(t, "products crossing the row, k and column blocks at the real cache sizes")
	rng := rand.New(rand.NewPCG(101, 102))
	l1, l2 := caches()
	t.Logf("caches l1=%d l2=%d", l1, l2)
	for _, tier := range simd.Available() {
		restore := simd.SetLevel(tier)
		kc32, nc32 := blocking(kernel[float32]())
		kc64, nc64 := blocking(kernel[float64]())
		t.Logf("tier %v: f32 kc %d nc %d; f64 kc %d nc %d", tier, kc32, nc32, kc64, nc64)
		// Row blocks (M past mc), k blocks (K past kc), and with a
		// Finisher the column limit (N past l2/4/(mc·size) columns).
		sizes := [][3]int{{250, 300, 600}, {517, 290, 530}, {263, 1100, 513}, {1100, 160, 520}, {301, 33, 1100}}
		if tier < simd.AVX512 {
			// the Go tier is slow: fewer
			sizes = [][3]int{{261, 300, 1030}}
		}
		for si, s := range sizes {
			for ti, tr := range [][2]bool{{false, false}, {true, false}, {false, true}, {true, true}} {
				if (si+ti)%2 == 1 {
					continue
				}
				parts := []int{0, 1, 2, 3, 5}[(si+ti)%5]
				batch := 1 + (si+ti)%2
				name := fmt.Sprintf("%v %dx%dx%d trans=%v parts=%d batch=%d", tier, s[0], s[1], s[2], tr, parts, batch)
				g := laidOut(batch, s[0], s[1], s[2], tr[0], tr[1], 3, finiteFill[float32](rng))
				check(t, name+" f32", g, numerics.FMA32, parts)
				g = laidOut(batch, s[0], s[1], s[2], tr[0], tr[1], 3, finiteFill[float32](rng))
				checkFinished(t, name+" f32 fin", g, naive(g, numerics.FMA32), max(parts, 1))
				g64 := laidOut(batch, s[0], s[1], s[2], tr[0], tr[1], 3, finiteFill[float64](rng))
				check(t, name+" f64", g64, math.FMA, parts)
			}
		}
		restore()
	}
}

// Binary16 operands at real caches in the mc path.
func TestReviewMCF16(t *testing.T) {
	longtest.Skip(t, "binary16 operands on the row-block path")
	rng := rand.New(rand.NewPCG(105, 106))
	for i, s := range [][3]int{{263, 300, 600}, {517, 290, 530}, {255, 1100, 700}} {
		for _, lay := range [][2]int{{0, 0}, {1, 1}, {2, 2}, {0, 1}} {
			for _, which := range []string{"ab", "a", "b"} {
				g := problem16(rng, 1+i%2, s[0], s[1], s[2], lay[0], lay[1], which)
				want := naive16(g)
				name := fmt.Sprintf("%v lay=%v %s", s, lay, which)
				checkFinished(t, name, g, want, 1+i)
				same16(t, name, g.C, want)
			}
		}
	}
}

// Tiny caches of many kinds: a wider sweep than TestGemmBlocks.
func TestReviewMCTinyCaches(t *testing.T) {
	longtest.Skip(t, "the row-block path on eight tiny cache configurations")
	rng := rand.New(rand.NewPCG(107, 108))
	sizes := [][3]int{{97, 130, 150}, {25, 71, 300}, {49, 200, 65}, {121, 33, 129}, {8, 300, 100}, {4, 100, 200}, {20, 129, 64}}
	for _, l1 := range []int{4 << 10, 12 << 10} {
		for _, l2 := range []int{3 << 10, 6 << 10, 16 << 10, 40 << 10} {
			withCaches(l1, l2, func() {
				for _, tier := range simd.Available() {
					restore := simd.SetLevel(tier)
					for si, s := range sizes {
						for ti, tr := range [][2]bool{{false, false}, {true, false}, {false, true}, {true, true}} {
							parts := []int{0, 1, 2, 3, 5}[(si+ti)%5]
							batch := 1 + (si+ti)%2
							name := fmt.Sprintf("l1 %d l2 %d %v %dx%dx%d trans=%v parts=%d", l1, l2, tier, s[0], s[1], s[2], tr, parts)
							check(t, name+" f32", laidOut(batch, s[0], s[1], s[2], tr[0], tr[1], 2, finiteFill[float32](rng)), numerics.FMA32, parts)
							check(t, name+" f64", laidOut(batch, s[0], s[1], s[2], tr[0], tr[1], 2, finiteFill[float64](rng)), math.FMA, parts)
							g := laidOut(batch, s[0], s[1], s[2], tr[0], tr[1], 2, finiteFill[float32](rng))
							checkFinished(t, name+" fin", g, naive(g, numerics.FMA32), max(parts, 1))
							g16 := problem16(rng, batch, s[0], s[1], s[2], ti%3, (ti+si)%3, []string{"a", "b", "ab"}[si%3])
							checkFinished(t, name+" f16", g16, naive16(g16), max(parts, 1))
						}
					}
					restore()
				}
			})
		}
	}
}

// Workspace reuse: alternating shapes and tiers on one goroutine (the
// pool hands back the same workspace), big then small then big.
func TestReviewMCWorkspaceReuse(t *testing.T) {
	longtest.Skip(t, "workspace reuse across shapes and tiers")
	rng := rand.New(rand.NewPCG(109, 110))
	shapes := [][3]int{{300, 300, 600}, {13, 40, 7}, {517, 290, 1030}, {24, 16, 600}, {255, 600, 513}, {1, 5, 3}, {40, 16, 33}}
	for round := range 2 {
		for _, tier := range simd.Available() {
			restore := simd.SetLevel(tier)
			for i, s := range shapes {
				if tier < simd.AVX512 && s[0]*s[1]*s[2] > 30e6 {
					continue
				}
				tr := i%2 == round
				check(t, fmt.Sprintf("reuse %v %v", tier, s), laidOut(1, s[0], s[1], s[2], tr, false, 1, finiteFill[float32](rng)), numerics.FMA32, 0)
				check(t, fmt.Sprintf("reuse64 %v %v", tier, s), laidOut(1, s[0], s[1], s[2], false, tr, 1, finiteFill[float64](rng)), math.FMA, 0)
			}
			restore()
		}
	}
}

type stopFin struct {
	stop  *flagStop
	after int
	n     atomic.Int64
}

func (f *stopFin) Finished(b, i0, i1, j0, j1 int) {
	if int(f.n.Add(1)) == f.after {
		f.stop.Store(true)
	}
}

// Stop set mid-call, from a Finisher and from another goroutine: the
// call returns, no panic, no hang.
func TestReviewMCStop(t *testing.T) {
	rng := rand.New(rand.NewPCG(111, 112))
	for _, s := range [][3]int{{600, 1300, 700}, {517, 290, 530}} {
		for _, after := range []int{1, 5, 30} {
			for _, parts := range []int{1, 2, 3} {
				g := laidOut(1, s[0], s[1], s[2], false, false, 1, finiteFill[float32](rng))
				stop := new(flagStop)
				g.Stop = stop
				f := &stopFin{stop: stop, after: after}
				n := g.Parts(parts)
				done := make(chan struct{})
				go func() {
					var wg sync.WaitGroup
					for p := range n {
						wg.Add(1)
						go func() { defer wg.Done(); g.RunPartThen(p, n, f) }()
					}
					wg.Wait()
					close(done)
				}()
				select {
				case <-done:
				case <-time.After(30 * time.Second):
					t.Fatalf("%v after %d parts %d: hang", s, after, parts)
				}
			}
		}
		for _, d := range []time.Duration{0, 100 * time.Microsecond, time.Millisecond, 5 * time.Millisecond} {
			g := laidOut(2, s[0], s[1], s[2], true, true, 1, finiteFill[float32](rng))
			stop := new(flagStop)
			g.Stop = stop
			go func() { time.Sleep(d); stop.Store(true) }()
			runIn(g, 2)
		}
	}
}
