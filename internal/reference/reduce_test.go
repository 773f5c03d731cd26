package reference

import (
	"math"
	"testing"

	"github.com/kiln-go/kiln/promote"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

func reduceFn(op trace.Op, axes []int, keep bool) func(a []trace.Value) trace.Value {
	return func(a []trace.Value) trace.Value { return trace.Reduce(op, a[0], axes, keep) }
}

func TestReductions(t *testing.T) {
	nanA, nanB := f32b(0x7fc00001), f32b(0x7fc00002)
	n0 := float32(neg0)
	// x[i,j,k] = 6i + 2j + k over shape [2,3,2].
	x := tensor.Must(tensor.Arange(tensor.I32, 12))
	x, _ = x.Reshape(2, 3, 2)
	cases := []opCase{
		// i32 sums and products accumulate in the default int, i64.
		// Over i and k for each j: (0+1+6+7), (2+3+8+9), (4+5+10+11).
		{"sum axes 0,2 keepdims", in(x), reduceFn(trace.OpReduceSum, []int{0, 2}, true), arr(shp(1, 3, 1), int64(14), 22, 30)},
		{"sum axes 0,2", in(x), reduceFn(trace.OpReduceSum, []int{0, 2}, false), vec[int64](14, 22, 30)},
		{"sum all", in(x), reduceFn(trace.OpReduceSum, nil, false), scalar[int64](66)},
		{"sum i8 in i64", in(vec[int8](100, 100, 100)), reduceFn(trace.OpReduceSum, nil, false), scalar[int64](300)},
		{"sum u8 in u64", in(vec[uint8](200, 200)), reduceFn(trace.OpReduceSum, nil, false), scalar[uint64](400)},
		{"sum bool counts", in(vec(true, false, true)), reduceFn(trace.OpReduceSum, nil, false), scalar[int64](2)},
		{"sum i64 wraps", in(vec[int64](math.MaxInt64, 1)), reduceFn(trace.OpReduceSum, nil, false), scalar[int64](math.MinInt64)},
		{"sum of nothing", in(arr[float32](shp(2, 0))), reduceFn(trace.OpReduceSum, []int{1}, false), vec[float32](0, 0)},
		{"sum of one -0 is +0 (a sum starts from +0)", in(vec(n0)), reduceFn(trace.OpReduceSum, nil, false), scalar(float32(0))},
		{"sum of -0 and -0 is +0", in(vec(n0, n0)), reduceFn(trace.OpReduceSum, nil, false), scalar(float32(0))},
		{"prod", in(arr(shp(2, 3), int64(1), 2, 3, 4, 5, 6)), reduceFn(trace.OpReduceProd, []int{1}, false), vec[int64](6, 120)},
		{"prod keepdims", in(arr(shp(2, 3), int32(1), 2, 3, 4, 5, 6)), reduceFn(trace.OpReduceProd, []int{0}, true), arr(shp(1, 3), int64(4), 10, 18)},
		{"prod of nothing", in(arr[int64](shp(2, 0))), reduceFn(trace.OpReduceProd, []int{1}, false), vec[int64](1, 1)},
		{"prod f64", in(vec(0.5, -3.0, 2.0)), reduceFn(trace.OpReduceProd, nil, false), scalar(-3.0)},
		{"max first NaN wins", in(vec[float32](1, nanA, 3, nanB)), reduceFn(trace.OpReduceMax, nil, false), scalar(nanA)},
		{"min first NaN wins", in(vec[float32](1, nanB, -3, nanA)), reduceFn(trace.OpReduceMin, nil, false), scalar(nanB)},
		{"max -0 +0", in(vec(n0, 0, n0)), reduceFn(trace.OpReduceMax, nil, false), scalar[float32](0)},
		{"min +0 -0", in(vec(0, n0, 0)), reduceFn(trace.OpReduceMin, nil, false), scalar(n0)},
		{"max axis", in(arr(shp(2, 2), int16(3), -4, -1, 7)), reduceFn(trace.OpReduceMax, []int{0}, false), vec[int16](3, 7)},
		{"min axis", in(arr(shp(2, 2), int16(3), -4, -1, 7)), reduceFn(trace.OpReduceMin, []int{1}, false), vec[int16](-4, -1)},
		{"max bool is any", in(vec(false, true)), reduceFn(trace.OpReduceMax, nil, false), scalar(true)},
		{"min bool is all", in(vec(false, true)), reduceFn(trace.OpReduceMin, nil, false), scalar(false)},
		{"max f16", in(vec(h16(0x3c00, 0xfc00, 0x4000)...)), reduceFn(trace.OpReduceMax, nil, false), scalar(h16(0x4000)[0])},
	}
	runCases(t, promote.Config{}, cases)
}

func TestArgMaxArgMin(t *testing.T) {
	argmax := func(axis int) func(a []trace.Value) trace.Value {
		return func(a []trace.Value) trace.Value { return a[0].ArgMax(axis) }
	}
	argmin := func(axis int) func(a []trace.Value) trace.Value {
		return func(a []trace.Value) trace.Value { return a[0].ArgMin(axis) }
	}
	n0 := float32(neg0)
	m := arr(shp(2, 4), float32(1), nan32, 3, nan32, 2, 5, 5, 1)
	cases := []opCase{
		{"argmax NaN", in(m), argmax(1), vec[int64](1, 1)},
		{"argmin NaN and ties", in(m), argmin(1), vec[int64](1, 3)},
		{"argmax axis 0", in(m), argmax(0), vec[int64](1, 0, 1, 0)},
		{"argmax first of equal zeros", in(vec(n0, 0)), argmax(0), scalar[int64](0)},
		{"argmin first of equal zeros", in(vec(0, n0)), argmin(0), scalar[int64](0)},
		{"argmax bool", in(vec(false, true, true)), argmax(0), scalar[int64](1)},
		{"argmin bool", in(vec(true, false, false)), argmin(0), scalar[int64](1)},
		{"argmin ints", in(vec[int8](4, -3, 7, -3)), argmin(-1), scalar[int64](1)},
		{"argmax f16", in(vec(h16(0x3c00, 0x4000, 0x4000)...)), argmax(0), scalar[int64](1)},
	}
	runCases(t, promote.Config{}, cases)
	runCases(t, promote.Config{X32: true}, []opCase{
		{"argmax index dtype x32", in(vec[float32](1, 3, 2)), argmax(0), scalar[int32](1)},
	})
}

// The fixed summation tree of kernels/doc.go, made visible with float32
// values around 2^24, where 2^24 + 1 rounds back to 2^24 (a tie, to even)
// and only even integers are exact.
func TestSummationTree(t *testing.T) {
	ones := func(n int) []float32 {
		v := make([]float32, n)
		for i := range v {
			v[i] = 1
		}
		return v
	}
	big := float32(two24)
	leaves4 := make([]float32, 4*leafSize) // leaf k is [v_k, 0, …, 0]
	for k, v := range []float32{big, 1, 1, 1} {
		leaves4[k*leafSize] = v
	}
	reduceTwoAxes := arr(shp(2, 1, 3), float32(1), 1, 1, big, 1, 1)
	cases := []opCase{
		// A leaf of 5 < 8 values is a left fold: every 1 is lost.
		{"short leaf folds left", in(vec(append([]float32{big}, ones(4)...)...)), reduceFn(trace.OpReduceSum, nil, false), scalar(big)},
		// 16 values: lanes r = [2^24, 1 ×7], then r[j] += x[8+j]:
		// r0 = 2^24 (the 1 is lost), r1..r7 = 2; combined pairwise:
		// (2^24+2) + 4 + 8 = 2^24 + 14. A left fold would give 2^24.
		{"eight lanes", in(vec(append([]float32{big}, ones(15)...)...)), reduceFn(trace.OpReduceSum, nil, false), scalar(big + 14)},
		// 10 values: lanes [2^24, 1 ×7], no second full group; combined
		// 2^24 + 6; then the leftovers fold left: 2^24+7 → 2^24+8 (tie,
		// even), 2^24+9 → 2^24+8 (tie, even).
		{"leftovers fold after the lanes", in(vec(append([]float32{big}, ones(9)...)...)), reduceFn(trace.OpReduceSum, nil, false), scalar(big + 8)},
		// Four leaves summing to 2^24, 1, 1, 1 combine as (L0+L1)+(L2+L3)
		// = 2^24 + 2; a left fold over the leaves would give 2^24.
		{"leaves pair up", in(vec(leaves4...)), reduceFn(trace.OpReduceSum, nil, false), scalar(big + 2)},
		// Reducing axes 0 and 2 of [2,1,3] visits x[0,0,0..2] then x[1,0,0..2]
		// (row-major over the reduced axes): 1+1+1 = 3, 3+2^24 → 2^24+4 (tie,
		// even), then two more 1s are lost.
		{"row-major over reduced axes", in(reduceTwoAxes), reduceFn(trace.OpReduceSum, []int{0, 2}, false), vec(big + 4)},
		// Reducing axis 0 of [16,2]: each column is its own 16-value leaf.
		{"strided column", in(arr(shp(16, 2), interleave(append([]float32{big}, ones(15)...), append(ones(15), big))...)), reduceFn(trace.OpReduceSum, []int{0}, false), vec(big+14, big+14)},
	}
	runCases(t, promote.Config{}, cases)

	t.Run("against a hand-built tree", func(t *testing.T) {
		// 4 full leaves and one of 10 values, from a fixed sequence of
		// values of mixed magnitudes.
		n := 4*leafSize + 10
		x := make([]float32, n)
		s := uint32(1)
		for i := range x {
			s = s*1664525 + 1013904223
			x[i] = float32(int32(s)>>8) * float32(math.Pow(2, float64(int(s%41)-20)))
		}
		add := func(a, b float32) float32 { return a + b }
		leaf := func(v []float32) float32 {
			var r [8]float32
			copy(r[:], v[:8])
			i := 8
			for ; i+8 <= len(v); i += 8 {
				for j := range 8 {
					r[j] = add(r[j], v[i+j])
				}
			}
			sum := add(add(add(r[0], r[1]), add(r[2], r[3])), add(add(r[4], r[5]), add(r[6], r[7])))
			for ; i < len(v); i++ {
				sum = add(sum, v[i])
			}
			return sum
		}
		L := func(k int) float32 { return leaf(x[k*leafSize : min((k+1)*leafSize, n)]) }
		want := add(add(add(L(0), L(1)), add(L(2), L(3))), L(4)) // T(0,5) = T(0,4) ⊕ T(4,1)
		got := eval1(t, promote.Config{}, in(vec(x...)), reduceFn(trace.OpReduceSum, nil, false))
		if g := got.Data().([]float32)[0]; math.Float32bits(g) != math.Float32bits(want) {
			t.Errorf("sum = %v, the hand-built tree gives %v", g, want)
		}
		var fold float32
		for _, v := range x {
			fold += v
		}
		if fold == want {
			t.Logf("note: a left fold happens to give the same sum (%v)", fold)
		}
	})
}

// interleave makes the row-major data of a [len(a), 2] array with columns
// a and b.
func interleave(a, b []float32) []float32 {
	out := make([]float32, 0, 2*len(a))
	for i := range a {
		out = append(out, a[i], b[i])
	}
	return out
}

// The tracer converts f16 to f32 before a sum; a hand-built program that
// sums f16 directly still accumulates in f32 and rounds once (doc.go).
func TestHalfSumWithoutConvert(t *testing.T) {
	a := &trace.Var{ID: 0, Type: promote.Strong(tensor.F16), Shape: []int{3}}
	out := &trace.Var{ID: 1, Type: promote.Strong(tensor.F16)}
	p := &trace.Program{
		Inputs:  []*trace.Var{a},
		Eqns:    []*trace.Eqn{{Op: trace.OpReduceSum, Args: []*trace.Var{a}, Out: out, Params: trace.Params{Axes: []int{0}}}},
		Outputs: []*trace.Var{out},
		NumVars: 2,
	}
	// 2048 + 1 + 1 = 2050 in f32, exact in f16 (0x6801); in f16 steps the
	// tie 2049 would round down to 2048 twice.
	got, err := Eval(p, in(vec(h16(0x6800, 0x3c00, 0x3c00)...)), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if want := scalar(h16(0x6801)[0]); !sameValues(got[0], want) {
		t.Errorf("got %s %s, want %s", got[0], bits(got[0]), want)
	}
}
