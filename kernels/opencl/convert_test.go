package opencl

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/kiln-go/kiln/internal/numerics"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// runOne compiles x -> f(x) on the OpenCL backend and runs it.
func runOne(t *testing.T, x *tensor.Array, f func(trace.Value) trace.Value) *tensor.Array {
	t.Helper()
	b := testBackend(t)
	exe, err := b.Compile(module(t, func(a []trace.Value) []trace.Value { return []trace.Value{f(a[0])} }, abstract(x.DType(), x.Shape()...)))
	if err != nil {
		t.Fatal(err)
	}
	out, err := exe.Run([]*tensor.Array{x})
	if err != nil {
		t.Fatal(err)
	}
	return out[0]
}

// boundaryFloats returns, for every 16-bit value of a format, the float
// bits around it and around the midpoint to its successor — where rounding
// decides — plus a coarse sweep of all float32 bit patterns.
func boundaryFloats(toF32 func(uint16) float32) []float32 {
	var xs []float32
	for h := range 1 << 16 {
		v := toF32(uint16(h))
		next := toF32(uint16(h + 1))
		if v != v || next != next || math.IsInf(float64(v), 0) || math.Signbit(float64(v)) != math.Signbit(float64(next)) {
			continue
		}
		mid := float32((float64(v) + float64(next)) / 2)
		for _, c := range []float32{v, mid} {
			b := math.Float32bits(c)
			xs = append(xs, math.Float32frombits(b-1), c, math.Float32frombits(b+1))
		}
	}
	for b := uint64(0); b < 1<<32; b += 4099 {
		xs = append(xs, math.Float32frombits(uint32(b)))
	}
	return xs
}

func TestF16Conversions(t *testing.T) {
	testBackend(t)
	// Every f16 value to f32 (vload_half) and back (rnd_f16, f16_bits).
	all := make([]tensor.Float16, 1<<16)
	for i := range all {
		all[i] = tensor.Float16FromBits(uint16(i))
	}
	hs, _ := tensor.FromSlice(all, len(all))
	wide := runOne(t, hs, func(x trace.Value) trace.Value { return x.Astype(tensor.F32) }).Data().([]float32)
	for i, h := range all {
		if !numerics.Same(float64(wide[i]), float64(h.Float32())) {
			t.Fatalf("f16 %#04x -> f32: got %v want %v", i, wide[i], h.Float32())
		}
	}
	back := runOne(t, hs, func(x trace.Value) trace.Value { return x.Astype(tensor.F32).Astype(tensor.F16) }).Data().([]tensor.Float16)
	for i, h := range back {
		if h != all[i] && !(h.IsNaN() && all[i].IsNaN()) {
			t.Fatalf("f16 %#04x round trip: got %#04x", i, h.Bits())
		}
	}
	// Floats where rounding to f16 decides.
	xs := boundaryFloats(func(h uint16) float32 { return tensor.Float16FromBits(h).Float32() })
	x, _ := tensor.FromSlice(xs, len(xs))
	got := runOne(t, x, func(x trace.Value) trace.Value { return x.Astype(tensor.F16) }).Data().([]tensor.Float16)
	bad := 0
	for i, v := range xs {
		want := tensor.Float32ToF16(v)
		if got[i] != want && !(got[i].IsNaN() && want.IsNaN()) {
			if bad++; bad < 10 {
				t.Errorf("f32 %v (%#08x) -> f16: got %#04x want %#04x", v, math.Float32bits(v), got[i].Bits(), want.Bits())
			}
		}
	}
	// f64 -> f16 and bf16 in one step.
	r := rand.New(rand.NewPCG(1, 2))
	ds := make([]float64, 200000)
	for i := range ds {
		ds[i] = math.Float64frombits(r.Uint64() & 0xc0ffffffffffffff) // exponents around f16's range
		if i%2 == 0 {
			ds[i] = float64(xs[r.IntN(len(xs))]) + (r.Float64()-0.5)*0x1p-40
		}
	}
	d, _ := tensor.FromSlice(ds, len(ds))
	g16 := runOne(t, d, func(x trace.Value) trace.Value { return x.Astype(tensor.F16) }).Data().([]tensor.Float16)
	gbf := runOne(t, d, func(x trace.Value) trace.Value { return x.Astype(tensor.BF16) }).Data().([]tensor.BFloat16)
	for i, v := range ds {
		if w := tensor.Float64ToF16(v); g16[i] != w && !(w.IsNaN() && g16[i].IsNaN()) {
			if bad++; bad < 10 {
				t.Errorf("f64 %v -> f16: got %#04x want %#04x", v, g16[i].Bits(), w.Bits())
			}
		}
		if w := tensor.Float64ToBF16(v); gbf[i] != w && !(w.IsNaN() && gbf[i].IsNaN()) {
			if bad++; bad < 10 {
				t.Errorf("f64 %v -> bf16: got %#04x want %#04x", v, gbf[i].Bits(), w.Bits())
			}
		}
	}
}

func TestBF16Conversions(t *testing.T) {
	testBackend(t)
	all := make([]tensor.BFloat16, 1<<16)
	for i := range all {
		all[i] = tensor.BFloat16FromBits(uint16(i))
	}
	hs, _ := tensor.FromSlice(all, len(all))
	back := runOne(t, hs, func(x trace.Value) trace.Value { return x.Astype(tensor.F32).Astype(tensor.BF16) }).Data().([]tensor.BFloat16)
	for i, h := range back {
		if h != all[i] && !(h.IsNaN() && all[i].IsNaN()) {
			t.Fatalf("bf16 %#04x round trip: got %#04x", i, h.Bits())
		}
	}
	xs := boundaryFloats(func(h uint16) float32 { return tensor.BFloat16FromBits(h).Float32() })
	x, _ := tensor.FromSlice(xs, len(xs))
	got := runOne(t, x, func(x trace.Value) trace.Value { return x.Astype(tensor.BF16) }).Data().([]tensor.BFloat16)
	bad := 0
	for i, v := range xs {
		want := tensor.BFloat16FromFloat32(v)
		if got[i] != want && !(got[i].IsNaN() && want.IsNaN()) {
			if bad++; bad < 10 {
				t.Errorf("f32 %v (%#08x) -> bf16: got %#04x want %#04x", v, math.Float32bits(v), got[i].Bits(), want.Bits())
			}
		}
	}
	// 64-bit integers to bf16 in one step (float's 24 bits would round twice).
	r := rand.New(rand.NewPCG(3, 4))
	is := make([]int64, 100000)
	for i := range is {
		is[i] = int64(r.Uint64()) >> r.IntN(63)
	}
	ia, _ := tensor.FromSlice(is, len(is))
	gi := runOne(t, ia, func(x trace.Value) trace.Value { return x.Astype(tensor.BF16) }).Data().([]tensor.BFloat16)
	wi := ia.Astype(tensor.BF16).Data().([]tensor.BFloat16)
	for i := range is {
		if gi[i] != wi[i] {
			if bad++; bad < 10 {
				t.Errorf("i64 %d -> bf16: got %#04x want %#04x", is[i], gi[i].Bits(), wi[i].Bits())
			}
		}
	}
}
