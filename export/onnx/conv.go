package onnx

import (
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// conv is conv_general_dilated as ONNX's Conv (NC… layout, OI… kernel,
// strides, kernel dilations, feature groups): the operands transposed
// to those layouts, lhs dilation made explicit by interleaving zeros,
// negative padding by slicing the input and positive padding as Conv's
// pads; the result transposed to the output layout. ONNX Runtime's Conv
// is f32 only: f16 and bf16 are computed in f32 and rounded once (Kiln
// accumulates them in f32); f64, integer and bool convolutions are
// refused.
func (x *instr) conv(args []string) (string, error) {
	in := x.in
	p := in.Params.Conv
	ld, rd := in.Args[0].DType, in.Args[1].DType
	if !ld.IsFloat() || !rd.IsFloat() {
		return "", refuse("ONNX Runtime's Conv is float only (ConvInteger does not wrap as Kiln's integer convolution does)")
	}
	c := arith(in.DType)
	if c == tensor.F64 {
		return "", refuse("ONNX Runtime's Conv has no f64 kernel (f32 would lose Kiln's f64 precision)")
	}
	if trace.ShapeSize(in.Shape) == 0 {
		return x.zeros(in.DType, in.Shape), nil
	}
	lhs := x.castIf(args[0], ld, c)
	rhs := x.castIf(args[1], rd, c)
	ls, rs := in.Args[0].Shape, in.Args[1].Shape
	lhs = x.op1("Transpose", lhs, aInts("perm", i64s(p.LhsSpec)))
	rhs = x.op1("Transpose", rhs, aInts("perm", i64s(p.RhsSpec)))
	shape := make([]int, len(ls))
	for i, d := range p.LhsSpec {
		shape[i] = ls[d]
	}
	if shape[1] == 0 || trace.ShapeSize(rs) == 0 { // nothing to add: zeros
		return x.zeros(in.DType, in.Shape), nil
	}
	k := p.SpatialRank()
	for i := range k {
		if d := p.LhsDilation[i]; d > 1 && shape[2+i] > 1 {
			lhs, shape = x.dilate(lhs, shape, 2+i, d, c)
		}
	}
	pads := make([]int64, 2*k)
	var starts, ends, axes []int64
	for i := range k {
		lo, hi := p.PadLo[i], p.PadHi[i]
		if lo < 0 || hi < 0 {
			s, e := 0, shape[2+i]
			if lo < 0 {
				s, lo = -lo, 0
			}
			if hi < 0 {
				e, hi = e+hi, 0
			}
			starts, ends, axes = append(starts, int64(s)), append(ends, int64(e)), append(axes, int64(2+i))
			shape[2+i] = e - s
		}
		pads[i], pads[k+i] = int64(lo), int64(hi)
	}
	if len(axes) > 0 {
		lhs = x.add("Slice", []string{lhs, x.ints(starts...), x.ints(ends...), x.ints(axes...)})
	}
	ks := make([]int64, k)
	for i := range k {
		ks[i] = int64(rs[p.RhsSpec[2+i]])
	}
	r := x.add("Conv", []string{lhs, rhs},
		aInts("kernel_shape", ks), aInts("strides", i64s(p.Strides)), aInts("dilations", i64s(p.RhsDilation)),
		aInts("pads", pads), aInt("group", int64(p.FeatureGroupCount)))
	perm := make([]int, len(p.OutSpec))
	for i, d := range p.OutSpec {
		perm[d] = i
	}
	if !isIdentity(perm) {
		r = x.op1("Transpose", r, aInts("perm", i64s(perm)))
	}
	return x.castIf(r, c, in.DType), nil
}

// dilate interleaves d−1 zeros between the elements of dim axis of v (of
// shape), returning the new value and shape.
func (x *instr) dilate(v string, shape []int, axis, d int, c tensor.DType) (string, []int) {
	n := shape[axis]
	mid := append(append(append([]int{}, shape[:axis+1]...), 1), shape[axis+1:]...)
	v = x.reshape(v, mid)
	pads := make([]int64, 2*len(mid))
	pads[len(mid)+axis+1] = int64(d - 1) // after, on the new axis
	v = x.add("Pad", []string{v, x.ints(pads...), x.scalarF(c, 0)})
	wide := append([]int{}, shape...)
	wide[axis] = n * d
	v = x.reshape(v, wide)
	v = x.add("Slice", []string{v, x.ints(0), x.ints(int64((n-1)*d + 1)), x.ints(int64(axis))})
	wide[axis] = (n-1)*d + 1
	return v, wide
}
