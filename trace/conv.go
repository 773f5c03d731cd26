package trace

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/kiln-go/kiln/promote"
	"github.com/kiln-go/kiln/tensor"
)

// ConvParams are the static parameters of conv_general_dilated (XLA's
// convolution, lax.conv_general_dilated), with the dimension numbers as
// JAX's ConvDimensionNumbers: LhsSpec lists the lhs dims that are the
// batch, the feature, then the spatial dims; RhsSpec the kernel's output
// feature, input feature, then spatial dims; OutSpec the result's batch,
// feature, then spatial dims. Spatial dim i of the three corresponds.
// Every per-spatial list has one entry per spatial dim. Padding may be
// negative (it crops), as lax's explicit padding; it applies to the
// lhs after lhs dilation.
type ConvParams struct {
	LhsSpec, RhsSpec, OutSpec []int
	Strides                   []int // window strides, ≥ 1
	PadLo, PadHi              []int // padding before and after each spatial dim
	LhsDilation               []int // ≥ 1: lhs_dilation (transposed convolution)
	RhsDilation               []int // ≥ 1: rhs_dilation (atrous convolution)
	FeatureGroupCount         int   // ≥ 1
}

// SpatialRank is the number of spatial dims.
func (p ConvParams) SpatialRank() int { return max(len(p.LhsSpec)-2, 0) }

// String prints the parameters as the program printers show them.
func (p ConvParams) String() string {
	pads := make([]string, len(p.PadLo))
	for i := range pads {
		pads[i] = fmt.Sprintf("%d_%d", p.PadLo[i], p.PadHi[i])
	}
	return fmt.Sprintf("dims=%s,%s->%s window_strides=%s padding=(%s) lhs_dilation=%s rhs_dilation=%s feature_group_count=%d",
		tuple(p.LhsSpec), tuple(p.RhsSpec), tuple(p.OutSpec), tuple(p.Strides), strings.Join(pads, ","),
		tuple(p.LhsDilation), tuple(p.RhsDilation), p.FeatureGroupCount)
}

// ConvOptions are the optional arguments of ConvGeneralDilated, named as
// lax.conv_general_dilated's. The zero value is a unit-stride, unpadded,
// undilated, ungrouped convolution of NC… inputs with OI… kernels.
type ConvOptions struct {
	// WindowStrides: one per spatial dim; nil means all 1.
	WindowStrides []int
	// Padding: one {lo, hi} pair per spatial dim (nil: none), unless
	// PaddingMode is set.
	Padding [][2]int
	// PaddingMode: "SAME", "SAME_LOWER" or "VALID", computed as
	// lax.padtype_to_pads does (from the undilated lhs and the dilated
	// kernel); "" uses Padding.
	PaddingMode string
	// LhsDilation, RhsDilation: one per spatial dim; nil means all 1.
	LhsDilation, RhsDilation []int
	// DimensionNumbers: the lhs, rhs and output layouts as lax's strings,
	// e.g. {"NCHW", "OIHW", "NCHW"} or {"NHWC", "HWIO", "NHWC"} (N batch,
	// C feature, O/I the kernel's output/input feature, any other letter a
	// spatial dim; spatial dims pair up by letter and are ordered as the
	// rhs string lists them). Empty strings mean the default NC…, OI…,
	// NC… layouts.
	DimensionNumbers [3]string
	// FeatureGroupCount: grouped (depthwise when equal to the features)
	// convolution; 0 means 1.
	FeatureGroupCount int
	// BatchGroupCount: only 0 or 1 is supported (a *ShapeError otherwise).
	BatchGroupCount int
}

// ConvGeneralDilated is lax.conv_general_dilated: a convolution of lhs
// (the input) with rhs (the kernel). The operands promote to one dtype
// as dot_general's do (weak values take the other's type); bool and
// complex operands are refused (*DTypeError). Each output element
// accumulates its products from +0 over the kernel's spatial positions in
// row-major order, then the input features of its group, with one
// rounding per step (a fused multiply-add) for f32 and f64, in f32
// rounded once at the end for f16, wrapping for integers; bf16 takes
// dot_general's bf16 rule over that order (pairs, the odd product first,
// DAZ/FTZ, in f32; with PreferredElementType f32 the accumulator is the
// result) (docs/SPEC.md, kernels/doc.go). Padding and lhs-dilation holes
// are zeros that take part in the products. The options are lax's
// (PreferredElementType: the convolution of both operands converted to
// that dtype, as DotGeneral's).
func ConvGeneralDilated(lhs, rhs Value, o ConvOptions, opts ...DotOption) Value {
	const op = "conv_general_dilated"
	if v, bad := zeroOperand(op, lhs, rhs); bad {
		return v
	}
	b, ok := builderOf(op, lhs, rhs)
	if b == nil {
		return freeOp(func(b *builder) Value { return ConvGeneralDilated(b.attach(lhs, op), b.attach(rhs, op), o, opts...) })
	}
	if !ok || b.err != nil {
		return Value{b: b}
	}
	xv, yv := b.materialize(b.attach(lhs, op), op), b.materialize(b.attach(rhs, op), op)
	if xv == nil || yv == nil {
		return Value{b: b}
	}
	p, msg := convParams(xv.Shape, yv.Shape, o)
	if msg != "" {
		return b.shapeErr(op, msg+" (lhs "+shapeString(xv.Shape)+", rhs "+shapeString(yv.Shape)+")", xv.Shape, yv.Shape)
	}
	return b.conv(xv, yv, p, dotOptions(opts))
}

