package opencl

import (
	"fmt"
	"strings"

	"github.com/kiln-go/kiln/internal/numerics"
	"github.com/kiln-go/kiln/lower"
	"github.com/kiln-go/kiln/tensor"
)

// convFusion: conv_general_dilated as a direct convolution, one work-item
// per output element. The item walks the kernel's spatial positions in
// row-major order and, at each, the input features of its group, and
// accumulates from +0 as kernels/doc.go requires: fma() (one rounding)
// for f32 and f64, in float rounded once at the end for f16, wrapping for integers. Padding and lhs-dilation holes read a zero that
// still takes part in the product. bf16 operands (a bf16 result, or f32
// by preferred_element_type) follow dot_general's bf16 rule over that K
// order instead (convBF16Loop).
func (g *gen) convFusion(f *lower.Fusion) {
	root := f.Dot()
	lhs, rhs := root.Args[0], root.Args[1]
	p := root.Params.Conv
	d := root.DType
	n := root.Size()
	if n == 0 {
		return
	}
	bf := lhs.DType == tensor.BF16 && rhs.DType == tensor.BF16
	if d == tensor.Bool || d.IsComplex() {
		g.fail(&Error{Kind: KindUnsupported, Msg: fmt.Sprintf("no conv_general_dilated kernel for %s", d)})
		return
	}
	ns := p.SpatialRank()
	ls, rs := numerics.RowMajorStrides(lhs.Shape), numerics.RowMajorStrides(rhs.Shape)
	cin, og := rhs.Shape[p.RhsSpec[1]], rhs.Shape[p.RhsSpec[0]]/p.FeatureGroupCount
	it := indexType(n, lhs.Size(), rhs.Size())
	pr := newParams()
	xl, xr := pr.input(g, lhs), pr.input(g, rhs)
	epi := g.epilogue(f, pr, it)
	out := g.resultParams(f, pr)
	c := ct(d)
	acc, zero := c.compute, zeroOf(d)
	if narrow(d) {
		acc, zero = "float", "0.0f"
	}
	var mac string // acc = x·w + acc
	switch {
	case d.IsInteger():
		mac = fmt.Sprintf("acc = %s;", g.call("add_"+c.sfx, "acc", g.call("mul_"+c.sfx, "xv", "wv")))
	default:
		mac = "acc = fma(xv, wv, acc);"
	}
	var b strings.Builder
	name := fmt.Sprintf("fusion%d", f.ID)
	g.header(f)
	fmt.Fprintf(&b, "__kernel void %s(%s) {\n", name, pr.list())
	b.WriteString(g.elementIndex(it, n))
	fmt.Fprintf(&b, "\tconst long nb = (long)%s, o = (long)%s;\n", coord("i", root.Shape, p.OutSpec[0]), coord("i", root.Shape, p.OutSpec[1]))
	for s := range ns {
		fmt.Fprintf(&b, "\tconst long y%d = (long)%s;\n", s, coord("i", root.Shape, p.OutSpec[2+s]))
	}
	fmt.Fprintf(&b, "\tconst long lbase = nb * %d + (o / %d) * %d * %d;\n", ls[p.LhsSpec[0]], og, cin, ls[p.LhsSpec[1]])
	fmt.Fprintf(&b, "\t%s acc = %s;\n", acc, zero)
	if bf {
		g.convBF16Loop(&b, root, xl, xr, ls, rs, cin)
	} else {
		g.convLoop(&b, root, xl, xr, ls, rs, cin, acc, zero, mac)
	}
	if epi == nil {
		fmt.Fprintf(&b, "\t%s\n}\n\n", g.store(d, out, "i", g.round(d, "acc")))
	} else { // a fused epilogue (see dotFusion)
		epi.write(&b, "\t")
		g.storeResults(&b, f, epi, "\t")
		b.WriteString("}\n\n")
	}
	g.kernels.WriteString(b.String())
	g.launch1D(name, pr.args, n)
}

