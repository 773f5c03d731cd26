package kiln_test

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/kiln-go/kiln"
	"github.com/kiln-go/kiln/kernels"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// TestNilAndZeroInputs: nil and zero-value inputs are typed errors naming
// the operand. Before, Jit with WithBackend(nil) panicked at Run, Const(nil)
// panicked inside the traced function, and x.Add(kiln.Value{}) was blamed
// on the output ("result 0 is not a value").
func TestNilAndZeroInputs(t *testing.T) {
	x := arr(t, []float32{1, 2, 3})
	id := func(a kiln.Value) kiln.Value { return a }
	var nilBackend *nilPtrBackend
	var (
		argErr     *kiln.ArgError
		operandErr *trace.OperandError
	)
	for _, c := range []struct {
		name   string
		run    func() error
		target any
		msg    string // a fragment naming the operand
	}{
		{"Jit WithBackend(nil)", func() error { return kiln.Jit(id, kiln.WithBackend(nil)).Err() }, &argErr, "WithBackend(nil)"},
		{"Run WithBackend(nil)", func() error { _, err := kiln.Jit(id, kiln.WithBackend(nil)).Run(x); return err }, &argErr, "WithBackend(nil)"},
		{"typed nil backend", func() error { _, err := kiln.Jit(id, kiln.WithBackend(nilBackend)).Run(x); return err }, &argErr, "WithBackend(nil)"},
		{"Eval WithBackend(nil)", func() error { _, err := kiln.Eval(kiln.Const(x), kiln.WithBackend(nil)); return err }, &argErr, "WithBackend(nil)"},
		{"nil array", func() error { _, err := kiln.Jit(id).Run((*tensor.Array)(nil)); return err }, &argErr, "argument 0: nil *tensor.Array"},
		{"zero array", func() error { _, err := kiln.Jit(kiln.Value.Add).Run(x, &tensor.Array{}); return err }, &argErr, "argument 1: the zero tensor.Array"},
		{"nil weak array", func() error { _, err := kiln.Jit(id).Run(kiln.Weak(nil)); return err }, &argErr, "argument 0: weak array: nil"},
		{"zero Value operand", func() error {
			_, err := kiln.Jit(func(a kiln.Value) kiln.Value { return a.Add(kiln.Value{}) }).Run(x)
			return err
		}, &operandErr, "inputs_test.go:"},
		{"zero Value receiver", func() error {
			_, err := kiln.Jit(func(a kiln.Value) kiln.Value { return kiln.Value{}.Mul(a) }).Run(x)
			return err
		}, &operandErr, "operand 0 is the zero Value"},
		{"zero Value reduced", func() error { _, err := kiln.Eval(kiln.Value{}.Sum()); return err }, &operandErr, "reduce_sum"},
		{"zero Value in where", func() error {
			_, err := kiln.Jit(func(a kiln.Value) kiln.Value { return kiln.Where(a.Gt(kiln.Int(1)), kiln.Value{}, a) }).Run(x)
			return err
		}, &operandErr, "operand 1 is the zero Value"},
		{"Const(nil)", func() error {
			_, err := kiln.Jit(func(a kiln.Value) kiln.Value { return a.Add(kiln.Const(nil)) }).Run(x)
			return err
		}, &operandErr, "Const of a nil *tensor.Array"},
		{"Const of the zero Array", func() error { _, err := kiln.Eval(kiln.Const(&tensor.Array{})); return err }, &operandErr, "zero tensor.Array"},
		{"EvalAll of nothing", func() error { _, err := kiln.EvalAll(nil); return err }, &argErr, "EvalAll of no values"},
		{"RunInto nil output", func() error { return kiln.Jit(id).RunInto([]*tensor.Array{nil}, x) }, &argErr, "output 0: nil array"},
		{"RunInto no outputs", func() error { return kiln.Jit(id).RunInto(nil, x) }, &argErr, "has 1 outputs, got 0"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var err error
			func() {
				defer func() {
					if r := recover(); r != nil {
						t.Fatalf("panic: %v", r)
					}
				}()
				err = c.run()
			}()
			if !errors.As(err, c.target) || !strings.Contains(err.Error(), c.msg) {
				t.Fatalf("%v; want a %T mentioning %q", err, c.target, c.msg)
			}
			if strings.Contains(err.Error(), "output at") {
				t.Errorf("%q blames the output", err)
			}
		})
	}
	// A nil slice is an empty array, as in Go.
	if out, err := kiln.Jit(id).Run([]float32(nil)); err != nil || !out.HasShape([]int{0}) {
		t.Errorf("Run of a nil []float32: %v, %v", out, err)
	}
	// RunInto's errors are ArgErrors that still unwrap to the backend's.
	var ke *kernels.ArgError
	if err := kiln.Jit(id).RunInto([]*tensor.Array{arr(t, []float32{0, 0})}, x); !errors.As(err, &argErr) || !argErr.Output || !errors.As(err, &ke) {
		t.Errorf("RunInto with a wrong output shape: %v", err)
	}
}

