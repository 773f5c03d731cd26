package kiln

import (
	"context"
	"fmt"
	"reflect"
	"unsafe"

	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// treeFunc is a function Jit takes whose parameters or results include
// trees: it is traced over the trees' leaves, the arguments' shapes
// (their slices' lengths, their maps' keys) being part of the signature.
type treeFunc struct {
	v        reflect.Value
	ins      []*typeInfo // per parameter but a final ...Value; a Value parameter is a leaf
	outs     []*typeInfo // per result
	variadic bool        // fn ends with ...Value: the leaves after ins' are its arguments
}

// treeOut is a traced function's results as trees: each result's type,
// its leaf count, and the shapes of all of them in order.
type treeOut struct {
	infos  []*typeInfo
	counts []int
	shape  shape
}

// adaptTree accepts a function whose parameters and results are Values
// or trees of Values (at least one result), its last parameter possibly
// ...Value (GradTree's functions). Its *FuncError has a Msg when a
// parameter or result is a composite type that is not a tree.
func adaptTree(fn any) (*treeFunc, *FuncError) {
	v := reflect.ValueOf(fn)
	if !v.IsValid() || v.Kind() != reflect.Func || v.IsNil() {
		return nil, &FuncError{Type: fmt.Sprintf("%T", fn)}
	}
	t := v.Type()
	variadic := t.IsVariadic()
	if variadic && t.In(t.NumIn()-1) != valuesType || t.NumOut() == 0 {
		return nil, &FuncError{Type: t.String()}
	}
	check := func(what string, i int, ti *typeInfo) *FuncError {
		switch {
		case ti.kind == nodeArray:
			return &FuncError{Type: t.String(), Msg: fmt.Sprintf("%s %d is a *tensor.Array, not a kiln.Value", what, i)}
		case ti.err != "" && ti.kind >= nodeStruct:
			return &FuncError{Type: t.String(), Msg: fmt.Sprintf("%s %d is not a tree of kiln.Values: %s", what, i, ti.err)}
		case ti.err != "":
			return &FuncError{Type: t.String()}
		case ti.kind >= nodeStruct:
			if path, ok := arrayLeafPath(ti, map[*typeInfo]bool{}); ok {
				return &FuncError{Type: t.String(), Msg: fmt.Sprintf("%s %d has a *tensor.Array leaf (%s): a traced function's trees hold kiln.Values (Run's trees hold the arrays)", what, i, path)}
			}
		}
		return nil
	}
	tf := &treeFunc{v: v, variadic: variadic}
	nin := t.NumIn()
	if variadic {
		nin--
	}
	for i := range nin {
		ti := infoOf(t.In(i))
		if err := check("parameter", i, ti); err != nil {
			return nil, err
		}
		tf.ins = append(tf.ins, ti)
	}
	for i := range t.NumOut() {
		ti := infoOf(t.Out(i))
		if err := check("result", i, ti); err != nil {
			return nil, err
		}
		tf.outs = append(tf.outs, ti)
	}
	return tf, nil
}

// call runs the function on flat leaves args, unflattened into its
// parameters with shape st, and returns its results' leaves, recording
// their trees in out. A tree that does not fit fails the trace with a
// *TreeError.
func (tf *treeFunc) call(args []Value, st shape, out *treeOut) []Value {
	in, err := treeCall(tf, args, st, "jit")
	if err != nil {
		return []Value{trace.Failure(err)}
	}
	res, o, err := flattenResults(tf.v.Call(in), tf.outs, "jit")
	if err != nil {
		return []Value{trace.Failure(err)}
	}
	*out = o
	return res
}

// flat is call for a tree function used where only flat Values travel
// (Grad of a Func, say): its trees must be of fixed shape.
func (tf *treeFunc) flat(args []Value) []Value {
	var out treeOut
	return tf.call(args, shape{}, &out)
}

// treeCall builds fn's arguments from the flat leaves args and the shape
// st of its tree parameters, in order, for op: one per parameter of fn's
// ins, then, when fn is variadic, one per leaf left. It is how a
// transformation over flat Values calls a function of trees: Jit does,
// and so does VmapTree, with each argument's axis repeated over its
// leaves.
func treeCall(fn *treeFunc, args []Value, st shape, op string) ([]reflect.Value, error) {
	u := unflattener[Value]{leaves: args, shape: st}
	in := make([]reflect.Value, len(fn.ins))
	for i, ti := range fn.ins {
		v := reflect.New(ti.t)
		if err := u.walk(ti, v.UnsafePointer()); err != nil {
			err.Op, err.Pos = op, trace.CallerPos()
			err.Path = fmt.Sprintf("argument %d%s", i, err.Path)
			return nil, err
		}
		in[i] = v.Elem()
	}
	if fn.variadic {
		for _, x := range u.leaves {
			in = append(in, reflect.ValueOf(x))
		}
		u.leaves = nil
	}
	if len(u.leaves) != 0 {
		return nil, treeError(op, fmt.Sprintf("%d leaves left over after the arguments", len(u.leaves)))
	}
	return in, nil
}

// flattenResults flattens a function's results, of types outs, into their
// Value leaves and their trees, for op.
func flattenResults(res []reflect.Value, outs []*typeInfo, op string) ([]Value, treeOut, error) {
	var w flattener[Value]
	o := treeOut{infos: outs, counts: make([]int, len(res))}
	for i, r := range res {
		p := reflect.New(r.Type())
		p.Elem().Set(r)
		n := len(w.leaves)
		if err := w.walk(outs[i], p.UnsafePointer()); err != nil {
			err.Op, err.Pos = op, trace.CallerPos()
			err.Path = fmt.Sprintf("result %d%s", i, err.Path)
			return nil, treeOut{}, err
		}
		o.counts[i] = len(w.leaves) - n
	}
	if len(w.leaves) == 0 {
		return nil, treeOut{}, treeError(op, "the results have no leaves")
	}
	o.shape = w.shape
	return w.leaves, o, nil
}

// flattenArgs flattens Run-side arguments — arrays or trees of arrays,
// one per parameter of types ins — into their leaves and shape, appended
// to w, for op. It is Jit's; Vmap's Run side can share it.
func flattenArgs(w *flattener[*tensor.Array], ins []*typeInfo, i int, v any) *TreeError {
	ti, p, err := treeOf(v)
	if err == nil && !ti.sameSkeleton(ins[i]) {
		err = &TreeError{Msg: fmt.Sprintf("a %s for a parameter of type %s", ti.t, ins[i].t)}
	}
	if err == nil {
		err = w.walk(ti, p)
	}
	return err
}

// isTreeArg reports whether a Run argument is a tree rather than an
// array, a typed slice or a scalar.
func isTreeArg(v any) bool {
	t := reflect.TypeOf(v)
	if t == nil || t == arrayPtrType || t == weakType {
		return false
	}
	switch t.Kind() {
	case reflect.Struct, reflect.Map, reflect.Array, reflect.Pointer:
		return true
	case reflect.Slice:
		_, ok := tensor.SliceDType(v)
		return !ok && t != reflect.TypeFor[[]int]() && t != reflect.TypeFor[[]uint]()
	}
	return false
}

// convertTree flattens Run argument i, a tree of arrays, into args.
func (f *Func) convertTree(i int, v any, args []arg, w *flattener[*tensor.Array]) ([]arg, error) {
	n := len(w.leaves)
	var err *TreeError
	if f.tree != nil {
		err = flattenArgs(w, f.tree.ins, i, v)
	} else {
		var ti *typeInfo
		var p unsafe.Pointer
		if ti, p, err = treeOf(v); err == nil {
			err = w.walk(ti, p)
		}
	}
	if err != nil {
		err.Op, err.Pos = "jit", trace.CallerPos()
		return nil, &ArgError{Index: i, Msg: err.Error(), Err: err}
	}
	for j, a := range w.leaves[n:] {
		if msg := invalidArray(a); msg != "" {
			where := fmt.Sprintf("leaf %d", j)
			if ti, p, err := treeOf(v); err == nil {
				if path, ok := leafPath(ti, p, &j); ok {
					where = "leaf " + path
				}
			}
			return nil, &ArgError{Index: i, Msg: fmt.Sprintf("%s: %s", where, msg)}
		}
		args = append(args, arg{array: a})
	}
	return args, nil
}

// shapeOf is the tree shape that is part of a call's signature: the tree
// arguments' of a function of trees (a function over flat Values sees
// only leaves, whatever trees they came in).
func (f *Func) shapeOf(w *flattener[*tensor.Array]) shape {
	if f.tree == nil {
		return shape{}
	}
	return w.shape
}

// RunTree runs fn on args and stores its results in outs: one pointer per
// result, to a tree of *tensor.Array of the result's structure (a
// **tensor.Array for a Value result). Arguments are Run's, or trees of
// arrays (by pointer: a tree passed by value is copied). The results are
// new arrays, or arrays given back with Release.
func (f *Func) RunTree(outs []any, args ...any) error {
	return f.RunTreeContext(context.Background(), outs, args...)
}

// RunTreeContext is RunTree stopped when ctx is done (see RunContext).
func (f *Func) RunTreeContext(ctx context.Context, outs []any, args ...any) error {
	if err := contextError(ctx); err != nil {
		return err
	}
	c := f.getCall()
	defer f.putCall(c)
	e, sh, err := f.prepare(args, c)
	if err != nil {
		return err
	}
	defer sh.release()
	o := e.resultTrees(len(e.mod.Outputs))
	if len(outs) != len(o.infos) {
		return &ArgError{Index: -1, Output: true, Msg: fmt.Sprintf("RunTree: the function returns %d results, got %d outputs", len(o.infos), len(outs))}
	}
	for i, out := range outs { // checked before running: a wrong output costs no run
		v := reflect.ValueOf(out)
		if !v.IsValid() || v.Kind() != reflect.Pointer || v.IsNil() {
			return &ArgError{Index: i, Output: true, Msg: fmt.Sprintf("RunTree needs a non-nil pointer to a tree, got %T", out)}
		}
		if ti := infoOf(v.Type().Elem()); ti.err != "" || !ti.sameSkeleton(o.infos[i]) {
			te := &TreeError{Op: "jit", Pos: trace.CallerPos(), Msg: fmt.Sprintf("a %s for a result of type %s", v.Type().Elem(), o.infos[i].t)}
			return &ArgError{Index: i, Output: true, Msg: te.Error(), Err: te}
		}
	}
	var res []*tensor.Array
	ok := false
	if f.pool.n.Load() > 0 {
		res, ok, err = f.runPooled(ctx, e, sh.exe, c.inputs)
	}
	if !ok && err == nil {
		res, err = runContext(ctx, sh.exe, c.inputs)
	}
	if err != nil {
		return err
	}
	u := unflattener[*tensor.Array]{leaves: res, shape: o.shape}
	for i, out := range outs {
		v := reflect.ValueOf(out)
		if err := u.walk(infoOf(v.Type().Elem()), v.UnsafePointer()); err != nil {
			err.Op, err.Pos = "jit", trace.CallerPos()
			return &ArgError{Index: i, Output: true, Msg: err.Error(), Err: err}
		}
	}
	return nil
}

// resultTrees is e's results as trees: each a Value when fn returns only
// Values.
func (e *entry) resultTrees(n int) treeOut {
	if e.out.infos != nil {
		return e.out
	}
	o := treeOut{infos: make([]*typeInfo, n), counts: make([]int, n)}
	for i := range n {
		o.infos[i], o.counts[i] = infoOf(valueType), 1
	}
	return o
}

// RunTreeInto runs fn on args writing its results into the arrays of the
// trees outs points to (one per result, of its structure, arrays of its
// dtypes and shapes — RunTree's results, say). A steady loop of
// RunTreeInto with trees passed by pointer allocates nothing.
func (f *Func) RunTreeInto(outs []any, args ...any) error {
	return f.RunTreeIntoContext(context.Background(), outs, args...)
}

// RunTreeIntoContext is RunTreeInto stopped when ctx is done (see
// RunIntoContext).
func (f *Func) RunTreeIntoContext(ctx context.Context, outs []any, args ...any) error {
	if err := contextError(ctx); err != nil {
		return err
	}
	c := f.getCall()
	defer f.putCall(c)
	e, sh, err := f.prepare(args, c)
	if err != nil {
		return err
	}
	defer sh.release()
	o := e.resultTrees(len(e.mod.Outputs))
	if len(outs) != len(o.infos) {
		return &ArgError{Index: -1, Output: true, Msg: fmt.Sprintf("RunTreeInto: the function returns %d results, got %d outputs", len(o.infos), len(outs))}
	}
	w := &c.outs
	w.leaves = w.leaves[:0]
	w.shape.reset()
	w.path = w.path[:0]
	for i, out := range outs {
		if err := flattenArgs(w, o.infos, i, out); err != nil {
			err.Op, err.Pos = "jit", trace.CallerPos()
			return &ArgError{Index: i, Output: true, Msg: err.Error(), Err: err}
		}
	}
	if !w.shape.equal(o.shape) {
		te := &TreeError{Op: "jit", Pos: trace.CallerPos(), Msg: "the output trees' slices or maps differ from the results'"}
		return &ArgError{Index: -1, Output: true, Msg: te.Error(), Err: te}
	}
	return asArgError(runIntoContext(ctx, sh.exe, w.leaves, c.inputs))
}

// arrayLeafPath is the path of a *tensor.Array leaf in trees of type ti
// (".B", "[]", ".M[]"), if they may hold one.
func arrayLeafPath(ti *typeInfo, seen map[*typeInfo]bool) (string, bool) {
	if seen[ti] {
		return "", false
	}
	seen[ti] = true
	switch ti.kind {
	case nodeArray:
		return "", true
	case nodeStruct:
		for _, f := range ti.fields {
			if p, ok := arrayLeafPath(f.info, seen); ok {
				return "." + f.name + p, true
			}
		}
	case nodeArrayN, nodeSlice, nodeMap:
		if p, ok := arrayLeafPath(ti.elem, seen); ok {
			return "[]" + p, true
		}
	case nodePtr:
		return arrayLeafPath(ti.elem, seen)
	}
	return "", false
}
