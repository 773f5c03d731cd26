package trace

import "slices"

// Derivative rules of conv_general_dilated (the table is rules.go). The
// op is bilinear: its JVP is the same convolution with a tangent in place
// of one operand, and its transposes are JAX's
// _conv_general_dilated_transpose_lhs/rhs: convolutions of the cotangent
// with the flipped kernel (lhs) or with the input (rhs), strides and lhs
// dilation trading places.

func jvpConvLHS(c *Call, t Value) Value { return c.lin.emitEqn(c.Eqn, []Value{t, c.In[1]}) }

func jvpConvRHS(c *Call, t Value) Value { return c.lin.emitEqn(c.Eqn, []Value{c.In[0], t}) }

func transposeConv(c *Call, ct Value) []Value {
	out := bilinear(c)
	if out == nil {
		return nil
	}
	x, y, p := c.Eqn.Args[0], c.Eqn.Args[1], c.Eqn.Params.Conv
	if c.Linear[0] {
		g := convTransposeLHS(c, ct, preferredPrimal(c, ct, c.In[1]), x.Shape, p)
		out[0] = ConvertTo(g, x.Type, "cotangent of conv_general_dilated takes its operand's type")
	}
	if c.Linear[1] {
		g := convTransposeRHS(c, ct, preferredPrimal(c, ct, c.In[0]), y.Shape, p)
		out[1] = ConvertTo(g, y.Type, "cotangent of conv_general_dilated takes its operand's type")
	}
	return out
}

// swapFirst exchanges a spec's first two entries (_conv_spec_transpose).
func swapFirst(spec []int) []int {
	s := slices.Clone(spec)
	s[0], s[1] = s[1], s[0]
	return s
}

// convTransposeLHS is the cotangent of the input: ct convolved with the
// spatially flipped kernel whose feature dims swap roles, with lhs
// dilation = the forward strides and strides = the forward lhs dilation.
func convTransposeLHS(c *Call, ct, rhs Value, lhsShape []int, p ConvParams) Value {
	if ShapeSize(ct.Shape()) == 0 || ShapeSize(lhsShape) == 0 {
		return c.Zeros(0)
	}
	ns := p.SpatialRank()
	rs := rhs.Shape()
	if g := p.FeatureGroupCount; g > 1 {
		// Move the group out of the kernel's output features into its
		// input features (_reshape_axis_out_of, then _reshape_axis_into).
		o, i := p.RhsSpec[0], p.RhsSpec[1]
		split := slices.Concat(rs[:o], []int{g, rs[o] / g}, rs[o+1:])
		var perm []int
		for d := range len(split) {
			if d != o {
				perm = append(perm, d)
			}
		}
		perm = slices.Insert(perm, i, o)
		merged := slices.Clone(rs)
		merged[o], merged[i] = rs[o]/g, rs[i]*g
		rhs = rhs.Reshape(split...).Transpose(perm...).Reshape(merged...)
		rs = merged
	}
	q := ConvParams{
		LhsSpec: slices.Clone(p.OutSpec), RhsSpec: swapFirst(p.RhsSpec), OutSpec: slices.Clone(p.LhsSpec),
		Strides: slices.Clone(p.LhsDilation), LhsDilation: slices.Clone(p.Strides), RhsDilation: slices.Clone(p.RhsDilation),
		PadLo: make([]int, ns), PadHi: make([]int, ns), FeatureGroupCount: p.FeatureGroupCount,
	}
	gs := ct.Shape()
	for i := range ns {
		ld := DilateDim(lhsShape[p.LhsSpec[2+i]], p.LhsDilation[i])
		rd := DilateDim(rs[p.RhsSpec[2+i]], p.RhsDilation[i])
		od := DilateDim(gs[p.OutSpec[2+i]], p.Strides[i])
		q.PadLo[i] = rd - p.PadLo[i] - 1
		q.PadHi[i] = ld + rd - 1 - od - q.PadLo[i]
	}
	return ConvWithParams(ct, Rev(rhs, p.RhsSpec[2:]...), q)
}

// convTransposeRHS is the cotangent of the kernel: the input convolved
// with ct, batch and feature dims swapping roles, strides = the forward
// rhs dilation and rhs dilation = the forward strides. JAX does a grouped
// forward convolution's as one batch-grouped convolution; Kiln has no
// batch_group_count, so each group is its own convolution and the
// results are concatenated along the kernel's output features.
func convTransposeRHS(c *Call, ct, lhs Value, rhsShape []int, p ConvParams) Value {
	if ShapeSize(ct.Shape()) == 0 || ShapeSize(rhsShape) == 0 {
		return c.Zeros(1)
	}
	ns := p.SpatialRank()
	ls, gs := lhs.Shape(), ct.Shape()
	q := ConvParams{
		LhsSpec: swapFirst(p.LhsSpec), RhsSpec: swapFirst(p.OutSpec), OutSpec: swapFirst(p.RhsSpec),
		Strides: slices.Clone(p.RhsDilation), LhsDilation: slices.Clone(p.LhsDilation), RhsDilation: slices.Clone(p.Strides),
		PadLo: make([]int, ns), PadHi: make([]int, ns), FeatureGroupCount: 1,
	}
	for i := range ns {
		ld := DilateDim(ls[p.LhsSpec[2+i]], p.LhsDilation[i])
		rd := DilateDim(rhsShape[p.RhsSpec[2+i]], p.RhsDilation[i])
		od := DilateDim(gs[p.OutSpec[2+i]], p.Strides[i])
		q.PadLo[i] = p.PadLo[i]
		q.PadHi[i] = od - ld + rd - p.PadLo[i] - 1
	}
	g := p.FeatureGroupCount
	if g == 1 {
		return ConvWithParams(lhs, ct, q)
	}
	cin, cout := ls[p.LhsSpec[1]]/g, gs[p.OutSpec[1]]/g
	parts := make([]Value, g)
	for k := range g {
		l := lhs.Slice(p.LhsSpec[1], k*cin, (k+1)*cin, 1)
		t := ct.Slice(p.OutSpec[1], k*cout, (k+1)*cout, 1)
		parts[k] = ConvWithParams(l, t, q)
	}
	return Concatenate(p.RhsSpec[0], parts...)
}
