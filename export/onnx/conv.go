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
// accumulates them in f32; bf16 as its dot, with subnormal inputs read as
// zeros and subnormal results flushed); f64 and integer convolutions are im2col and
// MatMul; bool convolutions are refused.
func (x *instr) conv(args []string) (string, error) {
	in := x.in
	p := in.Params.Conv
	ld, rd := in.Args[0].DType, in.Args[1].DType
	if ld == tensor.Bool || rd == tensor.Bool {
		return "", refuse("a bool convolution has no ONNX translation")
	}
	if trace.ShapeSize(in.Shape) == 0 {
		return x.zeros(in.DType, in.Shape), nil
	}
	c := arith(in.DType)
	if c == tensor.F64 || !ld.IsFloat() || !rd.IsFloat() {
		// ONNX Runtime's Conv is f32 only: f64 and integers are patches
		// and a MatMul (which has f64 and wrapping integer kernels).
		return x.im2col(args)
	}
	lhs := x.castIf(args[0], ld, c)
	rhs := x.castIf(args[1], rd, c)
	bf16 := ld == tensor.BF16 && rd == tensor.BF16
	if bf16 { // the bf16 rule reads subnormal inputs as zeros of their sign (DAZ), as dot
		lhs, rhs = x.ftz(lhs), x.ftz(rhs)
	}
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
	if bf16 { // … and flushes subnormal results (FTZ)
		r = x.ftz(r)
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

// im2col is conv_general_dilated as a Gather of input patches and a
// batched MatMul per feature group: a constant table gives, for every
// output position and window element, the flat spatial index of the
// input element it reads (lhs dilation, padding and strides resolved at
// export time), or one past the end, where a zero is appended. Integers
// multiply in arith's dtype and wrap back; f64 adds in MatMul's order.
func (x *instr) im2col(args []string) (string, error) {
	in := x.in
	p := in.Params.Conv
	d := in.DType
	c := arith(d)
	ls, rs := in.Args[0].Shape, in.Args[1].Shape
	k := p.SpatialRank()
	N, C := ls[p.LhsSpec[0]], ls[p.LhsSpec[1]]
	O, I := rs[p.RhsSpec[0]], rs[p.RhsSpec[1]]
	G := p.FeatureGroupCount
	sp, win, out := make([]int, k), make([]int, k), make([]int, k)
	for i := range k {
		sp[i], win[i], out[i] = ls[p.LhsSpec[2+i]], rs[p.RhsSpec[2+i]], in.Shape[p.OutSpec[2+i]]
	}
	S, W, P := trace.ShapeSize(sp), trace.ShapeSize(win), trace.ShapeSize(out)
	if C == 0 || W == 0 || I == 0 {
		return x.zeros(d, in.Shape), nil
	}
	sst := strides(sp)
	var table []int64
	forEach(out, func(o []int) {
		forEach(win, func(w []int) {
			flat := 0
			for i := range k {
				q := o[i]*p.Strides[i] + w[i]*p.RhsDilation[i] - p.PadLo[i]
				if q < 0 || q%p.LhsDilation[i] != 0 || q/p.LhsDilation[i] >= sp[i] {
					flat = -1
					break
				}
				flat += q / p.LhsDilation[i] * sst[i]
			}
			if flat < 0 {
				flat = S // the appended zero
			}
			table = append(table, int64(flat))
		})
	})
	idx, _ := tensor.FromSlice(table, P, W)
	lhs := x.castIf(args[0], in.Args[0].DType, c)
	rhs := x.castIf(args[1], in.Args[1].DType, c)
	lhs = x.op1("Transpose", lhs, aInts("perm", i64s(p.LhsSpec)))
	lhs = x.reshape(lhs, []int{N, C, S})
	lhs = x.add("Concat", []string{lhs, x.zeros(c, []int{N, C, 1})}, aInt("axis", 2))
	patches := x.op2("Gather", lhs, x.must(idx), aInt("axis", 2)) // (N, C, P, W)
	Cg, Og := C/G, O/G
	patches = x.reshape(patches, []int{N, G, Cg, P, W})
	patches = x.op1("Transpose", patches, aInts("perm", []int64{1, 0, 3, 2, 4})) // (G, N, P, Cg, W)
	patches = x.reshape(patches, []int{G, N * P, Cg * W})
	rhs = x.op1("Transpose", rhs, aInts("perm", i64s(p.RhsSpec))) // (O, I, K…)
	rhs = x.reshape(rhs, []int{G, Og, I, W})
	rhs = x.op1("Transpose", rhs, aInts("perm", []int64{0, 2, 3, 1})) // (G, I, W, Og)
	rhs = x.reshape(rhs, []int{G, I * W, Og})
	r := x.op2("MatMul", patches, rhs) // (G, N·P, Og)
	r = x.reshape(r, []int{G, N, P, Og})
	r = x.op1("Transpose", r, aInts("perm", []int64{1, 0, 3, 2})) // (N, G, Og, P)
	r = x.reshape(r, append([]int{N, O}, out...))
	perm := make([]int, len(p.OutSpec))
	for i, dd := range p.OutSpec {
		perm[dd] = i
	}
	if !isIdentity(perm) {
		r = x.op1("Transpose", r, aInts("perm", i64s(perm)))
	}
	return x.castIf(r, c, d), nil
}
