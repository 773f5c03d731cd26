package lower

import (
	"fmt"
	"strings"

	"github.com/kiln-go/kiln/trace"
)

// Name is the printed name of the instruction's value: %7.
func (in *Instr) Name() string { return fmt.Sprintf("%%%d", in.ID) }

// TypeString prints the instruction's dtype and shape: f16[3,4].
func (in *Instr) TypeString() string {
	return in.DType.String() + "[" + joinInts(in.Shape) + "]"
}

func joinInts(xs []int) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = fmt.Sprint(x)
	}
	return strings.Join(s, ",")
}

// String prints one instruction, HLO-like: "%4 = f16[3] convert(%3)".
func (in *Instr) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s = %s %s(", in.Name(), in.TypeString(), in.Op)
	for i, a := range in.Args {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(a.Name())
	}
	b.WriteString(")")
	if p := in.paramString(); p != "" {
		b.WriteString(", " + p)
	}
	if in.Why != "" {
		b.WriteString("    # " + in.Why)
		if pos := in.Pos.String(); pos != "" {
			b.WriteString(" at " + pos)
		}
	}
	return b.String()
}

func (in *Instr) paramString() string {
	p := in.Params
	tuple := func(xs []int) string { return "{" + joinInts(xs) + "}" }
	switch in.Op {
	case trace.OpParam:
		return fmt.Sprintf("parameter=%d", in.Param)
	case trace.OpConst:
		if in.Size() == 1 {
			return "value=" + p.Value.FormatElem(0)
		}
		if in.Size() <= 8 {
			vals := make([]string, in.Size())
			for i := range vals {
				vals[i] = p.Value.FormatElem(i)
			}
			return "value={" + strings.Join(vals, ",") + "}"
		}
		return fmt.Sprintf("value=<%d elements>", in.Size())
	case trace.OpBroadcastInDim:
		return "dimensions=" + tuple(p.Dims)
	case trace.OpTranspose:
		return "permutation=" + tuple(p.Perm)
	case trace.OpSlice:
		return "start=" + tuple(p.Start) + ", limit=" + tuple(p.Limit) + ", stride=" + tuple(p.Stride)
	case trace.OpConcat:
		return fmt.Sprintf("dimension=%d", p.Axis)
	case trace.OpReduceSum, trace.OpReduceProd, trace.OpReduceMax, trace.OpReduceMin:
		s := "dimensions=" + tuple(p.Axes)
		if p.KeepDims {
			s += ", keepdims"
		}
		return s
	case trace.OpArgMax, trace.OpArgMin:
		return "dimension=" + tuple(p.Axes)
	case trace.OpRev:
		return "dimensions=" + tuple(p.Axes)
	case trace.OpIota:
		return fmt.Sprintf("iota_dimension=%d", p.Axis)
	case trace.OpSort:
		return fmt.Sprintf("dimension=%d, %s", p.Axis, p.Sort)
	case trace.OpGather:
		s := p.Index.String(in.Op)
		if p.Index.Mode == trace.ModeFill && p.Value != nil {
			s += " fill_value=" + p.Value.FormatElem(0)
		}
		return s
	case trace.OpScatter, trace.OpScatterAdd, trace.OpScatterMul, trace.OpScatterMin, trace.OpScatterMax, trace.OpDynamicSlice:
		return p.Index.String(in.Op)
	case trace.OpWhile:
		s := fmt.Sprintf("cond_nconsts=%d, body_nconsts=%d", p.Control.NConsts[0], p.Control.NConsts[1])
		if p.Control.Static {
			s += fmt.Sprintf(", trips=%d", p.Control.Trips)
		}
		return s
	case trace.OpCond:
		return "nconsts=" + tuple(p.Control.NConsts)
	case trace.OpResult:
		return fmt.Sprintf("index=%d", p.Control.Index)
	case trace.OpDot:
		d := p.Dot
		return "lhs_batch=" + tuple(d.LhsBatch) + ", rhs_batch=" + tuple(d.RhsBatch) +
			", lhs_contracting=" + tuple(d.LhsContract) + ", rhs_contracting=" + tuple(d.RhsContract)
	case trace.OpConv:
		return p.Conv.String()
	}
	return ""
}

// String prints the module HLO-like: every instruction, then the outputs.
func (m *Module) String() string {
	var b strings.Builder
	m.write(&b, "")
	return b.String()
}

// write prints m at an indent, each while's or cond's sub-modules nested
// under it.
func (m *Module) write(b *strings.Builder, indent string) {
	b.WriteString("module {\n")
	for _, in := range m.Instrs {
		b.WriteString(indent + "  " + in.String() + "\n")
		for i, sub := range in.Subs {
			b.WriteString(indent + "    " + subName(in.Op, i) + " = ")
			sub.write(b, indent+"    ")
			b.WriteString("\n")
		}
	}
	outs := make([]string, len(m.Outputs))
	for i, o := range m.Outputs {
		outs[i] = o.Name()
	}
	b.WriteString(indent + "  ROOT (" + strings.Join(outs, ", ") + ")\n" + indent + "}")
}

// subName names sub-module i of a while or cond.
func subName(op trace.Op, i int) string {
	if op == trace.OpWhile {
		return [...]string{"cond", "body"}[min(i, 1)]
	}
	return fmt.Sprintf("branch%d", i)
}

