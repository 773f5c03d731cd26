package onnx

import (
	"math"
	"slices"

	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// Indexing. Every gather, scatter and dynamic slice is made of flat
// element indices into the flattened operand, computed with integer
// arithmetic in i64: the start index vector's contribution (each start
// clamped so the window fits, or tested for fitting in mode fill/drop),
// the batching dims', and a constant of the window offsets. A gather is
// then ONNX's Gather on the flat operand; a scatter is ScatterElements
// on it, with one extra element at the end that dropped updates are
// sent to and which is sliced off after (ScatterElements applies the
// updates in row-major order, as Kiln does).

// strides are the row-major strides of shape.
func strides(shape []int) []int {
	st := make([]int, len(shape))
	s := 1
	for i := len(shape) - 1; i >= 0; i-- {
		st[i] = s
		s *= shape[i]
	}
	return st
}

// forEach calls f with every coordinate of shape in row-major order.
func forEach(shape []int, f func([]int)) {
	n := trace.ShapeSize(shape)
	c := make([]int, len(shape))
	for range n {
		f(c)
		for i := len(c) - 1; i >= 0; i-- {
			c[i]++
			if c[i] < shape[i] {
				break
			}
			c[i] = 0
		}
	}
}

// constGrid is an i64 constant of shape with element f(coordinate).
func (b *builder) constGrid(shape []int, f func([]int) int64) string {
	vals := make([]int64, 0, trace.ShapeSize(shape))
	forEach(shape, func(c []int) { vals = append(vals, f(c)) })
	a, _ := tensor.FromSlice(vals, shape...)
	return b.must(a)
}

// toI64 converts an index of dtype d to i64 exactly, u64 values beyond
// i64's range becoming MaxInt64 (they are clamped or out of range anyway).
func (b *builder) toI64(v string, d tensor.DType) string {
	w := b.castIf(v, d, tensor.I64)
	if d == tensor.U64 {
		w = b.where(b.op2("Less", w, b.scalarI(tensor.I64, 0)), b.scalarI(tensor.I64, math.MaxInt64), w, tensor.I64)
	}
	return w
}

// window is where a gather's results or a scatter's updates go: pos is
// the result/updates shape, winPos its dims that walk the window along
// the operand dims winDims; the other dims of pos are the batch dims,
// the indices' dims but the last in order.
type window struct {
	operand, win      []int // operand shape, window size per operand dim
	pos               []int
	winPos, winDims   []int
	startMap          []int
	opBatch, idxBatch []int
	indices           string
	idxType           tensor.DType
	idxShape          []int
}

// flat returns, as i64 tensors of the pos shape's rank (size 1 in the
// broadcast dims), the flat operand index of every position and whether
// its window fits (before clamping).
func (x *instr) flat(w *window) (idx, fits string) {
	batch := w.idxShape[:len(w.idxShape)-1]
	st := strides(w.operand)
	// The start vectors' part, over the batch shape.
	var sum string
	fits = ""
	for j, d := range w.startMap {
		s := x.toI64(x.op2("Gather", w.indices, x.scalarI(tensor.I64, int64(j)), aInt("axis", int64(len(w.idxShape)-1))), w.idxType)
		hi := x.scalarI(tensor.I64, int64(w.operand[d]-w.win[d]))
		zero := x.scalarI(tensor.I64, 0)
		ok := x.op2("And", x.op2("GreaterOrEqual", s, zero), x.op1("Not", x.op2("Greater", s, hi)))
		if fits == "" {
			fits = ok
		} else {
			fits = x.op2("And", fits, ok)
		}
		clamped := x.clampI64(s, zero, hi)
		term := x.op2("Mul", clamped, x.scalarI(tensor.I64, int64(st[d])))
		if sum == "" {
			sum = term
		} else {
			sum = x.op2("Add", sum, term)
		}
	}
	if len(w.opBatch) > 0 {
		bt := x.constGrid(batch, func(g []int) int64 {
			v := int64(0)
			for j, d := range w.opBatch {
				v += int64(g[w.idxBatch[j]] * st[d])
			}
			return v
		})
		if sum == "" {
			sum = bt
		} else {
			sum = x.op2("Add", sum, bt)
		}
	}
	if sum == "" {
		sum = x.constGrid(batch, func([]int) int64 { return 0 })
	}
	if fits == "" {
		fits = x.op2("Equal", sum, sum) // all true
	}
	// Into the positions' rank: batch dims where they are, 1 at window dims.
	bshape := make([]int, len(w.pos))
	wshape := make([]int, len(w.pos))
	k := 0
	for i := range w.pos {
		if slices.Contains(w.winPos, i) {
			bshape[i], wshape[i] = 1, w.pos[i]
		} else {
			bshape[i], wshape[i] = batch[k], 1
			k++
		}
	}
	sum, fits = x.reshape(sum, bshape), x.reshape(fits, bshape)
	off := x.constGrid(wshape, func(c []int) int64 {
		v := int64(0)
		for j, p := range w.winPos {
			v += int64(c[p] * st[w.winDims[j]])
		}
		return v
	})
	return x.op2("Add", sum, off), fits
}

func (x *instr) gather(args []string) (string, error) {
	in := x.in
	ip := in.Params.Index
	dims := ip.Gather
	operand := in.Args[0].Shape
	w := &window{operand: operand, win: ip.SliceSizes, pos: in.Shape, winPos: dims.OffsetDims,
		winDims:  trace.WindowDims(len(operand), dims.CollapsedSliceDims, dims.OperandBatchingDims),
		startMap: dims.StartIndexMap, opBatch: dims.OperandBatchingDims, idxBatch: dims.StartIndicesBatchingDims,
		indices: args[1], idxType: in.Args[1].DType, idxShape: in.Args[1].Shape}
	if trace.ShapeSize(operand) == 0 || trace.ShapeSize(in.Shape) == 0 {
		if ip.Mode == trace.ModeFill && in.Params.Value != nil {
			fill, err := x.constant(in.Params.Value)
			if err != nil {
				return "", err
			}
			return x.expand(x.reshape(fill, []int{}), in.DType, in.Shape), nil
		}
		return x.zeros(in.DType, in.Shape), nil
	}
	idx, fits := x.flat(w)
	idx = x.op2("Add", idx, x.zeros(tensor.I64, in.Shape)) // to the full shape
	r := x.op2("Gather", x.reshape(args[0], []int{trace.ShapeSize(operand)}), idx, aInt("axis", 0))
	if ip.Mode == trace.ModeFill {
		fill, err := x.constant(in.Params.Value)
		if err != nil {
			return "", err
		}
		r = x.where(x.op2("And", fits, x.falsesNot()), r, x.reshape(fill, []int{}), in.DType)
	}
	return r, nil
}

// falsesNot is an all-true bool of the instruction's shape (to broadcast
// a mask to it).
func (x *instr) falsesNot() string { return x.op1("Not", x.falses()) }

func (x *instr) scatter(args []string) (string, error) {
	in := x.in
	op := in.Op
	ip := in.Params.Index
	dims := ip.Scatter
	operand, ushape := in.Args[0].Shape, in.Args[2].Shape
	d := in.DType
	n := trace.ShapeSize(operand)
	if n == 0 || trace.ShapeSize(ushape) == 0 {
		return x.op1("Identity", args[0]), nil
	}
	reduction := map[trace.Op]string{trace.OpScatter: "none", trace.OpScatterAdd: "add", trace.OpScatterMul: "mul",
		trace.OpScatterMax: "max", trace.OpScatterMin: "min"}[op]
	switch {
	case d == tensor.Bool && (op == trace.OpScatterAdd || op == trace.OpScatterMax):
		reduction = "max" // or
	case d == tensor.Bool && (op == trace.OpScatterMul || op == trace.OpScatterMin):
		reduction = "min" // and
	case d.IsFloat() && (op == trace.OpScatterMax || op == trace.OpScatterMin):
		return "", refuse("ScatterElements' max/min reduction is not IEEE maximum/minimum (NaN, ±0)")
	case (d == tensor.F16 || d == tensor.BF16) && reduction != "none":
		return "", refuse("ONNX Runtime's ScatterElements has no %s kernel, and f32 would round once where Kiln rounds after every update", d)
	}
	w := &window{operand: operand, win: trace.ScatterWindow(len(operand), ushape, dims), pos: ushape, winPos: dims.UpdateWindowDims,
		winDims:  trace.WindowDims(len(operand), dims.InsertedWindowDims, dims.OperandBatchingDims),
		startMap: dims.ScatterDimsToOperandDims, opBatch: dims.OperandBatchingDims, idxBatch: dims.ScatterIndicesBatchingDims,
		indices: args[1], idxType: in.Args[1].DType, idxShape: in.Args[1].Shape}
	idx, fits := x.flat(w)
	full := x.zeros(tensor.I64, ushape)
	idx = x.op2("Add", idx, full)
	if ip.Mode != trace.ModeClip { // a window that does not fit is dropped: sent past the end
		idx = x.where(x.op2("And", fits, x.op2("Equal", full, full)), idx, x.scalarI(tensor.I64, int64(n)), tensor.I64)
	}
	c := d
	if d == tensor.Bool {
		c = tensor.U8
	}
	data := x.castIf(x.reshape(args[0], []int{n}), d, c)
	data = x.add("Concat", []string{data, x.castIf(x.reshape(x.zeros(d, []int{1}), []int{1}), d, c)}, aInt("axis", 0))
	u := x.castIf(x.reshape(args[2], []int{trace.ShapeSize(ushape)}), d, c)
	r := x.add("ScatterElements", []string{data, x.reshape(idx, []int{trace.ShapeSize(ushape)}), u},
		aInt("axis", 0), aStr("reduction", reduction))
	r = x.slice(r, 0, 0, n)
	return x.castIf(x.reshape(r, operand), c, d), nil
}

// dynamicStarts are the clamped starts of a window of sizes, as a 1-D
// i64 tensor.
func (x *instr) dynamicStarts(starts []string, types []tensor.DType, operand, sizes []int) string {
	parts := make([]string, len(starts))
	for i, s := range starts {
		v := x.toI64(s, types[i])
		v = x.clampI64(v, x.scalarI(tensor.I64, 0), x.scalarI(tensor.I64, int64(operand[i]-sizes[i])))
		parts[i] = x.reshape(v, []int{1})
	}
	if len(parts) == 1 {
		return parts[0]
	}
	return x.add("Concat", parts, aInt("axis", 0))
}

func (x *instr) dynamicSlice(args []string) string {
	in := x.in
	operand := in.Args[0].Shape
	if len(operand) == 0 {
		return x.op1("Identity", args[0])
	}
	types := make([]tensor.DType, len(args)-1)
	for i := range types {
		types[i] = in.Args[1+i].DType
	}
	sizes := in.Params.Index.SliceSizes
	starts := x.dynamicStarts(args[1:], types, operand, sizes)
	ends := x.op2("Add", starts, x.ints(i64s(sizes)...))
	return x.add("Slice", []string{args[0], starts, ends})
}

func (x *instr) dynamicUpdateSlice(args []string) string {
	in := x.in
	operand, us := in.Args[0].Shape, in.Args[1].Shape
	n, m := trace.ShapeSize(operand), trace.ShapeSize(us)
	if len(operand) == 0 {
		return x.op1("Identity", args[1])
	}
	if n == 0 || m == 0 {
		return x.op1("Identity", args[0])
	}
	types := make([]tensor.DType, len(args)-2)
	for i := range types {
		types[i] = in.Args[2+i].DType
	}
	starts := x.dynamicStarts(args[2:], types, operand, us)
	st := strides(operand)
	base := x.op2("Mul", starts, x.ints(i64s(st)...))
	base = x.op2("ReduceSum", base, x.ints(0), aInt("keepdims", 0)) // a few small products: exact
	off := x.constGrid(us, func(c []int) int64 {
		v := int64(0)
		for i, ci := range c {
			v += int64(ci * st[i])
		}
		return v
	})
	idx := x.reshape(x.op2("Add", off, base), []int{m})
	d := in.DType
	c := d
	if d == tensor.Bool {
		c = tensor.U8
	}
	r := x.add("ScatterElements", []string{x.castIf(x.reshape(args[0], []int{n}), d, c), idx, x.castIf(x.reshape(args[1], []int{m}), d, c)}, aInt("axis", 0))
	return x.castIf(x.reshape(r, operand), c, d)
}

// clampI64 is min(max(v, lo), hi) with selects (ONNX Runtime's i64 Max
// and Min gave wrong results for values beyond 2^31 in testing).
func (b *builder) clampI64(v, lo, hi string) string {
	v = b.where(b.op2("Less", v, lo), lo, v, tensor.I64)
	return b.where(b.op2("Greater", v, hi), hi, v, tensor.I64)
}
