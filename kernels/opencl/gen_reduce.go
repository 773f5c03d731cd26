package opencl

import (
	"fmt"
	"math/bits"
	"slices"
	"strings"

	"github.com/kiln-go/kiln/internal/numerics"
	"github.com/kiln-go/kiln/lower"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// A reduction combines the N reduced elements of each output with
// kernels/doc.go's fixed tree, whatever the work-group shape:
//
//   - leaves of 128 elements, each summed by one work-item with eight lane
//     accumulators (fusionK_leaf below);
//   - leaves combined by T(lo, n) = T(lo, p) ⊕ T(lo+p, n−p), p the largest
//     power of two below n. Bottom-up, that is the level-wise pairing
//     a[i] ⊕= a[i+s] for i a multiple of 2s (s = 1, 2, 4, …), the last odd
//     node carried up unchanged — which a work-group does in local memory
//     over a chunk of leaves. Chunks are aligned powers of two, so they
//     are subtrees; a stack merges equal-sized ones and the remaining
//     stack folds right to left (B1 ⊕ (B2 ⊕ (… ⊕ Bk))), which is T again.
//   - with few outputs, each output is split over S work-groups covering
//     aligned power-of-two runs of leaves (subtrees as well); a second
//     kernel combines the S partial results per output the same way.
//
// max, min, argmax and argmin use the same tree: max and min are exact in
// any order (which NaN's payload survives is not specified), and argmax
// and argmin break ties by the smaller index, so the first extremum wins.

const (
	leafSize  = 128
	stackSize = 48 // a stack of perfect subtrees: enough for 2^48 leaves
)

// reduceOp describes one reduction's accumulator in C.
type reduceOp struct {
	acc   string                   // accumulator C type
	ident string                   // identity value
	comb  func(a, b string) string // a ⊕ b, a covering the earlier elements
	size  int                      // bytes of the accumulator in a __global partials buffer
	arg   bool                     // argmax/argmin: the accumulator is {value, index}
}

func (g *gen) reduceOpFor(op trace.Op, d tensor.DType) reduceOp {
	c := ct(d)
	h := func(name string) func(a, b string) string {
		return func(a, b string) string { return g.call(name, a, b) }
	}
	fsfx := c.sfx
	if narrow(d) {
		fsfx = "f32"
	}
	r := reduceOp{acc: c.compute, size: computeSize(d)}
	isBool, isInt, isCplx := d == tensor.Bool, d.IsInteger(), d.IsComplex()
	infix := func(sym string) func(a, b string) string {
		return func(a, b string) string { return "(" + a + " " + sym + " " + b + ")" }
	}
	cast := func(sym string) func(a, b string) string {
		return func(a, b string) string { return "(" + c.compute + ")(" + a + " " + sym + " " + b + ")" }
	}
	switch op {
	case trace.OpReduceSum:
		r.ident = zeroOf(d)
		switch {
		case isBool:
			r.comb = cast("|")
		case isInt:
			r.comb = h("add_" + c.sfx)
		default:
			r.comb = infix("+")
		}
	case trace.OpReduceProd:
		r.ident = oneOf(d)
		switch {
		case isBool:
			r.comb = cast("&")
		case isInt:
			r.comb = h("mul_" + c.sfx)
		case isCplx:
			r.comb = h("cmul_" + c.sfx)
		default:
			r.comb = infix("*")
		}
	case trace.OpReduceMax, trace.OpReduceMin:
		mx := op == trace.OpReduceMax
		switch {
		case isBool && mx:
			r.ident, r.comb = "(uchar)0", cast("|")
		case isBool:
			r.ident, r.comb = "(uchar)1", cast("&")
		case isInt:
			lim := intLimits[d]
			if mx {
				r.ident = "(" + c.compute + ")" + lim[0]
				r.comb = func(a, b string) string { return "max(" + a + ", " + b + ")" }
			} else {
				r.ident = "(" + c.compute + ")" + lim[1]
				r.comb = func(a, b string) string { return "min(" + a + ", " + b + ")" }
			}
		case mx:
			r.ident, r.comb = "(-("+c.compute+")INFINITY)", h("maximum_"+fsfx)
		default:
			r.ident, r.comb = "(("+c.compute+")INFINITY)", h("minimum_"+fsfx)
		}
	case trace.OpArgMax, trace.OpArgMin:
		name := "argmax_" + c.sfx
		if op == trace.OpArgMin {
			name = "argmin_" + c.sfx
		}
		r.acc, r.size, r.arg = "argacc_"+c.sfx, 16, true
		g.helpers.use("argacc_" + c.sfx)
		r.ident = "make_argacc_" + c.sfx + "(" + zeroOf(d) + ", 0)"
		r.comb = h(name)
	default:
		g.fail(&Error{Kind: KindUnsupported, Msg: fmt.Sprintf("no reduction %s on %s", op, d)})
		r.comb = infix("+")
	}
	return r
}

func computeSize(d tensor.DType) int {
	if narrow(d) {
		return 4
	}
	return d.Size()
}

func zeroOf(d tensor.DType) string {
	if d.IsComplex() {
		return "(" + ct(d).compute + ")(0, 0)"
	}
	return "(" + ct(d).compute + ")0"
}

func oneOf(d tensor.DType) string {
	if d.IsComplex() {
		return "(" + ct(d).compute + ")(1, 0)"
	}
	return "(" + ct(d).compute + ")1"
}

// defArgHelpers registers the {value, index} accumulator of argmax and
// argmin on d. The tree's leaves interleave eight lanes, so a node does not
// always combine an earlier run with a later one: ties (equal values, −0
// and +0 included, or two NaNs) go to the smaller index, a NaN beats any
// number — the first extremum, or the first NaN, wins in every order.
func defArgHelpers(d tensor.DType) {
	c := ct(d)
	fp64 := d == tensor.F64
	defHelper("argacc_"+c.sfx, fmt.Sprintf(`typedef struct { %s v; long i; } argacc_%s;
inline argacc_%s make_argacc_%s(%s v, long i) { argacc_%s r; r.v = v; r.i = i; return r; }`,
		c.compute, c.sfx, c.sfx, c.sfx, c.compute, c.sfx), fp64)
	for _, op := range []struct{ name, cmp string }{{"argmax", ">"}, {"argmin", "<"}} {
		// b wins if it is strictly better, or as good with a smaller index.
		better := "b.v " + op.cmp + " a.v"
		same := "b.v == a.v"
		if d.IsFloat() {
			better = "(isnan(b.v) && !isnan(a.v)) || " + better
			same = "(isnan(b.v) && isnan(a.v)) || " + same
		}
		defHelper(op.name+"_"+c.sfx, fmt.Sprintf("inline argacc_%s %s_%s(argacc_%s a, argacc_%s b) { return (%s || ((%s) && b.i < a.i)) ? b : a; }",
			c.sfx, op.name, c.sfx, c.sfx, c.sfx, better, same), fp64, "argacc_"+c.sfx)
	}
}

// dimRun is a run of consecutive operand dims merged into one: size and
// operand stride of the run's last dim.
type dimRun struct{ size, stride int }

// mergeRuns groups dims (operand dims, in index order) into runs that are
// consecutive in the operand, so their combined index is x·stride.
func mergeRuns(dims, shape, strides []int) []dimRun {
	var runs []dimRun
	for i, d := range dims {
		if shape[d] == 1 {
			continue
		}
		if len(runs) > 0 && i > 0 && dims[i-1] == d-1 && runs[len(runs)-1].stride == strides[d]*shape[d] {
			runs[len(runs)-1] = dimRun{runs[len(runs)-1].size * shape[d], strides[d]}
			continue
		}
		runs = append(runs, dimRun{shape[d], strides[d]})
	}
	return runs
}

// offsetExpr is the operand offset of the x-th element of the runs,
// row-major over them.
func offsetExpr(x string, runs []dimRun) string {
	sizes := make([]int, len(runs))
	strides := make([]int, len(runs))
	for i, r := range runs {
		sizes[i], strides[i] = r.size, r.stride
	}
	terms := make([]string, len(runs))
	for i := range runs {
		terms[i] = coord(x, sizes, i)
	}
	return linear(0, terms, strides)
}

func (g *gen) reduceFusion(f *lower.Fusion) {
	root := f.Outputs[0]
	operand := root.Args[0]
	opShape := operand.Shape
	axes := root.Params.Axes
	var kept []int
	for d := range opShape {
		if !slices.Contains(axes, d) {
			kept = append(kept, d)
		}
	}
	st := numerics.RowMajorStrides(opShape)
	N := 1
	for _, a := range axes {
		N *= opShape[a]
	}
	O := root.Size()
	L := (N + leafSize - 1) / leafSize
	it := indexType(operand.Size(), O*N+leafSize)
	name := fmt.Sprintf("fusion%d", f.ID)
	r := g.reduceOpFor(root.Op, operand.DType)

	p := newParams()
	b := newBody(g, p, f, "p", it, opShape)
	for _, in := range f.Instrs {
		if in != root {
			b.value(in)
		}
	}
	v := b.value(operand)
	callArgs := strings.Join(append(slices.Clone(p.names2()), ""), ", ")

	g.header(f)
	w := &g.kernels
	fmt.Fprintf(w, "// Element p of the reduced operand %s[%s].\n", operand.DType, joinInts(opShape, ","))
	fmt.Fprintf(w, "inline %s %s_elem(%s%s p) {\n", ct(operand.DType).compute, name, paramPrefix(p), it)
	b.write(w, "\t")
	fmt.Fprintf(w, "\treturn %s;\n}\n", v)
	base := offsetExpr("o", mergeRuns(kept, opShape, st))
	off := offsetExpr("k", mergeRuns(axes, opShape, st))
	at := fmt.Sprintf("%s_elem(%s%s)", name, callArgs, sum(base, off))
	if r.arg {
		at = "make_" + r.acc + "(" + at + ", (long)k)"
	}
	fmt.Fprintf(w, "// Element k (of %d) of output o's reduction.\n", N)
	fmt.Fprintf(w, "inline %s %s_at(%s%s o, %s k) { return %s; }\n", r.acc, name, paramPrefix(p), it, it, at)
	fmt.Fprintf(w, "// Leaf l: elements [128l, 128l+128), eight lanes (kernels/doc.go).\n")
	fmt.Fprintf(w, "inline %s %s_leaf(%s%s o, %s l) {\n", r.acc, name, paramPrefix(p), it, it)
	atCall := func(k string) string { return fmt.Sprintf("%s_at(%so, %s)", name, callArgs, k) }
	fmt.Fprintf(w, "\tconst %s lo = l * %d, m = min((%s)%d, (%s)%d - lo);\n", it, leafSize, it, leafSize, it, N)
	fmt.Fprintf(w, "\t%s r = %s;\n", r.acc, atCall("lo"))
	fmt.Fprintf(w, "\tif (m < 8) {\n\t\tfor (%s j = 1; j < m; j++) r = %s;\n\t\treturn r;\n\t}\n", it, r.comb("r", atCall("lo + j")))
	fmt.Fprintf(w, "\t%s a[8];\n\tfor (int j = 0; j < 8; j++) a[j] = %s;\n", r.acc, atCall("lo + j"))
	fmt.Fprintf(w, "\t%s k = 8;\n\tfor (; k + 8 <= m; k += 8)\n\t\tfor (int j = 0; j < 8; j++) a[j] = %s;\n", it, r.comb("a[j]", atCall("lo + k + j")))
	fmt.Fprintf(w, "\tr = %s;\n", r.comb(r.comb(r.comb("a[0]", "a[1]"), r.comb("a[2]", "a[3]")), r.comb(r.comb("a[4]", "a[5]"), r.comb("a[6]", "a[7]"))))
	fmt.Fprintf(w, "\tfor (; k < m; k++) r = %s;\n\treturn r;\n}\n", r.comb("r", atCall("lo + k")))

	out := fmt.Sprintf("out%d", root.ID)
	outArg := kernelArg{argPlan, g.m.Plan.Of[root]}
	final := func(acc string) string {
		if r.arg {
			return g.store(root.DType, out, "o", g.convertExpr(root.DType, tensor.I64, acc+".i"))
		}
		return g.store(root.DType, out, "o", g.round(root.DType, acc))
	}
	if O == 0 {
		return
	}
	if L <= 1 || O >= 4096 {
		g.serialReduce(name, p, it, r, O, L, out, outArg, root.DType, final)
		return
	}
	g.groupReduce(name, p, it, r, O, L, out, outArg, root.DType, final)
}

// names2 lists the parameter names in declaration order (for calls).
func (p *params) names2() []string {
	out := make([]string, len(p.decls))
	for i, d := range p.decls {
		out[i] = d[strings.LastIndexByte(d, ' ')+1:]
	}
	return out
}

func paramPrefix(p *params) string {
	if len(p.decls) == 0 {
		return ""
	}
	return p.list() + ", "
}

// paren wraps e in parentheses if it has a top-level + or −, so it can be
// a term of a sum or a factor.
func paren(e string) string {
	depth := 0
	for i := 0; i+2 < len(e); i++ {
		switch e[i] {
		case '(', '[':
			depth++
		case ')', ']':
			depth--
		case ' ':
			if depth == 0 && (e[i+1] == '+' || e[i+1] == '-') && e[i+2] == ' ' {
				return "(" + e + ")"
			}
		}
	}
	return e
}

// serialReduce: one work-item per output, leaves folded with a private
// stack of perfect subtrees.
func (g *gen) serialReduce(name string, p *params, it string, r reduceOp, O, L int, out string, outArg kernelArg, d tensor.DType, final func(string) string) {
	w := &g.kernels
	call := strings.Join(append(p.names2(), ""), ", ")
	args := slices.Clone(p.args)
	decls := slices.Clone(p.decls)
	q := &params{decls: decls, args: args}
	q.output(d, out, outArg)
	fmt.Fprintf(w, "__kernel void %s(%s) {\n", name, q.list())
	fmt.Fprintf(w, "\tconst %s o = (%s)get_global_id(0);\n\tif (o >= %d) return;\n", it, it, O)
	switch L {
	case 0:
		fmt.Fprintf(w, "\tconst %s r = %s;\n", r.acc, r.ident)
	case 1:
		fmt.Fprintf(w, "\tconst %s r = %s_leaf(%so, 0);\n", r.acc, name, call)
	default:
		depth := bits.Len(uint(L)) + 1
		fmt.Fprintf(w, "\t%s stk[%d];\n\t%s sz[%d];\n\tint top = 0;\n", r.acc, depth, it, depth)
		fmt.Fprintf(w, "\tfor (%s l = 0; l < %d; l++) {\n", it, L)
		fmt.Fprintf(w, "\t\t%s v = %s_leaf(%so, l);\n\t\t%s s = 1;\n", r.acc, name, call, it)
		fmt.Fprintf(w, "\t\twhile (top > 0 && sz[top - 1] == s) { v = %s; s *= 2; top--; }\n", r.comb("stk[top - 1]", "v"))
		fmt.Fprintf(w, "\t\tstk[top] = v; sz[top] = s; top++;\n\t}\n")
		fmt.Fprintf(w, "\t%s r = stk[top - 1];\n\tfor (int j = top - 2; j >= 0; j--) r = %s;\n", r.acc, r.comb("stk[j]", "r"))
	}
	fmt.Fprintf(w, "\t%s\n}\n\n", final("r"))
	g.launch1D(name, q.args, O)
}

// groupReduce: work-groups of wg work-items reduce chunks of wg leaves in
// local memory; with S > 1 segments per output a second kernel combines
// the partial results.
func (g *gen) groupReduce(name string, p *params, it string, r reduceOp, O, L int, out string, outArg kernelArg, d tensor.DType, final func(string) string) {
	wg := 1
	for wg*2 <= min(256, g.dev.MaxWorkGroupSize) && wg < L {
		wg *= 2
	}
	want := 4 * max(g.dev.ComputeUnits, 1)
	S := min(max((want+O-1)/O, 1), (L+wg-1)/wg)
	G := wg
	for G*S < L {
		G *= 2
	}
	S = (L + G - 1) / G
	call := strings.Join(append(p.names2(), ""), ", ")
	leaf := func(k string) string { return fmt.Sprintf("%s_leaf(%so, %s)", name, call, k) }
	q := &params{decls: slices.Clone(p.decls), args: slices.Clone(p.args)}
	if S == 1 {
		q.output(d, out, outArg)
		g.groupKernel(name, q, it, r, wg, fmt.Sprintf("const %s o = (%s)get_group_id(0), lo = 0, hi = %d;", it, it, L), leaf, final)
		g.out.kernels = append(g.out.kernels, kernelSpec{name: name, args: q.args, global: []int{O * wg}, local: []int{wg}, fixedLocal: true})
		return
	}
	part := kernelArg{argScratch, len(g.out.scratch)}
	g.out.scratch = append(g.out.scratch, O*S*r.size)
	q.decls = append(q.decls, fmt.Sprintf("__global %s* restrict part", r.acc))
	q.args = append(q.args, part)
	setup := fmt.Sprintf("const %s g = (%s)get_group_id(0), o = g / %d, lo = (g %% %d) * %d, hi = min(lo + %d, (%s)%d);", it, it, S, S, G, G, it, L)
	g.groupKernel(name, q, it, r, wg, setup, leaf, func(acc string) string { return "part[g] = " + acc + ";" })
	g.out.kernels = append(g.out.kernels, kernelSpec{name: name, args: q.args, global: []int{O * S * wg}, local: []int{wg}, fixedLocal: true})

	// Combine the S partials of each output: nodes of G leaves (the last
	// one shorter), combined level-wise exactly as leaves are.
	cwg := 1
	for cwg*2 <= min(256, g.dev.MaxWorkGroupSize) && cwg < S {
		cwg *= 2
	}
	c := &params{decls: []string{fmt.Sprintf("__global const %s* restrict part", r.acc)}, args: []kernelArg{part}}
	c.output(d, out, outArg)
	fmt.Fprintf(&g.kernels, "// fusion.%s: combines the %d partial results of each output.\n", strings.TrimPrefix(name, "fusion"), S)
	g.groupKernel(name+"_combine", c, it, r, cwg, fmt.Sprintf("const %s o = (%s)get_group_id(0), lo = 0, hi = %d;", it, it, S),
		func(k string) string { return fmt.Sprintf("part[o * %d + %s]", S, k) }, final)
	g.out.kernels = append(g.out.kernels, kernelSpec{name: name + "_combine", args: c.args, global: []int{O * cwg}, local: []int{cwg}, fixedLocal: true})
}

// groupKernel writes a kernel in which each work-group reduces the nodes
// [lo, hi) given by node(k), chunk by chunk, and work-item 0 stores
// done(result).
func (g *gen) groupKernel(name string, q *params, it string, r reduceOp, wg int, setup string, node func(k string) string, done func(string) string) {
	w := &g.kernels
	fmt.Fprintf(w, "__kernel __attribute__((reqd_work_group_size(%d, 1, 1)))\nvoid %s(%s) {\n", wg, name, q.list())
	fmt.Fprintf(w, "\t__local %s a[%d];\n\t__local %s stk[%d];\n\t__local %s sz[%d];\n", r.acc, wg, r.acc, stackSize, it, stackSize)
	fmt.Fprintf(w, "\tconst %s t = (%s)get_local_id(0);\n\t%s\n\tint top = 0;\n", it, it, setup)
	fmt.Fprintf(w, "\tfor (%s c = lo; c < hi; c += %d) {\n", it, wg)
	fmt.Fprintf(w, "\t\tconst %s cnt = min((%s)%d, hi - c);\n", it, it, wg)
	fmt.Fprintf(w, "\t\tif (t < cnt) a[t] = %s;\n\t\tbarrier(CLK_LOCAL_MEM_FENCE);\n", node("c + t"))
	fmt.Fprintf(w, "\t\tfor (%s s = 1; s < cnt; s <<= 1) {\n", it)
	fmt.Fprintf(w, "\t\t\tif ((t & (2 * s - 1)) == 0 && t + s < cnt) a[t] = %s;\n\t\t\tbarrier(CLK_LOCAL_MEM_FENCE);\n\t\t}\n", r.comb("a[t]", "a[t + s]"))
	fmt.Fprintf(w, "\t\tif (t == 0) {\n\t\t\t%s v = a[0];\n\t\t\t%s n = cnt;\n", r.acc, it)
	fmt.Fprintf(w, "\t\t\twhile (top > 0 && sz[top - 1] == n) { v = %s; n *= 2; top--; }\n", r.comb("stk[top - 1]", "v"))
	fmt.Fprintf(w, "\t\t\tstk[top] = v; sz[top] = n; top++;\n\t\t}\n\t\tbarrier(CLK_LOCAL_MEM_FENCE);\n\t}\n")
	fmt.Fprintf(w, "\tif (t == 0) {\n\t\t%s r = top > 0 ? stk[top - 1] : %s;\n", r.acc, r.ident)
	fmt.Fprintf(w, "\t\tfor (int j = top - 2; j >= 0; j--) r = %s;\n", r.comb("stk[j]", "r"))
	fmt.Fprintf(w, "\t\t%s\n\t}\n}\n\n", done("r"))
}