// String prints one kernel: its kind, result, inputs and the fused body.
func (f *Fusion) String() string {
	var b strings.Builder
	root := f.Outputs[0]
	ins := make([]string, len(f.Inputs))
	for i, in := range f.Inputs {
		ins[i] = in.Name()
	}
	outs := make([]string, len(f.Outputs))
	for i, o := range f.Outputs {
		outs[i] = o.Name()
	}
	fmt.Fprintf(&b, "fusion.%d %s %s(%s) -> %s {\n", f.ID, f.Kind, root.TypeString(), strings.Join(ins, ", "), strings.Join(outs, ", "))
	for _, in := range f.Instrs {
		b.WriteString("    " + in.String() + "\n")
	}
	b.WriteString("  }")
	return b.String()
}

// FusedString prints the fused plan: the kernels in execution order, with
// their buffers.
func (m *Module) FusedString() string {
	var b strings.Builder
	m.writeFused(&b, "")
	return b.String()
}

// writeFused prints the fused plan at an indent, each control kernel's
// sub-modules nested under it.
func (m *Module) writeFused(b *strings.Builder, indent string) {
	fmt.Fprintf(b, "%d kernel(s):\n", len(m.Fusions))
	for _, f := range m.Fusions {
		b.WriteString(indent + "  " + strings.ReplaceAll(f.String(), "\n", "\n"+indent))
		for i, o := range f.Outputs {
			if m.Plan == nil || (i > 0 && f.Kind == FusionControl) {
				break // a control fusion's results: its sub-modules say
			}
			if id, ok := m.Plan.bufferOf(o); ok {
				buf := m.Plan.Buffers[id]
				role := "scratch"
				if buf.Output >= 0 {
					role = fmt.Sprintf("output %d", buf.Output)
				}
				fmt.Fprintf(b, "  -> buffer %d (%s %s[%d])", id, role, buf.DType, buf.Size)
			}
		}
		b.WriteString("\n")
		root := f.Outputs[0]
		for i, sub := range root.Subs {
			b.WriteString(indent + "    " + subName(root.Op, i) + ": ")
			sub.writeFused(b, indent+"    ")
		}
	}
}

// DOT exports the module as a Graphviz graph, one cluster per kernel.
func (m *Module) DOT() string {
	var b strings.Builder
	b.WriteString("digraph kiln {\n  rankdir=TB;\n  node [shape=box, fontname=\"monospace\"];\n")
	m.writeDOT(&b, "n", "  ")
	b.WriteString("}\n")
	return b.String()
}

// writeDOT writes m's clusters, nodes (named prefix+ID) and edges; each
// while's or cond's sub-modules are clusters nested in its kernel's, their
// nodes named after it, the sub-module's parameters fed by the operands
// they stand for (a loop's edges back are left out: the graph stays a DAG).
func (m *Module) writeDOT(b *strings.Builder, prefix, ind string) {
	inFusion := map[*Instr]bool{}
	for _, f := range m.Fusions {
		fmt.Fprintf(b, "%ssubgraph cluster_%s%d {\n%s  label=\"fusion.%d (%s)\";\n%s  style=rounded;\n", ind, prefix, f.ID, ind, f.ID, f.Kind, ind)
		for _, in := range f.Instrs {
			if !inFusion[in] {
				fmt.Fprintf(b, "%s  %s%d [label=\"%s\\n%s\"];\n", ind, prefix, in.ID, in.Op, in.TypeString())
				inFusion[in] = true
			}
			for i, sub := range in.Subs {
				sp := fmt.Sprintf("%s%d_%s_", prefix, in.ID, subName(in.Op, i))
				fmt.Fprintf(b, "%s  subgraph cluster_%s {\n%s    label=\"%s of %%%d\";\n%s    style=dashed;\n", ind, sp, ind, subName(in.Op, i), in.ID, ind)
				sub.writeDOT(b, sp, ind+"    ")
				b.WriteString(ind + "  }\n")
			}
		}
		b.WriteString(ind + "}\n")
	}
	for _, in := range m.Instrs {
		if !inFusion[in] {
			fmt.Fprintf(b, "%s%s%d [label=\"%s\\n%s\", shape=ellipse];\n", ind, prefix, in.ID, in.Op, in.TypeString())
		}
		for _, a := range in.Args {
			fmt.Fprintf(b, "%s%s%d -> %s%d;\n", ind, prefix, a.ID, prefix, in.ID)
		}
	}
}

// Key identifies what the module computes: every instruction with its
// dtype, shape, operands and parameters (constants by their bits), and the
// outputs — but not the comments or source positions. Two modules with the
// same key compute the same function, so they can share one executable.
func (m *Module) Key() string {
	var b strings.Builder
	for _, in := range m.Instrs {
		fmt.Fprintf(&b, "%s=%s %s(", in.Name(), in.TypeString(), in.Op)
		for _, a := range in.Args {
			b.WriteString(a.Name() + ",")
		}
		b.WriteString(")")
		if in.Op == trace.OpConst {
			v := in.Params.Value
			for i := range v.Size() {
				b.WriteString(v.FormatElem(i) + ",") // shortest round trip, −0 kept
			}
		} else {
			b.WriteString(in.paramString())
		}
		for _, sub := range in.Subs { // what a while or cond runs is part of what it computes
			b.WriteString("{" + sub.Key() + "}")
		}
		if len(in.Subs) == 0 {
			for _, sp := range in.Params.Control.Subs {
				b.WriteString("{" + sp.String() + "}")
			}
		}
		b.WriteByte(';')
	}
	for _, o := range m.Outputs {
		b.WriteString(o.Name() + ",")
	}
	return b.String()
}
