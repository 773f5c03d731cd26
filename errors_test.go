package kiln_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/kiln-go/kiln"
	"github.com/kiln-go/kiln/kernels"
	"github.com/kiln-go/kiln/promote"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

func arr[T tensor.Elem](t *testing.T, data []T, shape ...int) *tensor.Array {
	t.Helper()
	a, err := tensor.FromSlice(data, shape...)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// Every bad input gives a typed error with a clear message — never a
// panic, never a mutated input.
func TestBadInputs(t *testing.T) {
	f32 := func() *tensor.Array { return arr(t, []float32{1, 2, 3}) }
	f32x4 := func() *tensor.Array { return arr(t, []float32{1, 2, 3, 4}) }
	m23 := func() *tensor.Array { return arr(t, []float32{1, 2, 3, 4, 5, 6}, 2, 3) }
	i8 := func() *tensor.Array { return arr(t, []int8{1, 2, 3}) }
	u8 := func() *tensor.Array { return arr(t, []uint8{1, 2, 3}) }
	bools := func() *tensor.Array { return arr(t, []bool{true, false, true}) }
	c64 := func() *tensor.Array { return arr(t, []complex64{1, 2i, 3}) }
	f16 := func() *tensor.Array { return tensor.Must(tensor.Arange(tensor.F16, 3)) }
	i32 := func() *tensor.Array { return arr(t, []int32{1, 2, 3}) }
	empty := func() *tensor.Array { return arr(t, []float32{}) }

	var (
		shapeErr  *trace.ShapeError
		dtypeErr  *trace.DTypeError
		promErr   *promote.PromotionError
		overErr   *promote.OverflowError
		argErr    *kiln.ArgError
		policyErr *kiln.PolicyError
	)
	type fn = func(a []kiln.Value) []kiln.Value
	unary := func(g func(x kiln.Value) kiln.Value) fn {
		return func(a []kiln.Value) []kiln.Value { return []kiln.Value{g(a[0])} }
	}
	binary := func(g func(x, y kiln.Value) kiln.Value) fn {
		return func(a []kiln.Value) []kiln.Value { return []kiln.Value{g(a[0], a[1])} }
	}
	cases := []struct {
		name   string
		fn     any
		opts   []kiln.Option
		args   []any
		target any    // a pointer to the error type errors.As must find
		msg    string // a fragment of the message
		pos    bool   // the message points at this file
	}{
		{"shape mismatch", binary(kiln.Value.Add), nil, []any{f32(), f32x4()}, &shapeErr, "shapes [3] and [4] do not broadcast", true},
		{"bad axis", unary(func(x kiln.Value) kiln.Value { return x.Sum(5) }), nil, []any{m23()}, &shapeErr, "axis 5 is out of range for rank 2", true},
		{"bad negative axis", unary(func(x kiln.Value) kiln.Value { return x.Mean(-3) }), nil, []any{m23()}, &shapeErr, "axis -3 is out of range", true},
		{"repeated axis", unary(func(x kiln.Value) kiln.Value { return x.Sum(0, -2) }), nil, []any{m23()}, &shapeErr, "repeated", true},
		{"strict promotion", binary(kiln.Value.Add), []kiln.Option{kiln.Strict()}, []any{i8(), f16()}, &promErr, "astype(x, f16) for the i8 operand", true},
		{"lax promotion", binary(kiln.Value.Mul), []kiln.Option{kiln.Rules(mustRules(t, "lax"))}, []any{i8(), i32()}, &promErr, "i8, i32", true},
		{"literal overflow int8+1000", unary(func(x kiln.Value) kiln.Value { return x.Add(kiln.Int(1000)) }), nil, []any{i8()}, &overErr, "integer literal 1000 overflows i8 (range -128..127)", true},
		{"literal overflow u8*-1", unary(func(x kiln.Value) kiln.Value { return x.Mul(kiln.Int(-1)) }), nil, []any{u8()}, &overErr, "-1 overflows u8", true},
		{"bool subtraction", binary(kiln.Value.Sub), nil, []any{bools(), bools()}, &dtypeErr, "boolean subtract is not supported", true},
		{"bool negative", unary(kiln.Value.Neg), nil, []any{bools()}, &dtypeErr, "boolean negative", true},
		{"complex ordering", binary(kiln.Value.Lt), nil, []any{c64(), c64()}, &dtypeErr, "complex numbers (c64) have no order", true},
		{"complex maximum", binary(kiln.Value.Maximum), nil, []any{c64(), c64()}, &dtypeErr, "no order", true},
		{"complex max reduction", unary(func(x kiln.Value) kiln.Value { return x.Max() }), nil, []any{c64()}, &dtypeErr, "no order", true},
		{"complex argmax", unary(func(x kiln.Value) kiln.Value { return x.ArgMax(0) }), nil, []any{c64()}, &dtypeErr, "no order", true},
		{"complex floordiv", binary(kiln.Value.FloorDiv), nil, []any{c64(), c64()}, &dtypeErr, "floordiv is not defined for complex", true},
		{"bitwise on floats", binary(kiln.Value.And), nil, []any{f32(), f32()}, &dtypeErr, "and needs bool or integer operands, not f32", true},
		{"shift on bool", binary(kiln.Value.Shl), nil, []any{bools(), bools()}, &dtypeErr, "shl needs integer operands", true},
		{"not on float", unary(kiln.Value.Not), nil, []any{f16()}, &dtypeErr, "not f16", true},
		{"negative int power", unary(func(x kiln.Value) kiln.Value { return x.Pow(kiln.Int(-1)) }), nil, []any{i32()}, &dtypeErr, "negative integer power", true},
		{"reshape size", unary(func(x kiln.Value) kiln.Value { return x.Reshape(4, 2) }), nil, []any{m23()}, &shapeErr, "cannot reshape [2,3] (6 elements) to [4,2] (8 elements)", true},
		{"transpose perm", unary(func(x kiln.Value) kiln.Value { return x.Transpose(1, 1) }), nil, []any{m23()}, &shapeErr, "not a permutation", true},
		{"slice axis out of range", unary(func(x kiln.Value) kiln.Value { return x.Slice(2, 0, 1, 1) }), nil, []any{m23()}, &shapeErr, "axis 2 is out of range", true},
		{"slice step", unary(func(x kiln.Value) kiln.Value { return x.Slice(0, 0, 3, 0) }), nil, []any{f32()}, &shapeErr, "slice step cannot be zero", true},
		{"concatenate shapes", binary(func(x, y kiln.Value) kiln.Value { return kiln.Concatenate(0, x, y) }), nil, []any{m23(), f32()}, &shapeErr, "differ outside axis 0", true},
		{"matmul inner dims", binary(kiln.Value.MatMul), nil, []any{m23(), m23()}, &shapeErr, "contracting dimensions differ", true},
		{"matmul scalar", binary(kiln.Value.MatMul), nil, []any{float32(2), f32()}, &shapeErr, "not scalars", true},
		{"squeeze non-unit", unary(func(x kiln.Value) kiln.Value { return x.Squeeze(1) }), nil, []any{m23()}, &shapeErr, "its size is 3, not 1", true},
		{"broadcast_to", unary(func(x kiln.Value) kiln.Value { return x.BroadcastTo(3, 2) }), nil, []any{f32()}, &shapeErr, "cannot broadcast [3] to [3,2]", true},
		{"argmax of empty", unary(func(x kiln.Value) kiln.Value { return x.ArgMax(0) }), nil, []any{empty()}, &shapeErr, "empty", true},
		{"max of empty", unary(func(x kiln.Value) kiln.Value { return x.Max() }), nil, []any{empty()}, &shapeErr, "no identity", true},
		{"policy", binary(kiln.Value.Add), []kiln.Option{kiln.Forbid(tensor.F16, tensor.F32)}, []any{f16(), f32()}, &policyErr, "forbids the implicit widening f16 -> f32", true},
		{"wrong arity", func(x, y kiln.Value) kiln.Value { return x.Add(y) }, nil, []any{f32()}, &argErr, "takes 2 arguments, got 1", false},
		{"nil array", unary(kiln.Value.Neg), nil, []any{(*tensor.Array)(nil)}, &argErr, "nil *tensor.Array", false},
		{"nil argument", unary(kiln.Value.Neg), nil, []any{nil}, &argErr, "nil argument", false},
		{"unsupported argument", unary(kiln.Value.Neg), nil, []any{"3"}, &argErr, "string is not an array", false},
		{"x32 int overflow", unary(kiln.Value.Neg), []kiln.Option{kiln.X32()}, []any{1 << 40}, &argErr, "overflows the weak i32", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before := cloneArgs(c.args)
			_, err := kiln.Jit(c.fn, c.opts...).Run(c.args...)
			if err == nil {
				t.Fatal("no error")
			}
			if !errors.As(err, c.target) {
				t.Fatalf("error %T (%v) is not a %T", err, err, c.target)
			}
			if !strings.Contains(err.Error(), c.msg) {
				t.Errorf("message %q lacks %q", err, c.msg)
			}
			if c.pos && !strings.Contains(err.Error(), "errors_test.go:") {
				t.Errorf("message %q does not name the caller's file:line", err)
			}
			checkArgsUnchanged(t, before, c.args)
		})
	}
}

