package kiln

import (
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unsafe"

	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// Trees are JAX's pytrees in Go types: a kiln.Value (or, on the Run side,
// a *tensor.Array) is a leaf; a struct's exported fields, an array's and a
// slice's elements, a map's values (in sorted key order, as JAX sorts a
// dict's keys) and a pointer's target are subtrees. Unexported fields and
// fields tagged `kiln:"-"` are not part of the tree. What a type's tree
// looks like is worked out once per reflect.Type (typeInfo); a struct of
// fixed shape — no slice, map or pointer inside — is flattened by copying
// the leaves at precomputed offsets, allocating nothing.

// Leaf is the constraint of a tree's leaves: Values inside traced
// functions, arrays outside them. A model's parameters are best declared
// once over either, as a generic struct:
//
//	type Params[T kiln.Leaf] struct{ W, B T }
//
// so Params[kiln.Value] is what a traced function takes and returns and
// Params[*tensor.Array] what Run is given and fills.
type Leaf interface{ Value | *tensor.Array }

// TreeError reports a tree an operation cannot take: a type that is not a
// tree (a field neither a leaf nor a tree of them), trees whose structures
// differ, a leaf of the other kind (a *tensor.Array where a Value is
// wanted), a nil map or pointer, or the wrong number of leaves. Op is the
// operation ("tree_map", "jit", "grad", "fori_loop", …), Pos the caller's
// line and Path where in the tree (".Layers[1].W").
type TreeError struct {
	Op   string
	Pos  trace.Pos
	Path string
	Msg  string
}

func (e *TreeError) Error() string {
	var b strings.Builder
	b.WriteString("kiln: ")
	b.WriteString(e.Op)
	if p := e.Pos.String(); p != "" {
		b.WriteString(" at ")
		b.WriteString(p)
	}
	b.WriteString(": ")
	if e.Path != "" {
		b.WriteString(e.Path)
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// treeError is a *TreeError placed at the caller's line.
func treeError(op, msg string) *TreeError {
	return &TreeError{Op: op, Pos: trace.CallerPos(), Msg: msg}
}

// NewTreeError is a *TreeError for op placed at the user's line (the
// first frame outside Kiln and its libraries): for libraries over trees,
// as optim's tree functions, to report a tree they cannot take.
func NewTreeError(op, msg string) *TreeError { return treeError(op, msg) }

type nodeKind uint8

const (
	nodeValue nodeKind = 1 + iota // a kiln.Value leaf
	nodeArray                     // a *tensor.Array leaf
	nodeStruct
	nodeArrayN // a Go array [n]T
	nodeSlice
	nodeMap
	nodePtr
)

// leafBit is a leaf kind as a bit of typeInfo.leafKinds.
func leafBit(k nodeKind) uint8 { return 1 << k }

var weakType = reflect.TypeFor[WeakArray]()

// typeInfo is what a Go type's tree looks like.
type typeInfo struct {
	t      reflect.Type
	kind   nodeKind
	fields []treeField // a struct's subtrees
	elem   *typeInfo   // an array's, slice's, map's or pointer's
	n      int         // a Go array's length
	err    string      // why t is not a tree; "" when it is

	// static: no slice, map or pointer below, so the leaves are at fixed
	// offsets; leafKinds has a bit per leaf kind among them.
	static    bool
	offsets   []uintptr
	leafKinds uint8

	compat sync.Map // *typeInfo → bool: the same skeleton (sameSkeleton)
}

type treeField struct {
	name string
	off  uintptr
	info *typeInfo
}

var (
	typeMu    sync.Mutex
	typeCache sync.Map // reflect.Type → *typeInfo
)

// infoOf returns t's tree description, worked out on first use.
func infoOf(t reflect.Type) *typeInfo {
	if ti, ok := typeCache.Load(t); ok {
		return ti.(*typeInfo)
	}
	typeMu.Lock()
	defer typeMu.Unlock()
	if ti, ok := typeCache.Load(t); ok {
		return ti.(*typeInfo)
	}
	building := map[reflect.Type]*typeInfo{}
	ti := analyse(t, building)
	// A type's error reaches the types containing it, through cycles too.
	for changed := true; changed; {
		changed = false
		for _, b := range building {
			if b.err != "" {
				continue
			}
			if msg := b.childError(); msg != "" {
				b.err, changed = msg, true
			}
		}
	}
	for _, b := range building {
		if b.err == "" {
			b.static, b.leafKinds = b.isStatic()
			if b.static {
				b.offsets = b.leafOffsets(0, nil)
			}
		}
	}
	for bt, b := range building {
		typeCache.Store(bt, b)
	}
	return ti
}

func analyse(t reflect.Type, building map[reflect.Type]*typeInfo) *typeInfo {
	if ti, ok := typeCache.Load(t); ok {
		return ti.(*typeInfo)
	}
	if ti := building[t]; ti != nil {
		return ti
	}
	ti := &typeInfo{t: t}
	building[t] = ti
	switch {
	case t == valueType:
		ti.kind = nodeValue
	case t == arrayPtrType:
		ti.kind = nodeArray
	case t == weakType:
		ti.err = "a WeakArray is a Run argument, not a tree leaf"
	case t.Kind() == reflect.Struct:
		ti.kind = nodeStruct
		for i := range t.NumField() {
			f := t.Field(i)
			if !f.IsExported() || f.Tag.Get("kiln") == "-" {
				continue
			}
			ti.fields = append(ti.fields, treeField{name: f.Name, off: f.Offset, info: analyse(f.Type, building)})
		}
	case t.Kind() == reflect.Array:
		ti.kind, ti.n, ti.elem = nodeArrayN, t.Len(), analyse(t.Elem(), building)
	case t.Kind() == reflect.Slice:
		ti.kind, ti.elem = nodeSlice, analyse(t.Elem(), building)
	case t.Kind() == reflect.Map:
		ti.kind = nodeMap
		if keyClass(t.Key()) == 0 {
			ti.err = fmt.Sprintf("%s: map keys must be strings or integers, to be sorted", t)
		}
		ti.elem = analyse(t.Elem(), building)
	case t.Kind() == reflect.Pointer:
		ti.kind, ti.elem = nodePtr, analyse(t.Elem(), building)
	default:
		ti.err = fmt.Sprintf("%s is not a kiln.Value, a *tensor.Array or a tree of them", t)
	}
	return ti
}

// childError is the error of a subtree, placed in ti's type.
func (ti *typeInfo) childError() string {
	for _, f := range ti.fields {
		if f.info.err != "" {
			return fmt.Sprintf("field %s.%s: %s", ti.t, f.name, f.info.err)
		}
	}
	if ti.elem != nil && ti.elem.err != "" {
		return fmt.Sprintf("element of %s: %s", ti.t, ti.elem.err)
	}
	return ""
}

// isStatic reports whether ti has no slice, map or pointer below, and the
// leaf kinds in it.
func (ti *typeInfo) isStatic() (bool, uint8) {
	switch ti.kind {
	case nodeValue, nodeArray:
		return true, leafBit(ti.kind)
	case nodeStruct:
		var kinds uint8
		for _, f := range ti.fields {
			s, k := f.info.isStatic()
			if !s {
				return false, 0
			}
			kinds |= k
		}
		return true, kinds
	case nodeArrayN:
		s, k := ti.elem.isStatic()
		if ti.n == 0 {
			k = 0
		}
		return s, k
	}
	return false, 0
}

// leafOffsets appends the offsets of a static tree's leaves.
func (ti *typeInfo) leafOffsets(base uintptr, out []uintptr) []uintptr {
	switch ti.kind {
	case nodeValue, nodeArray:
		return append(out, base)
	case nodeStruct:
		for _, f := range ti.fields {
			out = f.info.leafOffsets(base+f.off, out)
		}
	case nodeArrayN:
		for i := range ti.n {
			out = ti.elem.leafOffsets(base+uintptr(i)*ti.elem.t.Size(), out)
		}
	}
	return out
}

// keyClass sorts map keys: 1 strings, 2 signed and 3 unsigned integers, 0
// anything else.
func keyClass(t reflect.Type) int {
	switch t.Kind() {
	case reflect.String:
		return 1
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return 2
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return 3
	}
	return 0
}

// sameSkeleton reports whether trees of types a and b have the same
// structure whatever their leaves' kinds: Params[kiln.Value] and
// Params[*tensor.Array] do.
func (a *typeInfo) sameSkeleton(b *typeInfo) bool {
	if a == b {
		return true
	}
	if r, ok := a.compat.Load(b); ok {
		return r.(bool)
	}
	r := skeleton(a, b, map[[2]*typeInfo]bool{})
	a.compat.Store(b, r)
	return r
}

func skeleton(a, b *typeInfo, seen map[[2]*typeInfo]bool) bool {
	if a == b {
		return true
	}
	isLeaf := func(k nodeKind) bool { return k == nodeValue || k == nodeArray }
	if isLeaf(a.kind) || isLeaf(b.kind) {
		return isLeaf(a.kind) && isLeaf(b.kind)
	}
	if a.kind != b.kind || a.n != b.n || len(a.fields) != len(b.fields) {
		return false
	}
	pair := [2]*typeInfo{a, b}
	if seen[pair] {
		return true
	}
	seen[pair] = true
	for i, f := range a.fields {
		if f.name != b.fields[i].name || !skeleton(f.info, b.fields[i].info, seen) {
			return false
		}
	}
	if a.kind == nodeMap && keyClass(a.t.Key()) != keyClass(b.t.Key()) {
		return false
	}
	return a.elem == nil || skeleton(a.elem, b.elem, seen)
}

// leafName names a leaf kind in messages.
func leafName(k nodeKind) string {
	if k == nodeValue {
		return "kiln.Value"
	}
	return "*tensor.Array"
}

func leafKindOf[L Leaf]() nodeKind {
	var l L
	if _, ok := any(l).(Value); ok {
		return nodeValue
	}
	return nodeArray
}

// shape is a tree's dynamic structure, in walk order: every slice's and
// map's length (dims) and every map's keys, sorted (keys). With the tree's
// type it determines the tree; a fixed-shape struct has none.
type shape struct {
	dims []int
	keys []string
}

func (s *shape) reset() {
	s.dims = s.dims[:0]
	clear(s.keys)
	s.keys = s.keys[:0]
}

func (s shape) equal(o shape) bool {
	return slices.Equal(s.dims, o.dims) && slices.Equal(s.keys, o.keys)
}

func (s shape) clone() shape { return shape{dims: slices.Clone(s.dims), keys: slices.Clone(s.keys)} }

// flattener collects a tree's leaves of kind L and its shape.
type flattener[L Leaf] struct {
	leaves []L
	shape  shape
	path   []pathNode // the pointers, slices and maps being walked
}

// pathNode is a pointer's target, a slice (its data and length) or a map
// on the path from a tree's root to the node being walked: meeting one
// again is a cycle, and the walk would never end.
type pathNode struct {
	p  unsafe.Pointer
	n  int
	ti *typeInfo
}

// enter pushes a node on the path, or reports a cycle when it is on it.
// The caller pops it (w.path = w.path[:len(w.path)-1]) when done; a walk
// that fails leaves it, and the next walk starts from an empty path.
func (w *flattener[L]) enter(ti *typeInfo, p unsafe.Pointer, n int) *TreeError {
	for _, e := range w.path {
		if e.p == p && e.n == n && e.ti == ti {
			return &TreeError{Msg: fmt.Sprintf("a cycle: this %s is a subtree of itself", ti.t)}
		}
	}
	w.path = append(w.path, pathNode{p, n, ti})
	return nil
}

// walk appends the leaves of the tree of type ti at p. A wrong tree is a
// *TreeError with its Path set and Op left to the caller.
func (w *flattener[L]) walk(ti *typeInfo, p unsafe.Pointer) *TreeError {
	want := leafKindOf[L]()
	if ti.static && ti.leafKinds&^leafBit(want) == 0 {
		for _, off := range ti.offsets {
			w.leaves = append(w.leaves, *(*L)(unsafe.Add(p, off)))
		}
		return nil
	}
	switch ti.kind {
	case nodeValue, nodeArray:
		if ti.kind != want {
			return &TreeError{Msg: fmt.Sprintf("a %s leaf where a %s is wanted", leafName(ti.kind), leafName(want))}
		}
		w.leaves = append(w.leaves, *(*L)(p))
	case nodeStruct:
		for _, f := range ti.fields {
			if err := w.walk(f.info, unsafe.Add(p, f.off)); err != nil {
				err.Path = "." + f.name + err.Path
				return err
			}
		}
	case nodeArrayN:
		for i := range ti.n {
			if err := w.walk(ti.elem, unsafe.Add(p, uintptr(i)*ti.elem.t.Size())); err != nil {
				err.Path = "[" + strconv.Itoa(i) + "]" + err.Path
				return err
			}
		}
	case nodeSlice:
		s := (*sliceHeader)(p)
		w.shape.dims = append(w.shape.dims, s.len)
		if s.len == 0 {
			return nil
		}
		if err := w.enter(ti, s.data, s.len); err != nil {
			return err
		}
		for i := range s.len {
			if err := w.walk(ti.elem, unsafe.Add(s.data, uintptr(i)*ti.elem.t.Size())); err != nil {
				err.Path = "[" + strconv.Itoa(i) + "]" + err.Path
				return err
			}
		}
		w.path = w.path[:len(w.path)-1]
	case nodeMap:
		m := reflect.NewAt(ti.t, p).Elem()
		if m.IsNil() {
			return &TreeError{Msg: fmt.Sprintf("nil %s", ti.t)}
		}
		if err := w.enter(ti, m.UnsafePointer(), 0); err != nil {
			return err
		}
		keys := sortedKeys(m)
		w.shape.dims = append(w.shape.dims, len(keys))
		for _, k := range keys {
			ks := keyString(k)
			w.shape.keys = append(w.shape.keys, ks)
			v := reflect.New(ti.elem.t)
			v.Elem().Set(m.MapIndex(k))
			if err := w.walk(ti.elem, v.UnsafePointer()); err != nil {
				err.Path = "[" + strconv.Quote(ks) + "]" + err.Path
				return err
			}
		}
		w.path = w.path[:len(w.path)-1]
	case nodePtr:
		q := *(*unsafe.Pointer)(p)
		if q == nil {
			return &TreeError{Msg: fmt.Sprintf("nil %s", ti.t)}
		}
		if err := w.enter(ti, q, 0); err != nil {
			return err
		}
		if err := w.walk(ti.elem, q); err != nil {
			return err
		}
		w.path = w.path[:len(w.path)-1]
	}
	return nil
}

// leafPath is the path of leaf k of the tree of type ti at p (".W",
// "[1].B"), for an error about that leaf; "" when there is no such leaf.
func leafPath(ti *typeInfo, p unsafe.Pointer, k *int) (string, bool) {
	switch ti.kind {
	case nodeValue, nodeArray:
		*k--
		return "", *k < 0
	case nodeStruct:
		for _, f := range ti.fields {
			if path, ok := leafPath(f.info, unsafe.Add(p, f.off), k); ok {
				return "." + f.name + path, true
			}
		}
	case nodeArrayN, nodeSlice:
		n, data := ti.n, p
		if ti.kind == nodeSlice {
			s := (*sliceHeader)(p)
			n, data = s.len, s.data
		}
		for i := range n {
			if path, ok := leafPath(ti.elem, unsafe.Add(data, uintptr(i)*ti.elem.t.Size()), k); ok {
				return "[" + strconv.Itoa(i) + "]" + path, true
			}
		}
	case nodeMap:
		m := reflect.NewAt(ti.t, p).Elem()
		for _, key := range sortedKeys(m) {
			v := reflect.New(ti.elem.t)
			v.Elem().Set(m.MapIndex(key))
			if path, ok := leafPath(ti.elem, v.UnsafePointer(), k); ok {
				return "[" + strconv.Quote(keyString(key)) + "]" + path, true
			}
		}
	case nodePtr:
		if q := *(*unsafe.Pointer)(p); q != nil {
			return leafPath(ti.elem, q, k)
		}
	}
	return "", false
}

type sliceHeader struct {
	data     unsafe.Pointer
	len, cap int
}

func sortedKeys(m reflect.Value) []reflect.Value {
	keys := m.MapKeys()
	switch keyClass(m.Type().Key()) {
	case 1:
		slices.SortFunc(keys, func(a, b reflect.Value) int { return strings.Compare(a.String(), b.String()) })
	case 2:
		slices.SortFunc(keys, func(a, b reflect.Value) int { return cmpInt(a.Int(), b.Int()) })
	default:
		slices.SortFunc(keys, func(a, b reflect.Value) int { return cmpInt(a.Uint(), b.Uint()) })
	}
	return keys
}

func cmpInt[T int64 | uint64](a, b T) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func keyString(k reflect.Value) string {
	switch keyClass(k.Type()) {
	case 1:
		return k.String()
	case 2:
		return strconv.FormatInt(k.Int(), 10)
	}
	return strconv.FormatUint(k.Uint(), 10)
}

// keyValue is keyString's inverse for a key of type t.
func keyValue(t reflect.Type, s string) reflect.Value {
	v := reflect.New(t).Elem()
	switch keyClass(t) {
	case 1:
		v.SetString(s)
	case 2:
		i, _ := strconv.ParseInt(s, 10, 64)
		v.SetInt(i)
	default:
		u, _ := strconv.ParseUint(s, 10, 64)
		v.SetUint(u)
	}
	return v
}

// unflattener writes leaves of kind L into a tree of a given shape.
type unflattener[L Leaf] struct {
	leaves []L
	shape  shape
}

// walk fills the tree of type ti at p (zero or of the same shape) with
// the next leaves, making the slices, maps and pointers the shape says.
func (u *unflattener[L]) walk(ti *typeInfo, p unsafe.Pointer) *TreeError {
	want := leafKindOf[L]()
	if ti.static && ti.leafKinds&^leafBit(want) == 0 {
		if len(u.leaves) < len(ti.offsets) {
			return &TreeError{Msg: "too few leaves"}
		}
		for i, off := range ti.offsets {
			*(*L)(unsafe.Add(p, off)) = u.leaves[i]
		}
		u.leaves = u.leaves[len(ti.offsets):]
		return nil
	}
	switch ti.kind {
	case nodeValue, nodeArray:
		if ti.kind != want {
			return &TreeError{Msg: fmt.Sprintf("a %s leaf where a %s is wanted", leafName(want), leafName(ti.kind))}
		}
		if len(u.leaves) == 0 {
			return &TreeError{Msg: "too few leaves"}
		}
		*(*L)(p) = u.leaves[0]
		u.leaves = u.leaves[1:]
	case nodeStruct:
		for _, f := range ti.fields {
			if err := u.walk(f.info, unsafe.Add(p, f.off)); err != nil {
				err.Path = "." + f.name + err.Path
				return err
			}
		}
	case nodeArrayN:
		for i := range ti.n {
			if err := u.walk(ti.elem, unsafe.Add(p, uintptr(i)*ti.elem.t.Size())); err != nil {
				err.Path = "[" + strconv.Itoa(i) + "]" + err.Path
				return err
			}
		}
	case nodeSlice:
		n, ok := u.dim()
		if !ok {
			return &TreeError{Msg: "the structure has no slice here"}
		}
		s := reflect.NewAt(ti.t, p).Elem()
		if s.Len() != n {
			s.Set(reflect.MakeSlice(ti.t, n, n))
		}
		data := s.UnsafePointer()
		for i := range n {
			if err := u.walk(ti.elem, unsafe.Add(data, uintptr(i)*ti.elem.t.Size())); err != nil {
				err.Path = "[" + strconv.Itoa(i) + "]" + err.Path
				return err
			}
		}
	case nodeMap:
		n, ok := u.dim()
		if !ok || len(u.shape.keys) < n {
			return &TreeError{Msg: "the structure has no map here"}
		}
		m := reflect.MakeMapWithSize(ti.t, n)
		for range n {
			k := u.shape.keys[0]
			u.shape.keys = u.shape.keys[1:]
			v := reflect.New(ti.elem.t)
			if err := u.walk(ti.elem, v.UnsafePointer()); err != nil {
				err.Path = "[" + strconv.Quote(k) + "]" + err.Path
				return err
			}
			m.SetMapIndex(keyValue(ti.t.Key(), k), v.Elem())
		}
		reflect.NewAt(ti.t, p).Elem().Set(m)
	case nodePtr:
		q := *(*unsafe.Pointer)(p)
		if q == nil {
			v := reflect.New(ti.elem.t)
			q = v.UnsafePointer()
			reflect.NewAt(ti.t, p).Elem().Set(v)
		}
		return u.walk(ti.elem, q)
	}
	return nil
}

func (u *unflattener[L]) dim() (int, bool) {
	if len(u.shape.dims) == 0 {
		return 0, false
	}
	n := u.shape.dims[0]
	u.shape.dims = u.shape.dims[1:]
	return n, true
}

// treeOf returns the type description of tree — a tree value or a pointer
// to one — and a pointer to its first byte. A tree given by value is
// copied (one allocation); by pointer it is read in place.
func treeOf(tree any) (*typeInfo, unsafe.Pointer, *TreeError) {
	v := reflect.ValueOf(tree)
	if !v.IsValid() {
		return nil, nil, &TreeError{Msg: "a nil tree"}
	}
	t := v.Type()
	if t.Kind() == reflect.Pointer && t != arrayPtrType {
		if v.IsNil() {
			return nil, nil, &TreeError{Msg: fmt.Sprintf("nil %s", t)}
		}
		ti := infoOf(t.Elem())
		if ti.err != "" {
			return nil, nil, &TreeError{Msg: ti.err}
		}
		return ti, v.UnsafePointer(), nil
	}
	ti := infoOf(t)
	if ti.err != "" {
		return nil, nil, &TreeError{Msg: ti.err}
	}
	c := reflect.New(t)
	c.Elem().Set(v)
	return ti, c.UnsafePointer(), nil
}

// TreeDef is a tree's structure without its leaves (jax.tree_util's
// PyTreeDef): its Go type, the lengths of its slices and maps and its
// maps' keys. TreeFlatten returns one; TreeUnflatten builds a tree from
// one and leaves, into any type of the same structure — Params[kiln.Value]
// from the TreeDef of a Params[*tensor.Array].
type TreeDef struct {
	info  *typeInfo
	shape shape
	n     int
}

// NumLeaves is the number of leaves of a tree of this structure.
func (d TreeDef) NumLeaves() int { return d.n }

// Type is the Go type of the tree the TreeDef was taken from.
func (d TreeDef) Type() reflect.Type {
	if d.info == nil {
		return nil
	}
	return d.info.t
}

// Equal reports whether two trees have the same structure, whatever
// their leaves' kinds.
func (d TreeDef) Equal(o TreeDef) bool {
	if d.info == nil || o.info == nil {
		return d.info == o.info
	}
	return d.n == o.n && d.info.sameSkeleton(o.info) && d.shape.equal(o.shape)
}

// String prints the structure with * for each leaf, as JAX prints a
// PyTreeDef: {W:*, B:*}, [*, *], {"a":*}.
func (d TreeDef) String() string {
	if d.info == nil {
		return "<nil>"
	}
	var b strings.Builder
	s := d.shape.clone()
	d.info.print(&b, &s)
	return b.String()
}

func (ti *typeInfo) print(b *strings.Builder, s *shape) {
	next := func() int {
		if len(s.dims) == 0 {
			return 0
		}
		n := s.dims[0]
		s.dims = s.dims[1:]
		return n
	}
	switch ti.kind {
	case nodeValue, nodeArray:
		b.WriteString("*")
	case nodeStruct:
		b.WriteString("{")
		for i, f := range ti.fields {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(f.name + ":")
			f.info.print(b, s)
		}
		b.WriteString("}")
	case nodeArrayN, nodeSlice:
		n := ti.n
		if ti.kind == nodeSlice {
			n = next()
		}
		b.WriteString("[")
		for i := range n {
			if i > 0 {
				b.WriteString(", ")
			}
			ti.elem.print(b, s)
		}
		b.WriteString("]")
	case nodeMap:
		n := next()
		b.WriteString("{")
		for i := range n {
			if i > 0 {
				b.WriteString(", ")
			}
			if len(s.keys) > 0 {
				b.WriteString(strconv.Quote(s.keys[0]) + ":")
				s.keys = s.keys[1:]
			}
			ti.elem.print(b, s)
		}
		b.WriteString("}")
	case nodePtr:
		ti.elem.print(b, s)
	}
}

// flattenTree flattens tree (a value or a pointer to one) into its
// leaves of kind L, for op.
func flattenTree[L Leaf](op string, tree any) ([]L, TreeDef, error) {
	ti, p, err := treeOf(tree)
	if err != nil {
		err.Op, err.Pos = op, trace.CallerPos()
		return nil, TreeDef{}, err
	}
	var w flattener[L]
	if err := w.walk(ti, p); err != nil {
		err.Op, err.Pos = op, trace.CallerPos()
		return nil, TreeDef{}, err
	}
	return w.leaves, TreeDef{info: ti, shape: w.shape, n: len(w.leaves)}, nil
}

// unflattenTree builds a T of def's structure from leaves, for op.
func unflattenTree[T any, L Leaf](op string, def TreeDef, leaves []L) (T, error) {
	var out T
	ti := infoOf(reflect.TypeFor[T]())
	switch {
	case ti.err != "":
		return out, treeError(op, ti.err)
	case def.info == nil:
		return out, treeError(op, "the zero TreeDef")
	case !ti.sameSkeleton(def.info):
		return out, treeError(op, fmt.Sprintf("%s has another structure than %s (%s)", ti.t, def.info.t, def))
	case len(leaves) != def.n:
		return out, treeError(op, fmt.Sprintf("%d leaves for a structure of %d (%s)", len(leaves), def.n, def))
	}
	u := unflattener[L]{leaves: leaves, shape: def.shape}
	if err := u.walk(ti, unsafe.Pointer(&out)); err != nil {
		err.Op, err.Pos = op, trace.CallerPos()
		return out, err
	}
	return out, nil
}

// TreeFlatten returns a tree's leaves, in order (struct fields as
// declared, elements by index, map values by sorted key), and its
// structure (jax.tree_util.tree_flatten). tree is a tree or a pointer to
// one; L is the leaves' kind: TreeFlatten[kiln.Value](p) inside a traced
// function, TreeFlatten[*tensor.Array](&weights) outside. A tree of
// another leaf kind, a nil map or pointer, or a type that is not a tree is
// a *TreeError.
func TreeFlatten[L Leaf](tree any) ([]L, TreeDef, error) {
	return flattenTree[L]("tree_flatten", tree)
}

// TreeLeaves is TreeFlatten's leaves (jax.tree_util.tree_leaves).
func TreeLeaves[L Leaf](tree any) ([]L, error) {
	leaves, _, err := flattenTree[L]("tree_leaves", tree)
	return leaves, err
}

// TreeUnflatten builds a T with def's structure from leaves
// (jax.tree_util.tree_unflatten). T may be another type of the same
// structure than def's — Params[*tensor.Array] from a Params[kiln.Value]'s
// TreeDef — and the leaves' count must be def's.
func TreeUnflatten[T any, L Leaf](def TreeDef, leaves []L) (T, error) {
	return unflattenTree[T]("tree_unflatten", def, leaves)
}

// TreeMap applies f to every leaf of tree and returns the results in a
// tree of the same type and structure (jax.tree_util.tree_map). As a
// builder call it returns no error: when tree cannot be walked (a nil map,
// say) every Value leaf of the result fails the trace it is used in with
// the *TreeError.
func TreeMap[T any](tree T, f func(x Value) Value) T {
	return treeMapN("tree_map", []*T{&tree}, func(xs []Value) Value { return f(xs[0]) })
}

// TreeMap2 applies f to the leaves of a and b pairwise: their structures
// must be equal (slices of one length, maps of the same keys), else every
// leaf of the result fails with a *TreeError.
func TreeMap2[T any](a, b T, f func(x, y Value) Value) T {
	return treeMapN("tree_map", []*T{&a, &b}, func(xs []Value) Value { return f(xs[0], xs[1]) })
}

func treeMapN[T any](op string, trees []*T, f func([]Value) Value) T {
	leaves := make([][]Value, len(trees))
	var def TreeDef
	for i, t := range trees {
		l, d, err := flattenTree[Value](op, t)
		if err == nil && i > 0 && !d.Equal(def) {
			err = treeError(op, fmt.Sprintf("tree %d has structure %s, tree 0 %s", i, d, def))
		}
		if err != nil {
			return failingTree(*trees[0], err)
		}
		leaves[i], def = l, d
	}
	out := make([]Value, def.n)
	xs := make([]Value, len(trees))
	for j := range out {
		for i := range trees {
			xs[i] = leaves[i][j]
		}
		out[j] = f(xs)
	}
	r, err := unflattenTree[T](op, def, out)
	if err != nil {
		return failingTree(*trees[0], err)
	}
	return r
}

// failingTree is like, with every Value leaf it can reach replaced by one
// that fails the trace it is used in with err: a builder call's error.
// like's slices and pointees are copied first, never written.
func failingTree[T any](like T, err error) T {
	ti := infoOf(reflect.TypeFor[T]())
	fillFailure(ti.t, reflect.ValueOf(&like).Elem(), trace.Failure(err), map[reflect.Type]bool{})
	return like
}

func fillFailure(t reflect.Type, v reflect.Value, fail Value, seen map[reflect.Type]bool) {
	if t == valueType {
		v.Set(reflect.ValueOf(fail))
		return
	}
	if seen[t] {
		return
	}
	seen[t] = true
	defer delete(seen, t)
	switch t.Kind() {
	case reflect.Struct:
		for i := range t.NumField() {
			if f := t.Field(i); f.IsExported() && f.Tag.Get("kiln") != "-" {
				fillFailure(f.Type, v.Field(i), fail, seen)
			}
		}
	case reflect.Slice:
		if v.Len() == 0 {
			return
		}
		c := reflect.MakeSlice(t, v.Len(), v.Len())
		reflect.Copy(c, v)
		v.Set(c)
		fallthrough
	case reflect.Array:
		for i := range v.Len() {
			fillFailure(t.Elem(), v.Index(i), fail, seen)
		}
	case reflect.Pointer:
		if v.IsNil() {
			return
		}
		c := reflect.New(t.Elem())
		c.Elem().Set(v.Elem())
		v.Set(c)
		fillFailure(t.Elem(), c.Elem(), fail, seen)
	}
}
