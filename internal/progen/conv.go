package progen

import (
	"fmt"
	"slices"
	"strings"

	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// pickConv draws a conv_general_dilated of the value a (rank ≥ 2) in a
// random layout: the kernel is an earlier value of a fitting shape when
// one exists (so derivatives reach both operands), else a constant of
// small integers; strides, padding (explicit, negative too, SAME or
// VALID), dilations and feature groups are drawn small.
func (g *gen) pickConv(s step) (step, bool) {
	r := g.r
	sa := g.shapes[s.args[0].ref]
	t := g.types[s.args[0].ref]
	rank := len(sa)
	if rank < 2 || rank > 5 || t.DType == tensor.Bool || t.DType.IsComplex() {
		return s, false
	}
	ns := rank - 2
	letters := []byte("HWD")[:ns]
	layout := func(a, b byte) string {
		l := append([]byte{a, b}, letters...)
		r.Shuffle(len(l), func(i, j int) { l[i], l[j] = l[j], l[i] })
		return string(l)
	}
	o := trace.ConvOptions{DimensionNumbers: [3]string{layout('N', 'C'), layout('O', 'I'), layout('N', 'C')}}
	if r.Intn(4) == 0 {
		o.DimensionNumbers = [3]string{}
	}
	lhs, rhsSpec, _, msg := trace.ConvPermutations(o.DimensionNumbers, rank)
	if msg != "" {
		return s, false
	}
	c := sa[lhs[1]]
	groups := []int{1}
	for d := 2; d <= c; d++ {
		if c%d == 0 {
			groups = append(groups, d)
		}
	}
	gc := groups[r.Intn(len(groups))]
	if r.Intn(2) == 0 {
		gc = 1
	}
	o.FeatureGroupCount = gc
	// The kernel: an earlier value that fits, or a constant.
	var cands []int
	for i, sb := range g.shapes {
		if len(sb) != rank || g.types[i].DType != t.DType && r.Intn(3) != 0 {
			continue
		}
		if sb[rhsSpec[1]]*gc != c || sb[rhsSpec[0]]%gc != 0 {
			continue
		}
		fits := true
		for k := range ns {
			fits = fits && sb[rhsSpec[2+k]] <= 4
		}
		if fits {
			cands = append(cands, i)
		}
	}
	if len(cands) > 0 && r.Intn(3) != 0 {
		s.args = append(s.args, operand{ref: cands[r.Intn(len(cands))]})
	} else {
		shape := make([]int, rank)
		shape[rhsSpec[0]] = gc * (1 + r.Intn(3))
		shape[rhsSpec[1]] = c / gc
		for k := range ns {
			shape[rhsSpec[2+k]] = 1 + r.Intn(3)
		}
		n := trace.ShapeSize(shape)
		vals := make([]int64, n)
		for i := range vals {
			vals[i] = int64(r.Intn(7) - 3)
		}
		if t.DType.IsUnsigned() {
			for i := range vals {
				vals[i] = max(vals[i], 0)
			}
		}
		a, _ := tensor.FromSlice(vals)
		a, _ = a.Reshape(shape...)
		s.args = append(s.args, operand{ref: -1, konst: a.Astype(t.DType)})
	}
	small := func(lo, hi int) []int {
		v := make([]int, ns)
		for i := range v {
			v[i] = lo + r.Intn(hi-lo+1)
		}
		return v
	}
	if r.Intn(2) == 0 {
		o.WindowStrides = small(1, 3)
	}
	switch r.Intn(4) {
	case 0:
		o.PaddingMode = "SAME"
	case 1:
		o.PaddingMode = "VALID"
	case 2:
		o.Padding = make([][2]int, ns)
		for i := range o.Padding {
			o.Padding[i] = [2]int{r.Intn(4) - 1, r.Intn(4) - 1}
		}
	}
	if r.Intn(3) == 0 {
		o.LhsDilation = small(1, 2)
	}
	if r.Intn(3) == 0 {
		o.RhsDilation = small(1, 2)
	}
	s.conv = o
	g.maybePreferred(&s)
	return s, true
}

// convString prints a conv step.
func convString(args []string, o trace.ConvOptions, pref string) string {
	var kw []string
	if pref != "" {
		kw = append(kw, pref)
	}
	if o.DimensionNumbers != [3]string{} {
		kw = append(kw, fmt.Sprintf("dimension_numbers=(%q, %q, %q)", o.DimensionNumbers[0], o.DimensionNumbers[1], o.DimensionNumbers[2]))
	}
	if o.WindowStrides != nil {
		kw = append(kw, fmt.Sprintf("window_strides=%v", o.WindowStrides))
	}
	switch {
	case o.PaddingMode != "":
		kw = append(kw, fmt.Sprintf("padding=%q", o.PaddingMode))
	case o.Padding != nil:
		kw = append(kw, fmt.Sprintf("padding=%v", o.Padding))
	}
	if o.LhsDilation != nil {
		kw = append(kw, fmt.Sprintf("lhs_dilation=%v", o.LhsDilation))
	}
	if o.RhsDilation != nil {
		kw = append(kw, fmt.Sprintf("rhs_dilation=%v", o.RhsDilation))
	}
	if o.FeatureGroupCount > 1 {
		kw = append(kw, fmt.Sprintf("feature_group_count=%d", o.FeatureGroupCount))
	}
	return "conv_general_dilated(" + strings.Join(slices.Concat(args, kw), ", ") + ")"
}

// convWork is the number of multiply-adds of a conv_general_dilated.
func convWork(e *trace.Eqn) int {
	k := e.Args[1].Size() / max(1, e.Args[1].Shape[e.Params.Conv.RhsSpec[0]])
	return e.Out.Size() * k
}
