package conformance

import (
	"fmt"
	"math"
	"strings"

	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// movementDTypes are the dtypes the data-movement cases run in: f16 and
// bf16 compute in f32, bool and c64 move 1- and 8-byte elements.
var movementDTypes = []tensor.DType{tensor.F32, tensor.F64, tensor.F16, tensor.BF16, tensor.I32, tensor.I8, tensor.U8, tensor.Bool, tensor.C64}

// movement is one data-movement op applied to x (f32-shaped [4,6]):
// result shape [4,6] so an elementwise op and a loop carry can read it.
type movement struct {
	name string
	f    func(x trace.Value) trace.Value
}

// movements covers every data-movement op that fuses into loop fusions
// (slice, strided slice, concatenate, pad, rev, broadcast, transpose,
// reshape, roll) and the ones read from a buffer (iota, static gather),
// each shaped back to x's [4,6].
var movements = []movement{
	{"slice", func(x trace.Value) trace.Value {
		return trace.Concatenate(1, x.Slice(1, 1, 6, 1), x.Slice(1, 0, 1, 1))
	}},
	{"strided-slice", func(x trace.Value) trace.Value { // evens then odds of each row
		return trace.Concatenate(1, x.Slice(1, 0, 6, 2), x.Slice(1, 1, 6, 2))
	}},
	{"concatenate-rows", func(x trace.Value) trace.Value {
		return trace.Concatenate(0, x.Slice(0, 3, 4, 1), x.Slice(0, 0, 3, 1))
	}},
	{"pad", func(x trace.Value) trace.Value { // pads, then slices back to [4,6]
		return trace.Pad(x.Slice(0, 1, 3, 1).Slice(1, 2, 5, 1), [][2]int{{1, 1}, {2, 1}}, trace.PadConstant, trace.Int(1))
	}},
	{"rev", func(x trace.Value) trace.Value { return trace.Rev(x, 0, 1) }},
	{"flip-cols", func(x trace.Value) trace.Value { return x.Flip(1) }},
	{"broadcast", func(x trace.Value) trace.Value { return x.Slice(0, 2, 3, 1).BroadcastTo(4, 6) }},
	{"transpose", func(x trace.Value) trace.Value { return x.Reshape(6, 4).Transpose() }},
	{"transpose3", func(x trace.Value) trace.Value { return x.Reshape(2, 3, 4).Transpose(1, 2, 0).Reshape(4, 6) }},
	{"reshape", func(x trace.Value) trace.Value { return x.Reshape(2, 12).Reshape(4, 6) }},
	{"roll", func(x trace.Value) trace.Value { return trace.Roll(trace.Roll(x, 1, 0), -2, 1) }},
	{"roll-flat", func(x trace.Value) trace.Value { return trace.Roll(x, 5, trace.AxisNone) }},
	{"roll-of-rev-of-slices", func(x trace.Value) trace.Value {
		return trace.Roll(trace.Concatenate(0, x.Slice(0, 2, 4, 1).Flip(1), x.Slice(0, 0, 2, 1)), 3, 1)
	}},
	{"iota", func(x trace.Value) trace.Value { return trace.Iota(iotaType(x), []int{4, 6}, 1) }},
	{"iota-rows", func(x trace.Value) trace.Value { return trace.Iota(iotaType(x), []int{4, 6}, 0) }},
	{"iota-strided-slice", func(x trace.Value) trace.Value { // rows 1, 3, 5, 7 of a [9,6] row count
		return trace.Iota(iotaType(x), []int{9, 6}, 0).Slice(0, 1, 9, 2)
	}},
	{"iota-rolled", func(x trace.Value) trace.Value { // counts moved like data: roll, rev, transpose
		c := trace.Iota(iotaType(x), []int{6, 4}, 0).Transpose()
		return trace.Roll(trace.Rev(c, 0), 2, 1)
	}},
	{"iota-broadcast-rolled", func(x trace.Value) trace.Value { // an iota of another shape is a buffer the moved loop reads, not counts
		return trace.Roll(trace.Iota(iotaType(x), []int{1, 6}, 0).BroadcastTo(4, 6), 1, 1)
	}},
	{"iota-converted", func(x trace.Value) trace.Value { // an i32 count converted to x's dtype
		return trace.Iota(tensor.I32, []int{4, 6}, 1).Mul(trace.Int(37)).Astype(x.DType())
	}},
	{"static-gather", func(x trace.Value) trace.Value {
		idx := trace.Const(tensor.Must(tensor.FromSlice([]int32{5, 0, 2, 2, 4, 1})))
		return trace.Take(x, idx, 1)
	}},
	{"static-gather-rows", func(x trace.Value) trace.Value { // -1 counts from the end; repeats
		idx := trace.Const(tensor.Must(tensor.FromSlice([]int32{3, -1, 0, 1})))
		return trace.Take(x, idx, 0)
	}},
	{"static-gather-runs", func(x trace.Value) trace.Value { // runs of step 1 and 2 beside single indices
		idx := trace.Const(tensor.Must(tensor.FromSlice([]int64{0, 1, 2, 5, 1, 3})))
		return trace.Take(x, idx, 1)
	}},
	{"static-gather-clip", func(x trace.Value) trace.Value { // out of bounds, clamped: stays a gather
		idx := trace.Const(tensor.Must(tensor.FromSlice([]int32{7, -2, 1, 2, 3, 9})))
		return trace.Take(x, idx, 1, trace.WithMode(trace.ModeClip))
	}},
}

// iotaType is the dtype of an iota moved in x's place: x's own, or u8
// for bool (an iota of bool is an error).
func iotaType(x trace.Value) tensor.DType {
	if x.DType() == tensor.Bool {
		return tensor.U8
	}
	return x.DType()
}

// movementCases put every data-movement op inside a loop fusion (moved
// values feeding an elementwise op, and an elementwise op feeding the
// move), alone (the moved bits, compared exactly), and inside a fori_loop
// body, in several dtypes: the fused program must give the unfused
// program's bits.
func movementCases() []Case {
	var cs []Case
	for _, d := range movementDTypes {
		in := func(seed uint64, shape ...int) *tensor.Array { return Input(d, seed, shape...) }
		for _, mv := range movements {
			cs = append(cs,
				Case{Name: fmt.Sprintf("movement/%s/alone/%s", mv.name, d), Inputs: []*tensor.Array{in(60, 4, 6)}, ExactBits: true,
					Fn: one(func(a []trace.Value) trace.Value { return mv.f(a[0]) })},
				Case{Name: fmt.Sprintf("movement/%s/fused/%s", mv.name, d), Inputs: []*tensor.Array{in(61, 4, 6), in(62, 4, 6)},
					Fn: func(a []trace.Value) []trace.Value {
						return []trace.Value{mv.f(a[0]).Add(a[1]), mv.f(a[0].Mul(a[1])).Mul(a[0])}
					}},
				Case{Name: fmt.Sprintf("movement/%s/loop/%s", mv.name, d), Inputs: []*tensor.Array{in(63, 4, 6), in(64, 4, 6)},
					Fn: func(a []trace.Value) []trace.Value {
						return trace.ForiLoop(trace.Int(0), trace.Int(3), func(_ trace.Value, c []trace.Value) []trace.Value {
							return []trace.Value{mv.f(c[0]).Add(c[1]), c[1]}
						}, a[0], a[1])
					}},
			)
		}
	}
	// The moved bits of f16 and bf16 (NaN payloads, signaling NaNs) are
	// moved as they are by the copy regions.
	for _, d := range []tensor.DType{tensor.F16, tensor.BF16} {
		x := Input(d, 65, 4, 6)
		cs = append(cs,
			Case{Name: fmt.Sprintf("movement/roll/bits/%s", d), Inputs: []*tensor.Array{x}, ExactBits: true,
				Fn: one(func(a []trace.Value) trace.Value { return trace.Roll(a[0], 2, 1) })},
			Case{Name: fmt.Sprintf("movement/pad/bits/%s", d), Inputs: []*tensor.Array{x}, ExactBits: true,
				Fn: one(func(a []trace.Value) trace.Value {
					return trace.Pad(a[0], [][2]int{{1, 0}, {0, 2}}, trace.PadConstant, trace.Float(0.5))
				})},
		)
	}
	// E8's stencil step, 3 steps of a fori_loop, on a rod long enough for
	// several blocks and threads.
	rod := Input(tensor.F32, 66, 5000)
	cs = append(cs, Case{Name: "movement/heat-stencil/f32", Inputs: []*tensor.Array{rod}, Fn: one(func(a []trace.Value) trace.Value {
		n := a[0].Shape()[0]
		return trace.ForiLoop(trace.Int(0), trace.Int(3), func(_ trace.Value, c []trace.Value) []trace.Value {
			u := c[0]
			l := trace.Concatenate(0, u.Slice(0, n-1, n, 1), u.Slice(0, 0, n-1, 1))
			r := trace.Concatenate(0, u.Slice(0, 1, n, 1), u.Slice(0, 0, 1, 1))
			return []trace.Value{u.Add(trace.Float(0.25).Mul(l.Add(r).Sub(u.Mul(trace.Float(2)))))}
		}, a[0])[0]
	})})
	// Rolls read by duplicable arithmetic (scaled, offset, NaN-added)
	// fuse into the consumer: the same bits, in a step and a loop body.
	rolls := map[string]func(u, v trace.Value) trace.Value{
		"scaled-rolls": func(u, v trace.Value) trace.Value {
			c, c2, c3 := trace.Float(0.5), trace.Float(3), trace.Float(-2)
			return trace.Roll(u, 1, 0).Mul(c).Sub(c2).Mul(c.Sub(trace.Roll(u, 4, 0).Mul(c3))).Add(v)
		},
		"nan-rolls": func(u, v trace.Value) trace.Value {
			nan := trace.Float(math.NaN())
			return trace.Roll(u, 1, 0).Add(nan).Mul(v).Sub(nan.Mul(trace.Roll(v, 2, 0)))
		},
		"iota-weighted-rolls": func(u, v trace.Value) trace.Value {
			w := trace.Iota(u.DType(), u.Shape(), 0)
			return trace.Roll(u, 3, 0).Mul(w).Sub(trace.Roll(v, -5, 0).Mul(trace.Float(0.25)))
		},
	}
	for _, name := range []string{"scaled-rolls", "nan-rolls", "iota-weighted-rolls"} {
		f := rolls[name]
		for _, d := range []tensor.DType{tensor.F32, tensor.F64, tensor.F16, tensor.BF16} {
			u, v := Input(d, 67, 3000), Input(d, 68, 3000)
			cs = append(cs,
				Case{Name: fmt.Sprintf("movement/%s/step/%s", name, d), Inputs: []*tensor.Array{u, v},
					Fn: one(func(a []trace.Value) trace.Value { return f(a[0], a[1]) })},
				Case{Name: fmt.Sprintf("movement/%s/loop/%s", name, d), Inputs: []*tensor.Array{u, v},
					Fn: func(a []trace.Value) []trace.Value {
						return trace.ForiLoop(trace.Int(0), trace.Int(3), func(_ trace.Value, c []trace.Value) []trace.Value {
							return []trace.Value{f(c[0], c[1]), c[1]}
						}, a[0], a[1])
					}},
			)
		}
	}
	return cs
}

// snanMovementCases move signaling NaNs with payloads (and the other
// special bit patterns) of f16 and bf16 through every data-movement op,
// fused and op by op: data movement is no arithmetic, so it keeps every
// bit (docs/SPEC.md §3), whether the values are inputs of the 16-bit
// float dtype or u16 bits viewed as it and back.
func snanMovementCases() []Case {
	var cs []Case
	bits := make([]uint16, 24)
	pats := []uint16{0x7c01, 0x7d55, 0xfc01, 0x7f81, 0xffc1, 0x7fa5, 0x7e00, 0x7c00, 0x0001, 0x8001, 0x3c00, 0x7fff}
	for i := range bits {
		bits[i] = pats[i%len(pats)] + uint16(i/len(pats))
	}
	raw, _ := tensor.FromSlice(bits, 4, 6)
	for _, d := range []tensor.DType{tensor.F16, tensor.BF16} {
		h := tensor.Must(halfBits(d, bits).Reshape(4, 6))
		for _, mv := range movements {
			if strings.HasPrefix(mv.name, "iota") {
				continue // counts, not moved bits
			}
			for _, opByOp := range []bool{false, true} {
				how := "fused"
				if opByOp {
					how = "op-by-op"
				}
				cs = append(cs,
					Case{Name: fmt.Sprintf("movement/%s/snan/%s/%s", mv.name, how, d), Inputs: []*tensor.Array{h}, ExactBits: true, OpByOp: opByOp,
						Fn: one(func(a []trace.Value) trace.Value { return mv.f(a[0]) })},
					Case{Name: fmt.Sprintf("movement/%s/snan-bitcast/%s/%s", mv.name, how, d), Inputs: []*tensor.Array{raw}, ExactBits: true, OpByOp: opByOp,
						Fn: func(a []trace.Value) []trace.Value {
							v := mv.f(a[0].BitcastConvert(d))
							return []trace.Value{v.BitcastConvert(tensor.U16), v}
						}},
					Case{Name: fmt.Sprintf("movement/%s/snan-view/%s/%s", mv.name, how, d), Inputs: []*tensor.Array{raw}, ExactBits: true, OpByOp: opByOp,
						Fn: one(func(a []trace.Value) trace.Value { // the f16/bf16 values live only inside the fusion
							return mv.f(a[0].BitcastConvert(d)).BitcastConvert(tensor.U16)
						})},
				)
			}
		}
	}
	return cs
}