// nilPtrBackend is a kernels.Backend whose nil pointer is a non-nil
// interface: WithBackend must refuse it too.
type nilPtrBackend struct{ kernels.Backend }

// TestIntArgs: Go's int, uint, []int and []uint map to the default integer
// dtypes as JAX maps Python ints and lists (int is weak as a Python int is;
// lists and uint are strong). Before, []int and uint were refused.
func TestIntArgs(t *testing.T) {
	id := kiln.Jit(func(a kiln.Value) kiln.Value { return a })
	id32 := kiln.Jit(func(a kiln.Value) kiln.Value { return a }, kiln.X32())
	for _, c := range []struct {
		f    *kiln.Func
		arg  any
		want string
	}{
		{id, 3, "i64*[] 3"},
		{id32, 3, "i32*[] 3"},
		{id, []int{1, -2, 3}, "i64[3] [1 -2 3]"},
		{id32, []int{1, -2, 3}, "i32[3] [1 -2 3]"},
		{id, uint(7), "u64[] 7"},
		{id32, uint(7), "u32[] 7"},
		{id, []uint{1, math.MaxUint64}, "u64[2] [1 18446744073709551615]"},
		{id32, []uint{4, 5}, "u32[2] [4 5]"},
		{id, []int{}, "i64[0] []"},
	} {
		p, err := c.f.Trace(c.arg)
		if err != nil {
			t.Errorf("%T %v: %v", c.arg, c.arg, err)
			continue
		}
		out, err := c.f.Run(c.arg)
		typ := p.Inputs[0].TypeString()
		got := strings.Replace(out.String(), out.DType().String(), typ[:strings.Index(typ, "[")], 1)
		if err != nil || got != c.want {
			t.Errorf("%T %v: %s, %v; want %s", c.arg, c.arg, got, err, c.want)
		}
	}
	// Strong default ints promote as arrays, not as weak literals.
	out, err := kiln.Jit(func(a, b kiln.Value) kiln.Value { return a.Add(b) }).Run(arr(t, []int8{1, 2}), []int{3, 4})
	if err != nil || out.String() != "i64[2] [4 6]" {
		t.Errorf("i8 + []int: %v, %v", out, err)
	}
	var argErr *kiln.ArgError
	for _, bad := range []any{[]int{1, math.MaxInt32 + 1}, []int{math.MinInt32 - 1}, uint(math.MaxUint32 + 1), []uint{math.MaxUint32 + 1}} {
		if _, err := id32.Run(bad); !errors.As(err, &argErr) || !strings.Contains(err.Error(), "32-bit mode") {
			t.Errorf("X32 %T %v: %v", bad, bad, err)
		}
	}
}

// TestHugeShapesThroughJit: the examples through the public API.
func TestHugeShapesThroughJit(t *testing.T) {
	one := tensor.Scalar(float32(1))
	var se *tensor.SizeError
	_, err := kiln.Jit(func(x kiln.Value) kiln.Value { return x.BroadcastTo(1<<40, 1<<40, 2, 3).Sum() }).Run(one)
	if !errors.As(err, &se) || !slices.Equal(se.Shape, []int{1 << 40, 1 << 40, 2, 3}) {
		t.Errorf("sum(broadcast_to(x, (2**40, 2**40, 2, 3))): %v", err)
	}
	_, err = kiln.Eval(kiln.Const(one).BroadcastTo(1<<40, 1<<40, 2, 3).Sum())
	if !errors.As(err, &se) {
		t.Errorf("Eval of the same: %v", err)
	}
	old := tensor.SetMaxAlloc(1 << 20)
	defer tensor.SetMaxAlloc(old)
	_, err = kiln.Jit(func(x kiln.Value) kiln.Value { return x.BroadcastTo(1024, 1024).Exp() }).Run(one)
	if !errors.As(err, &se) || se.Limit != 1<<20 || !strings.Contains(err.Error(), "inputs_test.go:") {
		t.Errorf("a 4 MiB result under a 1 MiB limit: %v", err)
	}
}
