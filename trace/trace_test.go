package trace_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/kiln-go/kiln/internal/golden"
	"github.com/kiln-go/kiln/promote"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// in parses "i8[3]" / "f16*[]" into an abstract input.
func in(t *testing.T, s string) trace.Abstract {
	t.Helper()
	open := strings.Index(s, "[")
	ty, err := promote.ParseType(s[:open], false)
	if err != nil {
		t.Fatal(err)
	}
	var shape []int
	for _, d := range strings.Split(strings.Trim(s[open:], "[]"), ",") {
		if d == "" {
			continue
		}
		n := 0
		for _, c := range d {
			n = n*10 + int(c-'0')
		}
		shape = append(shape, n)
	}
	return trace.Abstract{Type: ty, Shape: shape}
}

func traceOne(t *testing.T, cfg promote.Config, inputs []string, fn func(a []trace.Value) trace.Value) (*trace.Program, error) {
	t.Helper()
	abs := make([]trace.Abstract, len(inputs))
	for i, s := range inputs {
		abs[i] = in(t, s)
	}
	return trace.Trace(cfg, abs, func(a []trace.Value) []trace.Value { return []trace.Value{fn(a)} })
}

func TestResultTypes(t *testing.T) {
	x32 := promote.Config{X32: true}
	cases := []struct {
		name   string
		cfg    promote.Config
		inputs []string
		fn     func(a []trace.Value) trace.Value
		want   string // type and shape of the output
	}{
		{"i8*2", promote.Config{}, []string{"i8[5]"}, func(a []trace.Value) trace.Value { return a[0].Mul(trace.Int(2)) }, "i8[5]"},
		{"i8*2.0", promote.Config{}, []string{"i8[5]"}, func(a []trace.Value) trace.Value { return a[0].Mul(trace.Float(2)) }, "f64*[5]"},
		{"i8*2.0 x32", x32, []string{"i8[5]"}, func(a []trace.Value) trace.Value { return a[0].Mul(trace.Float(2)) }, "f32*[5]"},
		{"u8+1", promote.Config{}, []string{"u8[2]"}, func(a []trace.Value) trace.Value { return a[0].Add(trace.Int(1)) }, "u8[2]"},
		{"f16+0.5", promote.Config{}, []string{"f16[2]"}, func(a []trace.Value) trace.Value { return a[0].Add(trace.Float(0.5)) }, "f16[2]"},
		{"f32*1j", promote.Config{}, []string{"f32[2]"}, func(a []trace.Value) trace.Value { return a[0].Mul(trace.Complex(1i)) }, "c64[2]"},
		{"mixed", promote.Config{}, []string{"i8[3]", "f16[3]"}, func(a []trace.Value) trace.Value {
			return a[0].Mul(trace.Int(2)).Add(a[1]).Mul(trace.Float(0.5))
		}, "f16[3]"},
		{"broadcast", promote.Config{}, []string{"f32[2,1,3]", "i16[4,1]"}, func(a []trace.Value) trace.Value { return a[0].Add(a[1]) }, "f32[2,4,3]"},
		{"weak array stays weak", promote.Config{}, []string{"i64*[3]"}, func(a []trace.Value) trace.Value { return a[0].Add(trace.Int(1)) }, "i64*[3]"},
		{"weak meets strong", promote.Config{}, []string{"i64*[3]", "i16[3]"}, func(a []trace.Value) trace.Value { return a[0].Add(a[1]) }, "i16[3]"},
		{"literals only", promote.Config{}, nil, func(a []trace.Value) trace.Value { return trace.Int(2).Mul(trace.Float(0.5)) }, "f64*[]"},
		{"div ints", promote.Config{}, []string{"i32[2]", "i32[2]"}, func(a []trace.Value) trace.Value { return a[0].Div(a[1]) }, "f32[2]"},
		{"div i64", promote.Config{}, []string{"i64[2]"}, func(a []trace.Value) trace.Value { return a[0].Div(trace.Int(2)) }, "f64[2]"},
		{"div weak int", promote.Config{}, nil, func(a []trace.Value) trace.Value { return trace.Int(1).Div(trace.Int(2)) }, "f64*[]"},
		{"sqrt bool", promote.Config{}, []string{"bool[2]"}, func(a []trace.Value) trace.Value { return a[0].Sqrt() }, "f32[2]"},
		{"exp f16", promote.Config{}, []string{"f16[2]"}, func(a []trace.Value) trace.Value { return a[0].Exp() }, "f16[2]"},
		{"compare", promote.Config{}, []string{"i8[2]", "f32[2]"}, func(a []trace.Value) trace.Value { return a[0].Lt(a[1]) }, "bool[2]"},
		{"isnan int", promote.Config{}, []string{"i8[2]"}, func(a []trace.Value) trace.Value { return a[0].IsNaN() }, "bool[2]"},
		{"floordiv bool", promote.Config{}, []string{"bool[2]"}, func(a []trace.Value) trace.Value { return a[0].FloorDiv(a[0]) }, "i64[2]"},
		{"bool add", promote.Config{}, []string{"bool[2]"}, func(a []trace.Value) trace.Value { return a[0].Add(a[0]) }, "bool[2]"},
		{"bool and 1", promote.Config{}, []string{"bool[2]"}, func(a []trace.Value) trace.Value { return a[0].And(trace.Int(1)) }, "i64*[2]"},
		{"shift", promote.Config{}, []string{"u16[2]"}, func(a []trace.Value) trace.Value { return a[0].Shl(trace.Int(3)) }, "u16[2]"},
		{"abs complex", promote.Config{}, []string{"c64[2]"}, func(a []trace.Value) trace.Value { return a[0].Abs() }, "f32[2]"},
		{"real c128", promote.Config{}, []string{"c128[2]"}, func(a []trace.Value) trace.Value { return a[0].Real() }, "f64[2]"},
		{"floor int", promote.Config{}, []string{"i8[2]"}, func(a []trace.Value) trace.Value { return a[0].Floor() }, "i8[2]"},
		{"where int cond", promote.Config{}, []string{"i32[2]", "f16[2]", "f32[]"}, func(a []trace.Value) trace.Value { return trace.Where(a[0], a[1], a[2]) }, "f32[2]"},
		{"where literal", promote.Config{}, []string{"bool[3]", "u8[3]"}, func(a []trace.Value) trace.Value { return trace.Where(a[0], a[1], trace.Int(7)) }, "u8[3]"},
		{"astype strong", promote.Config{}, nil, func(a []trace.Value) trace.Value { return trace.Int(3).Astype(tensor.I64) }, "i64[]"},
		{"sum i8", promote.Config{}, []string{"i8[4,3]"}, func(a []trace.Value) trace.Value { return a[0].Sum(0) }, "i64[3]"},
		{"sum u8 x32", x32, []string{"u8[4,3]"}, func(a []trace.Value) trace.Value { return a[0].Sum() }, "u32[]"},
		{"sum f16", promote.Config{}, []string{"f16[4,3]"}, func(a []trace.Value) trace.Value { return a[0].Sum(-1) }, "f16[4]"},
		{"sum keepdims", promote.Config{}, []string{"f32[4,3,2]"}, func(a []trace.Value) trace.Value {
			return trace.Reduce(trace.OpReduceSum, a[0], []int{0, 2}, true)
		}, "f32[1,3,1]"},
		{"mean i8", promote.Config{}, []string{"i8[4]"}, func(a []trace.Value) trace.Value { return a[0].Mean() }, "f32[]"},
		{"mean bf16", promote.Config{}, []string{"bf16[4]"}, func(a []trace.Value) trace.Value { return a[0].Mean() }, "bf16[]"},
		{"max bool", promote.Config{}, []string{"bool[4]"}, func(a []trace.Value) trace.Value { return a[0].Max() }, "bool[]"},
		{"argmax", promote.Config{}, []string{"f32[4,5]"}, func(a []trace.Value) trace.Value { return a[0].ArgMax(1) }, "i64[4]"},
		{"argmin x32", x32, []string{"f32[4,5]"}, func(a []trace.Value) trace.Value { return a[0].ArgMin(0) }, "i32[5]"},
		{"matmul", promote.Config{}, []string{"f32[2,3]", "f16[3,4]"}, func(a []trace.Value) trace.Value { return a[0].MatMul(a[1]) }, "f32[2,4]"},
		{"matmul batch", promote.Config{}, []string{"f64[5,1,2,3]", "f64[7,3,4]"}, func(a []trace.Value) trace.Value { return a[0].MatMul(a[1]) }, "f64[5,7,2,4]"},
		{"matmul vec", promote.Config{}, []string{"i8[3]", "i8[3,4]"}, func(a []trace.Value) trace.Value { return a[0].MatMul(a[1]) }, "i8[4]"},
		{"matmul vec vec", promote.Config{}, []string{"i8[3]", "i8[3]"}, func(a []trace.Value) trace.Value { return a[0].MatMul(a[1]) }, "i8[]"},
		{"reshape -1", promote.Config{}, []string{"f32[2,6]"}, func(a []trace.Value) trace.Value { return a[0].Reshape(3, -1) }, "f32[3,4]"},
		{"transpose", promote.Config{}, []string{"f32[2,3,4]"}, func(a []trace.Value) trace.Value { return a[0].Transpose() }, "f32[4,3,2]"},
		{"expand", promote.Config{}, []string{"f32[2,3]"}, func(a []trace.Value) trace.Value { return a[0].ExpandDims(0, -1) }, "f32[1,2,3,1]"},
		{"squeeze", promote.Config{}, []string{"f32[1,2,1]"}, func(a []trace.Value) trace.Value { return a[0].Squeeze() }, "f32[2]"},
		{"broadcast_to", promote.Config{}, []string{"f32[3]"}, func(a []trace.Value) trace.Value { return a[0].BroadcastTo(2, 3) }, "f32[2,3]"},
		{"slice", promote.Config{}, []string{"f32[10]"}, func(a []trace.Value) trace.Value { return a[0].Slice(0, -8, 100, 3) }, "f32[3]"},
		{"concat promotes", promote.Config{}, []string{"i8[2,3]", "f16[1,3]"}, func(a []trace.Value) trace.Value { return trace.Concatenate(0, a[0], a[1]) }, "f16[3,3]"},
		{"free constant", promote.Config{}, []string{"f32[2]"}, func(a []trace.Value) trace.Value {
			c, _ := tensor.FromSlice([]float64{1, 2})
			return a[0].Add(trace.Const(c))
		}, "f64[2]"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := traceOne(t, c.cfg, c.inputs, c.fn)
			if err != nil {
				t.Fatal(err)
			}
			if got := p.Outputs[0].TypeString(); got != c.want {
				t.Errorf("got %s, want %s\n%s", got, c.want, p)
			}
			if err := p.Check(); err != nil {
				t.Errorf("%v\n%s", err, p)
			}
		})
	}
}

