package conformance

import (
	"fmt"
	"math"

	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// NarrowEncodings is every encoding of narrow dtype d as a 1-D array of d:
// 256 for the 8-bit floats, 64 and 16 for the 6- and 4-bit ones, every
// value of a sub-byte integer.
func NarrowEncodings(d tensor.DType) *tensor.Array {
	var b []byte
	if f, ok := d.FloatFormat(); ok {
		for v := range 1 << f.Bits() {
			b = append(b, byte(v))
		}
	} else {
		f, _ := d.IntFormat()
		for v := f.Min(); v <= f.Max(); v++ {
			b = append(b, byte(v))
		}
	}
	data, err := tensor.NarrowSlice(d, b)
	if err != nil {
		panic(err)
	}
	return tensor.Must(tensor.New(d, []int{len(b)}, data))
}

// NarrowF32Classes is an f32 array with every bit-pattern class a
// conversion to narrow float d must get right: ±0, ±Inf, NaNs of both
// signs, f32 subnormals and extremes, every value of d, every halfway
// point between two neighbouring values of d and the f32 on either side
// of it, and values past d's largest finite one (overflow).
func NarrowF32Classes(d tensor.DType) *tensor.Array {
	f, _ := d.FloatFormat()
	xs := []float32{0, float32(math.Copysign(0, -1)), float32(math.Inf(1)), float32(math.Inf(-1)),
		float32(math.NaN()), float32(math.Copysign(math.NaN(), -1)), math.SmallestNonzeroFloat32, -math.SmallestNonzeroFloat32,
		math.MaxFloat32, -math.MaxFloat32, 1e-40, 2 * f.MaxFinite(), -2 * f.MaxFinite(), f.MaxFinite() * 1.0625, f.MaxFinite() * 1.25}
	var vals []float32
	for b := range 1 << f.Bits() {
		if v := f.ToFloat32(uint8(b)); v == v && !math.IsInf(float64(v), 0) {
			vals = append(vals, v)
		}
	}
	xs = append(xs, vals...)
	for _, v := range vals {
		next := float32(math.Inf(1))
		for _, w := range vals {
			if w > v && w < next {
				next = w
			}
		}
		if math.IsInf(float64(next), 0) {
			continue
		}
		mid := float32((float64(v) + float64(next)) / 2) // exact: both have few significant bits
		xs = append(xs, mid, math.Nextafter32(mid, next), math.Nextafter32(mid, v))
	}
	return tensor.Must(tensor.FromSlice(xs))
}

// narrowCases hold the narrow dtypes to the reference beyond the per-dtype
// op, convert and reduction cases of Cases: every encoding through every
// wide dtype and back, every f32 class into each narrow float, chains of
// ops (each rounded or wrapped), data movement, and dots — in the narrow
// dtype (f32 or i8/u8 accumulation, one rounding or wrap) and with
// preferred_element_type f32 and bf16 (i32 for the integers), and the
// quantized pair i4 × i8.
func narrowCases() []Case {
	var cs []Case
	for _, d := range tensor.NarrowDTypes() {
		wide := []tensor.DType{tensor.F32, tensor.F64, tensor.F16, tensor.BF16, tensor.I32, tensor.U8, tensor.C64}
		cs = append(cs, Case{Name: "narrow/encodings/" + d.String(), Inputs: []*tensor.Array{NarrowEncodings(d)}, ExactBits: true,
			Fn: func(a []trace.Value) []trace.Value {
				var out []trace.Value
				for _, w := range wide {
					out = append(out, a[0].Astype(w), a[0].Astype(w).Astype(d))
				}
				return out
			}})
		if d.IsFloat() {
			cs = append(cs, Case{Name: "narrow/f32-classes/" + d.String(), Inputs: []*tensor.Array{NarrowF32Classes(d)}, ExactBits: true,
				Fn: func(a []trace.Value) []trace.Value {
					return []trace.Value{a[0].Astype(d), a[0].Astype(tensor.F64).Astype(d), a[0].Astype(tensor.F16).Astype(d)}
				}})
		}
		x, y, z := Input(d, 100, 7, 9), Input(d, 101, 9), Input(d, 102, 7, 1)
		chain := func(a []trace.Value) []trace.Value {
			x, y, z := a[0], a[1], a[2]
			if d.IsFloat() {
				return []trace.Value{x.Mul(y).Add(z), x.Sub(y).Div(z.Abs().Add(trace.Float(0.5))),
					x.Mul(trace.Float(1.5)).Add(trace.Int(2)), x.Maximum(y).Neg().Sqrt(), trace.Where(x.Gt(y), x, z)}
			}
			return []trace.Value{x.Mul(y).Add(z), x.Sub(y).Mul(trace.Int(1)).Add(trace.Int(1)), x.Neg().Abs(), x.Shl(trace.Int(1)).Xor(y),
				trace.Where(x.Lt(y), x, z), x.FloorDiv(z), x.Rem(z)}
		}
		cs = append(cs, Case{Name: "narrow/chain/" + d.String(), Inputs: []*tensor.Array{x, y, z}, Fn: chain})
		if d.IsFloat() {
			// A wrapping byte op read only by a conversion: the product
			// rounds to d (CPU fuseIntWiden once merged it with the
			// conversion as if to f32, skipping the rounding).
			bx, by := Input(tensor.I8, 150, 7, 9), Input(tensor.U8, 151, 7, 9)
			cs = append(cs, Case{Name: "narrow/byte-op-converted/" + d.String(), Inputs: []*tensor.Array{bx, by}, ExactBits: true,
				Fn: func(a []trace.Value) []trace.Value {
					return []trace.Value{a[0].Mul(a[0]).Astype(d).Astype(tensor.F32), a[1].Add(a[1]).Astype(d).Astype(tensor.F32),
						a[0].Sub(trace.Int(3)).Astype(d).Mul(trace.Float(2).Astype(d))}
				}})
		}
		cube := Input(d, 103, 2, 3, 4)
		cs = append(cs,
			Case{Name: "narrow/transpose/" + d.String(), Inputs: []*tensor.Array{cube}, ExactBits: true,
				Fn: one(func(a []trace.Value) trace.Value { return a[0].Transpose(2, 0, 1) })},
			Case{Name: "narrow/slice/" + d.String(), Inputs: []*tensor.Array{cube}, ExactBits: true,
				Fn: one(func(a []trace.Value) trace.Value { return a[0].Slice(2, 1, 4, 2).Slice(0, -1, 2, 1) })},
			Case{Name: "narrow/concat/" + d.String(), Inputs: []*tensor.Array{cube, Input(d, 104, 2, 1, 4)}, ExactBits: true,
				Fn: one(func(a []trace.Value) trace.Value { return trace.Concatenate(1, a[0], a[1]) })},
			Case{Name: "narrow/broadcast-reshape/" + d.String(), Inputs: []*tensor.Array{Input(d, 105, 3, 1)}, ExactBits: true,
				Fn: one(func(a []trace.Value) trace.Value { return a[0].BroadcastTo(2, 3, 5).Reshape(6, 5).Transpose() })},
			Case{Name: "narrow/take/" + d.String(), Inputs: []*tensor.Array{cube, tensor.Must(tensor.FromSlice([]int32{3, 0, 2, 2}))}, ExactBits: true,
				Fn: one(func(a []trace.Value) trace.Value { return trace.Take(a[0], a[1], 2) })},
			Case{Name: "narrow/dynamic-update-slice/" + d.String(), Inputs: []*tensor.Array{cube, Input(d, 106, 1, 2, 2)}, ExactBits: true,
				Fn: one(func(a []trace.Value) trace.Value {
					return trace.DynamicUpdateSlice(a[0], a[1], []trace.Value{trace.Int(1), trace.Int(1), trace.Int(1)})
				})},
			Case{Name: "narrow/at-add/" + d.String(), Inputs: []*tensor.Array{Input(d, 107, 6), tensor.Must(tensor.FromSlice([]int32{1, 4, 1})), Input(d, 108, 3)},
				Fn: one(func(a []trace.Value) trace.Value { return a[0].At(a[1]).Add(a[2]) })}, // a repeated index: two rounded adds
			Case{Name: "narrow/sort/" + d.String(), Inputs: []*tensor.Array{Input(d, 109, 3, 20)},
				Fn: one(func(a []trace.Value) trace.Value { return trace.Sort(a[0], 1) })},
		)
		// Dots: in the narrow dtype, then with preferred types.
		prefs := []tensor.DType{tensor.F32, tensor.BF16}
		if !d.IsFloat() {
			prefs = []tensor.DType{tensor.I32, tensor.I8}
		}
		for _, s := range [][3]int{{1, 1, 1}, {5, 7, 3}, {13, 35, 40}} {
			l, r := Input(d, uint64(110+s[2]), s[0], s[2]), Input(d, uint64(111+s[2]), s[2], s[1])
			cs = append(cs, Case{Name: fmt.Sprintf("narrow/matmul-%dx%dx%d/%s", s[0], s[1], s[2], d), Inputs: []*tensor.Array{l, r},
				Fn: func(a []trace.Value) []trace.Value {
					out := []trace.Value{a[0].MatMul(a[1])}
					for _, p := range prefs {
						out = append(out, trace.MatMul(a[0], a[1], trace.PreferredElementType(p)))
					}
					return out
				}})
		}
		cs = append(cs, Case{Name: "narrow/dot-transposed/" + d.String(), Inputs: []*tensor.Array{Input(d, 120, 6, 4), Input(d, 121, 5, 6)},
			Fn: func(a []trace.Value) []trace.Value {
				dims := trace.DotDims{LhsContract: []int{0}, RhsContract: []int{1}}
				return []trace.Value{trace.DotGeneral(a[0], a[1], dims), trace.DotGeneral(a[0], a[1], dims, trace.PreferredElementType(prefs[0]))}
			}})
	}
	// Sub-byte integers as indices: take, a dynamic slice's starts.
	for _, d := range []tensor.DType{tensor.I4, tensor.U4, tensor.I2, tensor.U2} {
		cs = append(cs, Case{Name: "narrow/indices/" + d.String(), Inputs: []*tensor.Array{Input(tensor.F32, 140, 5, 6), Input(d, 141, 7), Input(d, 142)},
			Fn: func(a []trace.Value) []trace.Value {
				return []trace.Value{trace.Take(a[0], a[1], 1), trace.DynamicUpdateSlice(a[0], trace.Zeros([]int{2, 2}, tensor.F32), []trace.Value{a[2].Squeeze(), a[2].Squeeze()})}
			}})
	}
	// Quantized inference's pairs: int4 weights with int8 activations
	// (the int4 widened explicitly, as JAX requires), fp8 × fp8 of two
	// formats widened to bf16 and f32.
	cs = append(cs,
		Case{Name: "narrow/i4-weights-i8", Inputs: []*tensor.Array{Input(tensor.I8, 130, 9, 64), Input(tensor.I4, 131, 64, 11)},
			Fn: func(a []trace.Value) []trace.Value {
				w := a[1].Astype(tensor.I8)
				return []trace.Value{trace.MatMul(a[0], w, trace.PreferredElementType(tensor.I32)), a[0].MatMul(w)}
			}},
		Case{Name: "narrow/e4m3-e5m2", Inputs: []*tensor.Array{Input(tensor.F8E4M3FN, 132, 9, 33), Input(tensor.F8E5M2, 133, 33, 10)},
			Fn: func(a []trace.Value) []trace.Value {
				return []trace.Value{
					trace.MatMul(a[0].Astype(tensor.BF16), a[1].Astype(tensor.BF16), trace.PreferredElementType(tensor.F32)),
					a[0].Astype(tensor.F32).MatMul(a[1].Astype(tensor.F32)).Astype(tensor.F8E4M3FN),
				}
			}},
	)
	return cs
}

// UsesNarrow reports whether the case's program holds a value of a narrow
// dtype (an input, a result or any intermediate of its equations).
func (c Case) UsesNarrow() bool {
	p, err := trace.Trace(c.Config, c.Abstract(), c.Fn)
	if err != nil {
		return false
	}
	narrow := func(vs ...*trace.Var) bool {
		for _, v := range vs {
			if v.Type.DType.IsNarrow() {
				return true
			}
		}
		return false
	}
	if narrow(p.Inputs...) || narrow(p.Outputs...) {
		return true
	}
	for _, e := range p.Eqns {
		if narrow(e.Out) || narrow(e.Args...) {
			return true
		}
	}
	return false
}

// Split divides cases into those that use a narrow dtype and the others,
// for a backend that refuses the narrow dtypes with a typed error: it runs
// the others and checks that each narrow one is refused.
func Split(cs []Case) (narrow, others []Case) {
	for _, c := range cs {
		if c.UsesNarrow() {
			narrow = append(narrow, c)
		} else {
			others = append(others, c)
		}
	}
	return narrow, others
}
