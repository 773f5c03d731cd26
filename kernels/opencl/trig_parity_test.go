package opencl

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/kiln-go/kiln/internal/bigmath"
	"github.com/kiln-go/kiln/kernels"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// TestTrigParity: f64 sin, cos and tan give the CPU backend's bits
// (kernels.Transcendental) for every kind of argument: the three ranges
// of the reduction (Cody-Waite to 2^30 and to 2^48, Payne-Hanek beyond),
// the doubles closest to multiples of pi/2 in every binade, multiples of
// pi/4, subnormals, specials.
func TestTrigParity(t *testing.T) {
	b := testBackend(t)
	r := rand.New(rand.NewPCG(31, 37))
	xs := []float64{0, math.Copysign(0, -1), math.NaN(), math.Inf(1), math.Inf(-1), 5e-324, -5e-324, 0x1p-27, 0x1p-28,
		1 << 30, 1<<30 + 1, 1 << 48, 1<<48 - 0.5, math.MaxFloat64, -math.MaxFloat64, 1e22, 1e300, 2e21, 3e15}
	for e := -52; e <= 971; e++ {
		for _, x := range bigmath.NearHalfPiMultiples(e) {
			xs = append(xs, x, -math.Nextafter(x, 0), math.Nextafter(x, math.Inf(1)))
		}
	}
	for k := int64(1); k < 1<<61; k = k*2 + int64(r.IntN(3)) {
		xs = append(xs, bigmath.PiOver4Times(k), -bigmath.PiOver4Times(k+1))
	}
	for range 20000 {
		x := math.Ldexp(1+r.Float64(), r.IntN(2098)-1074)
		if r.IntN(2) == 0 {
			x = -x
		}
		xs = append(xs, x, (r.Float64()-0.5)*20)
	}
	in, _ := tensor.FromSlice(xs)
	for _, c := range []struct {
		op trace.Op
		f  func(trace.Value) trace.Value
	}{{trace.OpSin, trace.Value.Sin}, {trace.OpCos, trace.Value.Cos}, {trace.OpTan, trace.Value.Tan}} {
		m := module(t, func(a []trace.Value) []trace.Value { return []trace.Value{c.f(a[0])} }, abstract(tensor.F64, len(xs)))
		exe, err := b.Compile(m)
		if err != nil {
			t.Fatal(err)
		}
		out, err := exe.Run([]*tensor.Array{in})
		if err != nil {
			t.Fatal(err)
		}
		got := out[0].Data().([]float64)
		bad := 0
		for i, x := range xs {
			want := kernels.Transcendental(c.op, tensor.F64, x, 0)
			if math.Float64bits(got[i]) != math.Float64bits(want) && !(got[i] != got[i] && want != want) {
				if bad++; bad <= 5 {
					t.Errorf("%s(%v) = %v on OpenCL, %v on the CPU", c.op, x, got[i], want)
				}
			}
		}
		if bad > 0 {
			t.Errorf("%s: %d of %d results differ from the CPU backend's", c.op, bad, len(xs))
		}
	}
}
