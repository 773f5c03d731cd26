package opencl

import (
	"fmt"
	"math"

	"github.com/kiln-go/kiln/lower"
	"github.com/kiln-go/kiln/tensor"
)

// sort (lax.sort, trace/sort.go). One real key (sort, argsort, top_k,
// random permutations) is a bitonic network per row, run by one
// work-group with barriers between its stages: the key becomes an
// unsigned number in JAX's order (the sortkey_* helpers; f16 and bf16 by
// their bits), paired with the element's number so that all pairs differ
// and the network's order is the stable one; the row is padded to a power
// of two with pairs that sort last, in scratch buffers; O(n log² n) work
// per row. Several keys, or a complex one, are a rank sort: one
// work-item per element counts the elements of its row that come before
// it — a lesser key, or an equal key at a lower position, which makes it
// stable — comparing the keys lexicographically with the sortord_*
// helpers, and writes its element to that rank: O(n²) work per row, for
// the short rows such sorts have. Either way the result operand's
// elements then move into place. lax.sort's sibling equations (one per
// result, the same operands) sort once on the bitonic path: a later
// sibling only moves its elements by the first one's sorted indices.

func init() {
	for _, d := range tensor.StandardDTypes() {
		c := ct(d)
		switch {
		case d == tensor.F32 || d == tensor.F64:
			defHelper("sortord_"+c.sfx, expand(`
// JAX's sort order: -0 == +0, NaNs equal and after everything.
inline int sortord_$S($T a, $T b) {
	if (a < b) return -1;
	if (a > b) return 1;
	if (a == b) return 0;
	const int an = isnan(a), bn = isnan(b);
	return an && bn ? 0 : (an ? 1 : -1);
}`, d), d == tensor.F64)
		case d == tensor.F16 || d == tensor.BF16:
			inf := map[tensor.DType]string{tensor.F16: "0x7c00", tensor.BF16: "0x7f80"}[d]
			defHelper("sortord_"+c.sfx, expand(`
// 16-bit floats by their bits: sign-magnitude to int, +-0 to 0, NaN above all.
inline int sortmag_$S(ushort h) { const int m = h & 0x7fff; return m > `+inf+` ? 0x8000 : ((h & 0x8000) ? -m : m); }
inline int sortord_$S(ushort a, ushort b) { const int x = sortmag_$S(a), y = sortmag_$S(b); return (x > y) - (x < y); }`, d), false)
		case d.IsComplex():
			p := ct(partType(d)).sfx
			defHelper("sortord_"+c.sfx, expand(`
inline int sortord_$S($T a, $T b) { const int c = sortord_`+p+`(a.x, b.x); return c != 0 ? c : sortord_`+p+`(a.y, b.y); }`, d), d == tensor.C128, "sortord_"+p)
		default: // bool and the integers
			defHelper("sortord_"+c.sfx, expand("inline int sortord_$S($T a, $T b) { return (a > b) - (a < b); }", d), false)
		}
		if key := sortKeyExpr(d); key != "" {
			defHelper("sortkey_"+c.sfx, fmt.Sprintf("inline ulong sortkey_%s(%s v) { %s }", c.sfx, c.store, key), d == tensor.F64)
		}
	}
}

