package trace

import (
	"fmt"
	"strings"
)

// String prints the program in a jaxpr-like form. Every value shows its
// dtype, a star when weak, and its shape; rank-0 constants are written
// inline where they are used; each implicit convert ends with a comment
// saying why it is there and where the user asked for the op:
//
//	{ lambda ; a:i8[3] b:f16[3]. let
//	    c:i8[3] = mul a 2:i8[]
//	    d:f16[3] = convert[f16] c    # promote i8, f16 -> f16 (jax) at main.go:12
//	    …
//	  in (f) }
func (p *Program) String() string {
	var b strings.Builder
	p.write(&b, "")
	return b.String()
}

// write prints p at an indent, the sub-programs of control-flow equations
// nested under their equation one level deeper.
func (p *Program) write(b *strings.Builder, indent string) {
	inline := map[*Var]string{}
	isOutput := map[*Var]bool{}
	for _, o := range p.Outputs {
		isOutput[o] = true
	}
	for _, e := range p.Eqns {
		if e.Op == OpConst && e.Out.Rank() == 0 && !isOutput[e.Out] {
			inline[e.Out] = e.Params.Value.FormatElem(0) + ":" + e.Out.TypeString()
		}
	}
	name := func(v *Var) string {
		if s, ok := inline[v]; ok {
			return s
		}
		return v.Name()
	}
	b.WriteString("{ lambda ; ")
	for i, v := range p.Inputs {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(v.Name() + ":" + v.TypeString())
	}
	b.WriteString(". let\n")
	for _, e := range p.Eqns {
		if _, ok := inline[e.Out]; ok {
			continue
		}
		b.WriteString(indent + "    " + e.format(name) + "\n")
		for i, sub := range e.Params.Control.Subs {
			b.WriteString(indent + "      " + subName(e.Op, i) + " = ")
			sub.write(b, indent+"      ")
			b.WriteString("\n")
		}
	}
	outs := make([]string, len(p.Outputs))
	for i, o := range p.Outputs {
		outs[i] = o.Name()
	}
	b.WriteString(indent + "  in (" + strings.Join(outs, ", ") + ") }")
}

// subName names a control-flow equation's sub-program i.
func subName(op Op, i int) string {
	if op == OpWhile {
		return [...]string{"cond", "body"}[min(i, 1)]
	}
	return fmt.Sprintf("branch%d", i)
}

// String prints one equation: "c:i8[3] = mul a b".
func (e *Eqn) String() string { return e.format((*Var).Name) }

func (e *Eqn) format(name func(*Var) string) string {
	var b strings.Builder
	b.WriteString(e.Out.Name() + ":" + e.Out.TypeString() + " = " + e.Op.String())
	if p := e.paramString(); p != "" {
		b.WriteString("[" + p + "]")
	}
	for _, a := range e.Args {
		b.WriteString(" " + name(a))
	}
	if e.Why != "" {
		b.WriteString("    # " + e.Why)
		if pos := e.Pos.String(); pos != "" {
			b.WriteString(" at " + pos)
		}
	} else if n := e.markNote(); n != "" {
		b.WriteString("    # " + n)
	}
	return b.String()
}

// markNote says what a region mark or a recomputation is (custom.go), or
// "".
func (e *Eqn) markNote() string {
	m := e.Params.Mark
	switch {
	case e.Params.Remat:
		return "remat"
	case m.Region == nil:
		return ""
	case m.In > 0:
		return fmt.Sprintf("%s argument %d", m.Region.Kind, m.In-1)
	case m.Out > 0:
		return fmt.Sprintf("%s result %d", m.Region.Kind, m.Out-1)
	}
	return ""
}

func (e *Eqn) paramString() string {
	p := e.Params
	switch e.Op {
	case OpConvert:
		return p.DType.String()
	case OpConst:
		if e.Out.Rank() == 0 {
			return p.Value.FormatElem(0)
		}
		return fmt.Sprintf("%d values", p.Value.Size())
	case OpReshape:
		return "shape=" + tuple(p.Shape)
	case OpBroadcastInDim:
		return "shape=" + tuple(p.Shape) + " dims=" + tuple(p.Dims)
	case OpTranspose:
		return "perm=" + tuple(p.Perm)
	case OpSlice:
		return "start=" + tuple(p.Start) + " limit=" + tuple(p.Limit) + " stride=" + tuple(p.Stride)
	case OpConcat:
		return fmt.Sprintf("axis=%d", p.Axis)
	case OpReduceSum, OpReduceProd, OpReduceMax, OpReduceMin:
		s := "axes=" + tuple(p.Axes)
		if p.KeepDims {
			s += " keepdims"
		}
		return s
	case OpArgMax, OpArgMin:
		return fmt.Sprintf("axis=%d index=%s", p.Axes[0], p.DType)
	case OpRev:
		return "dimensions=" + tuple(p.Axes)
	case OpIota:
		return fmt.Sprintf("dtype=%s shape=%s dimension=%d", p.DType, tuple(p.Shape), p.Axis)
	case OpSort:
		return fmt.Sprintf("dimension=%d %s", p.Axis, p.Sort)
	case OpBitcastConvert:
		return p.DType.String()
	case OpGather:
		s := p.Index.String(e.Op)
		if p.Index.Mode == ModeFill && p.Value != nil {
			s += " fill_value=" + p.Value.FormatElem(0)
		}
		return s
	case OpScatter, OpScatterAdd, OpScatterMul, OpScatterMin, OpScatterMax, OpDynamicSlice:
		return p.Index.String(e.Op)
	case OpWhile:
		s := fmt.Sprintf("cond_nconsts=%d body_nconsts=%d", p.Control.NConsts[0], p.Control.NConsts[1])
		if p.Control.Static {
			s += fmt.Sprintf(" trips=%d", p.Control.Trips)
		}
		return s
	case OpCond:
		return fmt.Sprintf("branches=%d nconsts=%s", len(p.Control.Subs), tuple(p.Control.NConsts))
	case OpResult:
		return fmt.Sprint(p.Control.Index)
	case OpDot:
		d := p.Dot
		return "batch=" + tuple(d.LhsBatch) + "," + tuple(d.RhsBatch) + " contract=" + tuple(d.LhsContract) + "," + tuple(d.RhsContract) + preferredString(p)
	case OpConv:
		return p.Conv.String() + preferredString(p)
	}
	return ""
}

// preferredString prints a dot or convolution's preferred_element_type as
// jaxprs do, or "".
func preferredString(p Params) string {
	if p.HasPreferred {
		return " preferred_element_type=" + p.Preferred.String()
	}
	return ""
}

func tuple(xs []int) string { return "(" + joinInts(xs, ",") + ")" }
