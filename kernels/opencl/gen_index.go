package opencl

import (
	"fmt"
	"slices"
	"strings"

	"github.com/kiln-go/kiln/internal/numerics"
	"github.com/kiln-go/kiln/lower"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// The indexing ops (gather, the scatters, the dynamic slices), with
// internal/reference's semantics (index.go). Index and offset arithmetic is
// in long; an index is read as long, a ulong above LONG_MAX as LONG_MAX. A
// gather or a dynamic slice is one work-item per result element; a scatter
// is a copy of the operand, then a kernel whose work-items each apply, in
// row-major order of the updates, the updates of one coordinate of a
// window dim no index moves (or one work-item all of them), so repeated
// indices combine in the CPU's order.

// loadIndexExpr reads element idx of an index buffer of dtype d as long.
func loadIndexExpr(d tensor.DType, buf, idx string) string {
	x := buf + "[" + idx + "]"
	if d == tensor.U64 {
		return "(long)min(" + x + ", (ulong)0x7fffffffffffffffUL)"
	}
	return "(long)" + x
}

// coordsOf declares long coordinates c<prefix>0… of linear index idx in
// shape and returns their names.
func coordsOf(lines *[]string, prefix, idx string, shape []int) []string {
	names := make([]string, len(shape))
	for j := range shape {
		names[j] = fmt.Sprintf("%s%d", prefix, j)
		*lines = append(*lines, fmt.Sprintf("const long %s = (long)%s;", names[j], coord(idx, shape, j)))
	}
	return names
}

// flatOf is the row-major linear index of coordinates in shape.
func flatOf(coords []string, shape []int) string {
	return linear(0, coords, numerics.RowMajorStrides(shape))
}

// windowCode emits statements that set long `base` to the operand offset
// of the window whose batch coordinates are batch (the indices' dims but
// the last) and int `fits` to whether its start fit before clamping.
func (g *gen) windowCode(lines *[]string, p *params, operand, indices *lower.Instr, window, startMap, opBatch, idxBatch []int, batch []string) {
	st := numerics.RowMajorStrides(operand.Shape)
	ib := indices.Shape[:len(indices.Shape)-1]
	k := indices.Shape[len(indices.Shape)-1]
	gflat := flatOf(batch, ib)
	xi := p.input(g, indices)
	*lines = append(*lines, "long base = 0;", "int fits = 1;")
	for j, d := range startMap {
		at := fmt.Sprint(j)
		if k > 1 || gflat != "0" {
			at = fmt.Sprintf("(%s) * %d + %d", gflat, k, j)
		}
		*lines = append(*lines, fmt.Sprintf("{ const long s = %s; const long c = clamp(s, 0L, %dL); fits = fits && s == c; base += c * %d; }",
			loadIndexExpr(indices.DType, xi, at), operand.Shape[d]-window[d], st[d]))
	}
	for j, d := range opBatch {
		*lines = append(*lines, fmt.Sprintf("base += %s * %d;", batch[idxBatch[j]], st[d]))
	}
}

// splitCoords separates the coordinates of an iteration space into its
// window dims (listed in windowDims) and batch dims.
func splitCoords(coords []string, windowDims []int) (batch, win []string) {
	for j, c := range coords {
		if slices.Contains(windowDims, j) {
			win = append(win, c)
		} else {
			batch = append(batch, c)
		}
	}
	return batch, win
}

func (g *gen) indexFusion(f *lower.Fusion) {
	root := f.Outputs[0]
	switch {
	case root.Op == trace.OpGather:
		g.gatherKernel(f, root)
	case root.Op.IsScatter():
		g.scatterKernels(f, root)
	case root.Op == trace.OpDynamicSlice, root.Op == trace.OpDynamicUpdateSlice:
		g.dynamicKernel(f, root)
	case root.Op == trace.OpIota:
		g.iotaKernel(f, root)
	case root.Op == trace.OpSort:
		g.sortKernel(f, root)
	default:
		g.fail(&Error{Kind: KindUnsupported, Msg: fmt.Sprintf("no kernel for %s", root.Op)})
	}
}

// kernel1D writes a kernel of one work-item per element of n (guarded
// when guard is set: the extra work-items of the last group return)
// and records its launch.
func (g *gen) kernel1D(f *lower.Fusion, name string, p *params, n int, guard bool, body []string) {
	g.header(f)
	fmt.Fprintf(&g.kernels, "__kernel void %s(%s) {\n", name, p.list())
	it := indexType(n)
	if guard {
		fmt.Fprintf(&g.kernels, "\tconst %s i = (%s)get_global_id(0);\n\tif (i >= %d) return;\n", it, it, n)
	} else {
		g.kernels.WriteString(g.elementIndex(it, n))
	}
	for _, l := range body {
		g.kernels.WriteString("\t" + l + "\n")
	}
	g.kernels.WriteString("}\n\n")
	g.launch1D(name, p.args, n)
}

func (g *gen) gatherKernel(f *lower.Fusion, root *lower.Instr) {
	n := root.Size()
	if n == 0 {
		return
	}
	operand, indices := root.Args[0], root.Args[1]
	ip := root.Params.Index
	d := ip.Gather
	p := newParams()
	x := p.input(g, operand)
	out := fmt.Sprintf("out%d", root.ID)
	var body []string
	coords := coordsOf(&body, "c", "i", root.Shape)
	batch, win := splitCoords(coords, d.OffsetDims)
	g.windowCode(&body, p, operand, indices, ip.SliceSizes, d.StartIndexMap, d.OperandBatchingDims, d.StartIndicesBatchingDims, batch)
	st := numerics.RowMajorStrides(operand.Shape)
	for k, od := range trace.WindowDims(len(operand.Shape), d.CollapsedSliceDims, d.OperandBatchingDims) {
		body = append(body, fmt.Sprintf("base += %s * %d;", win[k], st[od]))
	}
	read := fmt.Sprintf("%s[i] = %s[base];", out, x)
	if ip.Mode == trace.ModeFill && root.Params.Value != nil {
		body = append(body, fmt.Sprintf("if (fits) %s else %s", read, g.store(root.DType, out, "i", literal(root.Params.Value, 0))))
	} else {
		body = append(body, read)
	}
	p.output(root.DType, out, kernelArg{argPlan, g.m.Plan.Of[root]})
	g.kernel1D(f, fmt.Sprintf("fusion%d", f.ID), p, n, false, body)
}

func (g *gen) scatterKernels(f *lower.Fusion, root *lower.Instr) {
	operand, indices, updates := root.Args[0], root.Args[1], root.Args[2]
	ip := root.Params.Index
	d := ip.Scatter
	dt := root.DType
	out := fmt.Sprintf("out%d", root.ID)
	outArg := kernelArg{argPlan, g.m.Plan.Of[root]}
	if n := root.Size(); n > 0 {
		p := newParams()
		x := p.input(g, operand)
		p.output(dt, out, outArg)
		g.kernel1D(f, fmt.Sprintf("fusion%d_copy", f.ID), p, n, false, []string{fmt.Sprintf("%s[i] = %s[i];", out, x)})
	}
	nu := updates.Size()
	if nu == 0 || root.Size() == 0 {
		return
	}
	window := trace.ScatterWindow(len(operand.Shape), updates.Shape, d)
	wd := trace.WindowDims(len(operand.Shape), d.InsertedWindowDims, d.OperandBatchingDims)
	// The outermost update window dim on an operand dim no index moves
	// is split among work-items (targets disjoint, order kept).
	split := -1
	for k, j := range d.UpdateWindowDims {
		if !slices.Contains(d.ScatterDimsToOperandDims, wd[k]) && updates.Shape[j] >= 2 {
			split = j
			break
		}
	}
	rest := slices.Clone(updates.Shape)
	items := 1
	if split >= 0 {
		items, rest[split] = updates.Shape[split], 1
	}
	p := newParams()
	x := p.input(g, updates)
	var body []string
	body = append(body, fmt.Sprintf("for (long u = 0; u < %dL; u++) {", nu/items))
	var inner []string
	coords := coordsOf(&inner, "c", "u", rest)
	if split >= 0 {
		coords[split] = "(long)i"
	}
	batch, win := splitCoords(coords, d.UpdateWindowDims)
	g.windowCode(&inner, p, operand, indices, window, d.ScatterDimsToOperandDims, d.OperandBatchingDims, d.ScatterIndicesBatchingDims, batch)
	st := numerics.RowMajorStrides(operand.Shape)
	for k, od := range wd {
		inner = append(inner, fmt.Sprintf("base += %s * %d;", win[k], st[od]))
	}
	if ip.Mode != trace.ModeClip {
		inner = append(inner, "if (!fits) continue;")
	}
	upd := fmt.Sprintf("%s[%s]", x, flatOf(coords, updates.Shape))
	if c := root.Op.ScatterCombiner(); c != trace.OpInvalid {
		op := &lower.Instr{Op: c, DType: dt, Args: []*lower.Instr{{DType: dt}, {DType: dt}}}
		v := g.elemExpr(op, []string{g.load(dt, out, "base"), g.load(dt, x, flatOf(coords, updates.Shape))})
		inner = append(inner, g.store(dt, out, "base", v))
	} else {
		inner = append(inner, fmt.Sprintf("%s[base] = %s;", out, upd))
	}
	for _, l := range inner {
		body = append(body, "\t"+l)
	}
	body = append(body, "}")
	p.output(dt, out, outArg)
	g.kernel1D(f, fmt.Sprintf("fusion%d", f.ID), p, items, true, body)
}

func (g *gen) dynamicKernel(f *lower.Fusion, root *lower.Instr) {
	n := root.Size()
	if n == 0 {
		return
	}
	operand := root.Args[0]
	var window []int
	var starts []*lower.Instr
	var update *lower.Instr
	if root.Op == trace.OpDynamicSlice {
		window, starts = root.Shape, root.Args[1:]
	} else {
		update, starts = root.Args[1], root.Args[2:]
		window = update.Shape
	}
	p := newParams()
	x := p.input(g, operand)
	out := fmt.Sprintf("out%d", root.ID)
	var body []string
	coords := coordsOf(&body, "c", "i", root.Shape)
	st := numerics.RowMajorStrides(operand.Shape)
	var in, rel []string
	for i, s := range starts {
		body = append(body, fmt.Sprintf("const long s%d = clamp(%s, 0L, %dL);", i, loadIndexExpr(s.DType, p.input(g, s), "0"), operand.Shape[i]-window[i]))
		in = append(in, fmt.Sprintf("%s >= s%d && %s < s%d + %d", coords[i], i, coords[i], i, window[i]))
		rel = append(rel, fmt.Sprintf("(%s - s%d)", coords[i], i))
	}
	if update == nil {
		var terms []string
		for i := range starts {
			terms = append(terms, fmt.Sprintf("(s%d + %s) * %d", i, coords[i], st[i]))
		}
		body = append(body, fmt.Sprintf("%s[i] = %s[%s];", out, x, strings.Join(append(terms, "0"), " + ")))
	} else {
		u := p.input(g, update)
		cond := strings.Join(in, " && ")
		if cond == "" {
			cond = "1"
		}
		body = append(body, fmt.Sprintf("%s[i] = (%s) ? %s[%s] : %s[i];", out, cond, u, flatOf(rel, update.Shape), x))
	}
	p.output(root.DType, out, kernelArg{argPlan, g.m.Plan.Of[root]})
	g.kernel1D(f, fmt.Sprintf("fusion%d", f.ID), p, n, false, body)
}
