package trace

import (
	"fmt"
	"slices"

	"github.com/kiln-go/kiln/promote"
	"github.com/kiln-go/kiln/tensor"
)

// The primitives under jax.random (package random): iota, the bit
// reinterpretation bitcast_convert_type, and the Threefry-2x32 block
// cipher.
//
// threefry2x32 takes its key and its counter as u64 operands, each holding
// two u32 words, high word first — (k0, k1) as k0<<32 | k1 and the counter
// (x0, x1) likewise — and returns the two output words the same way. So it
// is an ordinary binary elementwise op with one result: the words are
// packed and unpacked by shifts and converts, which fuse with it, and
// JAX's random_bits (x0 ^ x1 of each output pair for 32 bits, the pair
// itself for 64) is one fused loop.

// Iota returns an array of dtype d and the given shape whose elements
// count along axis: element [i0, i1, …] is i_axis (lax.broadcasted_iota;
// lax.iota for rank 1). It is a strong value, and free: it joins whatever
// trace first uses it.
func Iota(d tensor.DType, shape []int, axis int) Value {
	shape = slices.Clone(shape)
	return freeOp(func(b *builder) Value {
		if b.err != nil {
			return Value{b: b}
		}
		for _, n := range shape {
			if n < 0 {
				return b.shapeErr("iota", fmt.Sprintf("negative dimension in %s", shapeString(shape)), shape)
			}
		}
		switch {
		case d == tensor.Bool || !d.Valid():
			return b.dtypeErr("iota", fmt.Sprintf("iota counts in a numeric dtype, not %v", d))
		case axis < 0 || axis >= len(shape):
			return b.shapeErr("iota", fmt.Sprintf("axis %d is out of range for %s", axis, shapeString(shape)), shape)
		}
		return b.emit(OpIota, nil, promote.Strong(d), shape, Params{DType: d, Shape: shape, Axis: axis}, "")
	})
}

// BitcastConvert reinterprets the bits of x as dtype d of the same width
// (lax.bitcast_convert_type for equal widths): u32 ↔ f32, u16 ↔ f16 or
// bf16, u64 ↔ f64, and the signed integers. The result is strong.
func (x Value) BitcastConvert(d tensor.DType) Value {
	b, ok := builderOf("bitcast_convert_type", x)
	if b == nil {
		return freeOp(func(b *builder) Value { return b.attach(x, "bitcast_convert_type").BitcastConvert(d) })
	}
	if !ok || b.err != nil {
		return Value{b: b}
	}
	x = b.attach(x, "bitcast_convert_type")
	if x.v == nil && x.lit == nil {
		return Value{b: b}
	}
	v := b.materialize(x, "bitcast_convert_type")
	if v == nil {
		return Value{b: b}
	}
	from := v.Type.DType
	if msg := bitcastError(from, d); msg != "" {
		return b.dtypeErr("bitcast_convert_type", msg, v.Type)
	}
	return b.emit(OpBitcastConvert, []*Var{v}, promote.Strong(d), v.Shape, Params{DType: d}, "")
}

func bitcastError(from, to tensor.DType) string {
	switch {
	case !to.Valid():
		return fmt.Sprintf("bitcast_convert_type to an invalid dtype %v", to)
	case from == tensor.Bool || to == tensor.Bool || from.IsComplex() || to.IsComplex():
		return fmt.Sprintf("bitcast_convert_type from %s to %s: only real numbers of one width are reinterpreted", from, to)
	case from.IsNarrow() || to.IsNarrow():
		return fmt.Sprintf("bitcast_convert_type from %s to %s: Kiln does not reinterpret the bits of a narrow dtype (convert it with astype)", from, to)
	case from.Bits() != to.Bits():
		return fmt.Sprintf("bitcast_convert_type from %s to %s changes the width (%d to %d bits); Kiln reinterprets only equal widths", from, to, from.Bits(), to.Bits())
	}
	return ""
}

// Threefry2x32 is the Threefry-2x32 block cipher, 20 rounds (Salmon et
// al., "Parallel random numbers: as easy as 1, 2, 3", 2011; the Random123
// reference, and jax.random's), of the counter with the key, both u64
// holding two u32 words high word first; the result holds the two output
// words the same way. Shapes broadcast.
func Threefry2x32(key, count Value) Value { return elementwise(OpThreefry2x32, key, count) }

func checkIota(op Op, args []Abstract, out Abstract, p *Params) error {
	if out.Type != promote.Strong(p.DType) {
		return fault(CheckType, "iota of %v gives %s", p.DType, out.Type)
	}
	if p.DType == tensor.Bool {
		return fault(CheckType, "iota of bool")
	}
	if err := sameShape("Params.Shape", p.Shape, out.Shape); err != nil {
		return err
	}
	if p.Axis < 0 || p.Axis >= len(out.Shape) {
		return fault(CheckParams, "iota axis %d of a rank-%d result", p.Axis, len(out.Shape))
	}
	return nil
}

func checkBitcast(op Op, args []Abstract, out Abstract, p *Params) error {
	if msg := bitcastError(args[0].Type.DType, p.DType); msg != "" {
		return fault(CheckType, "%s", msg)
	}
	if out.Type != promote.Strong(p.DType) {
		return fault(CheckType, "bitcast to %v gives %s", p.DType, out.Type)
	}
	return sameShape("the result", out.Shape, args[0].Shape)
}

// WithConfig returns build's value for the promotion configuration of the
// trace that x belongs to, or, when x belongs to none yet, of the trace
// that first uses the result. Library code whose dtype defaults follow the
// configuration uses it (jax.random's dtype=float is f64 with 64-bit
// defaults and f32 with Config.X32).
func WithConfig(x Value, build func(cfg promote.Config) Value) Value {
	if x.b != nil {
		if x.b.err != nil {
			return Value{b: x.b}
		}
		return build(x.b.cfg)
	}
	return freeOp(func(b *builder) Value { return b.attach(build(b.cfg), "with_config") })
}
