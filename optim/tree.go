package optim

import (
	"fmt"

	"github.com/kiln-go/kiln"
)

// State is an optimizer's state for parameters of tree type P, as a tree
// itself (optax's state is a pytree too): Slots are the per-parameter
// buffers, each a tree of P's structure — Adam's first and second
// moments, SGD's momentum — and Scalars the rest (Adam's step count). L
// is the leaves' kind: State[Params[kiln.Value], kiln.Value] inside a
// traced step, State[Params[*tensor.Array], *tensor.Array] between steps,
// which Run and RunTree take and fill like any tree.
type State[P any, L kiln.Leaf] struct {
	Slots   []P
	Scalars []L
}

// layout is an optimizer's flat state for n parameters as slots × n
// plus scalars: StateSize(n) = slots·n + scalars.
func layout(opt Optimizer, n int) (slots, scalars int) {
	scalars = opt.StateSize(0)
	return opt.StateSize(1) - scalars, scalars
}

// InitTree is Init for a tree of parameters: the first state, its slots
// of params' type and structure.
func InitTree[P any](opt Optimizer, params P) State[P, kiln.Value] {
	leaves, def := flatten("init", &params)
	return split[P](opt, def, opt.Init(leaves))
}

// StepTree is Step for a tree of parameters: params, grads and the state
// are trees of one structure (grads as GradTree returns them), and so are
// the new parameters and state.
func StepTree[P any](opt Optimizer, params, grads P, state State[P, kiln.Value]) (P, State[P, kiln.Value]) {
	p, def := flatten("step", &params)
	g, gdef := flatten("step", &grads)
	same("step", "the gradients", gdef, def)
	slots, scalars := layout(opt, len(p))
	if len(state.Slots) != slots || len(state.Scalars) != scalars {
		fail("step", fmt.Sprintf("a state of %d slots and %d scalars, want %d and %d", len(state.Slots), len(state.Scalars), slots, scalars))
	}
	flat := make([]kiln.Value, 0, opt.StateSize(len(p)))
	for i := range state.Slots {
		s, sdef := flatten("step", &state.Slots[i])
		same("step", fmt.Sprintf("state slot %d", i), sdef, def)
		flat = append(flat, s...)
	}
	flat = append(flat, state.Scalars...)
	np, ns := opt.Step(p, g, flat)
	out, err := kiln.TreeUnflatten[P](def, np)
	if err != nil {
		panic(err)
	}
	return out, split[P](opt, def, ns)
}

// split builds a flat state into a State of def's parameters.
func split[P any](opt Optimizer, def kiln.TreeDef, flat []kiln.Value) State[P, kiln.Value] {
	n := def.NumLeaves()
	slots, _ := layout(opt, n)
	var s State[P, kiln.Value]
	for k := range slots {
		slot, err := kiln.TreeUnflatten[P](def, flat[k*n:(k+1)*n])
		if err != nil {
			panic(err)
		}
		s.Slots = append(s.Slots, slot)
	}
	s.Scalars = flat[slots*n:]
	return s
}

// SelectTree is Select over trees of one structure: old where the step is
// skipped (finite is false), new otherwise.
func SelectTree[T any](finite kiln.Value, newVals, oldVals T) T {
	return kiln.TreeMap2(newVals, oldVals, func(n, o kiln.Value) kiln.Value { return kiln.Where(finite, n, o) })
}

// UnscaleTree is LossScale.Unscale over a tree of gradients.
func UnscaleTree[P any](s LossScale, grads P, state []kiln.Value) (P, kiln.Value) {
	g, def := flatten("unscale", &grads)
	u, finite := s.Unscale(g, state)
	out, err := kiln.TreeUnflatten[P](def, u)
	if err != nil {
		panic(err)
	}
	return out, finite
}

// flatten is TreeFlatten of a Value tree; a tree that cannot be walked is
// a programming error in the step, which panics with the *kiln.TreeError
// (Jit returns it as a *kiln.PanicError that errors.As unwraps), as a
// mismatched Step does.
func flatten(op string, tree any) ([]kiln.Value, kiln.TreeDef) {
	leaves, def, err := kiln.TreeFlatten[kiln.Value](tree)
	if err != nil {
		if te, ok := err.(*kiln.TreeError); ok {
			te.Op = "optim." + op // at the caller's line already: optim's frames are skipped
		}
		panic(err)
	}
	return leaves, def
}

func same(op, what string, got, want kiln.TreeDef) {
	if !got.Equal(want) {
		fail(op, fmt.Sprintf("%s have structure %s, the parameters %s", what, got, want))
	}
}

func fail(op, msg string) {
	panic(kiln.NewTreeError("optim."+op, msg))
}
