package kiln_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/kiln-go/kiln"
	"github.com/kiln-go/kiln/internal/reference"
	"github.com/kiln-go/kiln/internal/simd"
	"github.com/kiln-go/kiln/tensor"
)

// Adversarial cases for kernels' convBatch (conv_batch.go): NHWC-like
// float convolutions as an implicit GEMM ("lines": the micro-kernel's
// rows are output positions along a line of a padded copy of the input)
// and kernel cotangents batch-major. Every case runs the convolution and
// both cotangents (VJP) and compares every bit with the reference
// evaluator, fused, op by op and on tiny blocks.

type reviewConvCase struct {
	name    string
	x, w    []int
	o       kiln.ConvOptions
	dt      tensor.DType
	prefer  tensor.DType // 0: none
	special bool         // NaN, ±Inf, −0 and subnormals among the inputs
}

// reviewConvArray fills an array of shape with values of many magnitudes
// (so that any change of the summation order changes the bits), and with
// special, NaN, ±Inf, −0 and subnormals here and there.
func reviewConvArray(r *rand.Rand, dt tensor.DType, special bool, shape ...int) *tensor.Array {
	n := 1
	for _, d := range shape {
		n *= d
	}
	v := make([]float64, n)
	for i := range v {
		v[i] = r.NormFloat64() * math.Ldexp(1, r.IntN(16)-8)
		if special && r.IntN(97) == 0 {
			switch r.IntN(5) {
			case 0:
				v[i] = math.NaN()
			case 1:
				v[i] = math.Inf(1)
			case 2:
				v[i] = math.Inf(-1)
			case 3:
				v[i] = math.Copysign(0, -1)
			default:
				v[i] = math.Ldexp(r.Float64(), -140) // a float32 subnormal
			}
		}
	}
	return tensor.Must(tensor.FromSlice(v, shape...)).Astype(dt)
}

// reviewConvRun checks c's convolution and its VJP against the reference
// on the given backends.
func reviewConvRun(t *testing.T, c reviewConvCase, seed uint64, variants []kiln.Option) {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 26))
	var dopts []kiln.DotOption
	if c.prefer != 0 {
		dopts = append(dopts, kiln.PreferredElementType(c.prefer))
	}
	conv := func(x, w kiln.Value) kiln.Value { return kiln.ConvGeneralDilated(x, w, c.o, dopts...) }
	x := reviewConvArray(r, c.dt, c.special, c.x...)
	w := reviewConvArray(r, c.dt, c.special, c.w...)
	y, err := kiln.Jit(conv).Run(x, w)
	if err != nil {
		t.Fatalf("%s: forward: %v", c.name, err)
	}
	ct := reviewConvArray(r, y.DType(), c.special, y.Shape()...)
	f := func(x, w, ct kiln.Value) []kiln.Value {
		ys, pull := kiln.VJP(conv, x, w)
		return append(ys, pull(ct)...)
	}
	args := []*tensor.Array{x, w, ct}
	before := []*tensor.Array{x.Clone(), w.Clone(), ct.Clone()}
	p, err := kiln.Jit(f).Trace(x, w, ct)
	if err != nil {
		t.Fatalf("%s: trace: %v", c.name, err)
	}
	want, err := reference.Eval(p, args, refOptions)
	if err != nil {
		t.Fatalf("%s: reference: %v", c.name, err)
	}
	for _, v := range variants {
		var opts []kiln.Option
		if v != nil {
			opts = append(opts, v)
		}
		got, err := kiln.Jit(f, opts...).RunAll(x, w, ct)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if d := diffResults(got, want, true); d != "" {
			t.Errorf("%s (x %v, w %v, %+v, %s): %s", c.name, c.x, c.w, c.o, c.dt, d)
			return
		}
	}
	for i := range before {
		if d := diffArrays(args[i], before[i], false); d != "" {
			t.Errorf("%s: input %d modified: %s", c.name, i, d)
		}
	}
}

var reviewConvVariants = []kiln.Option{nil, kiln.NoFusion(), kiln.WithBackend(tinyCPU)}

