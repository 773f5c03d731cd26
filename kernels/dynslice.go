package kernels

import (
	"unsafe"

	"github.com/kiln-go/kiln/internal/numerics"
	"github.com/kiln-go/kiln/lower"
	"github.com/kiln-go/kiln/tensor"
)

// dynamicStarts reads the scalar starts of a dynamic slice at run time and
// clamps them so the window fits, as XLA does: the flat operand offset of
// the window.
type dynamicStarts struct {
	srcs    []int
	dts     []tensor.DType
	operand []int
	window  []int
	st      []int
	check   *indexCheck // checked mode: report a start that does not fit
}

func newDynamicStarts(x *cpuExec, operand *lower.Instr, starts []*lower.Instr, window []int) dynamicStarts {
	d := dynamicStarts{operand: operand.Shape, window: window, st: numerics.RowMajorStrides(operand.Shape)}
	for _, s := range starts {
		d.srcs, d.dts = append(d.srcs, x.source(s)), append(d.dts, s.DType)
	}
	return d
}

func (d *dynamicStarts) offset(rs *runState) int {
	off := 0
	for i, src := range d.srcs {
		v := loadIndex(rs.srcs[src], d.dts[i], 0)
		s, ok := clampStart(v, d.operand[i], d.window[i])
		if !ok && d.check != nil {
			d.check.report(rs, i, v, i)
			return 0 // the Run fails; offset 0 keeps the copy in bounds
		}
		off += s * d.st[i]
	}
	return off
}

// dynamicSliceKernel copies the window: a strided gather from the source
// shifted to the run's offset, which it keeps in per-run scratch.
type dynamicSliceKernel struct {
	starts   dynamicStarts
	g        *strided
	src, out int
	n, size  int
	gather   func(dst, src unsafe.Pointer, g *strided, lo, n int)
	slot     int
}

func (x *cpuExec) compileDynamicSlice(root *lower.Instr) (kernel, error) {
	operand := root.Args[0]
	st := numerics.RowMajorStrides(operand.Shape)
	g := &strided{shape: append([]int(nil), root.Shape...), strides: st}
	g.simplify()
	k := &dynamicSliceKernel{starts: newDynamicStarts(x, operand, root.Args[1:], root.Shape), g: g, slot: x.newSlot(),
		src: x.source(operand), out: x.m.Plan.Of[root], n: root.Size(), size: root.DType.Size(), gather: gatherFn(root.DType.Size())}
	k.starts.check = x.indexCheck(root, operand)
	return k, nil
}

func (k *dynamicSliceKernel) offset(rs *runState) *int {
	return (*int)(unsafe.Pointer(unsafe.SliceData(rs.slotBytes(k.slot, 0, 8))))
}

func (k *dynamicSliceKernel) run(x *cpuExec, rs *runState) {
	if k.n == 0 {
		return
	}
	*k.offset(rs) = k.starts.offset(rs)
	if rs.chk != nil && rs.chk.failed.Load() {
		return
	}
	x.parallel(rs, (k.n+copyChunk-1)/copyChunk, k.n, k)
}

func (k *dynamicSliceKernel) runRange(rs *runState, _ *worker, lo, hi int) {
	dst, src := rs.srcs[k.out], unsafe.Add(rs.srcs[k.src], *k.offset(rs)*k.size)
	for c := lo; c < hi; c++ {
		start := c * copyChunk
		k.gather(unsafe.Add(dst, start*k.size), src, k.g, start, min(copyChunk, k.n-start))
	}
}

// dynamicUpdateKernel copies the operand, then the update into the window
// row by row.
type dynamicUpdateKernel struct {
	starts  dynamicStarts
	copy    copyJob
	upd     int
	out     int
	us      []int // update shape
	st      []int // operand strides
	size    int
	rowSize int // bytes of one row of the update's last dim
	rows    int
}

func (x *cpuExec) compileDynamicUpdate(root *lower.Instr) (kernel, error) {
	operand, update := root.Args[0], root.Args[1]
	k := &dynamicUpdateKernel{starts: newDynamicStarts(x, operand, root.Args[2:], update.Shape), upd: x.source(update),
		out: x.m.Plan.Of[root], us: update.Shape, st: numerics.RowMajorStrides(operand.Shape), size: root.DType.Size()}
	k.copy = copyJob{dst: k.out, src: x.source(operand), n: root.Size() * k.size}
	k.starts.check = x.indexCheck(root, operand)
	if r := len(update.Shape); r > 0 && update.Size() > 0 {
		k.rowSize, k.rows = update.Shape[r-1]*k.size, update.Size()/update.Shape[r-1]
	} else if update.Size() > 0 {
		k.rowSize, k.rows = k.size, 1
	}
	return k, nil
}

func (k *dynamicUpdateKernel) run(x *cpuExec, rs *runState) {
	k.copy.run(x, rs)
	if k.rows == 0 {
		return
	}
	dst := unsafe.Add(rs.srcs[k.out], k.starts.offset(rs)*k.size)
	if rs.chk != nil && rs.chk.failed.Load() {
		return
	}
	src := rs.srcs[k.upd]
	r := len(k.us)
	var idxBuf [maxRank]int
	idx := idxBuf[:0]
	if r > maxRank {
		idx = make([]int, 0, r)
	}
	idx = idx[:max(r-1, 0)]
	for row := range k.rows {
		off := 0
		for j, c := range idx {
			off += c * k.st[j]
		}
		copy(view[byte](unsafe.Add(dst, off*k.size), k.rowSize), view[byte](unsafe.Add(src, row*k.rowSize), k.rowSize))
		for j := len(idx) - 1; j >= 0; j-- {
			if idx[j]++; idx[j] < k.us[j] {
				break
			}
			idx[j] = 0
		}
	}
}