func mustRules(t *testing.T, name string) *promote.RuleSet {
	r, err := promote.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func cloneArgs(args []any) []*tensor.Array {
	out := make([]*tensor.Array, len(args))
	for i, a := range args {
		if x, ok := a.(*tensor.Array); ok && x != nil {
			out[i] = x.Clone()
		}
	}
	return out
}

func checkArgsUnchanged(t *testing.T, before []*tensor.Array, args []any) {
	t.Helper()
	for i, b := range before {
		if b != nil && !tensor.Equal(b, args[i].(*tensor.Array)) {
			t.Errorf("argument %d was modified", i)
		}
	}
}

// Misuse of the API itself is an error from every call, not a panic.
func TestBadFunctions(t *testing.T) {
	x := arr(t, []float32{1, 2})
	cases := []struct {
		name string
		fn   any
		args []any
		msg  string
	}{
		{"not a function", 42, []any{x}, "needs a function over kiln.Value"},
		{"nil function", nil, []any{x}, "needs a function"},
		{"non-Value parameter", func(x int) kiln.Value { return kiln.Int(1) }, []any{x}, "parameter 0"},
		{"non-Value result", func(x kiln.Value) int { return 1 }, []any{x}, "result 0"},
		{"no result", func(x kiln.Value) {}, []any{x}, "returns nothing"},
		{"panics", func(x kiln.Value) kiln.Value { panic("boom") }, []any{x}, "panicked: boom"},
		{"zero Value returned", func(x kiln.Value) kiln.Value { return kiln.Value{} }, []any{x}, "output"},
		{"empty concatenate", func(x kiln.Value) kiln.Value { return kiln.Concatenate(0) }, []any{x}, "concatenate"},
		{"Run of two results", func(x kiln.Value) (kiln.Value, kiln.Value) { return x, x }, []any{x}, "use RunAll"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := kiln.Jit(c.fn).Run(c.args...)
			if err == nil || !strings.Contains(err.Error(), c.msg) {
				t.Errorf("error %v, want one mentioning %q", err, c.msg)
			}
		})
	}
}

