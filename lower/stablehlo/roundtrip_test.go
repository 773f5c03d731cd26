package stablehlo

import (
	"fmt"
	"strings"

	"github.com/kiln-go/kiln/lower"
	"github.com/kiln-go/kiln/trace"
)

// RoundTrip exports m, parses the text back with Parse and checks the
// parsed module op for op twice: against the ops Export built (the op, its
// result names and types, the producer of every operand, every attribute
// and region — so the printer and the parser agree) and against m's
// instructions (each instruction's value has its dtype and shape; an
// instruction lowered to one op is the op its kind maps to, reading the
// values of its operands in order, with its parameters as attributes —
// broadcast and reduction dims, permutation, slice bounds, dot and conv
// dimension numbers and windows, comparison direction and type, iota and
// sort dimensions, gather and scatter dimension numbers, constants bit for
// bit; a composition reads exactly its operands' values; while and cond
// regions are checked against their sub-modules recursively). It returns
// the text and the number of ops checked. It is exported to the
// stablehlo_test package for the conformance programs.
func RoundTrip(m *lower.Module) (string, int, error) {
	f, err := build(m)
	if err != nil {
		return "", 0, err
	}
	text := f.String()
	n, err := roundTrip(m, f, text)
	return text, n, err
}

// roundTrip checks text, parsed, against f (built from m) and m.
func roundTrip(m *lower.Module, f *shloFunc, text string) (int, error) {
	pm, err := Parse(text)
	if err != nil {
		return 0, err
	}
	if len(pm.Funcs) != 1 || pm.Funcs[0].Name != "@main" || pm.Funcs[0].Visibility != "public" {
		return 0, fmt.Errorf("want one public @main, parsed %d functions", len(pm.Funcs))
	}
	pf := pm.Funcs[0]
	rt := &roundTripper{vals: map[*shloVal]*Value{}}
	if err := rt.block(f.body, pf.Body, true); err != nil {
		return rt.ops, err
	}
	ret := pf.Body.Ops[len(pf.Body.Ops)-1]
	if len(ret.Operands) != len(f.outs) || len(pf.Results) != len(f.outs) {
		return rt.ops, fmt.Errorf("func.return of %d values, the module has %d outputs", len(ret.Operands), len(f.outs))
	}
	for i, v := range f.outs {
		if ret.Operands[i] != rt.vals[v] {
			return rt.ops, fmt.Errorf("func.return's value %d is %s, the export returns %s", i, ret.Operands[i].Ref(), v.ref())
		}
	}
	for i, p := range m.Params {
		if a := pf.Body.Args[i]; a.Name != p.Name() || !typeIs(a.Type, p) {
			return rt.ops, fmt.Errorf("argument %d is %s: %s, the module's parameter %s", i, a.Name, a.Type, p.TypeString())
		}
	}
	if err := rt.module(m, f.body, pf.Body, ""); err != nil {
		return rt.ops, err
	}
	return rt.ops, nil
}

type roundTripper struct {
	vals map[*shloVal]*Value // the parsed value of each built value
	ops  int
}

// block matches a built block with its parsed twin, op for op.
func (rt *roundTripper) block(b *shloBlock, pb *Block, top bool) error {
	if len(b.args) != len(pb.Args) {
		return fmt.Errorf("a block of %d arguments parsed with %d", len(b.args), len(pb.Args))
	}
	for i, a := range b.args {
		if pa := pb.Args[i]; pa.Name != a.name || !pa.Type.Equal(Type{a.typ.dt, a.typ.shape}) {
			return fmt.Errorf("block argument %s: %s parsed as %s: %s", a.name, a.typ, pa.Name, pa.Type)
		}
		rt.vals[a] = pb.Args[i]
	}
	pops := pb.Ops
	if top {
		pops = pops[:len(pops)-1] // func.return, checked by RoundTrip
	}
	i := 0
	for _, o := range b.ops {
		if o.op == "" {
			continue // a comment
		}
		if i >= len(pops) {
			return fmt.Errorf("%s = %s is missing from the parsed block", o.name, o.op)
		}
		if err := rt.op(o, pops[i]); err != nil {
			return fmt.Errorf("%s = %s (parsed at %s): %w", o.name, o.op, pops[i].Pos, err)
		}
		i++
	}
	if i != len(pops) {
		return fmt.Errorf("the parsed block has %d ops, the export %d", len(pops), i)
	}
	return nil
}

