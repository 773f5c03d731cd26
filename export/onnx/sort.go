package onnx

import (
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// sort is lax.sort's result Params.Sort.Output: a permutation along the
// axis built by stable passes of TopK (ascending, ties by lower index
// first, which ONNX specifies) from the least significant key to the
// most, each pass reordering the permutation with GatherElements; the
// chosen operand is then gathered by it, its elements moved bit for bit.
// A float key is two passes: its value with NaN → 0 and −0 → +0, then
// whether it is NaN (JAX's order: −0 = +0, NaNs equal and last).
func (x *instr) sort(args []string) (string, error) {
	in := x.in
	s := in.Params.Sort
	axis := in.Params.Axis
	shape := in.Shape
	n := shape[axis]
	if trace.ShapeSize(shape) == 0 || n <= 1 {
		return x.op1("Identity", args[s.Output]), nil
	}
	ax := aInt("axis", int64(axis))
	mid := make([]int, len(shape))
	for i := range mid {
		mid[i] = 1
	}
	mid[axis] = n
	iota := x.add("Range", []string{x.scalarI(tensor.I64, 0), x.scalarI(tensor.I64, int64(n)), x.scalarI(tensor.I64, 1)})
	perm := x.expand(x.reshape(iota, mid), tensor.I64, shape)
	k := x.ints(int64(n))
	pass := func(key string) {
		key = x.add("GatherElements", []string{key, perm}, ax)
		outs := []string{x.fresh(), x.fresh()}
		x.emit("TopK", []string{key, k}, outs, ax, aInt("largest", 0), aInt("sorted", 1))
		perm = x.add("GatherElements", []string{perm, outs[1]}, ax)
	}
	for i := s.NumKeys - 1; i >= 0; i-- {
		d := in.Args[i].DType
		v := args[i]
		switch {
		case d.IsFloat():
			w := x.widen(v, d)
			c := arith(d)
			nan := x.op1("IsNaN", w)
			clean := x.op2("Add", x.where(nan, x.scalarF(c, 0), w, c), x.scalarF(c, 0)) // −0 + 0 = +0
			pass(clean)
			pass(x.cast(nan, tensor.I32))
		case d == tensor.Bool:
			pass(x.cast(v, tensor.I32))
		case d.IsInteger():
			pass(x.orderKey(v, d))
		default:
			return "", refuse("no order for %s", d)
		}
	}
	return x.add("GatherElements", []string{args[s.Output], perm}, ax), nil
}