// Arrays that do not fit their shape cannot be built, and a compiled
// executable rejects inputs and outputs that do not match it.
func TestBadArraysAtTheBoundary(t *testing.T) {
	if _, err := tensor.New(tensor.F32, []int{2, 2}, []float32{1, 2, 3}); err == nil {
		t.Error("tensor.New accepted 3 values for shape [2,2]")
	}
	f := kiln.Jit(func(x kiln.Value) kiln.Value { return x.Mul(kiln.Int(2)) })
	x := arr(t, []float32{1, 2, 3})
	out := arr(t, []float32{0, 0})
	var kerr *kernels.ArgError
	if err := f.RunInto([]*tensor.Array{out}, x); !errors.As(err, &kerr) || !strings.Contains(err.Error(), "output 0: shape [2]") {
		t.Errorf("RunInto with a wrong output shape: %v", err)
	}
	if err := f.RunInto([]*tensor.Array{x}, x); !errors.As(err, &kerr) || !strings.Contains(err.Error(), "shares memory with an input") {
		t.Errorf("RunInto writing over its input: %v", err)
	}
	if err := f.RunInto(nil, x); !errors.As(err, &kerr) {
		t.Errorf("RunInto without outputs: %v", err)
	}
	if got := x.String(); got != "f32[3] [1 2 3]" {
		t.Errorf("input changed: %s", got)
	}
}
