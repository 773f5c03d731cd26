package kernels

import (
	"unsafe"

	"github.com/kiln-go/kiln/lower"
)

// loopKernel runs a loop fusion: the body over the output's elements,
// block by block, blocks split across workers for large outputs.
type loopKernel struct {
	body  *body
	n     int
	out   int     // buffer of the result
	store unaryFn // narrows the result into the buffer; nil if written in place
	size  int     // bytes per stored element
	// stream: the body is one step from buffers to the output buffer, so a
	// worker runs its whole range as one block (no per-block calls, and a
	// streaming-store kernel fences once).
	stream bool
}

// streamChunk bounds the elements of one streaming call: an assembly loop
// cannot be preempted, so a GC waits for it to return (1M elements take
// tens of microseconds).
var streamChunk = 1 << 20 // a variable for the tests

func (x *cpuExec) compileLoop(f *lower.Fusion) (kernel, error) {
	root := f.Outputs[0]
	perm := make([]int, len(root.Shape))
	for i := range perm {
		perm[i] = i
	}
	out := x.m.Plan.Of[root]
	dst := loc{kind: locBuf, idx: out, size: root.DType.Size()}
	block := min(x.cpu.opts.Block, max(root.Size(), 1)) // a small loop needs small registers
	b, err := compileBody(f, root, root.Shape, perm, block, x.source, dst)
	if err != nil {
		return nil, err
	}
	k := &loopKernel{body: b, n: root.Size(), out: out, size: root.DType.Size()}
	fo := x.cpu.fuseOptions()
	fo.out, fo.nt = dst, root.Size()*root.DType.Size() >= x.cpu.ntMin
	if b.out != dst {
		if k.store = narrowFn(root.DType); k.store == nil {
			k.store = copyFn(root.DType)
		}
		b.dropFinalRound(root.DType, fo)
	}
	b.fuse(fo)
	if k.store != nil && b.fuseStore(root.DType, dst, fo) {
		k.store = nil
	}
	k.stream = k.store == nil && b.streams()
	return k, nil
}

func (k *loopKernel) run(x *cpuExec, rs *runState) {
	block := k.body.block
	nblocks := (k.n + block - 1) / block
	x.parallel(rs, nblocks, k.n, k)
}

func (k *loopKernel) runRange(rs *runState, w *worker, lo, hi int) {
	block := k.body.block
	w.prepare(k.body, rs.srcs)
	if k.stream {
		end := min(hi*block, k.n)
		for start := lo * block; start < end; start += streamChunk {
			w.eval(k.body, rs.srcs, start, min(streamChunk, end-start))
		}
		return
	}
	for b := lo; b < hi; b++ {
		start := b * block
		n := min(block, k.n-start)
		res := w.eval(k.body, rs.srcs, start, n)
		if k.store != nil {
			k.store(unsafe.Add(rs.srcs[k.out], start*k.size), res, n)
		}
	}
}
