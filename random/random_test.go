package random_test

import (
	"encoding/json"
	"errors"
	"math"
	"os"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/kiln-go/kiln"
	"github.com/kiln-go/kiln/kernels/opencl"
	"github.com/kiln-go/kiln/random"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// known holds testdata/known.json: values computed from the algorithms'
// specification by testdata/known.py with NumPy alone.
var known struct {
	KAT              [][2]uint32         `json:"kat"`
	Key              map[string][]uint32 `json:"key"`
	Split0           [][2]uint32         `json:"split0"`
	Split42          [][2]uint32         `json:"split42"`
	FoldIn           [2]uint32           `json:"fold_in"`
	FoldInNeg        [2]uint32           `json:"fold_in_neg"`
	Bits32           []uint32            `json:"bits32"`
	Bits64           []uint64            `json:"bits64"`
	Bits8            []uint8             `json:"bits8"`
	Bits16           []uint16            `json:"bits16"`
	UniformF32Scalar float32             `json:"uniform_f32_scalar"`
	UniformF64       []float64           `json:"uniform_f64"`
	UniformF32       []uint32            `json:"uniform_f32"`
	UniformF16       []uint16            `json:"uniform_f16"`
	UniformBF16Bits  []uint16            `json:"uniform_bf16_bits"`
	UniformF64Range  []float64           `json:"uniform_f64_range"`
	Permutation10    []int64             `json:"permutation10"`
	Permutation2000  []int64             `json:"permutation2000"`
}

func TestMain(m *testing.M) {
	b, err := os.ReadFile("testdata/known.json")
	if err == nil {
		err = json.Unmarshal(b, &known)
	}
	if err != nil {
		panic(err)
	}
	os.Exit(m.Run())
}

func eval(t *testing.T, v kiln.Value, opts ...kiln.Option) *tensor.Array {
	t.Helper()
	a, err := kiln.Eval(v, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func data[T tensor.Elem](t *testing.T, a *tensor.Array) []T {
	t.Helper()
	d, err := tensor.Data[T](a)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func pairs(t *testing.T, a *tensor.Array) [][2]uint32 {
	d := data[uint32](t, a)
	var out [][2]uint32
	for i := 0; i+1 < len(d); i += 2 {
		out = append(out, [2]uint32{d[i], d[i+1]})
	}
	return out
}

// The values jax.random gives (threefry, partitionable, x64), as the
// independent NumPy implementation computes them.
func TestKnownValues(t *testing.T) {
	for s, want := range known.Key {
		var seed int64
		if err := json.Unmarshal([]byte(s), &seed); err != nil {
			t.Fatal(err)
		}
		if got := data[uint32](t, eval(t, random.Key(seed))); !slices.Equal(got, want) {
			t.Errorf("Key(%d) = %v, want %v", seed, got, want)
		}
		traced := random.KeyFrom(trace.Const(tensor.Scalar(seed)))
		if got := data[uint32](t, eval(t, traced)); !slices.Equal(got, want) {
			t.Errorf("KeyFrom(%d) = %v, want %v", seed, got, want)
		}
	}
	if got := pairs(t, eval(t, random.Split(random.Key(0), 2))); !slices.Equal(got, known.Split0) {
		t.Errorf("Split(Key(0), 2) = %v, want %v", got, known.Split0)
	}
	if got := pairs(t, eval(t, random.Split(random.Key(42), 3))); !slices.Equal(got, known.Split42) {
		t.Errorf("Split(Key(42), 3) = %v, want %v", got, known.Split42)
	}
	if got := pairs(t, eval(t, random.FoldIn(random.Key(0), trace.Int(7)))); got[0] != known.FoldIn {
		t.Errorf("FoldIn(Key(0), 7) = %v, want %v", got, known.FoldIn)
	}
	if got := pairs(t, eval(t, random.FoldIn(random.Key(3), trace.Const(tensor.Scalar(int32(-1)))))); got[0] != known.FoldInNeg {
		t.Errorf("FoldIn(Key(3), int32(-1)) = %v, want %v", got, known.FoldInNeg)
	}
	if got := data[uint32](t, eval(t, random.Bits(random.Key(0), []int{5}, tensor.U32))); !slices.Equal(got, known.Bits32) {
		t.Errorf("Bits u32 = %v, want %v", got, known.Bits32)
	}
	if got := data[uint64](t, eval(t, random.Bits(random.Key(1), []int{3}))); !slices.Equal(got, known.Bits64) {
		t.Errorf("Bits (default u64) = %v, want %v", got, known.Bits64)
	}
	if got := data[uint8](t, eval(t, random.Bits(random.Key(2), []int{4}, tensor.U8))); !slices.Equal(got, known.Bits8) {
		t.Errorf("Bits u8 = %v, want %v", got, known.Bits8)
	}
	if got := data[uint16](t, eval(t, random.Bits(random.Key(2), []int{2, 2}, tensor.U16))); !slices.Equal(got, known.Bits16) {
		t.Errorf("Bits u16 = %v, want %v", got, known.Bits16)
	}
	if got := data[float32](t, eval(t, random.Uniform(random.Key(0), nil, tensor.F32))); got[0] != known.UniformF32Scalar || got[0] != 0.947667 {
		t.Errorf("Uniform(Key(0), (), f32) = %v, want %v (jax.random.uniform(jax.random.key(0)))", got, known.UniformF32Scalar)
	}
	if got := data[float64](t, eval(t, random.Uniform(random.Key(5), []int{2, 3}))); !slices.Equal(got, known.UniformF64) {
		t.Errorf("Uniform f64 = %v, want %v", got, known.UniformF64)
	}
	u32 := eval(t, random.Uniform(random.Key(5), []int{6}, tensor.F32).BitcastConvert(tensor.U32))
	if got := data[uint32](t, u32); !slices.Equal(got, known.UniformF32) {
		t.Errorf("Uniform f32 bits = %#x, want %#x", got, known.UniformF32)
	}
	u16 := eval(t, random.Uniform(random.Key(5), []int{6}, tensor.F16).BitcastConvert(tensor.U16))
	if got := data[uint16](t, u16); !slices.Equal(got, known.UniformF16) {
		t.Errorf("Uniform f16 bits = %#x, want %#x", got, known.UniformF16)
	}
	// bf16: the value before the final −1 is the float whose bits the
	// reference gives; subtracting 1 in bf16 is exact.
	bf := eval(t, random.Uniform(random.Key(5), []int{6}, tensor.BF16).Astype(tensor.F64))
	for i, b := range known.UniformBF16Bits {
		want := float64(math.Float32frombits(uint32(b)<<16)) - 1
		if got := data[float64](t, bf)[i]; got != want {
			t.Errorf("Uniform bf16[%d] = %v, want %v", i, got, want)
		}
	}
	r := eval(t, random.UniformIn(random.Key(9), []int{4}, trace.Float(-3), trace.Float(2)))
	if got := data[float64](t, r); !slices.Equal(got, known.UniformF64Range) {
		t.Errorf("UniformIn(-3, 2) = %v, want %v", got, known.UniformF64Range)
	}
	if got := data[int64](t, eval(t, random.Permutation(random.Key(0), 10))); !slices.Equal(got, known.Permutation10) {
		t.Errorf("Permutation(Key(0), 10) = %v, want %v", got, known.Permutation10)
	}
	if got := data[int64](t, eval(t, random.Permutation(random.Key(1), 2000))); !slices.Equal(got, known.Permutation2000) {
		t.Errorf("Permutation(Key(1), 2000) differs from the reference (two sort rounds)")
	}
}

// The cipher itself on Random123's known-answer vectors.
func TestThreefryKAT(t *testing.T) {
	cases := []struct{ key, ctr uint64 }{
		{0, 0},
		{math.MaxUint64, math.MaxUint64},
		{0x13198a2e_03707344, 0x243f6a88_85a308d3},
	}
	for i, c := range cases {
		v := trace.Threefry2x32(trace.Const(tensor.Scalar(c.key)), trace.Const(tensor.Scalar(c.ctr)))
		got := data[uint64](t, eval(t, v))[0]
		want := uint64(known.KAT[i][0])<<32 | uint64(known.KAT[i][1])
		if got != want {
			t.Errorf("threefry2x32(%#x, %#x) = %#x, want %#x", c.key, c.ctr, got, want)
		}
	}
}

// With Config.X32 the defaults are 32-bit: f32 samples and u32 bits.
func TestX32Defaults(t *testing.T) {
	x32 := kiln.X32()
	if d := eval(t, random.Uniform(random.Key(0), []int{2}), x32).DType(); d != tensor.F32 {
		t.Errorf("Uniform under X32 is %v, want f32", d)
	}
	if d := eval(t, random.Bits(random.Key(0), []int{2}), x32).DType(); d != tensor.U32 {
		t.Errorf("Bits under X32 is %v, want u32", d)
	}
	if d := eval(t, random.Normal(random.Key(0), []int{2})).DType(); d != tensor.F64 {
		t.Errorf("Normal by default is %v, want f64", d)
	}
}

// Random functions are pure and work on traced keys inside Jit: a key
// passed in gives the same numbers as the constant key.
func TestTracedKey(t *testing.T) {
	f := kiln.Jit(func(key kiln.Value) kiln.Value { return random.Normal(random.FoldIn(key, trace.Int(3)), []int{4, 5}) })
	k := eval(t, random.Key(11))
	a, err := f.Run(k)
	if err != nil {
		t.Fatal(err)
	}
	b := eval(t, random.Normal(random.FoldIn(random.Key(11), trace.Int(3)), []int{4, 5}))
	if !tensor.Equal(a, b) {
		t.Errorf("traced key gives %v, constant key %v", a, b)
	}
	c, _ := f.Run(k)
	if !tensor.Equal(a, c) {
		t.Error("a second call with the same key gave other numbers")
	}
}

// Normal is √2·erfinv(u) of the uniform JAX draws in (−1, 1).
func TestNormalIsErfInvOfUniform(t *testing.T) {
	n := 1000
	key := random.Key(7)
	u := data[float64](t, eval(t, random.UniformIn(key, []int{n}, trace.Float(math.Nextafter(-1, 0)), trace.Float(1))))
	z := data[float64](t, eval(t, random.Normal(key, []int{n})))
	for i := range z {
		want := math.Sqrt2 * math.Erfinv(u[i]) // package math's erfinv: a few ulps
		if math.Abs(z[i]-want) > 2e-15*math.Max(1, math.Abs(want)) {
			t.Fatalf("normal[%d] = %v, want √2·erfinv(%v) = %v", i, z[i], u[i], want)
		}
	}
}

// ksStatistic is the Kolmogorov–Smirnov distance between the sample and
// cdf.
func ksStatistic(xs []float64, cdf func(float64) float64) float64 {
	xs = slices.Clone(xs)
	sort.Float64s(xs)
	n := float64(len(xs))
	d := 0.0
	for i, x := range xs {
		f := cdf(x)
		d = max(d, math.Abs(f-float64(i)/n), math.Abs(float64(i+1)/n-f))
	}
	return d
}

// The samplers follow their distributions: Kolmogorov–Smirnov at fixed
// seeds (deterministic) against the critical value for α = 0.001.
func TestDistributions(t *testing.T) {
	const n = 20000
	crit := 1.949 / math.Sqrt(n)
	phi := func(x float64) float64 { return 0.5 * math.Erfc(-x/math.Sqrt2) }
	for _, c := range []struct {
		name string
		v    kiln.Value
		cdf  func(float64) float64
	}{
		{"uniform f64", random.Uniform(random.Key(1), []int{n}), func(x float64) float64 { return min(max(x, 0), 1) }},
		{"uniform f32", random.Uniform(random.Key(2), []int{n}, tensor.F32), func(x float64) float64 { return min(max(x, 0), 1) }},
		{"uniform [-2, 5)", random.UniformIn(random.Key(3), []int{n}, trace.Float(-2), trace.Float(5)), func(x float64) float64 { return min(max((x+2)/7, 0), 1) }},
		{"normal f64", random.Normal(random.Key(4), []int{n}), phi},
		{"normal f32", random.Normal(random.Key(5), []int{n}, tensor.F32), phi},
		{"truncated normal (-1, 2)", random.TruncatedNormal(random.Key(6), trace.Float(-1), trace.Float(2), []int{n}),
			func(x float64) float64 { return min(max((phi(x)-phi(-1))/(phi(2)-phi(-1)), 0), 1) }},
		{"gumbel", random.Gumbel(random.Key(7), []int{n}), func(x float64) float64 { return math.Exp(-math.Exp(-x)) }},
	} {
		xs := data[float64](t, eval(t, c.v.Astype(tensor.F64)))
		if d := ksStatistic(xs, c.cdf); d > crit {
			t.Errorf("%s: KS distance %.4f > %.4f", c.name, d, crit)
		}
	}
	tn := data[float64](t, eval(t, random.TruncatedNormal(random.Key(8), trace.Float(-0.5), trace.Float(0.5), []int{n})))
	for _, x := range tn {
		if !(x > -0.5 && x < 0.5) {
			t.Fatalf("truncated normal sample %v outside (-0.5, 0.5)", x)
		}
	}
}

// chiSquare of observed counts against expected probabilities, with the
// critical value of the χ² distribution with len−1 degrees of freedom at
// α = 0.001 supplied by the caller.
func chiSquare(counts []int, probs []float64, n int) float64 {
	s := 0.0
	for i, c := range counts {
		e := probs[i] * float64(n)
		s += (float64(c) - e) * (float64(c) - e) / e
	}
	return s
}

func TestDiscreteDistributions(t *testing.T) {
	const n = 20000
	// Bernoulli(0.3): χ² with 1 degree of freedom, critical 10.83.
	bs := data[bool](t, eval(t, random.Bernoulli(random.Key(1), trace.Float(0.3), []int{n})))
	ones := 0
	for _, b := range bs {
		if b {
			ones++
		}
	}
	if x := chiSquare([]int{n - ones, ones}, []float64{0.7, 0.3}, n); x > 10.83 {
		t.Errorf("bernoulli(0.3): %d of %d true, χ² = %.2f", ones, n, x)
	}
	// Categorical over 4 classes: χ² with 3 degrees of freedom, critical 16.27.
	probs := []float64{0.1, 0.2, 0.3, 0.4}
	logits := make([]float64, len(probs))
	for i, p := range probs {
		logits[i] = math.Log(p) + 3 // unnormalized
	}
	l := trace.Const(tensor.Must(tensor.FromSlice(logits)))
	cs := data[int64](t, eval(t, random.Categorical(random.Key(2), l, -1, []int{n})))
	counts := make([]int, 4)
	for _, c := range cs {
		counts[c]++
	}
	if x := chiSquare(counts, probs, n); x > 16.27 {
		t.Errorf("categorical %v: counts %v, χ² = %.2f", probs, counts, x)
	}
	// Bits: each of 16 nibble values equally likely, χ² with 15 degrees of
	// freedom, critical 37.70; and the low bit of each u32 likewise.
	ws := data[uint32](t, eval(t, random.Bits(random.Key(3), []int{n}, tensor.U32)))
	nib := make([]int, 16)
	for _, w := range ws {
		nib[w>>28]++
	}
	uniform16 := slices.Repeat([]float64{1.0 / 16}, 16)
	if x := chiSquare(nib, uniform16, n); x > 37.70 {
		t.Errorf("top nibbles of u32 bits: %v, χ² = %.2f", nib, x)
	}
	// Permutation: each of the 6 orders of 3 elements equally likely over
	// many folded keys, χ² with 5 degrees of freedom, critical 20.52.
	const m = 3000
	f := kiln.Jit(func(key kiln.Value) kiln.Value { return random.Permutation(key, 3) })
	orders := map[[3]int64]int{}
	for i := range m {
		k := eval(t, random.FoldIn(random.Key(4), trace.Int(int64(i))))
		p, err := f.Run(k)
		if err != nil {
			t.Fatal(err)
		}
		orders[[3]int64(data[int64](t, p))]++
	}
	if len(orders) != 6 {
		t.Fatalf("permutations of 3 seen: %v", orders)
	}
	var oc []int
	for _, c := range orders {
		oc = append(oc, c)
	}
	if x := chiSquare(oc, slices.Repeat([]float64{1.0 / 6}, 6), m); x > 20.52 {
		t.Errorf("permutation orders %v, χ² = %.2f", orders, x)
	}
}

// Keys from Split and FoldIn give independent streams: the correlation of
// the uniforms of sibling keys is within 4 standard errors of 0, and no
// two of 1,000 split keys are equal.
func TestSplitIndependence(t *testing.T) {
	const n = 20000
	keys := random.Split(random.Key(0), 1000)
	ks := data[uint32](t, eval(t, keys))
	seen := map[[2]uint32]bool{}
	for i := 0; i < len(ks); i += 2 {
		k := [2]uint32{ks[i], ks[i+1]}
		if seen[k] {
			t.Fatalf("split key %v repeats", k)
		}
		seen[k] = true
	}
	for _, c := range []struct {
		name string
		a, b kiln.Value
	}{
		{"split siblings", keys.Index(0), keys.Index(1)},
		{"parent and child", random.Key(0), keys.Index(0)},
		{"fold_in 0 and 1", random.FoldIn(random.Key(0), trace.Int(0)), random.FoldIn(random.Key(0), trace.Int(1))},
	} {
		x := data[float64](t, eval(t, random.Uniform(c.a, []int{n})))
		y := data[float64](t, eval(t, random.Uniform(c.b, []int{n})))
		var sx, sy, sxy, sxx, syy float64
		for i := range x {
			sx += x[i]
			sy += y[i]
		}
		mx, my := sx/n, sy/n
		for i := range x {
			sxy += (x[i] - mx) * (y[i] - my)
			sxx += (x[i] - mx) * (x[i] - mx)
			syy += (y[i] - my) * (y[i] - my)
		}
		if r := sxy / math.Sqrt(sxx*syy); math.Abs(r) > 4/math.Sqrt(n) {
			t.Errorf("%s: correlation %.4f", c.name, r)
		}
	}
}

// Shuffle permutes slices along an axis in Permutation's order.
func TestShuffle(t *testing.T) {
	x := trace.Const(tensor.Must(tensor.FromSlice([]float32{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, 3, 4)))
	got := data[float32](t, eval(t, random.Shuffle(random.Key(0), x, 1)))
	perm := data[int64](t, eval(t, random.Permutation(random.Key(0), 4)))
	for r := range 3 {
		for c := range 4 {
			if want := float32(4*r) + float32(perm[c]); got[4*r+c] != want {
				t.Fatalf("shuffle[%d, %d] = %v, want %v (perm %v)", r, c, got[4*r+c], want, perm)
			}
		}
	}
}

// Bad keys, dtypes and shapes are typed errors at the caller's line.
func TestErrors(t *testing.T) {
	f32key := trace.Const(tensor.Must(tensor.FromSlice([]float32{0, 0})))
	for _, c := range []struct {
		name string
		v    kiln.Value
		want string
		kind any
	}{
		{"float key", random.Uniform(f32key, []int{2}), "u32[2]", new(*trace.DTypeError)},
		{"batched key", random.Normal(random.Split(random.Key(0), 3), []int{2}), "single key", new(*trace.ShapeError)},
		{"int dtype", random.Uniform(random.Key(0), []int{2}, tensor.I32), "must be a float dtype", new(*trace.DTypeError)},
		{"signed bits", random.Bits(random.Key(0), []int{2}, tensor.I32), "unsigned int dtype", new(*trace.DTypeError)},
		{"negative shape", random.Normal(random.Key(0), []int{2, -1}), "negative dimension", new(*trace.ShapeError)},
		{"bounds shape", random.UniformIn(random.Key(0), []int{3}, trace.Const(tensor.Must(tensor.FromSlice([]float64{0, 1}))), trace.Float(2)), "broadcast-compatible", new(*trace.ShapeError)},
		{"int p", random.Bernoulli(random.Key(0), trace.Int(1), []int{2}), "floating dtype", new(*trace.DTypeError)},
		{"categorical axis", random.Categorical(random.Key(0), trace.Const(tensor.Must(tensor.FromSlice([]float64{0, 1}))), 1, nil), "out of bounds", new(*trace.ShapeError)},
		{"fold_in float", random.FoldIn(random.Key(0), trace.Float(1.5)), "scalar integer", new(*trace.DTypeError)},
	} {
		_, err := kiln.Eval(c.v)
		if err == nil {
			t.Errorf("%s: no error", c.name)
			continue
		}
		if !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "random_test.go:") {
			t.Errorf("%s: error %q lacks %q or the caller's line", c.name, err, c.want)
		}
		switch k := c.kind.(type) {
		case **trace.DTypeError:
			if !errors.As(err, k) {
				t.Errorf("%s: %T is not a *trace.DTypeError", c.name, err)
			}
		case **trace.ShapeError:
			if !errors.As(err, k) {
				t.Errorf("%s: %T is not a *trace.ShapeError", c.name, err)
			}
		}
	}
}

// OpenCL gives the same bits as the CPU: exactly for the bits and
// everything made from them by arithmetic, and within the transcendental
// contract (SPEC §4: 1 ulp for f64, 2 for f32, per backend) for the
// samplers that apply erf_inv or log.
func TestOpenCLSameBits(t *testing.T) {
	b, err := opencl.New(opencl.Options{})
	if err != nil {
		if opencl.Unavailable(err) && os.Getenv("KILN_REQUIRE_OPENCL") != "1" {
			t.Skipf("skipping: no OpenCL device (%v); set KILN_REQUIRE_OPENCL=1 to make this a failure", err)
		}
		t.Fatal(err)
	}
	k := random.Key(2026)
	for name, v := range map[string]kiln.Value{
		"bits":         random.Bits(k, []int{257}),
		"bits u8":      random.Bits(k, []int{257}, tensor.U8),
		"split":        random.Split(k, 33),
		"fold_in":      random.FoldIn(k, trace.Int(5)),
		"uniform":      random.Uniform(k, []int{3, 97}),
		"uniform f32":  random.Uniform(k, []int{3, 97}, tensor.F32),
		"uniform f16":  random.Uniform(k, []int{97}, tensor.F16),
		"uniform bf16": random.Uniform(k, []int{97}, tensor.BF16),
		"permutation":  random.Permutation(k, 50),
		"bernoulli":    random.Bernoulli(k, trace.Float(0.25), []int{99}),
	} {
		cpu := eval(t, v)
		gpu := eval(t, v, kiln.WithBackend(b))
		if !tensor.Equal(cpu, gpu) {
			t.Errorf("%s: OpenCL %v, CPU %v", name, gpu, cpu)
		}
	}
	for name, c := range map[string]struct {
		v   kiln.Value
		ulp float64
	}{
		"normal":     {random.Normal(k, []int{101}), 2},
		"normal f32": {random.Normal(k, []int{101}, tensor.F32), 4},
		"gumbel f32": {random.Gumbel(k, []int{64}, tensor.F32), 8},
	} {
		cpu := data[float64](t, eval(t, c.v.Astype(tensor.F64)))
		gpu := data[float64](t, eval(t, c.v.Astype(tensor.F64), kiln.WithBackend(b)))
		eps := 0x1p-52
		if c.v.DType() == tensor.F32 {
			eps = 0x1p-23
		}
		for i := range cpu {
			if d := math.Abs(cpu[i] - gpu[i]); d > c.ulp*eps*math.Max(1, math.Abs(cpu[i])) {
				t.Errorf("%s[%d]: OpenCL %v, CPU %v", name, i, gpu[i], cpu[i])
			}
		}
	}
}

// A complex normal has independent real and imaginary parts of variance
// ½ each (JAX's: two split keys, scaled by 1/√2).
func TestComplexNormal(t *testing.T) {
	const n = 20000
	z := eval(t, random.Normal(random.Key(12), []int{n}, tensor.C128))
	if z.DType() != tensor.C128 {
		t.Fatalf("dtype %v", z.DType())
	}
	cs := data[complex128](t, z)
	re, im := make([]float64, n), make([]float64, n)
	for i, c := range cs {
		re[i], im[i] = real(c)*math.Sqrt2, imag(c)*math.Sqrt2
	}
	phi := func(x float64) float64 { return 0.5 * math.Erfc(-x/math.Sqrt2) }
	crit := 1.949 / math.Sqrt(n)
	if d := ksStatistic(re, phi); d > crit {
		t.Errorf("real part: KS %.4f", d)
	}
	if d := ksStatistic(im, phi); d > crit {
		t.Errorf("imaginary part: KS %.4f", d)
	}
	want := data[float64](t, eval(t, random.Normal(random.Split(random.Key(12), 2).Index(0), []int{n})))
	if math.Abs(re[0]-want[0]) > 1e-15*math.Abs(want[0]) {
		t.Errorf("real part %v is not the normal of the first split key (%v)", re[0], want[0])
	}
}
