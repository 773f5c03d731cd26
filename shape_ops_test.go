package kiln_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/kiln-go/kiln"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// numpyEval evaluates Python expressions over x (np.arange(12).reshape(3,
// 4)) with NumPy and returns each result flattened with its shape.
func numpyEval(t *testing.T, exprs []string) [][2][]int64 {
	t.Helper()
	numpyOrSkip(t)
	script := "import numpy as np, json\nx = np.arange(12).reshape(3, 4)\nout = []\n"
	for _, e := range exprs {
		script += fmt.Sprintf("r = np.asarray(%s)\nout.append([list(r.shape), [int(v) for v in r.ravel()]])\n", e)
	}
	script += "print(json.dumps(out))\n"
	out, err := exec.Command(numpyPython, "-c", script).Output()
	if err != nil {
		t.Fatalf("numpy: %v\n%s", err, script)
	}
	var res [][2][]int64
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatal(err)
	}
	return res
}

// numpyCaseI is a Kiln value and the NumPy expression it must equal
// (exactly, as int64).
type numpyCaseI struct {
	numpy string
	v     kiln.Value
}

// checkNumPy evaluates every case in Kiln and in one NumPy run and
// compares shapes and values.
func checkNumPy(t *testing.T, cases []numpyCaseI) {
	t.Helper()
	var exprs []string
	for _, c := range cases {
		exprs = append(exprs, c.numpy)
	}
	want := numpyEval(t, exprs)
	for i, c := range cases {
		a, err := kiln.Eval(c.v)
		if err != nil {
			t.Errorf("%s: %v", c.numpy, err)
			continue
		}
		shape := make([]int64, len(a.Shape()))
		for j, n := range a.Shape() {
			shape[j] = int64(n)
		}
		if got := a.Astype(tensor.I64).Data().([]int64); !slices.Equal(shape, want[i][0]) || !slices.Equal(got, want[i][1]) {
			t.Errorf("%s: Kiln %v %v, NumPy %v %v", c.numpy, shape, got, want[i][0], want[i][1])
		}
	}
}

