package kernels

import (
	"slices"

	"github.com/kiln-go/kiln/lower"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// Fold evaluates one instruction on constant operands with the CPU
// backend's kernels, so a value folded at compile time has exactly the bits
// the kernel would have computed at run time. It is lower.Options.Fold for
// the CPU backend.
func Fold(in *lower.Instr, args []*tensor.Array) (*tensor.Array, error) {
	m := &lower.Module{}
	params := make([]*lower.Instr, len(args))
	for i, a := range args {
		p := &lower.Instr{ID: i, Op: trace.OpParam, DType: a.DType(), Shape: a.Shape(), Param: i}
		params[i] = p
	}
	m.Params = params
	m.Instrs = slices.Clone(params)
	op := &lower.Instr{ID: len(params), Op: in.Op, DType: in.DType, Shape: slices.Clone(in.Shape), Args: params, Params: in.Params}
	m.Instrs = append(m.Instrs, op)
	m.Outputs = []*lower.Instr{op}
	lower.Fuse(m, false)
	lower.PlanBuffers(m)
	exe, err := defaultCPU.Compile(m)
	if err != nil {
		return nil, err
	}
	out, err := exe.Run(args)
	if err != nil {
		return nil, err
	}
	return out[0], nil
}
