package kiln_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/kiln-go/kiln"
	"github.com/kiln-go/kiln/promote"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// Bad indexing gives typed errors naming the op and the caller's line,
// as TestBadInputs checks for the other ops.
func TestBadIndexing(t *testing.T) {
	m23 := func() *tensor.Array { return arr(t, []float32{1, 2, 3, 4, 5, 6}, 2, 3) }
	c23 := func() *tensor.Array { return arr(t, []complex64{1, 2, 3, 4, 5, 6}, 2, 3) }
	fidx := func() *tensor.Array { return arr(t, []float32{0, 1}) }
	bidx := func() *tensor.Array { return arr(t, []bool{true, false}) }
	iidx := func() *tensor.Array { return arr(t, []int32{0, 1}) }
	var (
		shapeErr *trace.ShapeError
		dtypeErr *trace.DTypeError
		opErr    *trace.OpError
		overErr  *promote.OverflowError
	)
	type pair = func(x, i kiln.Value) kiln.Value
	type single = func(x kiln.Value) kiln.Value
	gd := kiln.GatherDims{OffsetDims: []int{1}, CollapsedSliceDims: []int{0}, StartIndexMap: []int{0}}
	cases := []badCase{
		{"float index array", pair(func(x, i kiln.Value) kiln.Value { return x.Index(i) }), []any{m23(), fidx()}, &dtypeErr,
			"arrays used as indices must be of integer (or boolean) type, not f32"},
		{"traced bool mask", pair(func(x, i kiln.Value) kiln.Value { return x.Index(i) }), []any{m23(), bidx()}, &shapeErr,
			"a boolean index needs a constant mask"},
		{"static index out of bounds", single(func(x kiln.Value) kiln.Value { return x.Index(0, 3) }), []any{m23()}, &shapeErr,
			"index 3 is out of bounds for axis 1 with size 3"},
		{"too many indices", single(func(x kiln.Value) kiln.Value { return x.Index(0, 0, 0) }), []any{m23()}, &shapeErr,
			"too many indices for an array of shape [2,3]: 3 given"},
		{"two ellipses", single(func(x kiln.Value) kiln.Value { return x.Index(kiln.Ellipsis, kiln.Ellipsis) }), []any{m23()}, &shapeErr,
			"a single ellipsis"},
		{"index item type", single(func(x kiln.Value) kiln.Value { return x.Index(1.5) }), []any{m23()}, &opErr,
			"an index item of type float64"},
		{"mask shape", single(func(x kiln.Value) kiln.Value { return x.Index([]bool{true, false, true}) }), []any{m23()}, &shapeErr,
			"boolean index [3] does not match the indexed dims [2]"},
		{"arrays do not broadcast", pair(func(x, i kiln.Value) kiln.Value { return x.Index(i, []int{0, 1, 2}) }), []any{m23(), iidx()}, &shapeErr,
			"index arrays of shapes [2] and [3] do not broadcast"},
		{"update shape", pair(func(x, i kiln.Value) kiln.Value { return x.At(i, 0).Set(x) }), []any{m23(), iidx()}, &shapeErr,
			"cannot broadcast [2,3] to [2]"},
		{"update literal overflow", single(func(x kiln.Value) kiln.Value { return x.Astype(tensor.I8).At(0).Add(kiln.Int(1000)) }), []any{m23()}, &overErr,
			"integer literal 1000 overflows i8"},
		{"scatter max of complex", pair(func(x, i kiln.Value) kiln.Value { return x.At(i).Max(kiln.Float(1)) }), []any{c23(), iidx()}, &dtypeErr,
			"complex numbers (c64) have no order"},
		{"gather dims", pair(func(x, i kiln.Value) kiln.Value { return kiln.Gather(x, i.Reshape(2, 1), gd, []int{1, 4}) }), []any{m23(), iidx()}, &shapeErr,
			"slice_sizes [1 4]: 4 is outside [0, 3] for dim 1"},
		{"take from an empty axis", pair(func(x, i kiln.Value) kiln.Value { return kiln.Take(x.Index(kiln.To(0)), i, 0) }), []any{m23(), iidx()}, &shapeErr,
			"cannot take 2 elements from the empty axis 0"},
		{"take_along_axis ranks", pair(func(x, i kiln.Value) kiln.Value { return kiln.TakeAlongAxis(x, i, 1) }), []any{m23(), iidx()}, &shapeErr,
			"must have the same number of dimensions"},
		{"one_hot of floats", single(func(x kiln.Value) kiln.Value { return kiln.OneHot(x, 3) }), []any{m23()}, &dtypeErr,
			"one_hot needs integer indices, not f32"},
		{"dynamic_slice starts", pair(func(x, i kiln.Value) kiln.Value { return kiln.DynamicSlice(x, []kiln.Value{i}, []int{1, 1}) }), []any{m23(), iidx()}, &shapeErr,
			"1 start indices for an operand of rank 2"},
		{"dynamic_update_slice dtype", pair(func(x, u kiln.Value) kiln.Value {
			return kiln.DynamicUpdateSlice(x, u.Reshape(1, 2), []kiln.Value{kiln.Int(0), kiln.Int(0)})
		}), []any{m23(), arr(t, []float64{1, 2})}, &dtypeErr, "lax.dynamic_update_slice needs one dtype"},
		{"flip axis", single(func(x kiln.Value) kiln.Value { return x.Flip(2) }), []any{m23()}, &shapeErr, "axis 2 is out of range for rank 2"},
	}
	runBadCases(t, "errors_index_test.go:", cases)
}

// badCase is a program that must fail with a typed error: fn run on args
// gives an error of target's type whose text has msg.
type badCase struct {
	name   string
	fn     any
	args   []any
	target any
	msg    string
}

// runBadCases runs each case: a typed error naming the op's message and
// the caller's file (file:), inputs unchanged.
func runBadCases(t *testing.T, file string, cases []badCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before := cloneArgs(c.args)
			_, err := kiln.Jit(c.fn).Run(c.args...)
			if err == nil {
				t.Fatal("no error")
			}
			if !errors.As(err, c.target) {
				t.Fatalf("error %T (%v) is not a %T", err, err, c.target)
			}
			if !strings.Contains(err.Error(), c.msg) {
				t.Errorf("message %q lacks %q", err, c.msg)
			}
			if !strings.Contains(err.Error(), file) {
				t.Errorf("message %q does not name the caller's file:line", err)
			}
			checkArgsUnchanged(t, before, c.args)
		})
	}
}