// ConvWithParams is conv_general_dilated with its parameters already
// resolved (the derivative rules and progen use it).
func ConvWithParams(lhs, rhs Value, p ConvParams, opts ...DotOption) Value {
	const op = "conv_general_dilated"
	if v, bad := zeroOperand(op, lhs, rhs); bad {
		return v
	}
	b, ok := builderOf(op, lhs, rhs)
	if b == nil {
		return freeOp(func(b *builder) Value { return ConvWithParams(b.attach(lhs, op), b.attach(rhs, op), p, opts...) })
	}
	if !ok || b.err != nil {
		return Value{b: b}
	}
	xv, yv := b.materialize(b.attach(lhs, op), op), b.materialize(b.attach(rhs, op), op)
	if xv == nil || yv == nil {
		return Value{b: b}
	}
	return b.conv(xv, yv, p, dotOptions(opts))
}

func (b *builder) conv(xv, yv *Var, p ConvParams, o dotOpts) Value {
	const op = "conv_general_dilated"
	out, msg := ConvShape(xv.Shape, yv.Shape, p)
	if msg != "" {
		return b.shapeErr(op, msg+" (lhs "+shapeString(xv.Shape)+", rhs "+shapeString(yv.Shape)+")", xv.Shape, yv.Shape)
	}
	common, err := b.resultType(xv.Type, yv.Type)
	if err != nil {
		return b.opErr(op, err)
	}
	if msg := convDTypeError(common.DType); msg != "" {
		return b.dtypeErr(op, msg, xv.Type, yv.Type)
	}
	rt, params, refused := dotResult(common, DotDims{}, o)
	if refused != "" {
		return b.preferredErr(op, refused, xv.Type, yv.Type, common)
	}
	why := "promote " + joinTypes([]promote.Type{xv.Type, yv.Type}) + " -> " + common.String()
	l, r := b.to(Value{b: b, v: xv}, common, op, why), b.to(Value{b: b, v: yv}, common, op, why)
	if l == nil || r == nil {
		return Value{b: b}
	}
	params.Conv = p.clone()
	return b.emit(OpConv, []*Var{l, r}, rt, out, params, "")
}

func (p ConvParams) clone() ConvParams {
	q := p
	for _, s := range []*[]int{&q.LhsSpec, &q.RhsSpec, &q.OutSpec, &q.Strides, &q.PadLo, &q.PadHi, &q.LhsDilation, &q.RhsDilation} {
		*s = slices.Clone(*s)
	}
	return q
}

// Conv is a convolution with "NCHW"-style layouts (lax.conv_with_general_padding
// without dilation): lhs [N, C, spatial…], rhs [O, I, spatial…], strides
// (nil: 1) and padding "SAME" or "VALID".
func Conv(lhs, rhs Value, strides []int, padding string) Value {
	return ConvGeneralDilated(lhs, rhs, ConvOptions{WindowStrides: strides, PaddingMode: padding})
}

// convDTypeError says why conv_general_dilated cannot compute in d, or "".
func convDTypeError(d tensor.DType) string {
	switch {
	case d == tensor.Bool:
		return "convolution of bool operands is not supported (convert them to a number type first)"
	case d.IsComplex():
		return fmt.Sprintf("convolution of %s operands is not supported yet", d)
	}
	return ""
}

