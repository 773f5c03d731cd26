package kiln_test

import (
	"testing"

	"github.com/kiln-go/kiln"
	"github.com/kiln-go/kiln/tensor"
	"github.com/x448/float16"
)

func TestJitMixed(t *testing.T) {
	f := kiln.Jit(func(x, y kiln.Value) kiln.Value {
		return x.Mul(kiln.Int(2)).Add(y).Mul(kiln.Float(0.5))
	})
	x, _ := tensor.FromSlice([]int8{1, 2, 3})
	y, _ := tensor.FromSlice([]float16.Float16{float16.Fromfloat32(0.5), float16.Fromfloat32(1), float16.Fromfloat32(2)})
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
