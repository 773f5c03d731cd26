package kiln_test

import (
	"math/rand"
	"testing"

	"github.com/kiln-go/kiln"
	"github.com/kiln-go/kiln/internal/progen"
)

// TestDifferentialCoversEpilogues makes sure TestDifferential's corpus
// holds fused GEMM epilogues (lower.FuseEpilogues): programs whose fused
// plan runs elementwise consumers in a dot_general's kernel, which that
// test then holds bit-identical to the reference and to op-by-op
// execution (where every product has its own kernel) — so the generator
// and the pass cannot drift apart unnoticed.
func TestDifferentialCoversEpilogues(t *testing.T) {
	const seeds = 600
	fused := 0
	for k := range int64(seeds) {
		c := progen.Generate(rand.New(rand.NewSource(*diffFrom+k)), progen.Options{})
		m, err := kiln.Jit(c.Fn, caseOptions(c)...).Lower(caseArgs(c)...)
		if err != nil {
			continue // TestDifferential reports it
		}
		for _, f := range m.Fusions {
			if f.Epilogue() {
				fused++
				break
			}
		}
	}
	t.Logf("%d of the first %d programs have a fused epilogue", fused, seeds)
	if fused < 5 {
		t.Errorf("only %d of the first %d TestDifferential programs fuse an epilogue into a product", fused, seeds)
	}
}