// pad, roll, tile, repeat, stack and split against NumPy's.
func TestShapeOpsMatchNumPy(t *testing.T) {
	x := kiln.Const(tensor.Must(tensor.FromSlice([]int64{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, 3, 4)))
	parts := trace.SplitAt(x, []int{1, 3}, 1)
	cases := []numpyCaseI{
		{"np.pad(x, ((1, 2), (3, 1)))", trace.Pad(x, [][2]int{{1, 2}, {3, 1}}, trace.PadConstant, kiln.Value{})},
		{"np.pad(x, 2, constant_values=7)", trace.Pad(x, [][2]int{{2, 2}}, trace.PadConstant, kiln.Int(7))},
		{"np.pad(x, ((2, 1), (5, 6)), mode='edge')", trace.Pad(x, [][2]int{{2, 1}, {5, 6}}, trace.PadEdge, kiln.Value{})},
		{"np.pad(x, ((2, 4), (7, 6)), mode='reflect')", trace.Pad(x, [][2]int{{2, 4}, {7, 6}}, trace.PadReflect, kiln.Value{})},
		{"np.pad(x, ((2, 4), (9, 6)), mode='symmetric')", trace.Pad(x, [][2]int{{2, 4}, {9, 6}}, trace.PadSymmetric, kiln.Value{})},
		{"np.pad(x, ((2, 3), (4, 1)), mode='wrap')", trace.Pad(x, [][2]int{{2, 3}, {4, 1}}, trace.PadWrap, kiln.Value{})},
		// Wider than the axis, JAX's wrap is periodic (NumPy's is not).
		{"np.take(np.take(x, np.arange(-4, 3 + 5) % 3, axis=0), np.arange(-9, 4 + 1) % 4, axis=1)", trace.Pad(x, [][2]int{{4, 5}, {9, 1}}, trace.PadWrap, kiln.Value{})},
		{"np.roll(x, 5)", trace.Roll(x, 5, trace.AxisNone)},
		{"np.roll(x, -1, axis=1)", trace.Roll(x, -1, 1)},
		{"np.tile(x, (2, 1, 3))", trace.Tile(x, 2, 1, 3)},
		{"np.tile(x, 2)", trace.Tile(x, 2)},
		{"np.repeat(x, 2)", trace.Repeat(x, []int{2}, trace.AxisNone)},
		{"np.repeat(x, [0, 2, 1], axis=0)", trace.Repeat(x, []int{0, 2, 1}, 0)},
		{"np.stack([x, x + 1], axis=1)", trace.Stack(1, x, x.Add(kiln.Int(1)))},
		{"np.split(x, [1, 3], axis=1)[0]", parts[0]},
		{"np.split(x, [1, 3], axis=1)[1]", parts[1]},
		{"np.split(x, [1, 3], axis=1)[2]", parts[2]},
		{"np.split(x, 3)[1]", trace.Split(x, 3, 0)[1]},
	}
	checkNumPy(t, cases)
}

// The structural functions keep the dtype and refuse bad arguments with
// typed errors.
func TestShapeOpsErrors(t *testing.T) {
	x := kiln.Const(tensor.Must(tensor.FromSlice([]float32{1, 2, 3, 4, 5, 6}, 2, 3)))
	if d := evalArr(t, trace.Pad(x, [][2]int{{1, 1}}, trace.PadReflect, kiln.Value{})).DType(); d != tensor.F32 {
		t.Errorf("pad changed the dtype to %v", d)
	}
	if d := evalArr(t, trace.Pad(x, [][2]int{{1, 1}}, trace.PadConstant, kiln.Float(0.5))).DType(); d != tensor.F32 {
		t.Errorf("pad with a weak float value: %v, want f32", d)
	}
	empty := kiln.Const(tensor.Must(tensor.Zeros(tensor.F32, 0, 2)))
	if a := evalArr(t, trace.Pad(empty, [][2]int{{1, 0}, {0, 0}}, trace.PadConstant, kiln.Int(3))); !slices.Equal(a.Shape(), []int{1, 2}) {
		t.Errorf("constant pad of an empty axis: %v", a.Shape())
	}
	for name, v := range map[string]kiln.Value{
		"split unequal":  trace.Split(x, 2, 1)[0],
		"split axis":     trace.Split(x, 1, 2)[0],
		"pad widths":     trace.Pad(x, [][2]int{{1, 1}, {1, 1}, {1, 1}}, trace.PadEdge, kiln.Value{}),
		"pad negative":   trace.Pad(x, [][2]int{{-1, 1}}, trace.PadEdge, kiln.Value{}),
		"pad empty edge": trace.Pad(empty, [][2]int{{1, 1}}, trace.PadEdge, kiln.Value{}),
		"repeat counts":  trace.Repeat(x, []int{1, 2}, 1),
		"tile negative":  trace.Tile(x, -1),
		"stack shapes":   trace.Stack(0, x, x.Reshape(3, 2)),
		"roll axis":      trace.Roll(x, 1, 5),
	} {
		_, err := kiln.Eval(v)
		var se *trace.ShapeError
		if !errors.As(err, &se) || !strings.Contains(err.Error(), "shape_ops_test.go:") {
			t.Errorf("%s: %v, want a *trace.ShapeError at this file's line", name, err)
		}
	}
}

// cumsum, cumprod, cummax and cummin against NumPy's (integers exactly)
// and JAX's dtype rules.
func TestCumulative(t *testing.T) {
	x := kiln.Const(tensor.Must(tensor.FromSlice([]int64{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, 3, 4)))
	mixed := x.Mul(kiln.Int(7)).Rem(kiln.Int(5)).Sub(kiln.Int(2)) // -2..2, unordered
	cases := []numpyCaseI{
		{"np.cumsum(x, axis=1)", x.Cumsum(1)},
		{"np.cumsum(x)", x.Cumsum(trace.AxisNone)},
		{"np.cumprod(x + 1, axis=0)", x.Add(kiln.Int(1)).Cumprod(0)},
		{"np.maximum.accumulate(x * 7 % 5 - 2, axis=1)", mixed.Cummax(1)},
		{"np.minimum.accumulate(x * 7 % 5 - 2, axis=0)", mixed.Cummin(0)},
		{"np.cumsum(np.arange(13) % 3)", kiln.Arange(0, 13, 1).Rem(kiln.Int(3)).Cumsum(0)},
	}
	checkNumPy(t, cases)
	i8 := kiln.Const(tensor.Must(tensor.FromSlice([]int8{100, 100, 100})))
	if a := evalArr(t, i8.Cumsum(0)); a.DType() != tensor.I64 || a.Data().([]int64)[2] != 300 {
		t.Errorf("cumsum of i8 = %v, want i64 accumulation", a)
	}
	if a := evalArr(t, i8.Cumsum(0, tensor.I8)); a.DType() != tensor.I8 {
		t.Errorf("cumsum of i8 with dtype i8 = %v", a.DType())
	}
	if a := evalArr(t, i8.Cummax(0)); a.DType() != tensor.I8 {
		t.Errorf("cummax of i8 = %v, want i8", a.DType())
	}
	fl := kiln.Const(tensor.Must(tensor.FromSlice([]float64{1, math.NaN(), 3, 0.5})))
	if got := f64s(t, evalArr(t, fl.Cummax(0))); got[0] != 1 || !math.IsNaN(got[1]) || !math.IsNaN(got[3]) {
		t.Errorf("cummax with a NaN = %v, want NaN from it on", got)
	}
	r := make([]float64, 1000)
	for i := range r {
		r[i] = math.Sin(float64(i))
	}
	sum, cs := 0.0, f64s(t, evalArr(t, kiln.Const(tensor.Must(tensor.FromSlice(r))).Cumsum(0)))
	for i, v := range r {
		sum += v
		if math.Abs(cs[i]-sum) > 1e-12 {
			t.Fatalf("cumsum[%d] = %v, sequential %v", i, cs[i], sum)
		}
	}
	var se *trace.ShapeError
	if _, err := kiln.Eval(x.Cumsum(2)); !errors.As(err, &se) {
		t.Errorf("cumsum axis 2: %v", err)
	}
}

// einsum against NumPy's on matmuls, batches, traces of products, outer
// products, transposes and a three-operand chain.
func TestEinsum(t *testing.T) {
	a := kiln.Arange(0, 6, 1).Reshape(2, 3)
	b := kiln.Arange(0, 12, 1).Reshape(3, 4)
	c := kiln.Arange(0, 8, 1).Reshape(4, 2)
	bt := kiln.Arange(0, 24, 1).Reshape(2, 3, 4)
	cases := []numpyCaseI{
		{"np.einsum('ij,jk->ik', np.arange(6).reshape(2, 3), np.arange(12).reshape(3, 4))", trace.Einsum("ij,jk->ik", a, b)},
		{"np.einsum('ij,jk', np.arange(6).reshape(2, 3), np.arange(12).reshape(3, 4))", trace.Einsum("ij,jk", a, b)},
		{"np.einsum('ij,jk->ki', np.arange(6).reshape(2, 3), np.arange(12).reshape(3, 4))", trace.Einsum("ij,jk->ki", a, b)},
		{"np.einsum('bij,bjk->bik', np.arange(24).reshape(2, 3, 4), np.arange(24).reshape(2, 4, 3))", trace.Einsum("bij,bjk->bik", bt, kiln.Arange(0, 24, 1).Reshape(2, 4, 3))},
		{"np.einsum('ij,jk,kl->il', np.arange(6).reshape(2, 3), np.arange(12).reshape(3, 4), np.arange(8).reshape(4, 2))", trace.Einsum("ij,jk,kl->il", a, b, c)},
		{"np.einsum('ij->ji', np.arange(6).reshape(2, 3))", trace.Einsum("ij->ji", a)},
		{"np.einsum('ij->', np.arange(6).reshape(2, 3))", trace.Einsum("ij->", a)},
		{"np.einsum('i,j->ij', np.arange(3), np.arange(4))", trace.Einsum("i,j->ij", kiln.Arange(0, 3, 1), kiln.Arange(0, 4, 1))},
		{"np.einsum('ij,ij->i', np.arange(6).reshape(2, 3), np.arange(6).reshape(2, 3))", trace.Einsum("ij,ij->i", a, a)},
		{"np.einsum('bij,jk->bk', np.arange(24).reshape(2, 3, 4), np.arange(8).reshape(4, 2) * 0 + np.arange(4)[:, None])", trace.Einsum("bij,jk->bk", bt.Reshape(2, 3, 4).Transpose(0, 1, 2), c.Mul(kiln.Int(0)).Add(kiln.Arange(0, 4, 1).Reshape(4, 1)))},
		// Ellipses: batch dims broadcast right-aligned, kept first without "->".
		{"np.einsum('...ij,jk', np.arange(24).reshape(2, 3, 4), np.arange(8).reshape(4, 2))", trace.Einsum("...ij,jk", bt, c)},
		{"np.einsum('...ij,...jk->...ik', np.arange(24).reshape(2, 3, 4), np.arange(8).reshape(1, 4, 2))", trace.Einsum("...ij,...jk->...ik", bt, c.Reshape(1, 4, 2))},
		{"np.einsum('i...,i...', np.arange(6).reshape(3, 2), np.arange(3).reshape(3, 1))", trace.Einsum("i...,i...", kiln.Arange(0, 6, 1).Reshape(3, 2), kiln.Arange(0, 3, 1).Reshape(3, 1))},
		{"np.einsum('ba...', np.arange(24).reshape(3, 2, 4))", trace.Einsum("ba...", bt.Reshape(3, 2, 4))},
		{"np.einsum('...->...', np.arange(6).reshape(2, 3))", trace.Einsum("...->...", a)},
		{"np.einsum('...i,i->...', np.arange(6).reshape(2, 3), np.arange(3))", trace.Einsum("...i,i->...", a, kiln.Arange(0, 3, 1))},
	}
	checkNumPy(t, cases)
	for spec, ops := range map[string][]kiln.Value{
		"ii->i":     {kiln.Eye(2, 2, 0)},
		"ij,jk":     {a},
		"ijk,jk":    {a, b},
		"...i,i->i": {a, kiln.Arange(0, 3, 1)}, // the output drops the ellipsis's dims
		"....i,i":   {a, kiln.Arange(0, 3, 1)},
		"...ijk":    {a},
		"ij,jk->iz": {a, b},
	} {
		var se *trace.ShapeError
		if _, err := kiln.Eval(trace.Einsum(spec, ops...)); !errors.As(err, &se) {
			t.Errorf("einsum %q: %v, want a *trace.ShapeError", spec, err)
		}
	}
}

// Float arange: NumPy's values bit for bit (compared as their bits), in
// each float dtype NumPy has, with steps that do not divide the range,
// negative steps and empty results.
func TestArangeFloatMatchesNumPy(t *testing.T) {
	type c struct {
		start, stop, step float64
		d                 tensor.DType
		np, bits          string
	}
	var cases []numpyCaseI
	for _, a := range []c{
		{0, 1, 0.1, tensor.F64, "np.float64", "np.int64"}, {0, 1, 0.1, tensor.F32, "np.float32", "np.int32"},
		{-3.5, 7.25, 0.3, tensor.F32, "np.float32", "np.int32"}, {1e8, 1e8 + 50, 3.3, tensor.F32, "np.float32", "np.int32"},
		{5, -5, -0.7, tensor.F64, "np.float64", "np.int64"}, {0.1, 2.3, 0.17, tensor.F16, "np.float16", "np.int16"},
		{1, 1, 0.5, tensor.F32, "np.float32", "np.int32"}, {2, 1, 0.5, tensor.F64, "np.float64", "np.int64"},
	} {
		u := map[tensor.DType]tensor.DType{tensor.F64: tensor.I64, tensor.F32: tensor.I32, tensor.F16: tensor.I16}[a.d]
		cases = append(cases, numpyCaseI{
			fmt.Sprintf("np.arange(%v, %v, %v, dtype=%s).view(%s)", a.start, a.stop, a.step, a.np, a.bits),
			kiln.ArangeFloat(a.start, a.stop, a.step, a.d).BitcastConvert(u)})
	}
	checkNumPy(t, cases)
	if _, err := kiln.Eval(kiln.ArangeFloat(0, 1, 0)); err == nil {
		t.Error("a zero step: no error")
	}
	if _, err := kiln.Eval(kiln.ArangeFloat(0, 1, 0.5, tensor.I32)); err == nil {
		t.Error("an int dtype: no error")
	}
	if got := tensor.Must(kiln.Eval(kiln.ArangeFloat(0, 1, 0.25))); got.DType() != tensor.F64 || got.Size() != 4 {
		t.Errorf("default dtype and length: %v %v", got.DType(), got.Shape())
	}
}
