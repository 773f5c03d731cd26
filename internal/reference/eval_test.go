package reference

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/kiln-go/kiln/promote"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

func TestInputErrors(t *testing.T) {
	x := vec[float32](1, 2, 3)
	p := traceFn(t, promote.Config{}, in(x), unary(trace.Value.Exp))
	cases := []struct {
		name   string
		inputs []*tensor.Array
		index  int
		msg    string
	}{
		{"too few", nil, -1, "takes 1 inputs, got 0"},
		{"too many", in(x, x), -1, "takes 1 inputs, got 2"},
		{"nil", []*tensor.Array{nil}, 0, "nil array"},
		{"dtype", in(vec[float64](1, 2, 3)), 0, "dtype f64, the program wants f32"},
		{"shape", in(vec[float32](1, 2)), 0, "shape [2], the program wants [3]"},
		{"rank", in(arr(shp(3, 1), float32(1), 2, 3)), 0, "shape [3 1]"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Eval(p, c.inputs, Options{})
			var ie *InputError
			if !errors.As(err, &ie) {
				t.Fatalf("got %v, want an *InputError", err)
			}
			if ie.Index != c.index || !strings.Contains(err.Error(), c.msg) || !strings.HasPrefix(err.Error(), "reference: ") {
				t.Errorf("got %q (index %d), want index %d and %q", err, ie.Index, c.index, c.msg)
			}
		})
	}
	if _, err := Eval(nil, nil, Options{}); err == nil {
		t.Error("a nil program evaluated without error")
	}
}

// Hand-built programs reach what the tracer never emits: the evaluator
// must report them, not panic.
func TestMalformedPrograms(t *testing.T) {
	v := func(id int, d tensor.DType, shape ...int) *trace.Var {
		return &trace.Var{ID: id, Type: promote.Strong(d), Shape: shape}
	}
	a, b := v(0, tensor.F32, 3), v(1, tensor.F32, 3)
	undefined := v(9, tensor.F32, 3)
	cases := []struct {
		name string
		eqn  *trace.Eqn
		msg  string
	}{
		{"shift of floats", &trace.Eqn{Op: trace.OpShl, Args: []*trace.Var{a, a}, Out: b}, "shl is not defined for floats"},
		{"use before definition", &trace.Eqn{Op: trace.OpAdd, Args: []*trace.Var{a, undefined}, Out: b}, "used before it is defined"},
		{"wrong arity", &trace.Eqn{Op: trace.OpAdd, Args: []*trace.Var{a}, Out: b}, "takes 2 operands"},
		{"wrong result dtype", &trace.Eqn{Op: trace.OpLt, Args: []*trace.Var{a, a}, Out: b}, "dtype bool, the program wants f32"},
		{"bad perm", &trace.Eqn{Op: trace.OpTranspose, Args: []*trace.Var{a}, Out: b, Params: trace.Params{Perm: []int{1}}}, "not a permutation"},
		{"bad slice", &trace.Eqn{Op: trace.OpSlice, Args: []*trace.Var{a}, Out: b, Params: trace.Params{Start: []int{0}, Limit: []int{4}, Stride: []int{1}}}, "out of range"},
		{"bad axes", &trace.Eqn{Op: trace.OpReduceSum, Args: []*trace.Var{a}, Out: v(1, tensor.F32), Params: trace.Params{Axes: []int{1}}}, "not sorted, unique axes"},
		{"bad dot dims", &trace.Eqn{Op: trace.OpDot, Args: []*trace.Var{a, a}, Out: v(1, tensor.F32), Params: trace.Params{Dot: trace.DotDims{LhsContract: []int{0}, RhsContract: []int{1}}}}, "cannot pair"},
		{"max of nothing", &trace.Eqn{Op: trace.OpReduceMax, Args: []*trace.Var{v(0, tensor.F32, 0)}, Out: v(1, tensor.F32), Params: trace.Params{Axes: []int{0}}}, "undefined"},
		{"const without value", &trace.Eqn{Op: trace.OpConst, Out: b}, "without a value"},
		{"convert to an invalid dtype", &trace.Eqn{Op: trace.OpConvert, Args: []*trace.Var{a}, Out: b, Params: trace.Params{DType: 99}}, "invalid dtype"},
		{"negative reshape", &trace.Eqn{Op: trace.OpReshape, Args: []*trace.Var{a}, Out: b, Params: trace.Params{Shape: []int{-1, -3}}}, "cannot reshape"},
		{"negative broadcast", &trace.Eqn{Op: trace.OpBroadcastInDim, Args: []*trace.Var{a}, Out: b, Params: trace.Params{Shape: []int{-2, 3}, Dims: []int{1}}}, "do not fit"},
		{"concatenate of nothing", &trace.Eqn{Op: trace.OpConcat, Out: b}, "no operands"},
		{"argmax without an axis", &trace.Eqn{Op: trace.OpArgMax, Args: []*trace.Var{a}, Out: v(1, tensor.I64), Params: trace.Params{DType: tensor.I64}}, "one axis"},
		{"unknown op", &trace.Eqn{Op: 200, Out: b}, "unknown op"},
		{"nil equation", nil, "malformed"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			inputs := []*trace.Var{a}
			data := in(vec[float32](1, 2, 3))
			if c.name == "max of nothing" {
				inputs, data = []*trace.Var{v(0, tensor.F32, 0)}, in(arr[float32](shp(0)))
				c.eqn.Args = inputs
			}
			p := &trace.Program{Inputs: inputs, Eqns: []*trace.Eqn{c.eqn}, NumVars: 10}
			if c.eqn != nil {
				p.Outputs = []*trace.Var{c.eqn.Out}
			}
			_, err := Eval(p, data, Options{})
			var ee *EqnError
			if !errors.As(err, &ee) || !strings.Contains(err.Error(), c.msg) {
				t.Errorf("got %v, want an *EqnError saying %q", err, c.msg)
			}
		})
	}
}

