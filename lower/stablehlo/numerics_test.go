package stablehlo_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/kiln-go/kiln/internal/reference"
	"github.com/kiln-go/kiln/lower"
	"github.com/kiln-go/kiln/lower/stablehlo"
	"github.com/kiln-go/kiln/promote"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// The compositions of the StableHLO export keep Kiln's semantics: the
// export, interpreted with poison wherever StableHLO leaves a result
// undefined (stablehlo.EvalStableHLO), gives the reference evaluator's values
// on every i8 and u8 pair and on the special values of the other dtypes.

// pairs returns x and y such that (x[i], y[i]) runs over every pair of vals.
func pairs[T tensor.Elem](vals []T) (*tensor.Array, *tensor.Array) {
	var xs, ys []T
	for _, a := range vals {
		for _, b := range vals {
			xs, ys = append(xs, a), append(ys, b)
		}
	}
	x, _ := tensor.FromSlice(xs)
	y, _ := tensor.FromSlice(ys)
	return x, y
}

func allInts[T int8 | uint8]() []T {
	var out []T
	for i := range 256 {
		out = append(out, T(i))
	}
	return out
}

var (
	int32Specials = []int32{math.MinInt32, math.MinInt32 + 1, -33, -32, -31, -7, -2, -1, 0, 1, 2, 3, 7, 31, 32, 33, math.MaxInt32 - 1, math.MaxInt32}
	floatSpecials = []float64{math.NaN(), math.Inf(-1), -1e30, -5.5, -3, -1, -0.5, -1e-40, math.Copysign(0, -1), 0,
		1e-40, 0.1, 0.5, 1, 3, 5.5, 7.25, 1e30, math.Inf(1)}
	// convertSpecials straddle the limits of every integer dtype.
	convertSpecials = append(append([]float64{}, floatSpecials...), 127.9, 128, -128.5, -129, 255.9, 256, 65535.5, 65536,
		-65536, 2147483520, 2147483648, -2147483648, -2147483904, 4e9, 4294967296, -4e9, 9.2e18, 9223372036854775808,
		-9223372036854775808, 1.8e19, 18446744073709551616, -1e19)
)

func floats(d tensor.DType, vals []float64) *tensor.Array {
	a, _ := tensor.FromSlice(vals)
	return a.Astype(d)
}

type binaryFn func(x, y trace.Value) trace.Value

var intBinaries = map[string]binaryFn{
	"floordiv": trace.Value.FloorDiv, "rem": trace.Value.Rem, "pow": trace.Value.Pow,
	"shl": trace.Value.Shl, "shr": trace.Value.Shr,
}

var floatBinaries = map[string]binaryFn{"floordiv": trace.Value.FloorDiv, "rem": trace.Value.Rem}

func TestStableHLOCompositionsMatchReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	i8x, i8y := pairs(allInts[int8]())
	u8x, u8y := pairs(allInts[uint8]())
	i32x, i32y := pairs(int32Specials)
	for name, fn := range intBinaries {
		for _, in := range [][2]*tensor.Array{{i8x, i8y}, {u8x, u8y}, {i32x, i32y}} {
			checkStableHLO(t, rng, name, in[:], func(a []trace.Value) []trace.Value { return []trace.Value{fn(a[0], a[1])} })
		}
	}
	for _, d := range []tensor.DType{tensor.F16, tensor.BF16, tensor.F32, tensor.F64} {
		fx, fy := pairs(floatSpecials)
		for name, fn := range floatBinaries {
			checkStableHLO(t, rng, name, []*tensor.Array{fx.Astype(d), fy.Astype(d)}, func(a []trace.Value) []trace.Value { return []trace.Value{fn(a[0], a[1])} })
		}
		checkStableHLO(t, rng, "unary", []*tensor.Array{floats(d, convertSpecials)}, func(a []trace.Value) []trace.Value {
			x := a[0]
			out := []trace.Value{x.Sign(), x.IsNaN(), x.IsFinite(), x.Abs(), x.Astype(tensor.Bool)}
			for _, to := range []tensor.DType{tensor.I8, tensor.U8, tensor.I16, tensor.U16, tensor.I32, tensor.U32, tensor.I64, tensor.U64} {
				out = append(out, x.Astype(to))
			}
			return out
		})
	}
	i8s, _ := tensor.FromSlice(allInts[int8]())
	u8s, _ := tensor.FromSlice(allInts[uint8]())
	for _, in := range []*tensor.Array{i8s, u8s} {
		checkStableHLO(t, rng, "int unary", []*tensor.Array{in}, func(a []trace.Value) []trace.Value {
			return []trace.Value{a[0].Abs(), a[0].Sign(), a[0].Neg()}
		})
	}
}