// sortKeyExpr is the body of d's sortkey helper: an unsigned number of
// d's width whose order is JAX's order of the stored value v (signed
// integers with the sign bit flipped; floats with both zeros one key,
// every NaN the largest, negatives below the sign bit and positives above
// it); "" for complex.
func sortKeyExpr(d tensor.DType) string {
	switch {
	case d == tensor.Bool || d.IsUnsigned():
		return "return (ulong)v;"
	case d.IsSigned():
		c := ct(d)
		return fmt.Sprintf("return (ulong)(%s)((%s)v ^ (%s)((%s)1 << %d));", c.uns, c.uns, c.uns, c.uns, c.bits-1)
	case d.IsComplex():
		return ""
	}
	bits, mant, conv := 16, 10, "(ulong)v"
	switch d {
	case tensor.BF16:
		mant = 7
	case tensor.F32:
		bits, mant, conv = 32, 23, "(ulong)as_uint(v)"
	case tensor.F64:
		bits, mant, conv = 64, 52, "as_ulong(v)"
	}
	sign := uint64(1) << (bits - 1)
	inf := (sign - 1) &^ (uint64(1)<<mant - 1)
	return fmt.Sprintf("const ulong b = %s, m = b & 0x%xUL; "+
		"return m > 0x%xUL ? 0x%xUL : m == 0 ? 0x%xUL : (b & 0x%xUL) ? 0x%xUL - m : 0x%xUL + m;",
		conv, sign-1, inf, sign|(sign-1), sign, sign, sign, sign)
}

func (g *gen) sortKernel(f *lower.Fusion, root *lower.Instr) {
	total := root.Size()
	if total == 0 {
		return
	}
	s, ax := root.Params.Sort, root.Params.Axis
	n, inner := root.Shape[ax], 1
	for _, d := range root.Shape[ax+1:] {
		inner *= d
	}
	if s.NumKeys == 1 && sortKeyExpr(root.Args[0].DType) != "" && n <= math.MaxUint32/2 {
		g.bitonicKernel(f, root, n, inner)
		return
	}
	p := newParams()
	src := p.input(g, root.Args[s.Output])
	body := []string{
		fmt.Sprintf("const long rem = (long)i %% %dL;", n*inner),
		fmt.Sprintf("const long pos = rem / %dL;", inner),
		fmt.Sprintf("const long base = (long)i - pos * %dL;", inner),
		"long rank = 0;",
		fmt.Sprintf("for (long j = 0; j < %dL; j++) {", n),
		fmt.Sprintf("\tconst long e = base + j * %dL;", inner),
	}
	for k, a := range root.Args[:s.NumKeys] {
		buf := p.input(g, a)
		c := g.call("sortord_"+ct(a.DType).sfx, buf+"[e]", buf+"[i]")
		if k == 0 {
			body = append(body, "\tint c = "+c+";")
		} else {
			body = append(body, "\tif (c == 0) c = "+c+";")
		}
	}
	out := fmt.Sprintf("out%d", root.ID)
	body = append(body, "\trank += (c < 0 || (c == 0 && j < pos));", "}",
		fmt.Sprintf("%s[base + rank * %dL] = %s[i];", out, inner, src))
	p.output(root.DType, out, kernelArg{argPlan, g.m.Plan.Of[root]})
	g.kernel1D(f, fmt.Sprintf("fusion%d", f.ID), p, total, false, body)
}

