package trace_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// randGather draws gather dimension numbers, slice sizes and shapes (an
// operand of rank 1–3, index batch dims, an operand batching dim paired
// with one of them now and then), valid by GatherShape.
func randGather(r *rand.Rand) (operand, indices []int, d trace.GatherDims, sizes, out []int, ok bool) {
	rank := 1 + r.IntN(3)
	operand = make([]int, rank)
	for i := range operand {
		operand[i] = 1 + r.IntN(4)
	}
	batchDim := -1
	if r.IntN(3) == 0 {
		batchDim = r.IntN(rank)
	}
	var free []int
	for i := range rank {
		if i != batchDim {
			free = append(free, i)
		}
	}
	r.Shuffle(len(free), func(i, j int) { free[i], free[j] = free[j], free[i] })
	d.StartIndexMap = free[:r.IntN(len(free)+1)]
	sizes = make([]int, rank)
	for i := range sizes {
		sizes[i] = 1 + r.IntN(operand[i])
	}
	for _, s := range d.StartIndexMap {
		if r.IntN(2) == 0 {
			d.CollapsedSliceDims = append(d.CollapsedSliceDims, s)
			sizes[s] = 1
		}
	}
	slices.Sort(d.CollapsedSliceDims)
	nb := r.IntN(3)
	batch := make([]int, nb)
	for i := range batch {
		batch[i] = 1 + r.IntN(3)
	}
	if batchDim >= 0 {
		at := r.IntN(nb + 1)
		batch = slices.Insert(batch, at, operand[batchDim])
		d.OperandBatchingDims, d.StartIndicesBatchingDims = []int{batchDim}, []int{at}
		sizes[batchDim] = 1
	}
	window := rank - len(d.CollapsedSliceDims) - len(d.OperandBatchingDims)
	outRank := len(batch) + window
	pos := r.Perm(outRank)[:window]
	slices.Sort(pos)
	d.OffsetDims = pos
	indices = append(slices.Clone(batch), len(d.StartIndexMap))
	out, msg := trace.GatherShape(operand, indices, d, sizes)
	return operand, indices, d, sizes, out, msg == ""
}

// batchedInput draws an argument of shape s batched along a random axis
// among 0, 1, −1 and NoAxis (or NoAxis when noAxis is set), with
// elements from draw.
func batchedInput(r *rand.Rand, s []int, size int, draw func(shape ...int) *tensor.Array) (int, *tensor.Array) {
	choices := []int{0, -1, none}
	if len(s) > 0 {
		choices = append(choices, 1)
	}
	ax := choices[r.IntN(len(choices))]
	if ax == none {
		return ax, draw(s...)
	}
	at := ax
	if at < 0 {
		at += len(s) + 1
	}
	return ax, draw(slices.Insert(slices.Clone(s), at, size)...)
}

// axesText prints in_axes, NoAxis as JAX's None.
func axesText(axes []int) string {
	s := make([]string, len(axes))
	for i, a := range axes {
		s[i] = fmt.Sprint(a)
		if a == none {
			s[i] = "None"
		}
	}
	return "(" + strings.Join(s, ",") + ")"
}