// argmax and argmin pick the same index in whatever order the reduce
// combines the elements.
func TestStableHLOArgReduceIgnoresOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	pool := []float64{math.NaN(), math.Inf(-1), math.Copysign(0, -1), 0, 1, 1, math.Inf(1), -2}
	for trial := range 300 {
		n := 1 + rng.IntN(7)
		vals := make([]float64, n)
		for i := range vals {
			vals[i] = pool[rng.IntN(len(pool))]
		}
		var inputs []*tensor.Array
		switch trial % 3 {
		case 0:
			inputs = []*tensor.Array{floats(tensor.F32, vals)}
		case 1:
			for i, v := range vals { // no NaN or inf for integers
				if math.IsNaN(v) || math.IsInf(v, 0) {
					vals[i] = 3
				}
			}
			inputs = []*tensor.Array{floats(tensor.F64, vals).Astype(tensor.I32)}
		default:
			inputs = []*tensor.Array{floats(tensor.F64, vals).Astype(tensor.Bool)}
		}
		for range 5 {
			checkStableHLO(t, rng, "argmax/argmin", inputs, func(a []trace.Value) []trace.Value {
				return []trace.Value{a[0].ArgMax(0), a[0].ArgMin(0)}
			})
		}
	}
	// Kiln's float sums are +0 + the tree: a sum of −0s is +0, and so is
	// the sum of nothing.
	negZeros := floats(tensor.F32, []float64{math.Copysign(0, -1), math.Copysign(0, -1)})
	empty, _ := tensor.Zeros(tensor.F32, 0)
	checkStableHLO(t, rng, "sum", []*tensor.Array{negZeros, empty}, func(a []trace.Value) []trace.Value {
		return []trace.Value{a[0].Sum(), a[1].Sum()}
	})
}

// checkStableHLO traces fn on inputs, evaluates the program with the
// reference evaluator and its StableHLO export with the interpreter, and
// compares every element (NaNs compare equal whatever their payload; −0
// and +0 differ).
func checkStableHLO(t *testing.T, rng *rand.Rand, name string, inputs []*tensor.Array, fn func(a []trace.Value) []trace.Value) {
	t.Helper()
	abstract := make([]trace.Abstract, len(inputs))
	for i, a := range inputs {
		abstract[i] = trace.Abstract{Type: promote.Strong(a.DType()), Shape: a.Shape()}
	}
	p, err := trace.Trace(promote.Config{}, abstract, fn)
	if err != nil {
		t.Fatal(err)
	}
	want, err := reference.Eval(p, inputs, reference.Options{})
	if err != nil {
		t.Fatal(err)
	}
	m, err := lower.Lower(p)
	if err != nil {
		t.Fatal(err)
	}
	got, err := stablehlo.EvalStableHLO(m, inputs, rng)
	if err != nil {
		t.Fatalf("%s on %s: %v", name, inputs[0].DType(), err)
	}
	for k := range want {
		bad := 0
		for i := range want[k].Size() {
			w, g := want[k].FormatElem(i), got[k].FormatElem(i)
			if w != g && bad < 5 {
				bad++
				args := ""
				for _, a := range inputs {
					if a.Size() == want[k].Size() {
						args += " " + a.FormatElem(i)
					}
				}
				t.Errorf("%s output %d (%s) at%s: StableHLO gives %s, Kiln %s", name, k, fmt.Sprint(want[k].DType()), args, g, w)
			}
		}
	}
}

// The sort export's comparator is JAX's order: interpreted, it sorts the
// special values (−0 before or after 0 as they come, NaNs of both signs
// last) and repeated keys as the reference does, for every real dtype.
func TestSortExport(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	vals := append(append([]float64{}, floatSpecials...), math.Copysign(math.NaN(), -1), 0, math.Copysign(0, -1), 1, math.NaN(), -3)
	rng.Shuffle(len(vals), func(i, j int) { vals[i], vals[j] = vals[j], vals[i] })
	keys := make([]int64, len(vals))
	for i := range keys {
		keys[i] = int64(rng.IntN(3))
	}
	k := tensor.Must(tensor.FromSlice(keys))
	fn := func(a []trace.Value) []trace.Value {
		payload := trace.Iota(tensor.I32, a[0].Shape(), 0)
		return []trace.Value{trace.Sort(a[0], 0), trace.Argsort(a[0], 0), trace.SortMany([]trace.Value{a[1], a[0], payload}, 0, 2, true)[2]}
	}
	for _, d := range []tensor.DType{tensor.F64, tensor.F32, tensor.F16, tensor.BF16} {
		checkStableHLO(t, rng, "sort", []*tensor.Array{floats(d, vals), k}, fn)
	}
	i8 := tensor.Must(tensor.FromSlice(allInts[int8]()))
	u8 := tensor.Must(tensor.FromSlice(allInts[uint8]()))
	i32 := tensor.Must(tensor.FromSlice(int32Specials))
	for _, x := range []*tensor.Array{i8, u8, i32, i8.Astype(tensor.Bool)} {
		keys := make([]int64, x.Size())
		for i := range keys {
			keys[i] = int64(rng.IntN(3))
		}
		checkStableHLO(t, rng, "sort", []*tensor.Array{x, tensor.Must(tensor.FromSlice(keys))}, fn)
	}
}
