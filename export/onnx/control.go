package onnx

import (
	"fmt"

	"github.com/kiln-go/kiln/lower"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// Control flow. A while is a Loop without a trip count: its condition
// is the cond sub-program run on the initial carries outside the loop and
// on the new carries at the end of each iteration of the body graph. A
// cond (cond, switch) is an If on index == 0 whose else branch is the If
// on index == 1, …, the last branch the innermost else (the tracer has
// already clamped the index into range). Sub-graphs read the captured
// values from the enclosing graph by name, as ONNX allows.

// subModules are the instruction's sub-programs lowered: lower.Compile's
// (Instr.Subs) or, for a module from lower.Lower alone, lowered here.
func (x *instr) subModules() ([]*lower.Module, error) {
	c := x.in.Params.Control
	if len(x.in.Subs) == len(c.Subs) && len(c.Subs) > 0 {
		return x.in.Subs, nil
	}
	subs := make([]*lower.Module, len(c.Subs))
	for i, p := range c.Subs {
		m, err := lower.Lower(p)
		if err != nil {
			return nil, err
		}
		subs[i] = m
	}
	return subs, nil
}

// sub is a builder for a new sub-graph, its names unique model-wide.
func (b *builder) sub(name string) *builder {
	return &builder{g: &graph{name: name}, n: b.n}
}

// info is the value info of a named value of an instruction's type.
func info(name string, in *lower.Instr) (valueInfo, error) {
	et, err := elemType(in.DType)
	if err != nil {
		return valueInfo{}, err
	}
	return valueInfo{name: name, elemType: et, shape: in.Shape}, nil
}

// outputs binds a sub-graph's outputs: each value copied by an Identity
// to a fresh name (a graph output may not be an outer value).
func (b *builder) outputs(vals []string, of []*lower.Instr) error {
	for i, v := range vals {
		name := b.fresh()
		b.emit("Identity", []string{v}, []string{name})
		vi, err := info(name, of[i])
		if err != nil {
			return err
		}
		b.g.outputs = append(b.g.outputs, vi)
	}
	return nil
}

// control translates a while or cond and returns all its results.
func (x *instr) control(args []string) ([]string, error) {
	in := x.in
	c := in.Params.Control
	subs, err := x.subModules()
	if err != nil {
		return nil, err
	}
	switch in.Op {
	case trace.OpWhile:
		if len(subs) != 2 || len(c.NConsts) != 2 {
			return nil, fmt.Errorf("while without cond and body")
		}
		n := len(args) - c.NConsts[0] - c.NConsts[1]
		carries := args[:n]
		condConsts := args[n : n+c.NConsts[0]]
		bodyConsts := args[n+c.NConsts[0]:]
		first, err := x.module(subs[0], append(append([]string{}, carries...), condConsts...))
		if err != nil {
			return nil, err
		}
		body := x.sub(fmt.Sprintf("while%d_body", in.ID))
		iter, condIn := body.fresh(), body.fresh()
		body.g.inputs = []valueInfo{{name: iter, elemType: tInt64, shape: []int{}}, {name: condIn, elemType: tBool, shape: []int{}}}
		cur := make([]string, n)
		for i := range cur {
			cur[i] = body.fresh()
			vi, err := info(cur[i], in.Args[i])
			if err != nil {
				return nil, err
			}
			body.g.inputs = append(body.g.inputs, vi)
		}
		next, err := body.module(subs[1], append(append([]string{}, cur...), bodyConsts...))
		if err != nil {
			return nil, err
		}
		again, err := body.module(subs[0], append(append([]string{}, next...), condConsts...))
		if err != nil {
			return nil, err
		}
		outs := append([]*lower.Instr{subs[0].Outputs[0]}, in.Args[:n]...)
		if err := body.outputs(append(again[:1:1], next...), outs); err != nil {
			return nil, err
		}
		res := make([]string, n)
		for i := range res {
			res[i] = x.fresh()
		}
		x.emit("Loop", append([]string{"", first[0]}, carries...), res, aGraph("body", body.g))
		return res, nil
	case trace.OpCond:
		n := len(args) - 1
		for _, k := range c.NConsts {
			n -= k
		}
		operands := args[1 : 1+n]
		branchArgs := make([][]string, len(subs))
		at := 1 + n
		for i := range subs {
			branchArgs[i] = append(append([]string{}, operands...), args[at:at+c.NConsts[i]]...)
			at += c.NConsts[i]
		}
		if len(subs) == 1 {
			return x.module(subs[0], branchArgs[0])
		}
		return x.ifChain(args[0], subs, branchArgs, 0, x.builder)
	}
	return nil, fmt.Errorf("%s is not a control-flow op", in.Op)
}

// ifChain emits, into b, If(index == i, branch i, ifChain(i+1)), the last
// two branches as the innermost If's.
func (x *instr) ifChain(index string, subs []*lower.Module, branchArgs [][]string, i int, b *builder) ([]string, error) {
	branch := func(k int) (*graph, error) {
		g := b.sub(fmt.Sprintf("cond%d_branch%d", x.in.ID, k))
		outs, err := g.module(subs[k], branchArgs[k])
		if err != nil {
			return nil, err
		}
		return g.g, g.outputs(outs, subs[k].Outputs)
	}
	then, err := branch(i)
	if err != nil {
		return nil, err
	}
	var els *graph
	if i+2 == len(subs) {
		if els, err = branch(i + 1); err != nil {
			return nil, err
		}
	} else {
		eb := b.sub(fmt.Sprintf("cond%d_else%d", x.in.ID, i))
		outs, err := x.ifChain(index, subs, branchArgs, i+1, eb)
		if err != nil {
			return nil, err
		}
		if err := eb.outputs(outs, subs[i+1].Outputs); err != nil {
			return nil, err
		}
		els = eb.g
	}
	pred := b.op2("Equal", index, b.scalarI(tensor.I32, int64(i)))
	res := make([]string, len(subs[i].Outputs))
	for k := range res {
		res[k] = b.fresh()
	}
	b.emit("If", []string{pred}, res, aGraph("then_branch", then), aGraph("else_branch", els))
	return res, nil
}
