package kiln_test

import (
	"testing"

	"github.com/kiln-go/kiln"
	"github.com/kiln-go/kiln/tensor"
)

// review2Matrix is an f32 matrix of small integers (exact in f16).
func review2Matrix(r, c, seed int) *tensor.Array {
	v := make([]float32, r*c)
	for i := range v {
		v[i] = float32((i*seed+3)%7) - 3
	}
	return tensor.Must(tensor.FromSlice(v, r, c))
}

// review2Same runs f fused (runs times: a kernel racing with another
// worker's writes may come out right some of the time) and unfused on
// args and fails when they differ.
func review2Same(t *testing.T, name string, runs int, f any, args ...any) {
	t.Helper()
	want, err := kiln.Jit(f, kiln.NoFusion()).RunAll(args...)
	if err != nil {
		t.Fatalf("%s unfused: %v", name, err)
	}
	fused := kiln.Jit(f)
	for r := range runs {
		got, err := fused.RunAll(args...)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for i := range want {
			if !tensor.Equal(got[i], want[i]) {
				t.Fatalf("%s: run %d: result %d fused\n%v\nunfused\n%v", name, r, i, got[i], want[i])
			}
		}
	}
}

// TestReview2HalfDotReadsFreedSource: an f16 product computed in f32 (its
// operands widened by converts, which the GEMM reads past, straight from
// the f16 values) whose epilogue narrows it back to f16. The f16 operand
// b is a scratch value whose last reader, as the planner sees it, is its
// convert's kernel; its buffer is then free, and the product's f16 result
// (same dtype, same size) took it — while the GEMM still read b from it:
// the first row blocks of the result overwrote b's rows that later blocks
// read (a wrong product, fused only).
func TestReview2HalfDotReadsFreedSource(t *testing.T) {
	const n = 256
	f := func(p, q kiln.Value) kiln.Value {
		a := p                 // a parameter: never freed
		b := q.Transpose(1, 0) // scratch, copy kernel
		c := a.Astype(tensor.F32).MatMul(b.Astype(tensor.F32)).Astype(tensor.F16)
		return c.Transpose(1, 0) // c is scratch too
	}
	review2Same(t, "f16 product", 200, f, review2Matrix(n, n, 5).Astype(tensor.F16), review2Matrix(n, n, 3).Astype(tensor.F16))
}

// TestReview2Int8DotReadsFreedSource: the int8 analogue — operands
// widened from int8 to int32, the product narrowed back to int8.
func TestReview2Int8DotReadsFreedSource(t *testing.T) {
	const n = 256
	f := func(p, q kiln.Value) kiln.Value {
		a := p
		b := q.Transpose(1, 0)
		c := a.Astype(tensor.I32).MatMul(b.Astype(tensor.I32)).Astype(tensor.I8)
		return c.Transpose(1, 0)
	}
	review2Same(t, "int8 product", 200, f, review2Matrix(n, n, 5).Astype(tensor.I8), review2Matrix(n, n, 3).Astype(tensor.I8))
}
