package lower

import (
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// Instr is one instruction of an HLO-like module. Unlike a traced Eqn it has
// no weak flag (weak types are erased into concrete dtypes), no implicit
// broadcasting (every elementwise instruction's operands have its shape,
// through explicit broadcast_in_dim), and constants at their final dtype.
type Instr struct {
	ID     int
	Op     trace.Op
	DType  tensor.DType
	Shape  []int
	Args   []*Instr
	Params trace.Params
	Param  int       // OpParam: the index of the program input
	Pos    trace.Pos // the user's call site, kept for error messages
	Why    string    // for converts inserted by promotion
	// Subs are a while's or cond's sub-programs (Params.Control.Subs),
	// each compiled on its own by Compile (simplified, fused, planned); nil
	// after Lower alone.
	Subs []*Module
}

// Size is the number of elements of the instruction's result.
func (in *Instr) Size() int { return trace.ShapeSize(in.Shape) }

// FusionKind says how a fusion's loop is structured.
type FusionKind uint8

// The fusion kinds.
const (
	// FusionLoop: elementwise instructions (including converts, constants
	// and broadcast_in_dim of fusion inputs) evaluated in one pass over the
	// output's elements.
	FusionLoop FusionKind = iota
	// FusionReduce: a reduction whose operand is computed by fused
	// elementwise producers, in one pass.
	FusionReduce
	// FusionDot: a dot_general (operands read from buffers).
	FusionDot
	// FusionCopy: one structural instruction (transpose, slice, concatenate,
	// rev) or indexing instruction (gather, scatters, dynamic slices) that
	// moves data; reshape needs no kernel and aliases its operand.
	FusionCopy
	// FusionControl: one while or cond, whose outputs are its results (the
	// instruction and the result instructions reading it); the backend
	// runs its compiled sub-modules (Instr.Subs).
	FusionControl
)

var fusionKindNames = [...]string{"loop", "reduce", "dot", "copy", "control"}

func (k FusionKind) String() string { return fusionKindNames[k] }

// Fusion is one kernel: a group of instructions executed together. Inputs
// are read from buffers (module parameters or earlier fusions' outputs);
// Outputs are written to buffers. Instrs are in dependency order and include
// the outputs; a Loop fusion's outputs all have the same shape.
type Fusion struct {
	ID      int
	Kind    FusionKind
	Instrs  []*Instr
	Inputs  []*Instr
	Outputs []*Instr
}

// Buffer is a region of memory holding one materialized value at a time.
type Buffer struct {
	ID    int
	DType tensor.DType
	Size  int // elements
	// Param ≥ 0: the buffer is the caller's input array Param, read only.
	Param int
	// Output ≥ 0: the buffer is returned as program output Output. Output
	// buffers are never inputs and never reused for scratch.
	Output int
}

// Plan maps every materialized value to a buffer. Scratch buffers are reused
// once their value is dead; outputs never alias inputs; inputs are never
// written.
type Plan struct {
	Buffers []Buffer
	Of      map[*Instr]int // materialized instruction → buffer ID
}

// Module is a lowered program: parameters, instructions in dependency order,
// outputs, and — after Fuse and PlanBuffers — its kernels and buffers.
type Module struct {
	Params  []*Instr
	Instrs  []*Instr
	Outputs []*Instr
	Fusions []*Fusion // execution order; nil before fusion
	Plan    *Plan     // nil before buffer planning
	// Checks are the run-time checks of checked mode (kiln.Checked), as
	// kernels.CheckKind bits, that a backend compiles into the kernels of
	// this module and of its sub-modules; 0 runs none.
	Checks uint8
}
