package kiln_test

import (
	"math/rand/v2"
	"os"
	"testing"

	"github.com/kiln-go/kiln"
	"github.com/kiln-go/kiln/internal/reference"
	"github.com/kiln-go/kiln/kernels/opencl"
	"github.com/kiln-go/kiln/tensor"
)

// TestReviewE10OpenCLOneStep: SPEC's "results do not depend on the
// backend" for products with one contracting step: on OpenCL, each form
// of reviewE10Products equals the reference bit for bit, signed zeros of
// exact and underflowed products included (fma(a, b, +0)).
func TestReviewE10OpenCLOneStep(t *testing.T) {
	b, err := opencl.New(opencl.Options{})
	if err != nil {
		if opencl.Unavailable(err) && os.Getenv("KILN_REQUIRE_OPENCL") != "1" {
			t.Skipf("skipping: no OpenCL device (%v); set KILN_REQUIRE_OPENCL=1 to make this a failure", err)
		}
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(0xe10, 13))
	for _, s := range [][2]int{{17, 10}} {
		m, n := s[0], s[1]
		args := []*tensor.Array{reviewE10Array(rng, m, 1), reviewE10Array(rng, 1, n),
			reviewE10Array(rng, 3, m, 1), reviewE10Array(rng, 3, 1, n), reviewE10Array(rng, n)}
		anyArgs := []any{args[0], args[1], args[2], args[3], args[4]}
		p, err := kiln.Jit(reviewE10Products).Trace(anyArgs...)
		if err != nil {
			t.Fatal(err)
		}
		ref, err := reference.Eval(p, args, refOptions)
		if err != nil {
			t.Fatal(err)
		}
		got, err := kiln.Jit(reviewE10Products, kiln.WithBackend(b)).RunAll(anyArgs...)
		if err != nil {
			t.Fatalf("%dx%d: %v", m, n, err)
		}
		if d := diffResults(got, ref, true); d != "" {
			t.Fatalf("%dx%d on OpenCL: %s", m, n, d)
		}
	}
}
