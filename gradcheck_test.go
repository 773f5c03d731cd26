package kiln_test

import (
	"hash/fnv"
	"math"
	"math/rand"
	"testing"

	"github.com/kiln-go/kiln"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// A gradient check differentiates loss(x) = Σ re(w ⊙ fn(x)) — fn's result
// widened to f64 (c128) and weighted by fixed random w — at inputs rounded
// to the dtype under test, and compares the gradient with central
// differences of the same loss evaluated in float64 at those inputs
// (perturbing real and imaginary parts apart: JAX's gradient of a real
// function of z = x + iy is ∂/∂x − i·∂/∂y).

// spec draws one input: uniform in [lo, hi], or with signed, a magnitude
// in [lo, hi] with a random sign (to stay off a kink at 0).
type spec struct {
	shape  []int
	lo, hi float64
	signed bool
	offInt bool // integer part in [lo, hi), fraction in [0.25, 0.75]: off the jumps of floor, round and int converts even in bf16
}

func in(lo, hi float64, shape ...int) spec { return spec{shape: shape, lo: lo, hi: hi} }
func signed(lo, hi float64, shape ...int) spec {
	return spec{shape: shape, lo: lo, hi: hi, signed: true}
}
func offInt(lo, hi float64, shape ...int) spec {
	return spec{shape: shape, lo: lo, hi: hi, offInt: true}
}
func std(shape ...int) spec  { return in(-2, 2, shape...) }
func pos(shape ...int) spec  { return in(0.3, 3, shape...) }
func away(shape ...int) spec { return signed(0.3, 2, shape...) }
func one(fn func(x kiln.Value) kiln.Value) func([]kiln.Value) kiln.Value {
	return func(x []kiln.Value) kiln.Value { return fn(x[0]) }
}
func two(fn func(x, y kiln.Value) kiln.Value) func([]kiln.Value) kiln.Value {
	return func(x []kiln.Value) kiln.Value { return fn(x[0], x[1]) }
}

type gradCase struct {
	name   string
	in     []spec
	fn     func(x []kiln.Value) kiln.Value
	dtypes []tensor.DType // nil: f64, f32, f16, bf16
	tol    float64        // multiplies the dtype's tolerance; 0 means 1
}

var (
	realDTypes    = []tensor.DType{tensor.F64, tensor.F32, tensor.F16, tensor.BF16}
	complexDTypes = []tensor.DType{tensor.C128, tensor.C64}
	allInexact    = append(append([]tensor.DType{}, realDTypes...), complexDTypes...)
)

// gradTol is the relative tolerance of a gradient computed in d against
// float64 central differences: the differences' own error for f64, the
// roundings of a few ops in d otherwise.
func gradTol(d tensor.DType) float64 {
	switch d {
	case tensor.F64, tensor.C128:
		return 1e-6
	case tensor.F32, tensor.C64:
		return 1e-4
	case tensor.F16:
		return 2e-2
	}
	return 1e-1 // bf16: 8 significant bits
}

func seedOf(s string) int64 {
	h := fnv.New64a()
	h.Write([]byte(s))
	return int64(h.Sum64() >> 1)
}

// draw makes the inputs of a case as complex128 values (imaginary parts 0
// for real dtypes).
func draw(r *rand.Rand, sp spec, complexIn bool) []complex128 {
	n := trace.ShapeSize(sp.shape)
	out := make([]complex128, n)
	for i := range out {
		part := func() float64 {
			v := sp.lo + (sp.hi-sp.lo)*r.Float64()
			if sp.offInt {
				v = math.Floor(v) + 0.25 + 0.5*r.Float64()
			}
			if sp.signed && r.Intn(2) == 0 {
				v = -v
			}
			return v
		}
		out[i] = complex(part(), 0)
		if complexIn {
			out[i] = complex(real(out[i]), part())
		}
	}
	return out
}

// arrayOf makes an array of dtype d (rounding) from complex values.
func arrayOf(t *testing.T, vals []complex128, shape []int, d tensor.DType) *tensor.Array {
	t.Helper()
	a, err := complexArray(vals, shape)
	if err != nil {
		t.Fatal(err)
	}
	if !d.IsComplex() {
		a = a.Astype(tensor.F64)
	}
	return a.Astype(d)
}

// complexArray is vals with the given shape (rank 0 included, which
// tensor.FromSlice reads as "1-D").
func complexArray(vals []complex128, shape []int) (*tensor.Array, error) {
	a, err := tensor.FromSlice(vals)
	if err != nil {
		return nil, err
	}
	return a.Reshape(shape...)
}

func complexes(a *tensor.Array) []complex128 {
	c := a.Astype(tensor.C128)
	out := make([]complex128, c.Size())
	for i := range out {
		out[i] = tensor.Index(c.Data(), i).(complex128)
	}
	return out
}

// lossOf weights fn's result (widened to f64, or c128 when complex) by w
// and sums the real part.
func lossOf(fn func([]kiln.Value) kiln.Value, w *tensor.Array) func(xs ...kiln.Value) kiln.Value {
	return func(xs ...kiln.Value) kiln.Value {
		y := fn(xs)
		if w.DType().IsComplex() {
			return y.Astype(tensor.C128).Mul(kiln.Const(w)).Real().Sum()
		}
		return y.Astype(tensor.F64).Mul(kiln.Const(w)).Sum()
	}
}

func checkGradCase(t *testing.T, c gradCase, d tensor.DType) {
	r := rand.New(rand.NewSource(seedOf(c.name + d.String())))
	wide := tensor.F64
	if d.IsComplex() {
		wide = tensor.C128
	}
	xs := make([]any, len(c.in))            // at d
	x64 := make([]*tensor.Array, len(c.in)) // the same values, widened
	for i, sp := range c.in {
		a := arrayOf(t, draw(r, sp, d.IsComplex()), sp.shape, d)
		xs[i], x64[i] = a, a.Astype(wide)
	}
	probe, err := kiln.Jit(func(xs ...kiln.Value) kiln.Value { return c.fn(xs) }).Trace(xs...)
	if err != nil {
		t.Fatalf("%s/%s: %v", c.name, d, err)
	}
	out := probe.Outputs[0]
	wd := tensor.F64
	if out.Type.DType.IsComplex() {
		wd = tensor.C128
	}
	w := arrayOf(t, draw(r, spec{shape: out.Shape, lo: -1, hi: 1}, wd == tensor.C128), out.Shape, wd)
	loss := lossOf(c.fn, w)
	argnums := make([]int, len(c.in))
	for i := range argnums {
		argnums[i] = i
	}
	grads, err := kiln.Jit(kiln.Grad(loss, argnums...)).RunAll(xs...)
	if err != nil {
		t.Fatalf("%s/%s: grad: %v", c.name, d, err)
	}
	f := kiln.Jit(loss)
	eval := func(args []any) float64 {
		v, err := f.Run(args...)
		if err != nil {
			t.Fatalf("%s/%s: loss: %v", c.name, d, err)
		}
		return tensor.Index(v.Data(), 0).(float64)
	}
	tol := gradTol(d)
	if c.tol != 0 {
		tol *= c.tol
	}
	for i := range c.in {
		g := grads[i]
		if g.DType() != d || !g.HasShape(c.in[i].shape) {
			t.Errorf("%s/%s: gradient %d is %s%v, want %s%v (a cotangent has its primal's dtype and shape)", c.name, d, i, g.DType(), g.Shape(), d, c.in[i].shape)
			continue
		}
		fd := finiteDiff(x64, i, eval)
		checkClose(t, c.name+"/"+d.String(), i, complexes(g), fd, tol)
	}
}

// finiteDiff is the central-difference gradient of eval in input i.
func finiteDiff(x64 []*tensor.Array, i int, eval func([]any) float64) []complex128 {
	vals := complexes(x64[i])
	out := make([]complex128, len(vals))
	at := func(j int, dv complex128) float64 {
		v := append([]complex128{}, vals...)
		v[j] += dv
		a, _ := complexArray(v, x64[i].Shape())
		args := make([]any, len(x64))
		for k := range x64 {
			args[k] = x64[k]
		}
		args[i] = a.Astype(x64[i].DType())
		return eval(args)
	}
	for j, v := range vals {
		h := 1e-5 * math.Max(1, math.Abs(real(v)))
		dx := (at(j, complex(h, 0)) - at(j, complex(-h, 0))) / (2 * h)
		dy := 0.0
		if x64[i].DType().IsComplex() {
			h := 1e-5 * math.Max(1, math.Abs(imag(v)))
			dy = (at(j, complex(0, h)) - at(j, complex(0, -h))) / (2 * h)
		}
		out[j] = complex(dx, -dy)
	}
	return out
}

// checkClose compares a gradient with the differences: each element
// within tol of its own size plus a tenth of the largest (so elements
// near zero are held to the scale of the whole gradient).
func checkClose(t *testing.T, name string, arg int, got, want []complex128, tol float64) {
	t.Helper()
	scale := 0.0
	for _, w := range want {
		scale = math.Max(scale, absc(w))
	}
	for j := range got {
		if err := absc(got[j] - want[j]); !(err <= tol*(absc(want[j])+0.1*scale+1e-9)) {
			t.Errorf("%s: d/dx%d[%d] = %v, central differences %v", name, arg, j, got[j], want[j])
		}
	}
}

func absc(z complex128) float64 { return math.Hypot(real(z), imag(z)) }

// TestGradCheck runs every case at every dtype it lists.
func TestGradCheck(t *testing.T) {
	for _, c := range gradCases {
		dts := c.dtypes
		if dts == nil {
			dts = realDTypes
		}
		for _, d := range dts {
			checkGradCase(t, c, d)
		}
	}
}

// TestGradCheckCoversEveryOp checks that the cases differentiate through
// every op of the table, so an op added without a case fails here.
func TestGradCheckCoversEveryOp(t *testing.T) {
	seen := map[trace.Op]bool{}
	for _, c := range gradCases {
		xs := make([]any, len(c.in))
		d := tensor.F64
		if c.dtypes != nil {
			d = c.dtypes[0]
		}
		for i, sp := range c.in {
			a, _ := tensor.Zeros(d, sp.shape...)
			xs[i] = a
		}
		argnums := make([]int, len(c.in))
		for i := range argnums {
			argnums[i] = i
		}
		p, err := kiln.Jit(kiln.Grad(func(xs ...kiln.Value) kiln.Value { return c.fn(xs).Astype(tensor.F64).Real().Sum() }, argnums...)).Trace(xs...)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		for _, e := range p.Eqns {
			seen[e.Op] = true
		}
	}
	for _, op := range trace.AllOps() {
		if op != trace.OpParam && !seen[op] && trace.RuleOf(op).NotDifferentiable == "" {
			t.Errorf("no gradient check goes through %s: add a case to gradCases", op)
		}
	}
}