func TestGoldenProgram(t *testing.T) {
	p, err := traceOne(t, promote.Config{}, []string{"i8[3]", "f16[3]"}, func(a []trace.Value) trace.Value {
		x, y := a[0], a[1]
		z := x.Mul(trace.Int(2)).Add(y).Mul(trace.Float(0.5))
		return z.Sub(z.Mean()).Exp().Sum()
	})
	if err != nil {
		t.Fatal(err)
	}
	got := p.String() + "\n"
	golden.Check(t, "testdata/mixed.program", got)
}

func TestErrors(t *testing.T) {
	type kind int
	const (
		shapeErr kind = iota
		dtypeErr
		promoteErr
		overflowErr
		otherErr
	)
	strict := promote.Config{Rules: promote.Strict}
	cases := []struct {
		name   string
		cfg    promote.Config
		inputs []string
		fn     func(a []trace.Value) trace.Value
		kind   kind
		op     string
		msg    string
	}{
		{"shapes", promote.Config{}, []string{"f32[3]", "f32[4]"}, func(a []trace.Value) trace.Value { return a[0].Add(a[1]) }, shapeErr, "add", "[3] and [4] do not broadcast"},
		{"sum axis", promote.Config{}, []string{"f32[3]"}, func(a []trace.Value) trace.Value { return a[0].Sum(1) }, shapeErr, "reduce_sum", "axis 1 is out of range"},
		{"repeated axis", promote.Config{}, []string{"f32[3,2]"}, func(a []trace.Value) trace.Value { return a[0].Sum(0, -2) }, shapeErr, "reduce_sum", "repeated"},
		{"strict", strict, []string{"i8[3]", "f16[3]"}, func(a []trace.Value) trace.Value { return a[0].Add(a[1]) }, promoteErr, "add", "astype(x, f16)"},
		{"lax", promote.Config{Rules: promote.Lax}, []string{"i8[3]", "i16[3]"}, func(a []trace.Value) trace.Value { return a[0].Mul(a[1]) }, promoteErr, "mul", "no implicit promotion"},
		{"overflow", promote.Config{}, []string{"i8[3]"}, func(a []trace.Value) trace.Value { return a[0].Add(trace.Int(1000)) }, overflowErr, "add", "1000 overflows i8"},
		{"overflow u8", promote.Config{}, []string{"u8[3]"}, func(a []trace.Value) trace.Value { return a[0].Mul(trace.Int(-1)) }, overflowErr, "mul", "-1 overflows u8"},
		{"bool sub", promote.Config{}, []string{"bool[3]"}, func(a []trace.Value) trace.Value { return a[0].Sub(a[0]) }, dtypeErr, "sub", "boolean subtract"},
		{"bool neg", promote.Config{}, []string{"bool[3]"}, func(a []trace.Value) trace.Value { return a[0].Neg() }, dtypeErr, "neg", "boolean negative"},
		{"complex lt", promote.Config{}, []string{"c64[3]"}, func(a []trace.Value) trace.Value { return a[0].Lt(trace.Int(0)) }, dtypeErr, "lt", "no order"},
		{"complex max", promote.Config{}, []string{"c64[3]"}, func(a []trace.Value) trace.Value { return a[0].Max() }, dtypeErr, "reduce_max", "no order"},
		{"complex floordiv", promote.Config{}, []string{"c64[3]"}, func(a []trace.Value) trace.Value { return a[0].FloorDiv(a[0]) }, dtypeErr, "floordiv", "complex"},
		{"bitwise float", promote.Config{}, []string{"f32[3]"}, func(a []trace.Value) trace.Value { return a[0].And(a[0]) }, dtypeErr, "and", "bool or integer operands, not f32"},
		{"shift bool", promote.Config{}, []string{"bool[3]"}, func(a []trace.Value) trace.Value { return a[0].Shl(a[0]) }, dtypeErr, "shl", "integer operands"},
		{"not float", promote.Config{}, []string{"f16[3]"}, func(a []trace.Value) trace.Value { return a[0].Not() }, dtypeErr, "not", "not f16"},
		{"reshape", promote.Config{}, []string{"f32[2,3]"}, func(a []trace.Value) trace.Value { return a[0].Reshape(4, 2) }, shapeErr, "reshape", "6 elements"},
		{"reshape infer", promote.Config{}, []string{"f32[2,3]"}, func(a []trace.Value) trace.Value { return a[0].Reshape(4, -1) }, shapeErr, "reshape", "cannot reshape"},
		{"perm", promote.Config{}, []string{"f32[2,3]"}, func(a []trace.Value) trace.Value { return a[0].Transpose(0, 0) }, shapeErr, "transpose", "not a permutation"},
		{"slice step", promote.Config{}, []string{"f32[5]"}, func(a []trace.Value) trace.Value { return a[0].Slice(0, 0, 5, 0) }, shapeErr, "slice", "cannot be zero"},
		{"slice axis", promote.Config{}, []string{"f32[5]"}, func(a []trace.Value) trace.Value { return a[0].Slice(3, 0, 5, 1) }, shapeErr, "slice", "out of range"},
		{"concat", promote.Config{}, []string{"f32[2,3]", "f32[2,4]"}, func(a []trace.Value) trace.Value { return trace.Concatenate(0, a[0], a[1]) }, shapeErr, "concatenate", "differ outside axis 0"},
		{"concat scalar", promote.Config{}, []string{"f32[]"}, func(a []trace.Value) trace.Value { return trace.Concatenate(0, a[0], a[0]) }, shapeErr, "concatenate", "zero-dimensional"},
		{"matmul", promote.Config{}, []string{"f32[2,3]", "f32[4,5]"}, func(a []trace.Value) trace.Value { return a[0].MatMul(a[1]) }, shapeErr, "matmul", "(3 vs 4)"},
		{"matmul scalar", promote.Config{}, []string{"f32[]", "f32[3]"}, func(a []trace.Value) trace.Value { return a[0].MatMul(a[1]) }, shapeErr, "matmul", "not scalars"},
		{"squeeze", promote.Config{}, []string{"f32[2,3]"}, func(a []trace.Value) trace.Value { return a[0].Squeeze(1) }, shapeErr, "squeeze", "size is 3"},
		{"empty max", promote.Config{}, []string{"f32[0,3]"}, func(a []trace.Value) trace.Value { return a[0].Max(0) }, shapeErr, "reduce_max", "no identity"},
		{"empty argmax", promote.Config{}, []string{"f32[0]"}, func(a []trace.Value) trace.Value { return a[0].ArgMax(0) }, shapeErr, "argmax", "empty"},
		{"broadcast_to", promote.Config{}, []string{"f32[3]"}, func(a []trace.Value) trace.Value { return a[0].BroadcastTo(3, 2) }, shapeErr, "broadcast_to", "cannot broadcast [3] to [3,2]"},
		{"where shapes", promote.Config{}, []string{"bool[2]", "f32[3]"}, func(a []trace.Value) trace.Value { return trace.Where(a[0], a[1], a[1]) }, shapeErr, "select", "do not broadcast"},
		{"first error sticks", promote.Config{}, []string{"f32[3]", "f32[4]"}, func(a []trace.Value) trace.Value {
			bad := a[0].Add(a[1])
			return bad.Sub(a[0]).Sum(7)
		}, shapeErr, "add", "do not broadcast"},
		{"pow bool", promote.Config{}, []string{"bool[2]"}, func(a []trace.Value) trace.Value { return a[0].Pow(a[0]) }, dtypeErr, "pow", "not defined for bool"},
		{"int pow negative", promote.Config{}, []string{"i32[2]"}, func(a []trace.Value) trace.Value { return a[0].Pow(trace.Int(-2)) }, dtypeErr, "pow", "negative integer power"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := traceOne(t, c.cfg, c.inputs, c.fn)
			if err == nil {
				t.Fatalf("no error; program:\n%s", p)
			}
			var se *trace.ShapeError
			var de *trace.DTypeError
			var oe *trace.OpError
			var pe *promote.PromotionError
			var ove *promote.OverflowError
			var op string
			var pos trace.Pos
			switch {
			case c.kind == shapeErr && errors.As(err, &se):
				op, pos = se.Op, se.Pos
			case c.kind == dtypeErr && errors.As(err, &de):
				op, pos = de.Op, de.Pos
			case c.kind == promoteErr && errors.As(err, &oe) && errors.As(err, &pe):
				op, pos = oe.Op, oe.Pos
			case c.kind == overflowErr && errors.As(err, &oe) && errors.As(err, &ove):
				op, pos = oe.Op, oe.Pos
			default:
				t.Fatalf("error %T %q is not of the expected kind", err, err)
			}
			if op != c.op {
				t.Errorf("op = %q, want %q", op, c.op)
			}
			if !strings.HasSuffix(pos.File, "trace_test.go") || pos.Line == 0 {
				t.Errorf("position %q does not point at the test's line", pos)
			}
			msg := err.Error()
			if !strings.HasPrefix(msg, "trace: "+c.op+" at ") || !strings.Contains(msg, c.msg) {
				t.Errorf("message %q: want prefix %q and %q", msg, "trace: "+c.op+" at ", c.msg)
			}
		})
	}
}

