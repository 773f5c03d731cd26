package reference

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/kiln-go/kiln/promote"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// Test helpers: build arrays tersely, trace a function over them, evaluate
// it and compare bit for bit.

// arr makes an array of the given shape; nil shape means 1-D.
func arr[T tensor.Elem](shape []int, v ...T) *tensor.Array {
	if shape == nil {
		shape = []int{len(v)}
	}
	a, err := tensor.FromSlice(v, shape...)
	if err != nil {
		panic(err) // a broken test table, not a test failure
	}
	return a
}

// vec makes a 1-D array.
func vec[T tensor.Elem](v ...T) *tensor.Array { return arr(nil, v...) }

// scalar makes a rank-0 array.
func scalar[T tensor.Elem](v T) *tensor.Array { return tensor.Scalar(v) }

// shp spells a shape.
func shp(d ...int) []int { return d }

// h16 makes f16 values from their bits.
func h16(bits ...uint16) []tensor.Float16 {
	out := make([]tensor.Float16, len(bits))
	for i, b := range bits {
		out[i] = tensor.Float16FromBits(b)
	}
	return out
}

// b16 makes bf16 values from their bits.
func b16(bits ...uint16) []tensor.BFloat16 {
	out := make([]tensor.BFloat16, len(bits))
	for i, b := range bits {
		out[i] = tensor.BFloat16FromBits(b)
	}
	return out
}

// f32b and f64b make floats from their bits (NaN payloads, −0).
func f32b(b uint32) float32 { return math.Float32frombits(b) }
func f64b(b uint64) float64 { return math.Float64frombits(b) }

var (
	nan32 = f32b(0x7fc00000)
	nan64 = math.NaN()
	inf32 = float32(math.Inf(1))
	inf64 = math.Inf(1)
	neg0  = math.Copysign(0, -1)
)

const two24 = 1 << 24 // 16777216: above it, float32 holds only even integers

// traceFn traces fn over abstract inputs with the dtypes and shapes of in.
func traceFn(t *testing.T, cfg promote.Config, in []*tensor.Array, fn func(a []trace.Value) trace.Value) *trace.Program {
	t.Helper()
	abs := make([]trace.Abstract, len(in))
	for i, a := range in {
		abs[i] = trace.Abstract{Type: promote.Strong(a.DType()), Shape: a.Shape()}
	}
	p, err := trace.Trace(cfg, abs, func(a []trace.Value) []trace.Value { return []trace.Value{fn(a)} })
	if err != nil {
		t.Fatalf("trace: %v", err)
	}
	return p
}

// eval1 traces fn and evaluates its one output.
func eval1(t *testing.T, cfg promote.Config, in []*tensor.Array, fn func(a []trace.Value) trace.Value) *tensor.Array {
	t.Helper()
	p := traceFn(t, cfg, in, fn)
	outs, err := Eval(p, in, Options{})
	if err != nil {
		t.Fatalf("eval: %v\n%s", err, p)
	}
	return outs[0]
}

// opCase is one row of an op table: inputs, a traced function and the
// expected output, compared bit for bit.
type opCase struct {
	name string
	in   []*tensor.Array
	fn   func(a []trace.Value) trace.Value
	want *tensor.Array
}

func in(a ...*tensor.Array) []*tensor.Array { return a }

func runCases(t *testing.T, cfg promote.Config, cases []opCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := eval1(t, cfg, c.in, c.fn)
			if !sameValues(got, c.want) {
				t.Errorf("got  %s %s\nwant %s %s\n%s", got, bits(got), c.want, bits(c.want), traceFn(t, cfg, c.in, c.fn))
			}
		})
	}
}

// The canonical quiet NaNs of each format (math.NaN's for f64) stand, in
// expected values, for "any NaN": the bits of a NaN an op creates (0/0,
// sqrt(−1)) are the hardware's and differ between architectures, while a
// NaN an op propagates keeps its payload and is written with other bits.
const (
	anyNaN16   = 0x7e00
	anyNaNbf16 = 0x7fc0
	anyNaN32   = 0x7fc00000
)

var anyNaN64 = math.Float64bits(math.NaN())

// sameValues reports whether got has want's dtype, shape and bits, an
// any-NaN in want matching every NaN.
func sameValues(got, want *tensor.Array) bool {
	if got.DType() != want.DType() || !trace.ShapeEqual(got.Shape(), want.Shape()) {
		return false
	}
	for i := 0; i < got.Size(); i++ {
		g, w := tensor.Index(got.Data(), i), tensor.Index(want.Data(), i)
		if !sameElem(g, w) {
			return false
		}
	}
	return true
}

func sameElem(g, w any) bool {
	switch w := w.(type) {
	case tensor.Float16:
		g := g.(tensor.Float16)
		return g.Bits() == w.Bits() || (w.Bits() == anyNaN16 && g.IsNaN())
	case tensor.BFloat16:
		g := g.(tensor.BFloat16)
		return g.Bits() == w.Bits() || (w.Bits() == anyNaNbf16 && g.IsNaN())
	case float32:
		g := g.(float32)
		return math.Float32bits(g) == math.Float32bits(w) || (math.Float32bits(w) == anyNaN32 && g != g)
	case float64:
		g := g.(float64)
		return math.Float64bits(g) == math.Float64bits(w) || (math.Float64bits(w) == anyNaN64 && g != g)
	case complex64:
		g := g.(complex64)
		return sameElem(real(g), real(w)) && sameElem(imag(g), imag(w))
	case complex128:
		g := g.(complex128)
		return sameElem(real(g), real(w)) && sameElem(imag(g), imag(w))
	}
	return g == w
}

// bits prints the bit patterns of float elements, where values that print
// alike can still differ (−0, NaN payloads, the last ulp).
func bits(a *tensor.Array) string {
	var parts []string
	for i := 0; i < a.Size(); i++ {
		switch v := tensor.Index(a.Data(), i).(type) {
		case tensor.Float16:
			parts = append(parts, fmt.Sprintf("%#04x", v.Bits()))
		case tensor.BFloat16:
			parts = append(parts, fmt.Sprintf("%#04x", v.Bits()))
		case float32:
			parts = append(parts, fmt.Sprintf("%#08x", math.Float32bits(v)))
		case float64:
			parts = append(parts, fmt.Sprintf("%#016x", math.Float64bits(v)))
		default:
			return ""
		}
	}
	return "bits [" + strings.Join(parts, " ") + "]"
}

// Shorthands for traced functions.

func unary(f func(trace.Value) trace.Value) func(a []trace.Value) trace.Value {
	return func(a []trace.Value) trace.Value { return f(a[0]) }
}

func binary(f func(x, y trace.Value) trace.Value) func(a []trace.Value) trace.Value {
	return func(a []trace.Value) trace.Value { return f(a[0], a[1]) }
}
