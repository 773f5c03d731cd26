package trace

import (
	"fmt"
	"slices"
)

// Typing rules of the indexing ops (the table is op.go): results have the
// operand's type; index operands are integer arrays; shapes follow
// GatherShape and ScatterCheck.

func checkIndexOperand(what string, a Abstract) error {
	if !a.Type.DType.IsInteger() {
		return fault(CheckType, "%s is %s, not an integer array", what, a.Type)
	}
	return nil
}

// checkRev: the result is the operand; Axes sorted, unique, in range.
func checkRev(op Op, args []Abstract, out Abstract, p *Params) error {
	x := args[0]
	if err := checkAxes(p.Axes, len(x.Shape)); err != nil {
		return err
	}
	if err := sameType("the result", out.Type, x.Type); err != nil {
		return err
	}
	return sameShape("the result", out.Shape, x.Shape)
}

func checkGather(op Op, args []Abstract, out Abstract, p *Params) error {
	x, idx := args[0], args[1]
	if err := checkIndexOperand("the indices", idx); err != nil {
		return err
	}
	if err := sameType("the result", out.Type, x.Type); err != nil {
		return err
	}
	ip := p.Index
	switch ip.Mode {
	case ModeClip:
	case ModeFill:
		if v := p.Value; v == nil || v.DType() != x.Type.DType || v.Size() != 1 {
			return fault(CheckParams, "a fill gather needs a %s scalar fill value", x.Type.DType)
		}
	default:
		return fault(CheckParams, "gather mode %s (a traced gather clips or fills)", ip.Mode)
	}
	want, msg := GatherShape(x.Shape, idx.Shape, ip.Gather, ip.SliceSizes)
	if msg != "" {
		return fault(CheckParams, "%s", msg)
	}
	return sameShape("the result", out.Shape, want)
}

func checkScatter(op Op, args []Abstract, out Abstract, p *Params) error {
	x, idx, upd := args[0], args[1], args[2]
	if err := checkIndexOperand("the indices", idx); err != nil {
		return err
	}
	if err := sameType("the updates", upd.Type, x.Type); err != nil {
		return err
	}
	if err := sameType("the result", out.Type, x.Type); err != nil {
		return err
	}
	if m := p.Index.Mode; m != ModeClip && m != ModeFill {
		return fault(CheckParams, "scatter mode %s (a traced scatter clips or drops)", m)
	}
	if c := op.ScatterCombiner(); (c == OpMax || c == OpMin) && x.Type.DType.IsComplex() {
		return fault(CheckType, "%s of complex %s: complex numbers have no order", op, x.Type)
	}
	if msg := ScatterCheck(x.Shape, idx.Shape, upd.Shape, p.Index.Scatter); msg != "" {
		return fault(CheckParams, "%s", msg)
	}
	return sameShape("the result", out.Shape, x.Shape)
}

// checkStarts: one integer scalar start per dim of x.
func checkStarts(x Abstract, starts []Abstract) error {
	if len(starts) != len(x.Shape) {
		return fault(CheckParams, "%d start indices for a rank-%d operand", len(starts), len(x.Shape))
	}
	for i, s := range starts {
		if err := checkIndexOperand(fmt.Sprintf("start index %d", i), s); err != nil {
			return err
		}
		if len(s.Shape) != 0 {
			return fault(CheckShape, "start index %d has shape %s, not a scalar", i, shapeString(s.Shape))
		}
	}
	return nil
}

// checkWindow: a window that fits in x.
func checkWindow(what string, window, shape []int) error {
	if len(window) != len(shape) {
		return fault(CheckParams, "%s %v for a rank-%d operand", what, window, len(shape))
	}
	for i, w := range window {
		if w < 0 || w > shape[i] {
			return fault(CheckParams, "%s %v do not fit in %s", what, window, shapeString(shape))
		}
	}
	return nil
}

func checkDynamicSlice(op Op, args []Abstract, out Abstract, p *Params) error {
	x := args[0]
	if err := checkStarts(x, args[1:]); err != nil {
		return err
	}
	sizes := p.Index.SliceSizes
	if err := checkWindow("slice_sizes", sizes, x.Shape); err != nil {
		return err
	}
	if err := sameType("the result", out.Type, x.Type); err != nil {
		return err
	}
	return sameShape("the result", out.Shape, slices.Clone(sizes))
}

func checkDynamicUpdateSlice(op Op, args []Abstract, out Abstract, p *Params) error {
	if len(args) < 2 {
		return fault(CheckParams, "dynamic_update_slice takes an operand, an update and the starts")
	}
	x, upd := args[0], args[1]
	if err := sameType("the update", upd.Type, x.Type); err != nil {
		return err
	}
	if err := checkWindow("the update's dims", upd.Shape, x.Shape); err != nil {
		return err
	}
	if err := checkStarts(x, args[2:]); err != nil {
		return err
	}
	if err := sameType("the result", out.Type, x.Type); err != nil {
		return err
	}
	return sameShape("the result", out.Shape, x.Shape)
}