func TestLiteralMaterializedAtFinalDType(t *testing.T) {
	p, err := traceOne(t, promote.Config{}, []string{"f16[2]"}, func(a []trace.Value) trace.Value {
		return a[0].Add(trace.Float(1e6)) // overflows f16: ±Inf, as in JAX
	})
	if err != nil {
		t.Fatal(err)
	}
	var konst *trace.Eqn
	for _, e := range p.Eqns {
		if e.Op == trace.OpConst {
			konst = e
		}
		if e.Op == trace.OpConvert {
			t.Errorf("a literal needs no convert: %s", e)
		}
	}
	if konst == nil || konst.Out.Type.DType != tensor.F16 || konst.Params.Value.FormatElem(0) != "inf" {
		t.Errorf("literal const = %v\n%s", konst, p)
	}
}

func TestInputsUntouchedAndNoOutputs(t *testing.T) {
	abs := []trace.Abstract{{Type: promote.Strong(tensor.F32), Shape: []int{2, 3}}}
	_, err := trace.Trace(promote.Config{}, abs, func(a []trace.Value) []trace.Value { return nil })
	if err == nil {
		t.Error("no outputs: want an error")
	}
	p, _ := trace.Trace(promote.Config{}, abs, func(a []trace.Value) []trace.Value {
		sh := a[0].Shape()
		sh[0] = 99 // Shape returns a copy
		return []trace.Value{a[0].Transpose()}
	})
	if abs[0].Shape[0] != 2 || p.Inputs[0].Shape[0] != 2 {
		t.Error("tracing changed an input shape")
	}
	if _, err := trace.Trace(promote.Config{}, []trace.Abstract{{Type: promote.Strong(tensor.F32), Shape: []int{-1}}},
		func(a []trace.Value) []trace.Value { return a }); err == nil {
		t.Error("negative input dimension: want an error")
	}
}

