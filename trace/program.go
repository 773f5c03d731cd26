package trace

import (
	"fmt"
	"strings"

	"github.com/kiln-go/kiln/promote"
	"github.com/kiln-go/kiln/tensor"
)

// Var is one value of a traced program: an SSA name with its abstract type.
// A Var is written by exactly one Eqn (or is a program input) and never
// changes after tracing.
type Var struct {
	ID    int          // unique within its program; printed as a letter name
	Type  promote.Type // dtype and weak flag
	Shape []int        // row-major dimensions; empty for rank 0
}

// Name is the printed name of v: a, b, …, z, ba, bb, … as in a jaxpr.
func (v *Var) Name() string {
	id := v.ID
	var b []byte
	for {
		b = append([]byte{byte('a' + id%26)}, b...)
		id = id/26 - 1
		if id < 0 {
			break
		}
	}
	return string(b)
}

// Size is the number of elements of v.
func (v *Var) Size() int { return ShapeSize(v.Shape) }

// Rank is the number of dimensions of v.
func (v *Var) Rank() int { return len(v.Shape) }

// TypeString prints v's type as dtype, weak star and shape: f16[3,4], i64*[].
func (v *Var) TypeString() string {
	return v.Type.String() + "[" + joinInts(v.Shape, ",") + "]"
}

// DotDims are the dimension numbers of a dot_general, as in XLA: the batch
// dims of each operand (paired in order) and the contracting dims (paired in
// order). The result's dims are the batch dims, then lhs free dims, then rhs
// free dims, each in operand order.
type DotDims struct {
	LhsBatch, RhsBatch       []int
	LhsContract, RhsContract []int
}

// Params holds the static parameters of an Eqn. Which fields an op reads is
// documented beside the op constant; the rest stay zero.
type Params struct {
	DType    tensor.DType  // convert: target; argmax/argmin: index dtype
	Value    *tensor.Array // const: the value at its final dtype; gather: the fill value
	Shape    []int         // reshape, broadcast_in_dim: result shape
	Dims     []int         // broadcast_in_dim: operand dim i → result dim Dims[i]
	Perm     []int         // transpose: result dim i is operand dim Perm[i]
	Start    []int         // slice
	Limit    []int         // slice (exclusive)
	Stride   []int         // slice (> 0)
	Axis     int           // concatenate; sort: the dimension sorted
	Axes     []int         // reductions: sorted, unique; rev: the reversed dims
	KeepDims bool          // reductions
	Dot      DotDims       // dot_general
	Index    IndexParams   // gather, scatters, dynamic_slice (indexparams.go)
	Control  ControlParams // while, cond, result (control.go)
	// dot_general's preferred_element_type (jax.lax.dot_general): when
	// HasPreferred, the result dtype is Preferred and the product is the
	// dot of both operands converted to Preferred (preferred.go).
	Preferred    tensor.DType
	HasPreferred bool
	Sort         SortParams // sort (sort.go)
	Conv         ConvParams // conv_general_dilated (conv.go)
	// Mark places the equation in the Checkpoint, CustomJVP or CustomVJP
	// application it was traced in (custom.go); copies of the equation
	// keep it, so the region survives every transformation that copies
	// equations. It never changes the equation's value.
	Mark Mark
	// Remat: reverse mode emitted the equation to recompute a value of a
	// Checkpoint in the backward pass. It computes what its forward twin
	// computed, but CSE keeps the two apart: merged, the forward value
	// would be stored until the backward pass, which is what Checkpoint
	// avoids.
	Remat bool
}

// Pos is the position in the user's source that created an Eqn. Col is
// known for sources Kiln parses itself (kiln eval's expression), 0 for Go
// callers.
type Pos struct {
	File string
	Line int
	Col  int // 1-based column, or 0 when unknown
}

// String prints file:line, file:line:col when the column is known (as Go's
// compiler does), or "" for an unknown position.
func (p Pos) String() string {
	switch {
	case p.File == "":
		return ""
	case p.Col > 0:
		return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Col)
	}
	return fmt.Sprintf("%s:%d", p.File, p.Line)
}

// Eqn is one primitive op applied to Vars, producing one Var.
type Eqn struct {
	Op     Op
	Args   []*Var
	Out    *Var
	Params Params
	Pos    Pos    // the user's call site
	Why    string // for implicit converts: the promotion that required it
}

// Program is a traced function: inputs, equations in execution order and
// outputs. A Program is immutable once Trace returns it and safe to share.
type Program struct {
	Inputs  []*Var
	Eqns    []*Eqn
	Outputs []*Var
	Config  promote.Config
	NumVars int // Var IDs are 0..NumVars-1
}

// ShapeSize is the number of elements of an array of the given shape (1 for
// rank 0), for shapes the tracer has checked: every Var's shape, and every
// shape derived from Vars' by lowering. It returns -1 for a shape that is
// not valid (a negative dimension, a size beyond the int range); use
// tensor.ShapeSize to check an arbitrary shape with a typed error.
func ShapeSize(shape []int) int {
	n, err := tensor.ShapeSize(shape)
	if err != nil {
		return -1
	}
	return n
}

// ShapeEqual reports whether two shapes are the same.
func ShapeEqual(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func joinInts(xs []int, sep string) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = fmt.Sprint(x)
	}
	return strings.Join(parts, sep)
}
