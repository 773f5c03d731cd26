package stablehlo

import (
	"fmt"

	"github.com/kiln-go/kiln/trace"
)

// Control flow. A while is stablehlo.while: its operands are the carries
// and then the cond's and the body's captured values, threaded through
// the loop as carries the body returns unchanged (as JAX lowers
// while_loop's consts), so neither region reads a value from outside. A
// cond is stablehlo.case on the i32 branch index, each branch a region
// without arguments that reads the operands from the enclosing block (as
// JAX lowers cond). The sub-modules (lower.Instr.Subs, compiled by
// lower.Compile) are lowered into the regions.

// control lowers a while or cond and returns all its results.
func (x *shloInstr) control(args []*shloVal, prefix string) ([]*shloVal, error) {
	in := x.in
	if len(in.Subs) != len(in.Params.Control.Subs) || len(in.Subs) == 0 {
		return nil, fmt.Errorf("its sub-programs were not compiled (lower.Compile compiles them)")
	}
	c := in.Params.Control
	here := fmt.Sprintf("%sw%d", prefix, in.ID)
	var err error
	region := func(tag string, types []shloType, params func(rargs []*shloVal) []*shloVal, i int, ret func(outs, rargs []*shloVal) []*shloVal) *shloBlock {
		p := here + tag
		return x.region(p, types, func(sub *shloBuilder, rargs []*shloVal) {
			outs, e := lowerModule(in.Subs[i], sub.blk, params(rargs), p+"_")
			if e != nil {
				err = e
				outs = nil
			}
			sub.ret(ret(outs, rargs)...)
		})
	}
	switch in.Op {
	case trace.OpWhile:
		n := len(args) - c.NConsts[0] - c.NConsts[1]
		types := make([]shloType, len(args))
		for i, a := range args {
			types[i] = a.typ
		}
		condR := region("c", types, func(r []*shloVal) []*shloVal {
			return append(append([]*shloVal{}, r[:n]...), r[n:n+c.NConsts[0]]...)
		}, 0, func(outs, _ []*shloVal) []*shloVal { return outs })
		bodyR := region("b", types, func(r []*shloVal) []*shloVal {
			return append(append([]*shloVal{}, r[:n]...), r[n+c.NConsts[0]:]...)
		}, 1, func(outs, r []*shloVal) []*shloVal { return append(outs, r[n:]...) })
		if err != nil {
			return nil, err
		}
		rs := x.opN("while", types, nil, condR, args...)
		rs[0].def.extra = []*shloBlock{bodyR}
		return rs[:n], nil
	case trace.OpCond:
		n := len(args) - 1 - sumInts(c.NConsts)
		var outTypes []shloType
		for _, o := range in.Subs[0].Outputs {
			outTypes = append(outTypes, typeOf(o))
		}
		at := 1 + n
		regions := make([]*shloBlock, len(in.Subs))
		for i := range in.Subs {
			lo, hi := at, at+c.NConsts[i]
			at = hi
			regions[i] = region(fmt.Sprintf("r%d", i), nil, func([]*shloVal) []*shloVal {
				return append(append([]*shloVal{}, args[1:1+n]...), args[lo:hi]...)
			}, i, func(outs, _ []*shloVal) []*shloVal { return outs })
		}
		if err != nil {
			return nil, err
		}
		x.note("lax.cond/switch: the branch index is clamped into range before the case")
		rs := x.opN("case", outTypes, nil, regions[0], args[0])
		rs[0].def.extra = regions[1:]
		return rs, nil
	}
	return nil, fmt.Errorf("%s is not a control-flow op", in.Op)
}

func sumInts(xs []int) int {
	n := 0
	for _, x := range xs {
		n += x
	}
	return n
}
