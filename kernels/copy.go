package kernels

import (
	"fmt"
	"slices"
	"unsafe"

	"github.com/kiln-go/kiln/internal/numerics"
	"github.com/kiln-go/kiln/lower"
	"github.com/kiln-go/kiln/trace"
)

// Copy fusions move data without computing: transpose, slice and rev are
// gathers over the output's elements (rev with negative strides),
// concatenate copies rows. The indexing ops are in index.go, scatter.go
// and dynslice.go.

const copyChunk = 1 << 14 // elements per parallel work item

type gatherKernel struct {
	g          *strided
	src, out   int
	n, size    int
	gatherFunc func(dst, src unsafe.Pointer, g *strided, lo, n int)
}

type concatKernel struct {
	srcs       []int
	rowBytes   []int // bytes of one outer row of each operand
	outer, out int
}

func (x *cpuExec) compileCopy(f *lower.Fusion) (kernel, error) {
	root := f.Outputs[0]
	out := x.m.Plan.Of[root]
	size := root.DType.Size()
	switch root.Op {
	case trace.OpTranspose, trace.OpSlice, trace.OpRev:
		arg := root.Args[0]
		st := numerics.RowMajorStrides(arg.Shape)
		g := &strided{shape: append([]int(nil), root.Shape...), strides: make([]int, len(root.Shape))}
		p := root.Params
		for j := range root.Shape {
			switch {
			case root.Op == trace.OpTranspose:
				g.strides[j] = st[p.Perm[j]]
			case root.Op == trace.OpSlice:
				g.strides[j] = st[j] * p.Stride[j]
				g.base += st[j] * p.Start[j]
			case slices.Contains(p.Axes, j): // rev: walk the dim backwards
				g.strides[j] = -st[j]
				g.base += st[j] * (root.Shape[j] - 1)
			default:
				g.strides[j] = st[j]
			}
		}
		g.simplify()
		return &gatherKernel{g: g, src: x.source(arg), out: out, n: root.Size(), size: size, gatherFunc: gatherFn(size)}, nil
	case trace.OpConcat:
		axis := root.Params.Axis
		k := &concatKernel{out: out, outer: 1}
		for _, d := range root.Shape[:axis] {
			k.outer *= d
		}
		inner := 1
		for _, d := range root.Shape[axis+1:] {
			inner *= d
		}
		for _, a := range root.Args {
			k.srcs = append(k.srcs, x.source(a))
			k.rowBytes = append(k.rowBytes, a.Shape[axis]*inner*size)
		}
		return k, nil
	case trace.OpIota:
		return x.compileIota(root)
	case trace.OpGather:
		return x.compileGather(root)
	case trace.OpScatter, trace.OpScatterAdd, trace.OpScatterMul, trace.OpScatterMin, trace.OpScatterMax:
		return x.compileScatter(root)
	case trace.OpDynamicSlice:
		return x.compileDynamicSlice(root)
	case trace.OpDynamicUpdateSlice:
		return x.compileDynamicUpdate(root)
	case trace.OpSort:
		return x.compileSort(root)
	}
	return nil, fmt.Errorf("kernels: cpu has no copy kernel for %s", root.Op)
}

func (k *gatherKernel) run(x *cpuExec, rs *runState) {
	x.parallel(rs, (k.n+copyChunk-1)/copyChunk, k.n, k)
}

func (k *gatherKernel) runRange(rs *runState, _ *worker, lo, hi int) {
	dst, src := rs.srcs[k.out], rs.srcs[k.src]
	for c := lo; c < hi; c++ {
		start := c * copyChunk
		n := min(copyChunk, k.n-start)
		k.gatherFunc(unsafe.Add(dst, start*k.size), src, k.g, start, n)
	}
}

func (k *concatKernel) run(x *cpuExec, rs *runState) {
	outRow := 0
	for _, b := range k.rowBytes {
		outRow += b
	}
	x.parallel(rs, k.outer, k.outer*outRow/8, k)
}

func (k *concatKernel) runRange(rs *runState, _ *worker, lo, hi int) {
	outRow := 0
	for _, b := range k.rowBytes {
		outRow += b
	}
	dst := rs.srcs[k.out]
	for o := lo; o < hi; o++ {
		off := o * outRow
		for i, src := range k.srcs {
			n := k.rowBytes[i]
			if n > 0 {
				copy(view[byte](unsafe.Add(dst, off), n), view[byte](unsafe.Add(rs.srcs[src], o*n), n))
			}
			off += n
		}
	}
}
