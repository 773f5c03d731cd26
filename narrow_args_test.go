package kiln_test

import (
	"strings"
	"testing"

	"github.com/kiln-go/kiln"
	"github.com/kiln-go/kiln/tensor"
)

// Scalars of the narrow storage types are arguments of their dtype.
func TestNarrowScalarArgs(t *testing.T) {
	f := kiln.Jit(func(x, y kiln.Value) kiln.Value { return x.Add(x).Astype(tensor.F32).Add(y.Astype(tensor.F32)) })
	out, err := f.Run(tensor.Float8E4M3FN(0x38), tensor.Int4(-3)) // 1 and −3
	if err != nil || out.String() != "f32[] -1" {
		t.Errorf("got %v, %v; want f32[] -1", out, err)
	}
	if _, err := f.Run(tensor.Float8E4M3FN(0x38), tensor.Int4(9)); err == nil || !strings.Contains(err.Error(), "outside -8 … 7") {
		t.Errorf("Int4(9): %v", err)
	}
}