// TestInputsNeverWritten runs a program touching every kind of op and
// checks the inputs keep their bits, and that outputs are fresh arrays.
func TestInputsNeverWritten(t *testing.T) {
	x := arr(shp(2, 3), float32(1), -2, 3, nan32, 5, 6)
	y := arr(shp(3, 2), int8(1), 2, 3, 4, 5, 6)
	z := vec(h16(0x3c00, 0x4000, 0x4200)...)
	inputs := in(x, y, z)
	saved := []*tensor.Array{x.Clone(), y.Clone(), z.Clone()}
	p := traceFn(t, promote.Config{}, inputs, func(a []trace.Value) trace.Value {
		m := a[0].MatMul(a[1]).Sum(0)                         // dot, convert, reduce
		s := trace.Where(a[0].Gt(trace.Float(0)), a[0], a[2]) // select, broadcast
		c := trace.Concatenate(0, s.Transpose(), a[1])        // transpose, concatenate
		return c.Slice(0, 1, 4, 2).Max().Add(m.ArgMax(0).Astype(tensor.F32)).Exp().Sqrt().Neg()
	})
	outs, err := Eval(p, inputs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range inputs {
		if !tensor.Equal(inputs[i], saved[i]) {
			t.Errorf("input %d changed: %s, was %s", i, inputs[i], saved[i])
		}
	}
	_ = outs

	// A program returning its input, twice: the outputs are copies.
	p = traceFn(t, promote.Config{}, in(x), func(a []trace.Value) trace.Value { return a[0] })
	outs, err = Eval(p, in(x), Options{})
	if err != nil {
		t.Fatal(err)
	}
	outs[0].Data().([]float32)[0] = 42
	if x.Data().([]float32)[0] != 1 {
		t.Error("writing the output wrote the input")
	}
}

func TestTranscendentalOption(t *testing.T) {
	type call struct {
		op   trace.Op
		d    tensor.DType
		x, y float64
	}
	var calls []call
	opts := Options{Transcendental: func(op trace.Op, d tensor.DType, x, y float64) float64 {
		calls = append(calls, call{op, d, x, y})
		return 1.0 / 3
	}}
	cases := []struct {
		name string
		in   []*tensor.Array
		fn   func(a []trace.Value) trace.Value
		call call
		want *tensor.Array
	}{
		// f16 computes in f32: float32(1/3) then f16 rounding gives 0x3555.
		{"f16", in(vec(h16(0x3c00)...)), unary(trace.Value.Exp), call{trace.OpExp, tensor.F32, 1, 0}, vec(h16(0x3555)...)},
		{"bf16", in(vec(b16(0x4040)...)), unary(trace.Value.Tanh), call{trace.OpTanh, tensor.F32, 3, 0}, vec(b16(0x3eab)...)},
		{"f32", in(vec[float32](0.1)), unary(trace.Value.Log), call{trace.OpLog, tensor.F32, float64(float32(0.1)), 0}, vec(float32(1.0 / 3))},
		{"f64 pow", in(vec(2.0), vec(0.5)), binary(trace.Value.Pow), call{trace.OpPow, tensor.F64, 2, 0.5}, vec(1.0 / 3)},
		{"int input computes in f32", in(vec[int16](4)), unary(trace.Value.Rsqrt), call{trace.OpRsqrt, tensor.F32, 4, 0}, vec(float32(1.0 / 3))},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			calls = nil
			p := traceFn(t, promote.Config{}, c.in, c.fn)
			outs, err := Eval(p, c.in, opts)
			if err != nil {
				t.Fatal(err)
			}
			if len(calls) != 1 || calls[0] != c.call {
				t.Errorf("calls %+v, want one %+v", calls, c.call)
			}
			if !sameValues(outs[0], c.want) {
				t.Errorf("got %s %s, want %s", outs[0], bits(outs[0]), c.want)
			}
		})
	}

	// sqrt is correctly rounded, never a transcendental; complex ops use
	// math/cmplx whatever the option says.
	calls = nil
	p := traceFn(t, promote.Config{}, in(vec[float32](2), vec[complex64](0)), binary(func(x, y trace.Value) trace.Value {
		return x.Sqrt().Add(y.Exp())
	}))
	outs, err := Eval(p, in(vec[float32](2), vec[complex64](0)), opts)
	if err != nil {
		t.Fatal(err)
	}
	if want := vec(complex(float32(math.Sqrt2)+1, 0)); len(calls) != 0 || !sameValues(outs[0], want) {
		t.Errorf("got %s with calls %v, want %s and no calls", outs[0], calls, want)
	}
}
