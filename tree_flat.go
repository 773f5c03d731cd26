package kiln

import (
	"fmt"
	"reflect"

	"github.com/kiln-go/kiln/trace"
)

// treeFlat is a function of trees as a transformation over flat Values
// needs it — the helper Jit's tree path is built from (adaptTree,
// treeCall, flattenResults), packaged for the others (VmapTree, vmap.go):
//
//	tf, err := newTreeFlat(fn, "vmap")         // fn's parameters and results
//	leaves, counts, err := tf.leaves(args)     // trees of Values → leaves; counts per argument
//	axes := spread(inAxes, counts)             // an argument's axis for each of its leaves
//	out := batched(tf.flat, axes)(leaves...)   // the transformation, over leaves
//	res, err := tf.results(out)                // leaves → fn's result trees (tf.out.counts per result)
//
// flat must be called (traced) before results: it records the results'
// trees. A treeFlat serves one call (its shapes are that call's).
type treeFlat struct {
	fn  *treeFunc
	op  string
	in  shape   // the arguments' tree shape, from leaves
	out treeOut // the results' trees, from flat
	err error   // the first error flat met
}

// newTreeFlat adapts fn, a function whose parameters and results are
// Values or trees of them, for op.
func newTreeFlat(fn any, op string) (*treeFlat, error) {
	t, err := adaptTree(fn)
	if err != nil {
		if err.Msg == "" {
			err.Msg = "its parameters and results must be kiln.Values or trees of them"
		}
		return nil, err
	}
	return &treeFlat{fn: t, op: op}, nil
}

// leaves flattens args — one per parameter, each a Value or a tree of
// Values of the parameter's structure, then one Value per argument of a
// final ...Value parameter — into their leaves, and returns how many each
// argument has.
func (t *treeFlat) leaves(args []any) ([]Value, []int, error) {
	if n := len(t.fn.ins); len(args) != n && !t.fn.variadic {
		return nil, nil, treeError(t.op, fmt.Sprintf("the function takes %d arguments, got %d", n, len(args)))
	} else if len(args) < n {
		return nil, nil, treeError(t.op, fmt.Sprintf("the function takes at least %d arguments, got %d", n, len(args)))
	}
	var w flattener[Value]
	counts := make([]int, len(args))
	variadic := make([]Value, 0, len(args)-len(t.fn.ins))
	for i, a := range args {
		if i >= len(t.fn.ins) { // ...Value: one leaf each
			x, ok := a.(Value)
			if !ok {
				err := treeError(t.op, fmt.Sprintf("argument %d is a %T for a ...kiln.Value parameter", i, a))
				return nil, nil, err
			}
			variadic = append(variadic, x)
			counts[i] = 1
			continue
		}
		ti, p, err := treeOf(a)
		if err == nil && !ti.sameSkeleton(t.fn.ins[i]) {
			err = &TreeError{Msg: fmt.Sprintf("a %s for a parameter of type %s", ti.t, t.fn.ins[i].t)}
		}
		n := len(w.leaves)
		if err == nil {
			err = w.walk(ti, p)
		}
		if err != nil {
			err.Op, err.Pos = t.op, trace.CallerPos()
			err.Path = fmt.Sprintf("argument %d%s", i, err.Path)
			return nil, nil, err
		}
		counts[i] = len(w.leaves) - n
	}
	t.in = w.shape
	return append(w.leaves, variadic...), counts, nil
}

// flat is the function over leaves: it builds the arguments' trees from
// them, calls fn and returns its results' leaves, recording their trees.
func (t *treeFlat) flat(leaves []Value) []Value {
	in, err := treeCall(t.fn, leaves, t.in, t.op)
	if err == nil {
		var res []Value
		if res, t.out, err = flattenResults(t.fn.v.Call(in), t.fn.outs, t.op); err == nil {
			return res
		}
	}
	t.err = err
	return []Value{trace.Failure(err)}
}

// results builds flat results, one per leaf flat returned, into fn's
// result types: one reflect.Value per result.
func (t *treeFlat) results(flat []Value) ([]reflect.Value, error) {
	if t.err != nil {
		return nil, t.err
	}
	if t.out.infos == nil {
		return nil, treeError(t.op, "results asked for before the function was called")
	}
	u := unflattener[Value]{leaves: flat, shape: t.out.shape}
	res := make([]reflect.Value, len(t.out.infos))
	for i, ti := range t.out.infos {
		v := reflect.New(ti.t)
		if err := u.walk(ti, v.UnsafePointer()); err != nil {
			err.Op, err.Pos = t.op, trace.CallerPos()
			err.Path = fmt.Sprintf("result %d%s", i, err.Path)
			return nil, err
		}
		res[i] = v.Elem()
	}
	if len(u.leaves) != 0 {
		return nil, treeError(t.op, fmt.Sprintf("%d results for %d leaves", len(flat), len(flat)-len(u.leaves)))
	}
	return res, nil
}
