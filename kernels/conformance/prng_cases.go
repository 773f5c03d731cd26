package conformance

import (
	"fmt"

	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// prngCases cover jax.random's primitives: iota of every dtype and axis,
// bitcast_convert_type between every pair of one width (and 16-bit floats
// through the f32 form they compute in), threefry2x32 of keys and counters
// with the known answers and random words, fused with the ops random_bits
// and uniform build from it.
func prngCases() []Case {
	var cs []Case
	for _, d := range tensor.AllDTypes() {
		if d == tensor.Bool {
			continue
		}
		cs = append(cs, Case{Name: fmt.Sprintf("iota/%s", d), Fn: func([]trace.Value) []trace.Value {
			return []trace.Value{trace.Iota(d, []int{3, 4}, 1), trace.Iota(d, []int{3, 4}, 0).Add(trace.Iota(d, []int{3, 4}, 1)), trace.Iota(d, []int{300}, 0)}
		}})
	}
	widths := map[int][]tensor.DType{
		16: {tensor.U16, tensor.I16, tensor.F16, tensor.BF16},
		32: {tensor.U32, tensor.I32, tensor.F32},
		64: {tensor.U64, tensor.I64, tensor.F64},
		8:  {tensor.U8, tensor.I8},
	}
	for _, ds := range widths {
		for _, from := range ds {
			for _, to := range ds {
				cs = append(cs, Case{Name: fmt.Sprintf("bitcast/%s/%s", from, to), Inputs: []*tensor.Array{Input(from, 61, 4, 6)},
					Fn: one(func(a []trace.Value) trace.Value {
						return a[0].BitcastConvert(to).BitcastConvert(from).Add(a[0]).BitcastConvert(to)
					})})
			}
		}
	}
	// The bits of 16-bit floats pass through a bitcast exactly, signaling
	// NaNs too (the f32 compute form would quiet them): an f16/bf16 input
	// viewed as u16, u16 through f16/bf16 and back, and u16 viewed as an
	// f16/bf16 result.
	snan := []uint16{0x7d01, 0xfc01, 0x7f81, 0xff81, 0x7c00, 0x7e00, 0x0001, 0x8001, 0x7fff, 0x3c00}
	raw, _ := tensor.FromSlice(snan, len(snan))
	for _, d := range []tensor.DType{tensor.F16, tensor.BF16} {
		cs = append(cs, Case{Name: fmt.Sprintf("bitcast-bits/%s", d), Inputs: []*tensor.Array{halfBits(d, snan), raw},
			ExactBits: true, Fn: func(a []trace.Value) []trace.Value {
				return []trace.Value{a[0].BitcastConvert(tensor.U16), a[1].BitcastConvert(d).BitcastConvert(tensor.I16), a[1].BitcastConvert(d)}
			}})
		// A constant u16 broadcast, then viewed as f16/bf16 (jnp.full's
		// bits .view(f16)): the bitcast is not folded into a broadcast of
		// an f16/bf16 scalar, whose f32 compute form would quiet it.
		for _, u := range []uint16{0x7d01, 0xfc01, 0x7f81, 0xff81} {
			c, _ := tensor.FromSlice([]uint16{u}, 1)
			cs = append(cs, Case{Name: fmt.Sprintf("bitcast-bits/broadcast-const/%s/%#x", d, u), Inputs: []*tensor.Array{raw},
				ExactBits: true, Fn: func(a []trace.Value) []trace.Value {
					b := trace.Const(c).BroadcastTo(3, 5)
					return []trace.Value{b.BitcastConvert(d), b.Reshape(15).BitcastConvert(d), a[0].Xor(b.Reshape(15).Slice(0, 0, 10, 1)).BitcastConvert(d)}
				}})
		}
	}
	words, _ := tensor.FromSlice([]uint64{0, 0xffffffff_ffffffff, 0x243f6a88_85a308d3, 1, 2, 3, 0x13198a2e_03707344, 42})
	keys, _ := tensor.FromSlice([]uint64{0, 0xffffffff_ffffffff, 0x13198a2e_03707344, 7})
	cs = append(cs,
		Case{Name: "threefry/pairs", Inputs: []*tensor.Array{words, keys.Astype(tensor.U64)},
			Fn: one(func(a []trace.Value) trace.Value { return trace.Threefry2x32(a[1].Reshape(4, 1), a[0]) })},
		Case{Name: "threefry/random_bits", Inputs: []*tensor.Array{keys},
			Fn: func(a []trace.Value) []trace.Value {
				// random_bits(key, 32, (5, 7)) and uniform f32: one fused loop.
				out := trace.Threefry2x32(a[0].Slice(0, 3, 4, 1).Reshape(), trace.Iota(tensor.U64, []int{35}, 0).Reshape(5, 7))
				b32 := out.Shr(trace.Int(32)).Astype(tensor.U32).Xor(out.Astype(tensor.U32))
				f := b32.Shr(trace.Int(9)).Or(trace.Int(0x3f800000)).BitcastConvert(tensor.F32).Sub(trace.Float(1))
				return []trace.Value{b32, f}
			}},
	)
	return cs
}

// halfBits is an f16 or bf16 array holding the given bits.
func halfBits(d tensor.DType, bits []uint16) *tensor.Array {
	if d == tensor.F16 {
		h := make([]tensor.Float16, len(bits))
		for i, u := range bits {
			h[i] = tensor.Float16FromBits(u)
		}
		a, _ := tensor.FromSlice(h, len(h))
		return a
	}
	h := make([]tensor.BFloat16, len(bits))
	for i, u := range bits {
		h[i] = tensor.BFloat16FromBits(u)
	}
	a, _ := tensor.FromSlice(h, len(h))
	return a
}
