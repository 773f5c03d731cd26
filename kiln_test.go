package kiln_test

import (
	"testing"

	"github.com/kiln-go/kiln"
	"github.com/kiln-go/kiln/tensor"
)

func TestJitMixed(t *testing.T) {
	f := kiln.Jit(func(x, y kiln.Value) kiln.Value {
		return x.Mul(kiln.Int(2)).Add(y).Mul(kiln.Float(0.5))
	})
	x, _ := tensor.FromSlice([]int8{1, 2, 3})
	y, _ := tensor.FromSlice([]tensor.Float16{tensor.Float32ToF16(0.5), tensor.Float32ToF16(1), tensor.Float32ToF16(2)})
	out, err := f.Run(x, y)
	if err != nil {
		t.Fatal(err)
	}
	if got := out.String(); got != "f16[3] [1.25 2.5 4]" {
		t.Errorf("got %s", got)
	}
	p, _ := f.Trace(x, y)
	t.Log(p)
}

// An eager expression over concrete arrays gives exactly the jitted answer:
// both go through trace, lower and the same kernels (constant folding
// included — it evaluates with the CPU backend's own kernels).
func TestEagerEqualsJit(t *testing.T) {
	x := tensor.Must(tensor.Arange(tensor.F16, 40))
	y, _ := tensor.FromSlice([]int8{3, -7, 100, 1, 0, -128, 5, 9})
	y8, _ := y.Reshape(8, 1)
	exprs := []func(x, y kiln.Value) kiln.Value{
		func(x, y kiln.Value) kiln.Value { return x.Mul(kiln.Float(0.1)).Add(kiln.Int(3)).Sqrt() },
		func(x, y kiln.Value) kiln.Value { return x.Reshape(8, 5).Add(y).Mean(1) },
		func(x, y kiln.Value) kiln.Value { return y.Mul(kiln.Int(3)).FloorDiv(kiln.Int(-2)).Astype(tensor.BF16) },
		func(x, y kiln.Value) kiln.Value { return x.Reshape(5, 8).MatMul(y.Astype(tensor.F16)).Exp().Sum() },
		func(x, y kiln.Value) kiln.Value { return kiln.Where(x.Gt(kiln.Int(20)), x, kiln.Float(1e5)) },
	}
	for i, e := range exprs {
		eager, err := kiln.Eval(e(kiln.Const(x), kiln.Const(y8)))
		if err != nil {
			t.Fatalf("expr %d eager: %v", i, err)
		}
		jitted, err := kiln.Jit(e).Run(x, y8)
		if err != nil {
			t.Fatalf("expr %d jit: %v", i, err)
		}
		if !tensor.Equal(eager, jitted) {
			t.Errorf("expr %d: eager %v, jitted %v", i, eager, jitted)
		}
	}
}