// reviewConvCases: hand-picked shapes that run as lines (o_last ≥ 4,
// k_last·cin ≥ 32, NHWC-like) or batch-major (≤ 64 positions, ≥ 8 batch,
// K ≥ 1024), at the edges of their conditions and of the micro-kernel's
// tiles (MR 12/6/4, NR 32/16/8).
func reviewConvCases() []reviewConvCase {
	nhwc := [3]string{"NHWC", "HWIO", "NHWC"}
	pad := func(p ...int) [][2]int {
		var out [][2]int
		for i := 0; i < len(p); i += 2 {
			out = append(out, [2]int{p[i], p[i+1]})
		}
		return out
	}
	var cs []reviewConvCase
	add := func(name string, x, w []int, o kiln.ConvOptions) {
		if o.DimensionNumbers == [3]string{} {
			o.DimensionNumbers = nhwc
		}
		cs = append(cs, reviewConvCase{name: name, x: x, w: w, o: o, dt: tensor.F32})
	}
	// Output widths around MR (4, 6, 12, and 14 where linesChain picks
	// the tall chain: 13, 14, 17, 25, 28, 40, 56) and line lengths 1..56.
	for _, wd := range []int{1, 3, 4, 5, 6, 7, 11, 12, 13, 14, 17, 23, 24, 25, 28, 36, 40, 56} {
		add(fmt.Sprintf("width-%d", wd), []int{2, 3, wd, 16}, []int{3, 3, 16, 17}, kiln.ConvOptions{PaddingMode: "SAME"})
	}
	// Channels and output features around NR.
	for _, c := range []int{1, 3, 15, 16, 17, 33, 64} {
		add(fmt.Sprintf("cin-%d", c), []int{1, 5, 14, c}, []int{3, 3, c, 8}, kiln.ConvOptions{PaddingMode: "SAME"})
		add(fmt.Sprintf("cout-%d", c), []int{3, 4, 13, 16}, []int{1, 3, 16, c}, kiln.ConvOptions{PaddingMode: "VALID"})
	}
	add("1x1", []int{2, 6, 15, 33}, []int{1, 1, 33, 31}, kiln.ConvOptions{})
	add("1xk", []int{2, 6, 15, 9}, []int{1, 5, 9, 31}, kiln.ConvOptions{PaddingMode: "SAME"})
	add("kx1", []int{2, 15, 6, 40}, []int{5, 1, 40, 31}, kiln.ConvOptions{PaddingMode: "SAME"})
	add("5x5", []int{3, 9, 19, 7}, []int{5, 5, 7, 12}, kiln.ConvOptions{PaddingMode: "SAME"})
	add("7x7-s2", []int{2, 16, 29, 3}, []int{7, 7, 3, 16}, kiln.ConvOptions{WindowStrides: []int{2, 2}, Padding: pad(3, 3, 3, 3)})
	for _, s := range []int{1, 2, 3} {
		add(fmt.Sprintf("stride-%d", s), []int{2, 11, 37, 16}, []int{3, 3, 16, 24}, kiln.ConvOptions{WindowStrides: []int{s, s}, Padding: pad(1, 2, 2, 0)})
		add(fmt.Sprintf("stride-w-%d", s), []int{1, 5, 40, 12}, []int{2, 4, 12, 9}, kiln.ConvOptions{WindowStrides: []int{1, s}, Padding: pad(0, 1, 3, 3)})
	}
	add("rhs-dil-h", []int{2, 13, 20, 16}, []int{3, 3, 16, 16}, kiln.ConvOptions{RhsDilation: []int{3, 1}, Padding: pad(2, 2, 1, 1)})
	add("rhs-dil-w", []int{2, 13, 20, 16}, []int{3, 3, 16, 16}, kiln.ConvOptions{RhsDilation: []int{1, 2}, Padding: pad(2, 2, 1, 1)})
	add("lhs-dil", []int{2, 7, 9, 16}, []int{3, 3, 16, 16}, kiln.ConvOptions{LhsDilation: []int{2, 2}, Padding: pad(1, 1, 2, 2)})
	add("neg-pad-hi", []int{2, 10, 30, 16}, []int{3, 3, 16, 16}, kiln.ConvOptions{Padding: pad(2, -3, 4, -5)})
	add("neg-pad-lo", []int{2, 10, 30, 16}, []int{3, 3, 16, 16}, kiln.ConvOptions{Padding: pad(-1, 2, -2, 1)})
	add("big-pad", []int{1, 3, 4, 32}, []int{3, 3, 32, 8}, kiln.ConvOptions{Padding: pad(5, 6, 7, 9)})
	add("kernel-wider-than-input", []int{2, 3, 4, 16}, []int{3, 7, 16, 8}, kiln.ConvOptions{Padding: pad(2, 2, 6, 6)})
	add("stride-beyond-kernel", []int{2, 9, 41, 16}, []int{2, 2, 16, 10}, kiln.ConvOptions{WindowStrides: []int{3, 5}, Padding: pad(0, 0, 1, -2)})
	// An input with an empty spatial dim whose output is all padding.
	add("empty-input-lines", []int{2, 0, 10, 16}, []int{1, 3, 16, 8}, kiln.ConvOptions{Padding: pad(1, 1, 1, 1)})
	add("empty-input-batch-major", []int{8, 0, 4, 128}, []int{1, 9, 128, 8}, kiln.ConvOptions{Padding: pad(2, 2, 4, 4)})
	add("groups", []int{2, 6, 17, 32}, []int{3, 3, 16, 12}, kiln.ConvOptions{PaddingMode: "SAME", FeatureGroupCount: 2})
	add("depthwise", []int{2, 6, 17, 16}, []int{3, 3, 1, 32}, kiln.ConvOptions{PaddingMode: "SAME", FeatureGroupCount: 16})
	add("1d", []int{3, 50, 16}, []int{5, 16, 20}, kiln.ConvOptions{PaddingMode: "SAME", DimensionNumbers: [3]string{"NWC", "WIO", "NWC"}})
	add("3d", []int{2, 4, 5, 9, 8}, []int{2, 3, 3, 8, 16}, kiln.ConvOptions{PaddingMode: "SAME", DimensionNumbers: [3]string{"NDHWC", "DHWIO", "NDHWC"}})
	// Layouts: spatial dims permuted (the last kernel dim is then not the
	// input's innermost spatial dim), the batch inside, features first.
	add("layout-NWHC", []int{2, 19, 7, 16}, []int{3, 3, 16, 20}, kiln.ConvOptions{PaddingMode: "SAME", DimensionNumbers: [3]string{"NWHC", "HWIO", "NWHC"}})
	add("layout-HNWC", []int{7, 3, 19, 16}, []int{20, 3, 3, 16}, kiln.ConvOptions{PaddingMode: "SAME", DimensionNumbers: [3]string{"HNWC", "OHWI", "WHNC"}})
	add("layout-NCHW-out", []int{2, 7, 19, 16}, []int{3, 3, 16, 20}, kiln.ConvOptions{PaddingMode: "SAME", DimensionNumbers: [3]string{"NHWC", "HWIO", "NCHW"}})
	add("layout-NCHW", []int{2, 16, 7, 19}, []int{20, 16, 3, 3}, kiln.ConvOptions{PaddingMode: "SAME", DimensionNumbers: [3]string{"NCHW", "OIHW", "NCHW"}})
	// Batch-major: ≤ 64 output positions, ≥ 8 batch elements, K ≥ 1024.
	for _, nb := range []int{8, 13, 17} {
		add(fmt.Sprintf("batch-major-%d", nb), []int{nb, 8, 8, 128}, []int{3, 3, 128, 17}, kiln.ConvOptions{PaddingMode: "SAME"})
	}
	add("batch-major-strided", []int{11, 17, 15, 96}, []int{4, 3, 96, 9}, kiln.ConvOptions{WindowStrides: []int{3, 2}, Padding: pad(0, 1, 2, 0), RhsDilation: []int{2, 1}})
	add("batch-major-ncw", []int{9, 40, 40}, []int{40, 40, 30}, kiln.ConvOptions{WindowStrides: []int{3}, Padding: pad(1, 0), DimensionNumbers: [3]string{"NCW", "OIW", "NCW"}})
	add("batch-major-bnc", []int{40, 9, 40}, []int{30, 40, 40}, kiln.ConvOptions{WindowStrides: []int{3}, Padding: pad(1, 0), DimensionNumbers: [3]string{"WNC", "WIO", "CWN"}})
	// Kernel cotangents batch-major: the input's features (≥ 8) are the
	// batch, the kernel window the positions, N·Ho·Wo the contraction.
	for _, nb := range []int{8, 16} {
		add(fmt.Sprintf("kgrad-5x5-n%d", nb), []int{nb, 12, 12, 9}, []int{5, 5, 9, 16}, kiln.ConvOptions{PaddingMode: "SAME"})
		add(fmt.Sprintf("kgrad-7x7-s2-n%d", nb), []int{nb, 16, 16, 17}, []int{7, 7, 17, 8}, kiln.ConvOptions{WindowStrides: []int{2, 2}, PaddingMode: "SAME"})
	}
	return cs
}

