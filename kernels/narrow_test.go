package kernels_test

import (
	"math"
	"testing"

	"github.com/kiln-go/kiln/internal/reference"
	"github.com/kiln-go/kiln/kernels"
	"github.com/kiln-go/kiln/kernels/conformance"
	"github.com/kiln-go/kiln/lower"
	"github.com/kiln-go/kiln/promote"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// runNarrow compiles fn for inputs fused and op by op (lower's NoFusion)
// on the CPU, runs both and the reference evaluator, and returns the
// three results' outputs.
func runNarrow(t *testing.T, inputs []*tensor.Array, fn func(a []trace.Value) []trace.Value) (fused, opByOp, ref []*tensor.Array) {
	t.Helper()
	abs := make([]trace.Abstract, len(inputs))
	for i, a := range inputs {
		abs[i] = trace.Abstract{Type: promote.Strong(a.DType()), Shape: a.Shape()}
	}
	p, err := trace.Trace(promote.Config{}, abs, fn)
	if err != nil {
		t.Fatal(err)
	}
	ref, err = reference.Eval(p, inputs, reference.Options{Transcendental: kernels.Transcendental})
	if err != nil {
		t.Fatal(err)
	}
	run := func(o lower.Options) []*tensor.Array {
		m, err := lower.Compile(p, o)
		if err != nil {
			t.Fatal(err)
		}
		exe, err := kernels.DefaultCPU().Compile(m)
		if err != nil {
			t.Fatal(err)
		}
		out, err := exe.Run(inputs)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	return run(lower.Options{Fold: kernels.Fold, Verify: true}), run(lower.Options{Fold: kernels.Fold, NoFusion: true, Verify: true}), ref
}

func narrowBytes(t *testing.T, a *tensor.Array) []byte {
	t.Helper()
	b, _, ok := tensor.NarrowBytes(a.Data())
	if !ok {
		t.Fatalf("%s is not a narrow array", a.DType())
	}
	return b
}

// Every encoding of every narrow float, through compiled programs fused
// and op by op: widened to f32 it is the format's value, and narrowed
// back it is itself (a NaN the format's NaN); every f32 bit-pattern class
// (normal, subnormal, halfway, overflow, NaN, ±0, ±Inf) converts as the
// format's definition says (tensor.FloatFormat.FromFloat32); and all
// agree with the reference evaluator, bit for bit.
func TestNarrowFloatConversionsCompiled(t *testing.T) {
	for _, d := range tensor.NarrowDTypes() {
		f, ok := d.FloatFormat()
		if !ok {
			continue
		}
		enc := conformance.NarrowEncodings(d)
		fused, opByOp, ref := runNarrow(t, []*tensor.Array{enc}, func(a []trace.Value) []trace.Value {
			return []trace.Value{a[0].Astype(tensor.F32), a[0].Astype(tensor.F32).Astype(d)}
		})
		for name, out := range map[string][]*tensor.Array{"fused": fused, "op by op": opByOp, "reference": ref} {
			wide := out[0].Data().([]float32)
			back := narrowBytes(t, out[1])
			for b := range 1 << f.Bits() {
				want := f.ToFloat32(uint8(b))
				if math.Float32bits(wide[b]) != math.Float32bits(want) && !(want != want && wide[b] != wide[b]) {
					t.Errorf("%s %s: 0x%02x → f32 = %v, want %v", name, d, b, wide[b], want)
				}
				wantBack := uint8(b)
				if f.IsNaN(uint8(b)) {
					wantBack = f.FromFloat32(want)
				}
				if back[b] != wantBack {
					t.Errorf("%s %s: 0x%02x → f32 → %s = 0x%02x, want 0x%02x", name, d, b, d, back[b], wantBack)
				}
			}
		}
		xs := conformance.NarrowF32Classes(d)
		fused, opByOp, ref = runNarrow(t, []*tensor.Array{xs}, func(a []trace.Value) []trace.Value {
			return []trace.Value{a[0].Astype(d)}
		})
		for name, out := range map[string][]*tensor.Array{"fused": fused, "op by op": opByOp, "reference": ref} {
			got := narrowBytes(t, out[0])
			for i, x := range xs.Data().([]float32) {
				if want := f.FromFloat32(x); got[i] != want {
					t.Errorf("%s: f32 %g (0x%08x) → %s = 0x%02x, want 0x%02x", name, x, math.Float32bits(x), d, got[i], want)
				}
			}
		}
	}
}

// Arithmetic on narrow dtypes rounds (floats) or wraps (sub-byte integers)
// after every op: x*y + z - x, computed here from the formats' definitions
// one op at a time, equals the compiled program fused and op by op, and
// the reference evaluator.
func TestNarrowArithmeticRoundsEveryOp(t *testing.T) {
	for _, d := range tensor.NarrowDTypes() {
		x, y, z := conformance.Input(d, 1, 64), conformance.Input(d, 2, 64), conformance.Input(d, 3, 64)
		fused, opByOp, ref := runNarrow(t, []*tensor.Array{x, y, z}, func(a []trace.Value) []trace.Value {
			return []trace.Value{a[0].Mul(a[1]).Add(a[2]).Sub(a[0])}
		})
		xb, yb, zb := narrowBytes(t, x), narrowBytes(t, y), narrowBytes(t, z)
		want := make([]byte, len(xb))
		if f, ok := d.FloatFormat(); ok {
			r := func(v float32) float32 { return f.ToFloat32(f.FromFloat32(v)) }
			for i := range want {
				xv, yv, zv := f.ToFloat32(xb[i]), f.ToFloat32(yb[i]), f.ToFloat32(zb[i])
				want[i] = f.FromFloat32(r(r(xv*yv)+zv) - xv)
			}
		} else {
			f, _ := d.IntFormat()
			w := func(v int64) int64 { return f.Int64(f.FromInt64(v)) }
			for i := range want {
				xv, yv, zv := int64(int8(xb[i])), int64(int8(yb[i])), int64(int8(zb[i]))
				if !f.Signed() {
					xv, yv, zv = int64(xb[i]), int64(yb[i]), int64(zb[i])
				}
				want[i] = byte(w(w(w(xv*yv)+zv) - xv))
			}
		}
		for name, out := range map[string][]*tensor.Array{"fused": fused, "op by op": opByOp, "reference": ref} {
			got := narrowBytes(t, out[0])
			for i := range want {
				f, isFloat := d.FloatFormat()
				if got[i] != want[i] && !(isFloat && f.IsNaN(got[i]) && f.IsNaN(want[i])) {
					t.Errorf("%s %s[%d]: x*y+z-x = 0x%02x, want 0x%02x", name, d, i, got[i], want[i])
					break
				}
			}
		}
	}
}
