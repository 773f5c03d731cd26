package trace

import (
	"fmt"
	"math"
	"math/bits"

	"github.com/kiln-go/kiln/promote"
	"github.com/kiln-go/kiln/tensor"
)

// BudgetError reports a program that would hold more memory at once than
// its run's budget (kiln.MemoryLimit; tensor.DefaultMemoryLimit when none
// is given): Op and Pos name the op at which the memory held first goes
// over the limit, Need is what the program holds then, in bytes. Lowering
// finds it when it plans the buffers (lower.CheckBudget); the trace finds
// it earlier for a constant a helper such as Repeat or Pad would build
// over the limit, before building it.
type BudgetError struct {
	Op    string
	Pos   Pos
	Need  int    // bytes held at Op (math.MaxInt when the sum overflows)
	Limit int    // the budget, bytes
	Msg   string // what the bytes are
}

func (e *BudgetError) Error() string {
	return errorText(e.Op, e.Pos, fmt.Sprintf("the program would hold %d bytes (%s) at once here, over its memory budget of %d bytes (%s): %s",
		e.Need, tensor.HumanBytes(e.Need), e.Limit, tensor.HumanBytes(e.Limit), e.Msg))
}

// TraceWithin is Trace under a memory budget of limit bytes (≤ 0: none):
// a constant that a trace-time helper builds (Repeat's index list, Pad's
// reflected indices, ArangeFloat's values) is checked against the
// allocation limit (tensor.CheckAlloc) and then against limit before it
// is built, failing the trace with a *ShapeError wrapping the
// *tensor.SizeError, or a *BudgetError. Trace checks the allocation limit
// only.
func TraceWithin(cfg promote.Config, limit int, inputs []Abstract, fn func(args []Value) []Value) (*Program, error) {
	b := newBuilder(cfg, nil)
	b.budget = limit
	return b.trace(inputs, fn)
}

// budgetOf is the memory budget of b's outermost trace, or 0 for none.
func (b *builder) budgetOf() int { return b.root().budget }

// checkConst checks, before a trace-time helper of op builds a constant of
// n elements of dtype d (a count or index list), that it may be allocated:
// its bytes fit an int, pass tensor.CheckAlloc and the trace's budget. It
// returns the error the trace fails with, or nil.
func (b *builder) checkConst(op string, pos Pos, d tensor.DType, n int) error {
	bytes, err := tensor.CheckAlloc(d, []int{n})
	if err != nil {
		return &ShapeError{Op: op, Pos: pos, Shapes: [][]int{{n}},
			Msg: fmt.Sprintf("the %s%s constant it builds at trace time cannot be allocated: %v", d, shapeString([]int{n}), err), Err: err}
	}
	if limit := b.budgetOf(); limit > 0 && bytes > limit {
		return &BudgetError{Op: op, Pos: pos, Need: bytes, Limit: limit,
			Msg: fmt.Sprintf("the %s%s constant it builds at trace time, alone", d, shapeString([]int{n}))}
	}
	return nil
}

// sumSizes adds counts (each ≥ 0), reporting whether the sum fits an int.
func sumSizes(counts ...int) (int, bool) {
	var sum uint64
	for _, c := range counts {
		s, carry := bits.Add64(sum, uint64(c), 0)
		if carry != 0 || s > math.MaxInt {
			return 0, false
		}
		sum = s
	}
	return int(sum), true
}

// tooManyElements is the *ShapeError of a trace-time list whose length
// does not fit an int.
func tooManyElements(op string, pos Pos, what string) error {
	msg := fmt.Sprintf("%s has more elements than an int holds (at most %d)", what, math.MaxInt)
	return &ShapeError{Op: op, Pos: pos, Msg: msg, Err: &tensor.SizeError{Op: op, Msg: msg}}
}