// convParams resolves the options against the operand shapes.
func convParams(ls, rs []int, o ConvOptions) (ConvParams, string) {
	var p ConvParams
	if len(ls) != len(rs) {
		return p, fmt.Sprintf("lhs and rhs must have the same rank, got %d and %d", len(ls), len(rs))
	}
	if len(ls) < 2 {
		return p, fmt.Sprintf("operands need rank ≥ 2 (batch and feature dims), got %d", len(ls))
	}
	if o.BatchGroupCount > 1 {
		return p, fmt.Sprintf("batch_group_count=%d is not supported (only 1)", o.BatchGroupCount)
	}
	if o.BatchGroupCount < 0 {
		return p, fmt.Sprintf("batch_group_count must be ≥ 1, got %d", o.BatchGroupCount)
	}
	var msg string
	p.LhsSpec, p.RhsSpec, p.OutSpec, msg = ConvPermutations(o.DimensionNumbers, len(ls))
	if msg != "" {
		return p, msg
	}
	ns := len(ls) - 2
	ones := func(name string, v []int) ([]int, string) {
		if v == nil {
			return slices.Repeat([]int{1}, ns), ""
		}
		if len(v) != ns {
			return nil, fmt.Sprintf("%s has %d entries for %d spatial dims", name, len(v), ns)
		}
		for _, x := range v {
			if x < 1 {
				return nil, fmt.Sprintf("%s must be ≥ 1, got %v", name, v)
			}
		}
		return slices.Clone(v), ""
	}
	if p.Strides, msg = ones("window_strides", o.WindowStrides); msg != "" {
		return p, msg
	}
	if p.LhsDilation, msg = ones("lhs_dilation", o.LhsDilation); msg != "" {
		return p, msg
	}
	if p.RhsDilation, msg = ones("rhs_dilation", o.RhsDilation); msg != "" {
		return p, msg
	}
	p.FeatureGroupCount = o.FeatureGroupCount
	if p.FeatureGroupCount == 0 {
		p.FeatureGroupCount = 1
	}
	if p.FeatureGroupCount < 0 {
		return p, fmt.Sprintf("feature_group_count must be ≥ 1, got %d", o.FeatureGroupCount)
	}
	p.PadLo, p.PadHi = make([]int, ns), make([]int, ns)
	switch strings.ToUpper(o.PaddingMode) {
	case "":
		if o.Padding != nil && len(o.Padding) != ns {
			return p, fmt.Sprintf("padding has %d pairs for %d spatial dims", len(o.Padding), ns)
		}
		for i, pr := range o.Padding {
			p.PadLo[i], p.PadHi[i] = pr[0], pr[1]
		}
	case "VALID":
	case "SAME", "SAME_LOWER":
		for i := range ns {
			in, k := ls[p.LhsSpec[2+i]], DilateDim(rs[p.RhsSpec[2+i]], p.RhsDilation[i])
			s := p.Strides[i]
			out := (in + s - 1) / s
			pad := max((out-1)*s+k-in, 0)
			p.PadLo[i], p.PadHi[i] = pad/2, pad-pad/2
			if strings.EqualFold(o.PaddingMode, "SAME_LOWER") {
				p.PadLo[i], p.PadHi[i] = pad-pad/2, pad/2
			}
		}
	default:
		return p, fmt.Sprintf("unknown padding %q (want SAME, SAME_LOWER, VALID or explicit pairs)", o.PaddingMode)
	}
	return p, ""
}

// DilateDim is the size of a dim of n elements with d−1 holes between
// neighbours (core.dilate_dim).
func DilateDim(n, d int) int {
	if n == 0 {
		return 0
	}
	return 1 + d*(n-1)
}

// ConvPermutations turns lax's dimension-number strings into the dims
// lists of ConvParams (lax.conv_general_permutations). Empty strings are
// the default layouts for operands of the given rank.
func ConvPermutations(specs [3]string, rank int) (lhs, rhs, out []int, msg string) {
	if specs == [3]string{} {
		id := make([]int, rank)
		for i := range id {
			id[i] = i
		}
		return id, slices.Clone(id), slices.Clone(id), ""
	}
	pairs := [3][2]byte{{'N', 'C'}, {'O', 'I'}, {'N', 'C'}}
	names := [3]string{"lhs", "rhs", "out"}
	spatial := func(s string, pr [2]byte) string {
		var sp []byte
		for i := range len(s) {
			if s[i] != pr[0] && s[i] != pr[1] {
				sp = append(sp, s[i])
			}
		}
		slices.Sort(sp)
		return string(sp)
	}
	for i, s := range specs {
		if len(s) != rank {
			return nil, nil, nil, fmt.Sprintf("dimension numbers %q: the %s spec has %d letters for rank-%d operands", specs, names[i], len(s), rank)
		}
		if strings.Count(s, string(pairs[i][0])) != 1 || strings.Count(s, string(pairs[i][1])) != 1 {
			return nil, nil, nil, fmt.Sprintf("dimension numbers %q: the %s spec must contain %c and %c exactly once", specs, names[i], pairs[i][0], pairs[i][1])
		}
		for j := range len(s) {
			if strings.IndexByte(s, s[j]) != j {
				return nil, nil, nil, fmt.Sprintf("dimension numbers %q: the %s spec repeats %c", specs, names[i], s[j])
			}
		}
	}
	if a, b, c := spatial(specs[0], pairs[0]), spatial(specs[1], pairs[1]), spatial(specs[2], pairs[2]); a != b || b != c {
		return nil, nil, nil, fmt.Sprintf("dimension numbers %q: the spatial letters of the three specs differ", specs)
	}
	rs := specs[1]
	perm := func(s string, pr [2]byte) []int {
		p := []int{strings.IndexByte(s, pr[0]), strings.IndexByte(s, pr[1])}
		for j := range len(rs) {
			if rs[j] != 'O' && rs[j] != 'I' {
				p = append(p, strings.IndexByte(s, rs[j]))
			}
		}
		return p
	}
	return perm(specs[0], pairs[0]), perm(specs[1], pairs[1]), perm(specs[2], pairs[2]), ""
}

