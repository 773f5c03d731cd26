package opencl

import (
	"fmt"
	"strings"

	"github.com/kiln-go/kiln/lower"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// mappedFusion: a loop fusion holding data movement (lower.Regions). One
// work-item per output element finds the region holding its index (a box
// test per region) and evaluates the region's expression there, each
// leaf loaded at its affine offset — the elementwise statements of a plain
// loop fusion, so the bits are the unfused program's. A region whose value
// is a leaf moves the element's storage bits as they are. A fused iota's
// leaf is its count at the element's coordinates, converted as the iota
// kernel converts it.
func (g *gen) mappedFusion(f *lower.Fusion) {
	buf := g.m.Plan.Of[f.Outputs[0]]
	if w := lower.WithoutFirstChosen(f); w != nil {
		// A max_pool's forward pass: the window's extremum has the bits
		// of the element firstChosen picks (see kernels' doc).
		f = w
	}
	regions, err := lower.Regions(f)
	if err != nil {
		g.fail(&Error{Kind: KindRuntime, Msg: err.Error()})
		return
	}
	root := f.Outputs[0]
	n := root.Size()
	it := indexType(n)
	p := newParams()
	name := fmt.Sprintf("fusion%d", f.ID)
	out := fmt.Sprintf("out%d", root.ID)
	var code strings.Builder
	coords := make([]string, len(root.Shape))
	for d := range root.Shape {
		coords[d] = fmt.Sprintf("c%d", d)
		fmt.Fprintf(&code, "\tconst long c%d = (long)%s;\n", d, coord("i", root.Shape, d))
	}
	for ri, r := range regions {
		var conds []string
		for d := range root.Shape {
			if r.Lo[d] > 0 {
				conds = append(conds, fmt.Sprintf("c%d >= %d", d, r.Lo[d]))
			}
			if r.Hi[d] < root.Shape[d] {
				conds = append(conds, fmt.Sprintf("c%d < %d", d, r.Hi[d]))
			}
		}
		switch {
		case ri == len(regions)-1 && ri > 0:
			code.WriteString("\telse {\n")
		case len(conds) == 0:
			code.WriteString("\t{\n")
		case ri == 0:
			fmt.Fprintf(&code, "\tif (%s) {\n", strings.Join(conds, " && "))
		default:
			fmt.Fprintf(&code, "\telse if (%s) {\n", strings.Join(conds, " && "))
		}
		fr := &lower.Fusion{ID: f.ID, Kind: lower.FusionLoop, Outputs: []*lower.Instr{r.Root}}
		for _, in := range r.Instrs {
			if !isLeaf(r, in) {
				fr.Instrs = append(fr.Instrs, in)
			}
		}
		b := newBody(g, p, fr, "i", it, root.Shape)
		b.leafIdx, b.leafSrc = map[*lower.Instr]string{}, map[*lower.Instr]*lower.Instr{}
		b.raw = movesOnly(fr.Instrs, b.members, r.Leaves)
		var rawRoot string
		for _, l := range r.Leaves {
			terms := []string{fmt.Sprint(l.Base)}
			for j, s := range l.Strides {
				if s != 0 {
					terms = append(terms, fmt.Sprintf("%s * %d", coords[j], s))
				}
			}
			idx := strings.Join(terms, " + ")
			if l.Counted {
				// A fused iota: the count itself, converted as the
				// iota kernel converts it.
				v := g.convertExpr(l.Src.DType, tensor.U64, fmt.Sprintf("(ulong)(%s)", idx))
				if l.In == r.Root {
					rawRoot = "iota"
					fmt.Fprintf(&code, "\t\t%s;\n\t}\n", g.store(root.DType, out, "i", v))
					continue
				}
				b.emit(l.In, v)
				continue
			}
			b.leafIdx[l.In], b.leafSrc[l.In] = idx, l.Src
			if l.In == r.Root {
				rawRoot = fmt.Sprintf("%s[%s]", p.input(g, l.Src), idx)
				continue
			}
			if l.Src.Op == trace.OpConst && l.Src.Size() == 1 {
				b.val[l.In] = literal(l.Src.Params.Value, 0)
				continue
			}
			b.emit(l.In, g.load(b.dt(l.Src.DType), p.input(g, l.Src), idx))
		}
		if rawRoot == "iota" {
			continue
		}
		if rawRoot != "" {
			fmt.Fprintf(&code, "\t\t%s[i] = %s; // storage bits moved\n\t}\n", out, rawRoot)
			continue
		}
		for _, in := range fr.Instrs {
			b.value(in)
		}
		store := b.storeResult(r.Root, out)
		b.write(&code, "\t\t")
		fmt.Fprintf(&code, "\t\t%s\n\t}\n", store)
	}
	p.output(root.DType, out, kernelArg{argPlan, buf})
	g.header(f)
	fmt.Fprintf(&g.kernels, "__kernel void %s(%s) {\n", name, p.list())
	g.kernels.WriteString(g.elementIndex(it, n))
	g.kernels.WriteString(code.String())
	g.kernels.WriteString("}\n\n")
	g.launch1D(name, p.args, n)
}

func isLeaf(r *lower.Region, in *lower.Instr) bool {
	for _, l := range r.Leaves {
		if l.In == in {
			return true
		}
	}
	return false
}
