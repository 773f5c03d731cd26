package kernels_test

import (
	"math"
	"math/rand"
	"os"
	"testing"

	"github.com/kiln-go/kiln/internal/longtest"
	"github.com/kiln-go/kiln/internal/reference"
	"github.com/kiln-go/kiln/internal/simd"
	"github.com/kiln-go/kiln/kernels"
	"github.com/kiln-go/kiln/lower"
	"github.com/kiln-go/kiln/promote"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// ctCase is a convolution whose kernel cotangent is checked.
type ctCase struct {
	name    string
	x, w    []int // forward input and kernel shapes
	opt     trace.ConvOptions
	dtype   tensor.DType
	special bool // NaN, ±Inf, −0 among the inputs
	tiers   bool // run at every tier in turn, the same executable
}

func ctInputs(c ctCase, outShape []int, seed int64) []*tensor.Array {
	r := rand.New(rand.NewSource(seed))
	mk := func(shape []int) *tensor.Array {
		n := 1
		for _, s := range shape {
			n *= s
		}
		v := make([]float64, n)
		for i := range v {
			v[i] = float64(r.Intn(2001)-1000) / 256
			if c.special && r.Intn(97) == 0 {
				v[i] = []float64{math.NaN(), math.Inf(1), math.Inf(-1), math.Copysign(0, -1)}[r.Intn(4)]
			}
		}
		return tensor.Must(tensor.FromSlice(v, shape...)).Astype(c.dtype)
	}
	return []*tensor.Array{mk(c.x), mk(c.w), mk(outShape)}
}

func sameBits(a, b *tensor.Array) (int, bool) {
	x := a.Astype(tensor.F64).Data().([]float64)
	y := b.Astype(tensor.F64).Data().([]float64)
	if len(x) != len(y) {
		return -1, false
	}
	for i := range x {
		if math.Float64bits(x[i]) != math.Float64bits(y[i]) && !(x[i] != x[i] && y[i] != y[i]) {
			return i, false
		}
	}
	return 0, true
}

// checkKernelCotangent traces the kernel cotangent (and input cotangent)
// of c's convolution, runs the compiled program at every tier in turn —
// the same executable, the tier switched between runs — and holds each
// run to the reference evaluator, bit for bit.
func checkKernelCotangent(t *testing.T, c ctCase) {
	t.Helper()
	abs := func(s []int) trace.Abstract { return trace.Abstract{Type: promote.Strong(c.dtype), Shape: s} }
	var outShape []int
	_, err := trace.Trace(promote.Config{}, []trace.Abstract{abs(c.x), abs(c.w)}, func(a []trace.Value) []trace.Value {
		y := trace.ConvGeneralDilated(a[0], a[1], c.opt)
		outShape = y.Shape()
		return []trace.Value{y}
	})
	if err != nil {
		t.Fatalf("%s: %v", c.name, err)
	}
	p, err := trace.Trace(promote.Config{}, []trace.Abstract{abs(c.x), abs(c.w), abs(outShape)}, func(a []trace.Value) []trace.Value {
		_, pull := trace.VJP(func(xw []trace.Value) []trace.Value {
			return []trace.Value{trace.ConvGeneralDilated(xw[0], xw[1], c.opt)}
		}, a[0], a[1])
		return pull(a[2])[1:]
	})
	if err != nil {
		t.Fatalf("%s: %v", c.name, err)
	}
	in := ctInputs(c, outShape, int64(len(c.name)))
	ref, err := reference.Eval(p, in, reference.Options{Transcendental: kernels.Transcendental})
	if err != nil {
		t.Fatal(err)
	}
	m, err := lower.Compile(p, lower.Options{Fold: kernels.Fold, Verify: true})
	if err != nil {
		t.Fatal(err)
	}
	exe, err := kernels.DefaultCPU().Compile(m)
	if err != nil {
		t.Fatal(err)
	}
	order := []simd.Tier{simd.Level()}
	if c.tiers {
		av := simd.Available()
		order = append(append([]simd.Tier{av[len(av)-1]}, av...), av[len(av)-1])
	}
	for _, tier := range order {
		restore := simd.SetLevel(tier)
		out, err := exe.Run(in)
		restore()
		if err != nil {
			t.Fatalf("%s at %v: %v", c.name, tier, err)
		}
		for i := range ref {
			if at, ok := sameBits(out[i], ref[i]); !ok {
				t.Errorf("%s at %v: output %d (%v) differs from the reference at %d", c.name, tier, i, out[i].Shape(), at)
			}
		}
	}
}

// TestKernelCotangentEdges: the kernel cotangent (convBatch: panels of
// the batch, the output cotangent read in place where its features are
// whole 32-column panels) against the reference evaluator, bit for bit —
// output features whole panels or not, batches split into panels of
// several kernels, strides, dilation, padding, specials, dtypes — and one
// executable run at every SIMD tier in turn (its panels were planned once,
// for the first Run's tier, and overran the next tier's tiles).
func TestKernelCotangentEdges(t *testing.T) {
	nhwc := [3]string{"NHWC", "HWIO", "NHWC"}
	same := trace.ConvOptions{PaddingMode: "SAME", DimensionNumbers: nhwc}
	cases := []ctCase{
		{name: "tiers", x: []int{1, 33, 35, 13}, w: []int{3, 3, 13, 64}, opt: same, dtype: tensor.F32, tiers: true},
		{name: "o33", x: []int{1, 33, 35, 9}, w: []int{3, 3, 9, 33}, opt: same, dtype: tensor.F32},
		{name: "o96-n3", x: []int{3, 21, 19, 9}, w: []int{3, 3, 9, 96}, opt: same, dtype: tensor.F32},
		{name: "special", x: []int{2, 25, 23, 12}, w: []int{3, 3, 12, 32}, opt: same, dtype: tensor.F32, special: true},
		{name: "f64", x: []int{2, 25, 23, 9}, w: []int{3, 3, 9, 32}, opt: same, dtype: tensor.F64},
		{name: "bf16", x: []int{2, 25, 23, 9}, w: []int{3, 3, 9, 32}, opt: same, dtype: tensor.BF16},
		{name: "strided", x: []int{1, 70, 71, 10}, w: []int{3, 2, 10, 32},
			opt: trace.ConvOptions{WindowStrides: []int{2, 2}, Padding: [][2]int{{2, 1}, {0, 3}}, DimensionNumbers: nhwc}, dtype: tensor.F32},
		{name: "rhs-dilated", x: []int{1, 35, 36, 10}, w: []int{3, 2, 10, 32},
			opt: trace.ConvOptions{RhsDilation: []int{2, 1}, Padding: [][2]int{{1, 1}, {1, 1}}, DimensionNumbers: nhwc}, dtype: tensor.F32},
		{name: "o31-cin20", x: []int{1, 33, 35, 20}, w: []int{3, 3, 20, 31}, opt: same, dtype: tensor.F32},
		{name: "nchw-cin25", x: []int{1, 25, 33, 31}, w: []int{64, 25, 3, 3}, opt: trace.ConvOptions{PaddingMode: "SAME"}, dtype: tensor.F32},
		{name: "chwn", x: []int{8, 12, 12, 20}, w: []int{8, 12, 12, 64},
			opt: trace.ConvOptions{Padding: [][2]int{{1, 1}, {1, 1}}, DimensionNumbers: [3]string{"CHWN", "IHWO", "HWNC"}}, dtype: tensor.F32},
		{name: "1d", x: []int{2, 600, 14}, w: []int{5, 14, 64}, opt: trace.ConvOptions{PaddingMode: "SAME", DimensionNumbers: [3]string{"NWC", "WIO", "NWC"}}, dtype: tensor.F32},
		{name: "f16-o96", x: []int{1, 33, 35, 13}, w: []int{3, 3, 13, 96}, opt: same, dtype: tensor.F16},
	}
	if testing.Short() || !longtest.Enabled() { // the reference's convolutions are slow: every case with KILN_LONG=1
		cases = cases[:1]
	}
	for _, c := range cases {
		if f := os.Getenv("CT_ONLY"); f != "" && f != c.name {
			continue
		}
		checkKernelCotangent(t, c)
	}
}