// ConvShape checks p against the operand shapes and returns the result's
// shape, or a message saying what is wrong.
func ConvShape(ls, rs []int, p ConvParams) ([]int, string) {
	rank := len(ls)
	if len(rs) != rank || rank < 2 {
		return nil, fmt.Sprintf("lhs and rhs must have one rank ≥ 2, got %d and %d", len(ls), len(rs))
	}
	ns := rank - 2
	for _, sp := range [][]int{p.LhsSpec, p.RhsSpec, p.OutSpec} {
		if !isPermutation(sp, rank) {
			return nil, fmt.Sprintf("dimension numbers %v, %v, %v are not permutations of %d dims", p.LhsSpec, p.RhsSpec, p.OutSpec, rank)
		}
	}
	for _, l := range [][]int{p.Strides, p.PadLo, p.PadHi, p.LhsDilation, p.RhsDilation} {
		if len(l) != ns {
			return nil, fmt.Sprintf("window parameters need one entry per spatial dim (%d)", ns)
		}
	}
	for i := range ns {
		if p.Strides[i] < 1 || p.LhsDilation[i] < 1 || p.RhsDilation[i] < 1 {
			return nil, "strides and dilations must be ≥ 1"
		}
	}
	g := p.FeatureGroupCount
	if g < 1 {
		return nil, fmt.Sprintf("feature_group_count must be ≥ 1, got %d", g)
	}
	c, ci, co := ls[p.LhsSpec[1]], rs[p.RhsSpec[1]], rs[p.RhsSpec[0]]
	if c%g != 0 {
		return nil, fmt.Sprintf("lhs feature dimension %d is not a multiple of feature_group_count=%d", c, g)
	}
	if c/g != ci {
		return nil, fmt.Sprintf("lhs feature dimension %d / feature_group_count=%d must equal the rhs input feature dimension %d", c, g, ci)
	}
	if co%g != 0 {
		return nil, fmt.Sprintf("rhs output feature dimension %d is not a multiple of feature_group_count=%d", co, g)
	}
	out := make([]int, rank)
	out[p.OutSpec[0]] = ls[p.LhsSpec[0]]
	out[p.OutSpec[1]] = co
	for i := range ns {
		in := DilateDim(ls[p.LhsSpec[2+i]], p.LhsDilation[i])
		if in > math.MaxInt/2 || abs(p.PadLo[i]) > math.MaxInt/4 || abs(p.PadHi[i]) > math.MaxInt/4 {
			return nil, "spatial size or padding out of range"
		}
		padded := in + p.PadLo[i] + p.PadHi[i]
		if padded < 0 {
			return nil, fmt.Sprintf("negative padding %d, %d larger than spatial dim %d of size %d", p.PadLo[i], p.PadHi[i], i, in)
		}
		k := DilateDim(rs[p.RhsSpec[2+i]], p.RhsDilation[i])
		n := 0
		if padded >= k {
			n = (padded-k)/p.Strides[i] + 1
		}
		out[p.OutSpec[2+i]] = n
	}
	return out, ""
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

func isPermutation(p []int, n int) bool {
	if len(p) != n {
		return false
	}
	seen := make([]bool, n)
	for _, a := range p {
		if a < 0 || a >= n || seen[a] {
			return false
		}
		seen[a] = true
	}
	return true
}

// checkConv is conv_general_dilated's typing rule.
func checkConv(op Op, args []Abstract, out Abstract, p *Params) error {
	if err := sameType("operand 1", args[1].Type, args[0].Type); err != nil {
		return err
	}
	if err := checkPreferred(args[0].Type, out.Type, p); err != nil {
		return err
	}
	if msg := convDTypeError(args[0].Type.DType); msg != "" {
		return fault(CheckType, "%s", msg)
	}
	want, msg := ConvShape(args[0].Shape, args[1].Shape, p.Conv)
	if msg != "" {
		return fault(CheckParams, "%s", msg)
	}
	return sameShape("the result", out.Shape, want)
}