func (rt *roundTripper) op(o *shloOp, po *Op) error {
	rt.ops++
	if po.Name != o.op {
		return fmt.Errorf("parsed as %s", po.Name)
	}
	if len(po.Results) != len(o.results) {
		return fmt.Errorf("%d results parsed as %d", len(o.results), len(po.Results))
	}
	for k, r := range o.results {
		pr := po.Results[k]
		if pr.Name != o.name || pr.Index != k || !pr.Type.Equal(Type{r.typ.dt, r.typ.shape}) {
			return fmt.Errorf("result %d: %s parsed as %s: %s", k, r.typ, pr.Ref(), pr.Type)
		}
		rt.vals[r] = pr
	}
	if len(po.Operands) != len(o.args) {
		return fmt.Errorf("%d operands parsed as %d", len(o.args), len(po.Operands))
	}
	for k, a := range o.args {
		if want := rt.vals[a]; want == nil || po.Operands[k] != want {
			return fmt.Errorf("operand %d reads %s, parsed as %s (another producer)", k, a.ref(), po.Operands[k].Ref())
		}
	}
	if len(po.Attrs) != len(o.attrs) {
		return fmt.Errorf("%d attributes parsed as %d", len(o.attrs), len(po.Attrs))
	}
	for k, a := range o.attrs {
		if got := po.Attrs[k].Name + " = " + po.Attrs[k].Value.String(); got != a {
			return fmt.Errorf("attribute %q parsed as %q", a, got)
		}
	}
	var regions []*shloBlock
	if o.region != nil {
		regions = append([]*shloBlock{o.region}, o.extra...)
	}
	if len(po.Regions) != len(regions) {
		return fmt.Errorf("%d regions parsed as %d", len(regions), len(po.Regions))
	}
	for k, r := range regions {
		if err := rt.block(r, po.Regions[k], false); err != nil {
			return fmt.Errorf("region %d: %w", k, err)
		}
	}
	return nil
}

func typeIs(t Type, in *lower.Instr) bool {
	return t.DType == in.DType && trace.ShapeEqual(t.Shape, in.Shape)
}

// module checks the parsed ops of a (sub-)module's instructions against
// them; prefix is the names' prefix in a region.
func (rt *roundTripper) module(m *lower.Module, b *shloBlock, pb *Block, prefix string) error {
	val := func(in *lower.Instr) *Value { return rt.vals[b.instrs[in]] }
	for _, in := range m.Instrs {
		v := val(in)
		if v == nil {
			return fmt.Errorf("%s%s has no parsed value", prefix, in.Name())
		}
		if !typeIs(v.Type, in) {
			return fmt.Errorf("%s%s = %s is %s in the export", prefix, in.Name(), in.TypeString(), v.Type)
		}
		if in.Op == trace.OpParam {
			continue
		}
		c := &instrCheck{in: in, val: v}
		for _, a := range in.Args {
			c.args = append(c.args, val(a))
		}
		name, helper := "%"+prefix+strings.TrimPrefix(in.Name(), "%"), fmt.Sprintf("%%%st%d_", prefix, in.ID)
		for _, o := range pb.Ops {
			if len(o.Results) > 0 && (o.Results[0].Name == name || strings.HasPrefix(o.Results[0].Name, helper)) {
				c.group = append(c.group, o)
			}
		}
		if err := c.wiring(); err != nil {
			return fmt.Errorf("%s%s = %s %s: %w", prefix, in.Name(), in.TypeString(), in.Op, err)
		}
		if err := c.check(); err != nil {
			return fmt.Errorf("%s%s = %s %s: %w", prefix, in.Name(), in.TypeString(), in.Op, err)
		}
		if len(in.Subs) > 0 {
			if err := rt.control(c, b, prefix); err != nil {
				return err
			}
		}
	}
	return nil
}

// control checks a while's or cond's regions against its sub-modules.
func (rt *roundTripper) control(c *instrCheck, b *shloBlock, prefix string) error {
	in := c.in
	o := c.val.Def
	var built *shloOp
	for _, bo := range b.ops {
		if len(bo.results) > 0 && rt.vals[bo.results[0]] == o.Results[0] {
			built = bo
		}
	}
	if o == nil || built == nil || len(o.Regions) != len(in.Subs) {
		return fmt.Errorf("%s: %d sub-modules, not the regions of one op", in.Name(), len(in.Subs))
	}
	regions := append([]*shloBlock{built.region}, built.extra...)
	for i, sub := range in.Subs {
		tag := fmt.Sprintf("r%d", i)
		if in.Op == trace.OpWhile {
			tag = []string{"c", "b"}[i]
		}
		if err := rt.module(sub, regions[i], o.Regions[i], fmt.Sprintf("%sw%d%s_", prefix, in.ID, tag)); err != nil {
			return fmt.Errorf("%s region %d: %w", in.Name(), i, err)
		}
	}
	return nil
}
