package gemm

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/kiln-go/kiln/internal/numerics"
	"github.com/kiln-go/kiln/internal/simd"
)

// recorder checks every block it is told of: each element of c is told
// once, and its value then is already the final one (the in-order FMA
// definition), so an epilogue run there sees the finished product.
type recorder struct {
	g     *Call[float32]
	want  []float32
	mu    sync.Mutex
	seen  []int
	first string
}

func (r *recorder) Finished(b, i0, i1, j0, j1 int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if b < 0 || b >= r.g.Batch || i0 < 0 || i1 > r.g.M || i0 >= i1 || j0 < 0 || j1 > r.g.N || j0 >= j1 {
		r.fail("block b=%d rows [%d, %d) cols [%d, %d) outside the product", b, i0, i1, j0, j1)
		return
	}
	for i := i0; i < i1; i++ {
		for j := j0; j < j1; j++ {
			at := b*r.g.BatchC + i*r.g.LDC + j
			r.seen[at]++
			if !same(r.g.C[at], r.want[at]) {
				r.fail("c[%d,%d,%d] = %v when finished, want %v", b, i, j, r.g.C[at], r.want[at])
			}
		}
	}
}

func (r *recorder) fail(format string, args ...any) {
	if r.first == "" {
		r.first = fmt.Sprintf(format, args...)
	}
}

// TestFinisher runs products of every tier, edge sizes (k past KC, n
// past NC, k = 0), layouts and part counts, and holds RunPartThen to its
// contract: every element of c is reported exactly once, already final.
func TestFinisher(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	sizes := [][3]int{{1, 1, 1}, {13, 17, 5}, {37, 53, 600}, {25, 1100, 20}, {30, 10, 0}, {13, 17, 1}, {25, 1100, 1}} // k = 1: outer
	for _, tier := range simd.Available() {
		restore := simd.SetLevel(tier)
		for _, s := range sizes {
			for _, tr := range [][2]bool{{false, false}, {true, true}} {
				for _, parts := range []int{1, 2, 5} {
					for _, batch := range []int{1, 3} {
						name := fmt.Sprintf("%v %dx%dx%d trans=%v parts=%d batch=%d", tier, s[0], s[1], s[2], tr, parts, batch)
						g := problem[float32](rng, batch, s[0], s[1], s[2], tr[0], tr[1])
						checkFinished(t, name, g, naive(g, numerics.FMA32), parts)
					}
				}
			}
		}
		restore()
	}
}

// checkFinished runs g's pieces for up to parts threads concurrently,
// each telling a recorder of its blocks, and fails unless every element
// of the product was told of exactly once, already final (want).
func checkFinished(t *testing.T, name string, g *Call[float32], want []float32, parts int) {
	t.Helper()
	r := &recorder{g: g, want: want, seen: make([]int, len(g.C))}
	n := g.Parts(parts)
	var wg sync.WaitGroup
	for p := range n {
		wg.Add(1)
		go func() { defer wg.Done(); g.RunPartThen(p, n, r) }()
	}
	wg.Wait()
	if r.first != "" {
		t.Fatalf("%s: %s", name, r.first)
	}
	for b := range g.Batch {
		for i := range g.M {
			for j := range g.N {
				if c := r.seen[b*g.BatchC+i*g.LDC+j]; c != 1 {
					t.Fatalf("%s: c[%d,%d,%d] reported %d times, want once", name, b, i, j, c)
				}
			}
		}
	}
}