// convLoop writes the item's in-order accumulation: the kernel's spatial
// positions row-major, then the group's input features, one mac each.
func (g *gen) convLoop(b *strings.Builder, root *lower.Instr, xl, xr string, ls, rs []int, cin int, acc, zero, mac string) {
	lhs, rhs := root.Args[0], root.Args[1]
	p := root.Params.Conv
	d := root.DType
	ns := p.SpatialRank()
	ind := "\t"
	valid := []string{}
	loff := []string{"lbase"}
	roff := []string{fmt.Sprintf("o * %d", rs[p.RhsSpec[0]])}
	for s := range ns {
		ks := rhs.Shape[p.RhsSpec[2+s]]
		fmt.Fprintf(b, "%sfor (long k%d = 0; k%d < %d; k%d++) {\n", ind, s, s, ks, s)
		ind += "\t"
		fmt.Fprintf(b, "%sconst long p%d = y%d * %d + k%d * %d - %d;\n", ind, s, s, p.Strides[s], s, p.RhsDilation[s], p.PadLo[s])
		valid = append(valid, fmt.Sprintf("p%d >= 0 && p%d %% %d == 0 && p%d / %d < %d", s, s, p.LhsDilation[s], s, p.LhsDilation[s], lhs.Shape[p.LhsSpec[2+s]]))
		loff = append(loff, fmt.Sprintf("(p%d / %d) * %d", s, p.LhsDilation[s], ls[p.LhsSpec[2+s]]))
		roff = append(roff, fmt.Sprintf("k%d * %d", s, rs[p.RhsSpec[2+s]]))
	}
	ok := "1"
	if len(valid) > 0 {
		ok = "(" + strings.Join(valid, ") && (") + ")"
	}
	fmt.Fprintf(b, "%sconst int ok = %s;\n", ind, ok)
	fmt.Fprintf(b, "%sfor (long c = 0; c < %d; c++) {\n", ind, cin)
	xi := strings.Join(append(loff, fmt.Sprintf("c * %d", ls[p.LhsSpec[1]])), " + ")
	wi := strings.Join(append(roff, fmt.Sprintf("c * %d", rs[p.RhsSpec[1]])), " + ")
	fmt.Fprintf(b, "%s\tconst %s xv = ok ? %s : %s;\n", ind, acc, g.load(d, xl, xi), zero)
	fmt.Fprintf(b, "%s\tconst %s wv = %s;\n", ind, acc, g.load(d, xr, wi))
	fmt.Fprintf(b, "%s\t%s\n%s}\n", ind, mac, ind)
	for range ns {
		ind = ind[:len(ind)-1]
		fmt.Fprintf(b, "%s}\n", ind)
	}
}

// convBF16Loop writes the item's accumulation by dot_general's bf16 rule
// over the convolution's K order (q = kernel position·cin + input
// feature): q in pairs from +0, an odd K padded with one zero product,
// per pair the odd product first, each step bf16_step on inputs read
// with subnormals as zeros (bf16_daz) — as dotFusion's bf16 loop.
func (g *gen) convBF16Loop(b *strings.Builder, root *lower.Instr, xl, xr string, ls, rs []int, cin int) {
	lhs, rhs := root.Args[0], root.Args[1]
	p := root.Params.Conv
	ns := p.SpatialRank()
	kk := cin
	for s := range ns {
		kk *= rhs.Shape[p.RhsSpec[2+s]]
	}
	g.helpers.use("bf16_step")
	// term sets xv and wv to the lhs and rhs values of step q.
	term := func(q, xv, wv string) {
		fmt.Fprintf(b, "\t\t{\n\t\t\tconst long c = %s %% %d;\n", q, max(cin, 1))
		fmt.Fprintf(b, "\t\t\tlong kp = %s / %d;\n", q, max(cin, 1))
		valid := []string{}
		loff := []string{"lbase", fmt.Sprintf("c * %d", ls[p.LhsSpec[1]])}
		roff := []string{fmt.Sprintf("o * %d", rs[p.RhsSpec[0]]), fmt.Sprintf("c * %d", rs[p.RhsSpec[1]])}
		for s := ns - 1; s >= 0; s-- {
			ks := rhs.Shape[p.RhsSpec[2+s]]
			fmt.Fprintf(b, "\t\t\tconst long k%d = kp %% %d;\n\t\t\tkp /= %d;\n", s, ks, ks)
		}
		for s := range ns {
			fmt.Fprintf(b, "\t\t\tconst long p%d = y%d * %d + k%d * %d - %d;\n", s, s, p.Strides[s], s, p.RhsDilation[s], p.PadLo[s])
			valid = append(valid, fmt.Sprintf("p%d >= 0 && p%d %% %d == 0 && p%d / %d < %d", s, s, p.LhsDilation[s], s, p.LhsDilation[s], lhs.Shape[p.LhsSpec[2+s]]))
			loff = append(loff, fmt.Sprintf("(p%d / %d) * %d", s, p.LhsDilation[s], ls[p.LhsSpec[2+s]]))
			roff = append(roff, fmt.Sprintf("k%d * %d", s, rs[p.RhsSpec[2+s]]))
		}
		ok := "1"
		if len(valid) > 0 {
			ok = "(" + strings.Join(valid, ") && (") + ")"
		}
		fmt.Fprintf(b, "\t\t\t%s = (%s) ? %s : 0.0f;\n", xv, ok, g.call("bf16_daz", xl+"["+strings.Join(loff, " + ")+"]"))
		fmt.Fprintf(b, "\t\t\t%s = %s;\n\t\t}\n", wv, g.call("bf16_daz", xr+"["+strings.Join(roff, " + ")+"]"))
	}
	fmt.Fprintf(b, "\tfor (long q = 0; q < %d; q += 2) {\n", kk)
	b.WriteString("\t\tfloat xodd = 0.0f, wodd = 0.0f, xeven, weven;\n")
	fmt.Fprintf(b, "\t\tif (q + 1 < %d)\n", kk)
	term("(q + 1)", "xodd", "wodd")
	term("q", "xeven", "weven")
	b.WriteString("\t\tacc = bf16_step(xodd, wodd, acc);\n\t\tacc = bf16_step(xeven, weven, acc);\n\t}\n")
}