// bitonicKernel sorts each row by its one real key with a bitonic network
// in one work-group (see the top of this file).
func (g *gen) bitonicKernel(f *lower.Fusion, root *lower.Instr, n, inner int) {
	s := root.Params.Sort
	rows := root.Size() / n
	m := 1
	for m < n {
		m *= 2
	}
	wg := 1
	for wg*2 <= min(256, g.dev.MaxWorkGroupSize) && wg*2 <= max(1, m/2) {
		wg *= 2
	}
	p := newParams()
	src := p.input(g, root.Args[s.Output])
	out := fmt.Sprintf("out%d", root.ID)
	sib := siblingKey(root)
	if at, ok := g.sortIdx[sib]; ok { // a sibling sorted these operands: move by its indices
		p.decls = append(p.decls, "__global const uint* restrict idxs")
		p.args = append(p.args, kernelArg{argScratch, at})
		p.output(root.DType, out, kernelArg{argPlan, g.m.Plan.Of[root]})
		g.kernel1D(f, fmt.Sprintf("fusion%d", f.ID), p, rows*n, false, []string{
			fmt.Sprintf("const long r = (long)i / %dL, q = (long)i %% %dL;", n, n),
			fmt.Sprintf("const long base = (r / %dL) * %dL + r %% %dL;", inner, n*inner, inner),
			fmt.Sprintf("%s[base + q * %dL] = %s[base + (long)idxs[r * %dL + q] * %dL];", out, inner, src, m, inner),
		})
		return
	}
	key := p.input(g, root.Args[0])
	keys := kernelArg{argScratch, len(g.out.scratch)}
	idxs := kernelArg{argScratch, len(g.out.scratch) + 1}
	if g.sortIdx == nil {
		g.sortIdx = map[string]int{}
	}
	g.sortIdx[sib] = idxs.id
	g.out.scratch = append(g.out.scratch, rows*m*8, rows*m*4)
	p.decls = append(p.decls, "__global ulong* restrict keys", "__global uint* restrict idxs")
	p.args = append(p.args, keys, idxs)
	p.output(root.DType, out, kernelArg{argPlan, g.m.Plan.Of[root]})
	sk := g.call("sortkey_"+ct(root.Args[0].DType).sfx, fmt.Sprintf("%s[base + p * %dL]", key, inner))
	name := fmt.Sprintf("fusion%d", f.ID)
	g.header(f)
	w := &g.kernels
	fmt.Fprintf(w, "__kernel __attribute__((reqd_work_group_size(%d, 1, 1)))\nvoid %s(%s) {\n", wg, name, p.list())
	fmt.Fprintf(w, "\tconst long r = get_group_id(0), t = get_local_id(0);\n")
	fmt.Fprintf(w, "\tconst long base = (r / %dL) * %dL + r %% %dL;\n", inner, n*inner, inner)
	fmt.Fprintf(w, "\t__global ulong* K = keys + r * %dL;\n\t__global uint* I = idxs + r * %dL;\n", m, m)
	fmt.Fprintf(w, "\tfor (long p = t; p < %dL; p += %d) { K[p] = p < %dL ? %s : 0xffffffffffffffffUL; I[p] = (uint)p; }\n", m, wg, n, sk)
	fmt.Fprintf(w, "\tbarrier(CLK_GLOBAL_MEM_FENCE);\n")
	fmt.Fprintf(w, "\tfor (long k = 2; k <= %dL; k <<= 1) {\n\t\tfor (long j = k >> 1; j > 0; j >>= 1) {\n", m)
	fmt.Fprintf(w, "\t\t\tfor (long p = t; p < %dL; p += %d) {\n", m, wg)
	fmt.Fprintf(w, "\t\t\t\tconst long l = p ^ j;\n\t\t\t\tif (l <= p) continue;\n")
	fmt.Fprintf(w, "\t\t\t\tconst ulong a = K[p], b = K[l];\n\t\t\t\tconst uint ia = I[p], ib = I[l];\n")
	fmt.Fprintf(w, "\t\t\t\tconst int gt = a > b || (a == b && ia > ib);\n")
	fmt.Fprintf(w, "\t\t\t\tif (gt == ((p & k) == 0)) { K[p] = b; K[l] = a; I[p] = ib; I[l] = ia; }\n")
	fmt.Fprintf(w, "\t\t\t}\n\t\t\tbarrier(CLK_GLOBAL_MEM_FENCE);\n\t\t}\n\t}\n")
	fmt.Fprintf(w, "\tfor (long q = t; q < %dL; q += %d) %s[base + q * %dL] = %s[base + (long)I[q] * %dL];\n}\n\n", n, wg, out, inner, src, inner)
	g.out.kernels = append(g.out.kernels, kernelSpec{name: name, args: p.args, global: []int{rows * wg}, local: []int{wg}, fixedLocal: true})
}

// siblingKey identifies the sorts that order their rows alike: the same
// operands, axis and keys.
func siblingKey(in *lower.Instr) string {
	key := fmt.Sprintf("%d/%d:", in.Params.Axis, in.Params.Sort.NumKeys)
	for _, a := range in.Args {
		key += fmt.Sprintf("%d,", a.ID)
	}
	return key
}