// TestVmapIndexProperty draws gathers and scatters with random dimension
// numbers (operand batching dims included), modes, index dtypes with
// values past both ends, and in_axes: the vmapped op equals the stacked
// examples bit for bit.
func TestVmapIndexProperty(t *testing.T) {
	scatters := []trace.Op{trace.OpScatter, trace.OpScatterAdd, trace.OpScatterMul, trace.OpScatterMin, trace.OpScatterMax}
	for seed := range uint64(400) {
		r := rand.New(rand.NewPCG(seed, 99))
		operand, indices, d, sizes, out, ok := randGather(r)
		if !ok {
			continue
		}
		size := 1 + r.IntN(3)
		idt := []tensor.DType{tensor.I32, tensor.I64, tensor.I16, tensor.U8}[r.IntN(4)]
		lo := -2
		if idt.IsUnsigned() {
			lo = 0
		}
		hi := slices.Max(operand) + 1
		f32 := func(shape ...int) *tensor.Array { return randArray(r, tensor.F32, shape...) }
		ints := func(shape ...int) *tensor.Array { return randInts(r, idt, lo, hi, shape...) }
		mode := []trace.IndexMode{trace.ModeClip, trace.ModeFill}[r.IntN(2)]
		axes := make([]int, 3)
		ins := make([]*tensor.Array, 3)
		axes[0], ins[0] = batchedInput(r, operand, size, f32)
		axes[1], ins[1] = batchedInput(r, indices, size, ints)
		axes[2], ins[2] = batchedInput(r, out, size, f32)
		scatter := r.IntN(2) == 0
		if !scatter {
			axes, ins = axes[:2], ins[:2]
		}
		if !slices.ContainsFunc(axes, func(a int) bool { return a != none }) {
			axes[0], ins[0] = 0, f32(slices.Insert(slices.Clone(operand), 0, size)...)
		}
		var fn func([]V) []V
		var name string
		if scatter {
			op := scatters[r.IntN(len(scatters))]
			sd := trace.ScatterDimsOf(d)
			name = fmt.Sprintf("seed %d %s %+v mode %s in_axes %s", seed, op, sd, mode, axesText(axes))
			fn = oneOut(func(a []V) V { return trace.Scatter(op, a[0], a[1], a[2], sd, trace.WithMode(mode)) })
		} else {
			name = fmt.Sprintf("seed %d gather %+v sizes %v mode %s in_axes %s", seed, d, sizes, mode, axesText(axes))
			fn = oneOut(func(a []V) V { return trace.Gather(a[0], a[1], d, sizes, trace.WithMode(mode)) })
		}
		t.Run(name, func(t *testing.T) { checkVmap(t, fn, trace.VmapOptions{InAxes: axes}, ins...) })
	}
}

// TestVmapDynamicSliceProperty draws dynamic slices and updates of random
// shapes and windows, starts of random integer dtypes (each its own)
// reaching past both ends, and random in_axes: the vmapped op equals the
// stacked examples bit for bit.
func TestVmapDynamicSliceProperty(t *testing.T) {
	dtypes := []tensor.DType{tensor.I32, tensor.I64, tensor.I8, tensor.U8, tensor.U32, tensor.U64}
	for seed := range uint64(300) {
		r := rand.New(rand.NewPCG(seed, 101))
		rank := r.IntN(4)
		shape, window := make([]int, rank), make([]int, rank)
		for i := range shape {
			shape[i] = 1 + r.IntN(4)
			window[i] = r.IntN(shape[i] + 1)
		}
		size := 1 + r.IntN(3)
		f32 := func(shape ...int) *tensor.Array { return randArray(r, tensor.F32, shape...) }
		axes := make([]int, 0, rank+2)
		var ins []*tensor.Array
		add := func(s []int, draw func(shape ...int) *tensor.Array) {
			ax, a := batchedInput(r, s, size, draw)
			axes, ins = append(axes, ax), append(ins, a)
		}
		add(shape, f32)
		update := r.IntN(2) == 0
		if update {
			add(window, f32)
		}
		first := len(ins)
		for i := range rank {
			dt := dtypes[r.IntN(len(dtypes))]
			lo := -shape[i] - 2
			if dt.IsUnsigned() {
				lo = 0
			}
			add(nil, func(s ...int) *tensor.Array { return randInts(r, dt, lo, shape[i]+2, s...) })
		}
		if !slices.ContainsFunc(axes, func(a int) bool { return a != none }) {
			axes[0], ins[0] = 0, f32(slices.Insert(slices.Clone(shape), 0, size)...)
		}
		fn := oneOut(func(a []V) V {
			if update {
				return trace.DynamicUpdateSlice(a[0], a[1], a[first:])
			}
			return trace.DynamicSlice(a[0], a[first:], window)
		})
		name := fmt.Sprintf("seed %d shape %v window %v update %v in_axes %s", seed, shape, window, update, axesText(axes))
		t.Run(name, func(t *testing.T) { checkVmap(t, fn, trace.VmapOptions{InAxes: axes}, ins...) })
	}
}
