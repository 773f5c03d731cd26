package opencl

import (
	"fmt"

	"github.com/kiln-go/kiln/lower"
	"github.com/kiln-go/kiln/tensor"
)

// sort (lax.sort, trace/sort.go) as a rank sort: one work-item per
// element counts the elements of its row that come before it — a lesser
// key, or an equal key at a lower position, which makes it stable — and
// writes its result operand's element to that rank. The keys are
// compared lexicographically in JAX's order by the sortord_* helpers,
// on the stored values (f16 and bf16 by their bits). It is O(n²) work
// per row of n, done by n work-items in parallel: right for the rows of
// moderate length jax.random's permutations and top_k use, not for
// sorting millions of elements in one row.

func init() {
	for _, d := range tensor.AllDTypes() {
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
inline int sortkey_$S(ushort h) { const int m = h & 0x7fff; return m > `+inf+` ? 0x8000 : ((h & 0x8000) ? -m : m); }
inline int sortord_$S(ushort a, ushort b) { const int x = sortkey_$S(a), y = sortkey_$S(b); return (x > y) - (x < y); }`, d), false)
		case d.IsComplex():
			p := ct(partType(d)).sfx
			defHelper("sortord_"+c.sfx, expand(`
inline int sortord_$S($T a, $T b) { const int c = sortord_`+p+`(a.x, b.x); return c != 0 ? c : sortord_`+p+`(a.y, b.y); }`, d), d == tensor.C128, "sortord_"+p)
		default: // bool and the integers
			defHelper("sortord_"+c.sfx, expand("inline int sortord_$S($T a, $T b) { return (a > b) - (a < b); }", d), false)
		}
	}
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
