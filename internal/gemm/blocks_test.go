package gemm

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"
	"weak"

	"github.com/kiln-go/kiln/internal/numerics"
	"github.com/kiln-go/kiln/internal/simd"
)

// withCaches runs f with caches reporting l1 and l2 bytes, so that small
// products cross every blocking boundary (kc, nc and mcBlock's row
// blocks) that the machine's caches put past the sizes a test can afford.
func withCaches(l1, l2 int, f func()) {
	old := caches
	caches = func() (int, int) { return l1, l2 }
	defer func() { caches = old }()
	f()
}

// TestGemmBlocks: on tiny caches (kc 64, row blocks of one to three
// panels, column blocks of a panel or two), products of many row blocks,
// k blocks and column blocks, binary16 operands, in-place and packed a,
// every tier and part count: every element bit-identical to the in-order
// FMA definition, and with a Finisher every element told of once, final.
func TestGemmBlocks(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	sizes := [][3]int{{1, 5, 70}, {12, 33, 64}, {13, 40, 65}, {37, 70, 130}, {61, 17, 200}, {100, 9, 129}, {131, 65, 3}, {29, 150, 70}}
	for _, l2 := range []int{8 << 10, 24 << 10, 64 << 10} {
		withCaches(4<<10, l2, func() {
			for _, tier := range simd.Available() {
				restore := simd.SetLevel(tier)
				for _, s := range sizes {
					for _, tr := range [][2]bool{{false, false}, {true, false}, {false, true}} {
						for _, parts := range []int{0, 2, 3} {
							name := fmt.Sprintf("l2 %d %v %dx%dx%d trans=%v parts=%d", l2, tier, s[0], s[1], s[2], tr, parts)
							check(t, name+" f32", problem[float32](rng, 2, s[0], s[1], s[2], tr[0], tr[1]), numerics.FMA32, parts)
							check(t, name+" f64", problem[float64](rng, 1, s[0], s[1], s[2], tr[0], tr[1]), math.FMA, parts)
							g := problem[float32](rng, 2, s[0], s[1], s[2], tr[0], tr[1])
							checkFinished(t, name+" finisher", g, naive(g, numerics.FMA32), max(parts, 1))
						}
					}
				}
				restore()
			}
		})
	}
}

// TestMCBlock: row blocks are whole panels that fill about a quarter of
// L2 with a's block, evened out over the piece (no sliver at its end),
// and never fewer rows than a panel.
func TestMCBlock(t *testing.T) {
	withCaches(48<<10, 2<<20, func() {
		for _, c := range []struct{ m, kb, mr, size, want int }{
			{1024, 512, 12, 4, 216},   // 2 MiB / 4 / 2 KiB = 256 rows, 252 in panels: 1024 as 5 blocks of 216, not 4·252 + 16
			{256, 64, 12, 4, 264},     // a's whole piece fits: one block of its 22 panels
			{10, 512, 12, 4, 12},      // a single short panel
			{100000, 4096, 12, 4, 24}, // 32 rows a block at most: 24 in panels
			{1000, 512, 12, 8, 120},   // f64: 128 rows at most, 120 in panels, 1000 as 9 blocks of 112 → 120
		} {
			got := mcBlock(c.m, c.kb, c.mr, c.size)
			if got%c.mr != 0 || got < c.mr {
				t.Errorf("mcBlock(%d, %d, %d, %d) = %d, not whole panels", c.m, c.kb, c.mr, c.size, got)
			}
			if got != c.want {
				t.Errorf("mcBlock(%d, %d, %d, %d) = %d, want %d", c.m, c.kb, c.mr, c.size, got, c.want)
			}
		}
	})
}

// TestBlockHoldsNoCallerArray: after a call on the row-block path, with a
// read in place, the pooled workspace holds none of the caller's arrays
// (its kept panels are cleared), so a and b can be collected.
func TestBlockHoldsNoCallerArray(t *testing.T) {
	withCaches(48<<10, 2<<20, func() {
		g := laidOut(1, 300, 300, 600, false, false, 1, func(n int) []float32 {
			x := make([]float32, n)
			for i := range x {
				x[i] = float32(i%7) - 3
			}
			return x
		})
		if kb, nb := min(512, g.K), g.N; kb*nb*4 <= (2<<20)/4 {
			t.Fatalf("b's block of %d×%d fits a quarter of L2: not the row-block path", kb, nb)
		}
		wa, wb := weak.Make(&g.A[0]), weak.Make(&g.B[0])
		g.Run()
		g.A, g.B = nil, nil
		runtime.GC()
		if wa.Value() != nil || wb.Value() != nil {
			t.Errorf("after the call and a collection, a reachable: %v, b reachable: %v", wa.Value() != nil, wb.Value() != nil)
		}
	})
}
