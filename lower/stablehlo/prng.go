package stablehlo

import (
	"fmt"

	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// jax.random's primitives: iota and bitcast_convert are StableHLO ops;
// threefry2x32 is its twenty rounds spelled out (as XLA expands JAX's
// threefry2x32 primitive), on the two u32 words of each u64 operand.

func (x *shloInstr) prng(op trace.Op, args []*shloVal) (*shloVal, error) {
	switch op {
	case trace.OpIota:
		return x.opA("iota", x.t, []string{fmt.Sprintf("iota_dimension = %d : i64", x.in.Params.Axis)}), nil
	case trace.OpBitcastConvert:
		return x.op("bitcast_convert", x.t, args[0]), nil
	}
	return x.threefry(args[0], args[1]), nil
}

// threefry is Threefry-2x32, 20 rounds: key words (k>>32, k), counter
// words (c>>32, c), output words packed the same way.
func (x *shloInstr) threefry(k, c *shloVal) *shloVal {
	x.note("threefry2x32, 20 rounds, on the u32 words (high, low) of the u64 key and counter")
	t := c.typ
	if !sameType(k.typ, t) {
		k = x.opA("broadcast_in_dim", t, []string{"broadcast_dimensions = " + i64s(broadcastDims(len(k.typ.shape), len(t.shape)))}, k)
	}
	w := t.with(tensor.U32)
	hi := func(v *shloVal) *shloVal {
		return x.op("convert", w, x.bin("shift_right_logical", v, x.splat(t, uint64(32))))
	}
	lo := func(v *shloVal) *shloVal { return x.op("convert", w, v) }
	u32 := func(n uint64) *shloVal { return x.splat(w, n) }
	ks := [3]*shloVal{hi(k), lo(k), nil}
	ks[2] = x.bin("xor", x.bin("xor", ks[0], ks[1]), u32(0x1BD11BDA))
	x0, x1 := x.bin("add", hi(c), ks[0]), x.bin("add", lo(c), ks[1])
	rot := [2][4]uint64{{13, 15, 26, 6}, {17, 29, 16, 24}}
	for g := range 5 {
		for _, r := range rot[g%2] {
			x0 = x.bin("add", x0, x1)
			rotl := x.bin("or", x.bin("shift_left", x1, u32(r)), x.bin("shift_right_logical", x1, u32(32-r)))
			x1 = x.bin("xor", rotl, x0)
		}
		x0 = x.bin("add", x0, ks[(g+1)%3])
		x1 = x.bin("add", x1, x.bin("add", ks[(g+2)%3], u32(uint64(g+1))))
	}
	y0, y1 := x.op("convert", t, x0), x.op("convert", t, x1)
	return x.bin("or", x.bin("shift_left", y0, x.splat(t, uint64(32))), y1)
}

// broadcastDims maps a rank-n operand's dims onto the trailing dims of a
// rank-m result (NumPy broadcasting of an already equal-ranked or
// lower-ranked operand; the module's threefry operands have the result's
// shape or are broadcast explicitly before it).
func broadcastDims(n, m int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = m - n + i
	}
	return out
}
