package trace_test

import (
	"strings"
	"testing"

	"github.com/kiln-go/kiln/promote"
	"github.com/kiln-go/kiln/trace"
)

// TestKeepDims: every keepdims reduction equals its Reduce form (or, for
// argmax/argmin, the reduction with the axis put back) — the same program
// — and a bad axis is the reduction's own error.
func TestKeepDims(t *testing.T) {
	x := []string{"f32[2,3,4]"}
	same := func(name string, got, want func(a []trace.Value) trace.Value, shape string) {
		t.Helper()
		pg, err1 := traceOne(t, promote.Config{}, x, got)
		pw, err2 := traceOne(t, promote.Config{}, x, want)
		if err1 != nil || err2 != nil {
			t.Fatalf("%s: %v, %v", name, err1, err2)
		}
		if pg.String() != pw.String() || pg.Outputs[0].TypeString() != shape {
			t.Errorf("%s:\n%s\nwant %s:\n%s", name, pg, shape, pw)
		}
	}
	for _, c := range []struct {
		name string
		kept func(k trace.KeptDims) trace.Value
		op   trace.Op
	}{
		{"sum", func(k trace.KeptDims) trace.Value { return k.Sum(-1, 0) }, trace.OpReduceSum},
		{"prod", func(k trace.KeptDims) trace.Value { return k.Prod(-1, 0) }, trace.OpReduceProd},
		{"max", func(k trace.KeptDims) trace.Value { return k.Max(-1, 0) }, trace.OpReduceMax},
		{"min", func(k trace.KeptDims) trace.Value { return k.Min(-1, 0) }, trace.OpReduceMin},
	} {
		same(c.name, func(a []trace.Value) trace.Value { return c.kept(a[0].KeepDims()) },
			func(a []trace.Value) trace.Value { return trace.Reduce(c.op, a[0], []int{-1, 0}, true) }, "f32[1,3,1]")
	}
	same("mean", func(a []trace.Value) trace.Value { return a[0].KeepDims().Mean(1) },
		func(a []trace.Value) trace.Value { return trace.ReduceMean(a[0], []int{1}, true) }, "f32[2,1,4]")
	same("all axes", func(a []trace.Value) trace.Value { return a[0].KeepDims().Sum() },
		func(a []trace.Value) trace.Value { return trace.Reduce(trace.OpReduceSum, a[0], nil, true) }, "f32[1,1,1]")
	same("argmax", func(a []trace.Value) trace.Value { return a[0].KeepDims().ArgMax(-2) },
		func(a []trace.Value) trace.Value { return a[0].ArgMax(1).Reshape(2, 1, 4) }, "i64[2,1,4]")
	same("argmin", func(a []trace.Value) trace.Value { return a[0].KeepDims().ArgMin(0) },
		func(a []trace.Value) trace.Value { return a[0].ArgMin(0).Reshape(1, 3, 4) }, "i64[1,3,4]")
	for _, bad := range []func(a []trace.Value) trace.Value{
		func(a []trace.Value) trace.Value { return a[0].KeepDims().Sum(3) },
		func(a []trace.Value) trace.Value { return a[0].KeepDims().ArgMax(-4) },
	} {
		if _, err := traceOne(t, promote.Config{}, x, bad); err == nil || !strings.Contains(err.Error(), "out of range") {
			t.Errorf("a bad axis: %v", err)
		}
	}
}

func TestPosString(t *testing.T) {
	for _, c := range []struct {
		pos  trace.Pos
		want string
	}{
		{trace.Pos{}, ""},
		{trace.Pos{File: "kiln/x_test.go", Line: 12}, "kiln/x_test.go:12"},
		{trace.Pos{File: "<expr>", Line: 1, Col: 3}, "<expr>:1:3"},
	} {
		if got := c.pos.String(); got != c.want {
			t.Errorf("%#v prints %q, want %q", c.pos, got, c.want)
		}
	}
}