// reviewConvHeavy: the batch-major cases, whose reference runs take
// seconds each; the dtype and tier tests run a few of them only.
func reviewConvHeavy(c reviewConvCase) bool {
	return strings.HasPrefix(c.name, "batch-major") || strings.HasPrefix(c.name, "kgrad")
}

// TestReviewConvLinesAndBatchMajor: every hand-picked case in f32.
func TestReviewConvLinesAndBatchMajor(t *testing.T) {
	for i, c := range reviewConvCases() {
		if testing.Short() && reviewConvHeavy(c) && i%3 != 0 {
			continue
		}
		t.Run(c.name, func(t *testing.T) { reviewConvRun(t, c, uint64(i), reviewConvVariants) })
	}
}

// TestReviewConvDTypes: a spread of the cases in f64, bf16, f16 and with
// preferred element types, and with NaN, ±Inf, −0 and subnormal inputs.
func TestReviewConvDTypes(t *testing.T) {
	cs := reviewConvCases()
	type dv struct{ dt, prefer tensor.DType }
	dts := []dv{{tensor.F64, 0}, {tensor.BF16, 0}, {tensor.F16, 0}, {tensor.BF16, tensor.F32}, {tensor.F16, tensor.F32}, {tensor.F32, tensor.F64}}
	for i, c := range cs {
		if testing.Short() && i%3 != 0 || reviewConvHeavy(c) && i%4 != 0 {
			continue
		}
		for j, d := range dts {
			if (i+j)%3 != 0 {
				continue
			}
			c := c
			c.dt, c.prefer = d.dt, d.prefer
			c.name = fmt.Sprintf("%s-%s", c.name, d.dt)
			if d.prefer != 0 {
				c.name += "-prefer-" + d.prefer.String()
			}
			t.Run(c.name, func(t *testing.T) { reviewConvRun(t, c, uint64(100+i), reviewConvVariants[:1]) })
		}
		c.special = true
		c.name += "-special"
		t.Run(c.name, func(t *testing.T) { reviewConvRun(t, c, uint64(200+i), reviewConvVariants) })
	}
}

// TestReviewConvTiers: the cases on every SIMD tier this CPU has (the
// micro-kernels' tiles differ: 12×32, 6×16, 4×16 f32), the pure-Go one
// included.
func TestReviewConvTiers(t *testing.T) {
	for _, tier := range []simd.Tier{simd.Generic, simd.AVX2} {
		func() {
			defer func() {
				if r := recover(); r != nil {
					t.Logf("tier %v: %v", tier, r)
				}
			}()
			restore := simd.SetLevel(tier)
			defer restore()
			for i, c := range reviewConvCases() {
				if i%3 != int(tier)%3 || reviewConvHeavy(c) && i%4 != 0 {
					continue // a third of the cases per tier (the reference is slow)
				}
				if i%2 == 1 {
					c.dt = tensor.F64
				}
				t.Run(fmt.Sprintf("%v/%s", tier, c.name), func(t *testing.T) { reviewConvRun(t, c, uint64(300+i), reviewConvVariants) })
			}
		}()
	}
}
