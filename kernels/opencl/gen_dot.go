package opencl

import (
	"fmt"
	"io"
	"slices"

	"github.com/kiln-go/kiln/internal/numerics"
	"github.com/kiln-go/kiln/lower"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// dotFusion: dot_general as a tiled matmul. Batch dims flatten to B, lhs
// free dims to M, rhs free dims to N, contracting dims to K (row-major in
// the order the dimension numbers list them). A TS×TS work-group stages
// TS×TS tiles of both operands in local memory; each work-item owns one
// output element and accumulates k = 0, 1, …, K−1 in order, from +0, as
// kernels/doc.go requires: f32/f64 in their own type with one fma per
// product (OpenCL C's fma is correctly rounded), f16 in f32 rounded
// once at the end, integers wrapping, complex in its type. bf16 operands
// (a bf16 result, or f32 by preferred_element_type) follow the bf16 rule
// instead: staged with subnormals as zeros, k taken in pairs within a
// tile (TS is even, so pairs never straddle tiles), the odd product first,
// each step bf16_step (fma, tiny results flushed), the pair past an odd K
// zero. A fused
// epilogue (lower.FuseEpilogues) runs in the store: the work-item computes
// its element of the elementwise chain from the product's value, rounded
// to the product's dtype, with the statements a loop fusion reading the
// product from memory would run.
func (g *gen) dotFusion(f *lower.Fusion) {
	root := f.Dot()
	lhs, rhs := root.Args[0], root.Args[1]
	dn := root.Params.Dot
	d := root.DType
	free := func(shape, batch, contract []int) []int {
		var out []int
		for i := range shape {
			if !slices.Contains(batch, i) && !slices.Contains(contract, i) {
				out = append(out, i)
			}
		}
		return out
	}
	lfree, rfree := free(lhs.Shape, dn.LhsBatch, dn.LhsContract), free(rhs.Shape, dn.RhsBatch, dn.RhsContract)
	size := func(shape, dims []int) int {
		n := 1
		for _, x := range dims {
			n *= shape[x]
		}
		return n
	}
	B, M, N, K := size(lhs.Shape, dn.LhsBatch), size(lhs.Shape, lfree), size(rhs.Shape, rfree), size(lhs.Shape, dn.LhsContract)
	if B*M*N == 0 {
		return
	}
	ls, rs := numerics.RowMajorStrides(lhs.Shape), numerics.RowMajorStrides(rhs.Shape)
	it := indexType(lhs.Size(), rhs.Size(), B*M*N)
	p := newParams()
	xl, xr := p.input(g, lhs), p.input(g, rhs)
	epi := g.epilogue(f, p, it)
	out := g.resultParams(f, p)
	bf := lhs.DType == tensor.BF16 && rhs.DType == tensor.BF16
	load := func(dt tensor.DType, buf, idx string) string {
		if bf {
			return g.call("bf16_daz", buf+"["+idx+"]")
		}
		return g.load(dt, buf, idx)
	}
	lhsAt := func(b, m, k string) string {
		return load(lhs.DType, xl, sum(offsetExpr(b, mergeRuns(dn.LhsBatch, lhs.Shape, ls)), offsetExpr(m, mergeRuns(lfree, lhs.Shape, ls)), offsetExpr(k, mergeRuns(dn.LhsContract, lhs.Shape, ls))))
	}
	rhsAt := func(b, k, n string) string {
		return load(rhs.DType, xr, sum(offsetExpr(b, mergeRuns(dn.RhsBatch, rhs.Shape, rs)), offsetExpr(k, mergeRuns(dn.RhsContract, rhs.Shape, rs)), offsetExpr(n, mergeRuns(rfree, rhs.Shape, rs))))
	}
	c := ct(d)
	acc, zero := c.compute, zeroOf(d)
	if narrow(d) {
		zero = "0.0f"
	}
	var mac string // acc ⊕= a ⊗ b
	switch {
	case d == tensor.Bool:
		mac = "acc = (uchar)(acc | (as[ty][kk] & bs[kk][tx]));"
	case d.IsInteger():
		mac = fmt.Sprintf("acc = %s;", g.call("add_"+c.sfx, "acc", g.call("mul_"+c.sfx, "as[ty][kk]", "bs[kk][tx]")))
	case d.IsComplex():
		mac = fmt.Sprintf("acc = acc + %s;", g.call("cmul_"+c.sfx, "as[ty][kk]", "bs[kk][tx]"))
	default: // f32/f64, and f16/bf16 staged in f32: one rounding per step
		mac = "acc = fma(as[ty][kk], bs[kk][tx], acc);"
	}
	if bf {
		mac = "acc = bf16_step(kk + 1 < kn ? as[ty][kk + 1] : 0.0f, kk + 1 < kn ? bs[kk + 1][tx] : 0.0f, acc); acc = bf16_step(as[ty][kk], bs[kk][tx], acc);"
		g.helpers.use("bf16_step")
	}
	step, loop := 1, "for (int kk = 0; kk < kn; kk++) "+mac
	if bf {
		step, loop = 2, "for (int kk = 0; kk < kn; kk += 2) { "+mac+" }"
	}
	ts := 16
	for ts > step && ts*ts > g.dev.MaxWorkGroupSize {
		ts /= 2
	}
	name := fmt.Sprintf("fusion%d", f.ID)
	g.header(f)
	w := &g.kernels
	fmt.Fprintf(w, "// B=%d M=%d N=%d K=%d, %dx%d tiles.\n", B, M, N, K, ts, ts)
	fmt.Fprintf(w, "__kernel __attribute__((reqd_work_group_size(%d, %d, 1)))\nvoid %s(%s) {\n", ts, ts, name, p.list())
	fmt.Fprintf(w, "\t__local %s as[%d][%d], bs[%d][%d];\n", acc, ts, ts, ts, ts+1)
	fmt.Fprintf(w, "\tconst int tx = get_local_id(0), ty = get_local_id(1);\n")
	fmt.Fprintf(w, "\tconst %s n0 = (%s)get_group_id(0) * %d, m0 = (%s)get_group_id(1) * %d, b = (%s)get_global_id(2);\n", it, it, ts, it, ts, it)
	fmt.Fprintf(w, "\tconst %s n = n0 + tx, m = m0 + ty;\n", it)
	fmt.Fprintf(w, "\t%s acc = %s;\n", acc, zero)
	fmt.Fprintf(w, "\tfor (%s k0 = 0; k0 < %d; k0 += %d) {\n", it, K, ts)
	fmt.Fprintf(w, "\t\tif (m < %d && k0 + tx < %d) as[ty][tx] = %s;\n", M, K, lhsAt("b", "m", "(k0 + tx)"))
	fmt.Fprintf(w, "\t\tif (k0 + ty < %d && n < %d) bs[ty][tx] = %s;\n", K, N, rhsAt("b", "(k0 + ty)", "n"))
	fmt.Fprintf(w, "\t\tbarrier(CLK_LOCAL_MEM_FENCE);\n")
	fmt.Fprintf(w, "\t\tconst int kn = min((%s)%d, %d - k0);\n", it, ts, K)
	fmt.Fprintf(w, "\t\tif (m < %d && n < %d)\n\t\t\t%s\n", M, N, loop)
	fmt.Fprintf(w, "\t\tbarrier(CLK_LOCAL_MEM_FENCE);\n\t}\n")
	at := fmt.Sprintf("(b * %d + m) * %d + n", M, N)
	if epi == nil {
		fmt.Fprintf(w, "\tif (m < %d && n < %d) %s\n}\n\n", M, N, g.store(d, out, at, g.round(d, "acc")))
	} else {
		fmt.Fprintf(w, "\tif (m < %d && n < %d) {\n\t\tconst %s i = %s;\n", M, N, it, at)
		epi.write(w, "\t\t")
		g.storeResults(w, f, epi, "\t\t")
		fmt.Fprintf(w, "\t}\n}\n\n")
	}
	g.out.kernels = append(g.out.kernels, kernelSpec{name: name, args: p.args,
		global: []int{roundUp(N, ts), roundUp(M, ts), B}, local: []int{ts, ts, 1}, fixedLocal: true})
}

// epilogue compiles dot fusion f's epilogue (nil without one) at linear
// index i of the product, from the accumulator acc rounded to the
// product's dtype: the statements a loop fusion reading the stored
// product would run; a product other kernels read too (the fusion's
// second output) is stored first. Its inputs become parameters of p, so it
// is built before the parameter list is written.
func (g *gen) epilogue(f *lower.Fusion, p *params, it string) *body {
	if !f.Epilogue() {
		return nil
	}
	dot := f.Dot()
	epi := newBody(g, p, f, "i", it, dot.Shape)
	epi.lines = append(epi.lines, fmt.Sprintf("const %s acc_r = %s;", ct(dot.DType).compute, g.round(dot.DType, "acc")))
	epi.val[dot] = "acc_r"
	if f.SharesProduct() {
		name := fmt.Sprintf("out%d", dot.ID)
		p.output(dot.DType, name, kernelArg{argPlan, g.m.Plan.Of[dot]})
		epi.lines = append(epi.lines, g.store(dot.DType, name, "i", "acc_r"))
	}
	for _, in := range f.Instrs {
		epi.value(in)
	}
	return epi
}

// resultParams declares dot fusion f's result buffers as parameters of
// p — the product, or every result of its epilogue — and returns the
// first one's name (the plain product's, when there is no epilogue).
func (g *gen) resultParams(f *lower.Fusion, p *params) string {
	results := f.Outputs[:1]
	if f.Epilogue() {
		results = f.EpilogueResults()
	}
	for _, r := range results {
		p.output(r.DType, fmt.Sprintf("out%d", r.ID), kernelArg{argPlan, g.m.Plan.Of[r]})
	}
	return fmt.Sprintf("out%d", results[0].ID)
}

// storeResults writes the statements storing each result of dot fusion
// f's epilogue at linear index i.
func (g *gen) storeResults(w io.Writer, f *lower.Fusion, epi *body, indent string) {
	for _, r := range f.EpilogueResults() {
		fmt.Fprintf(w, "%s%s\n", indent, g.store(r.DType, fmt.Sprintf("out%d", r.ID), "i", epi.value(r)))
	}
}

// sum joins non-zero index terms with +.
func sum(terms ...string) string {
	var parts []string
	for _, t := range terms {
		if t != "0" {
			parts = append(parts, paren(t))
		}
	}
	switch len(parts) {
	case 0:
		return "0"
	case 1:
		return parts[0]
	}
	s := parts[0]
	for _, p := range parts[1:] {
		s += " + " + p
	}
	return s
}

// copyFusion: transpose, slice and concatenate as gathers, one work-item
// per output element, moving storage words without converting them.
func (g *gen) copyFusion(f *lower.Fusion) {
	root := f.Outputs[0]
	if root.Op.Info().Class == trace.ClassIndex {
		g.indexFusion(f)
		return
	}
	n := root.Size()
	if n == 0 {
		return
	}
	sizes := []int{n}
	for _, a := range root.Args {
		sizes = append(sizes, a.Size())
	}
	it := indexType(sizes...)
	p := newParams()
	out := fmt.Sprintf("out%d", root.ID)
	var body []string
	coords := make([]string, len(root.Shape))
	for j := range coords {
		coords[j] = coord("i", root.Shape, j)
	}
	switch root.Op {
	case trace.OpTranspose:
		src := root.Args[0]
		st := numerics.RowMajorStrides(src.Shape)
		strides := make([]int, len(coords))
		for j, pj := range root.Params.Perm {
			strides[j] = st[pj]
		}
		body = append(body, fmt.Sprintf("%s[i] = %s[%s];", out, p.input(g, src), linear(0, coords, strides)))
	case trace.OpSlice:
		src := root.Args[0]
		st := numerics.RowMajorStrides(src.Shape)
		base := 0
		strides := make([]int, len(coords))
		for j := range coords {
			base += root.Params.Start[j] * st[j]
			strides[j] = root.Params.Stride[j] * st[j]
		}
		body = append(body, fmt.Sprintf("%s[i] = %s[%s];", out, p.input(g, src), linear(base, coords, strides)))
	case trace.OpRev:
		src := root.Args[0]
		st := numerics.RowMajorStrides(src.Shape)
		terms := slices.Clone(coords)
		for _, a := range root.Params.Axes {
			terms[a] = fmt.Sprintf("(%d - %s)", root.Shape[a]-1, coords[a])
		}
		body = append(body, fmt.Sprintf("%s[i] = %s[%s];", out, p.input(g, src), linear(0, terms, st)))
	case trace.OpConcat:
		ax := root.Params.Axis
		body = append(body, fmt.Sprintf("const %s c = %s;", it, coords[ax]))
		off := 0
		for k, src := range root.Args {
			st := numerics.RowMajorStrides(src.Shape)
			terms := slices.Clone(coords)
			terms[ax] = "(c - " + fmt.Sprint(off) + ")"
			if off == 0 {
				terms[ax] = "c"
			}
			off += src.Shape[ax]
			stmt := fmt.Sprintf("%s[i] = %s[%s];", out, p.input(g, src), linear(0, terms, st))
			switch {
			case len(root.Args) == 1:
				body = append(body, stmt)
			case k == 0:
				body = append(body, fmt.Sprintf("if (c < %d) %s", off, stmt))
			case k == len(root.Args)-1:
				body = append(body, "else "+stmt)
			default:
				body = append(body, fmt.Sprintf("else if (c < %d) %s", off, stmt))
			}
		}
	default:
		g.fail(&Error{Kind: KindUnsupported, Msg: fmt.Sprintf("no copy kernel for %s", root.Op)})
		return
	}
	p.output(root.DType, out, kernelArg{argPlan, g.m.Plan.Of[root]})
	name := fmt.Sprintf("fusion%d", f.ID)
	g.header(f)
	fmt.Fprintf(&g.kernels, "__kernel void %s(%s) {\n", name, p.list())
	g.kernels.WriteString(g.elementIndex(it, n))
	for _, l := range body {
		g.kernels.WriteString("\t" + l + "\n")
	}
	g.kernels.WriteString("}\n\n")
	g.launch1D(name, p.args, n)
}