// An integer literal exponent is JAX's integer_pow: multiplications only.
func TestIntegerPow(t *testing.T) {
	cases := []struct {
		n    int64
		in   string
		want string // the op sequence of the program
		out  string
	}{
		{2, "f32[3]", "mul", "f32[3]"},
		{3, "f16[3]", "mul mul", "f16[3]"},
		{5, "i8[3]", "mul mul mul", "i8[3]"},
		{-2, "f64[3]", "mul const div", "f64[3]"},
	}
	for _, c := range cases {
		p, err := traceOne(t, promote.Config{}, []string{c.in}, func(a []trace.Value) trace.Value { return a[0].Pow(trace.Int(c.n)) })
		if err != nil {
			t.Fatal(err)
		}
		var ops []string
		for _, e := range p.Eqns {
			ops = append(ops, e.Op.String())
		}
		if got := strings.Join(ops, " "); got != c.want || p.Outputs[0].TypeString() != c.out {
			t.Errorf("x ** %d on %s: ops %q -> %s, want %q -> %s", c.n, c.in, got, p.Outputs[0].TypeString(), c.want, c.out)
		}
	}
}

func TestLogicalOps(t *testing.T) {
	p, err := traceOne(t, promote.Config{}, []string{"f32[3]", "i8[3]"}, func(a []trace.Value) trace.Value {
		return trace.LogicalXor(trace.LogicalAnd(a[0], a[1]), trace.LogicalNot(trace.LogicalOr(a[1], trace.Bool(false))))
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := p.Outputs[0].TypeString(); got != "bool[3]" {
		t.Errorf("logical ops give %s, want bool[3]\n%s", got, p)
	}
}
