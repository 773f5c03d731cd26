package kernels

import (
	"unsafe"

	"github.com/kiln-go/kiln/internal/simd"
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
	// nt: the body's result lands in a register and is streamed to the
	// output with non-temporal stores (simd.StreamCopy), fenced once per
	// worker range.
	nt bool
	// ahead: the buffers the body reads element by element, whose next
	// block a worker prefetches before computing the current one.
	ahead []loc
}

// streamChunk bounds the elements of one streaming call: an assembly loop
// cannot be preempted, so a GC waits for it to return (1M elements take
// tens of microseconds).
var streamChunk = 1 << 20 // a variable for the tests

func (x *cpuExec) compileLoop(f *lower.Fusion) (kernel, error) {
	if len(f.Outputs) > 1 {
		return x.compileMultiLoop(f)
	}
	root := f.Outputs[0]
	out := x.m.Plan.Of[root]
	dst := loc{kind: locBuf, idx: out, size: root.DType.Size()}
	nt := root.Size()*root.DType.Size() >= x.cpu.ntMin
	b, store, fo, err := x.loopBody(f, x.source, dst, nt)
	if err != nil {
		return nil, err
	}
	k := &loopKernel{body: b, n: root.Size(), out: out, size: root.DType.Size(), store: store}
	k.stream = k.store == nil && b.streams()
	switch {
	case !fo.nt || k.stream || k.store != nil || b.transcendental():
		// Streaming stores pay off where the loop waits on memory; a body
		// of transcendentals is compute-bound, and E3 (six of them) ran
		// 5-8% slower with them in interleaved runs. A streaming body
		// (one step from buffers to the output, in large chunks) keeps its
		// plain stores: x16*y16 on 16M elements (BenchmarkMulF16) took
		// 1.4-1.6 ms so, and 1.8-2.2 ms through a register and StreamCopy.
	case b.storeNT(dst):
		k.nt = true
	case b.streamOut(dst):
		k.store, k.nt = streamStore(k.size), true
	}
	k.ahead = b.reads()
	return k, nil
}

// loopBody compiles loop fusion f's body, writing its result to buffer
// location dst (reading its inputs from source), through the peephole
// passes; store, when not nil, narrows the body's result into dst. nt
// lets the peephole pass pick non-temporal stores.
func (x *cpuExec) loopBody(f *lower.Fusion, source sourceFn, dst loc, nt bool) (*body, unaryFn, peepholeOptions, error) {
	root := f.Outputs[0]
	perm := make([]int, len(root.Shape))
	for i := range perm {
		perm[i] = i
	}
	block := min(x.cpu.opts.Block, max(root.Size(), 1)) // a small loop needs small registers
	b, err := compileBody(f, root, root.Shape, perm, block, source, dst, dst.kind == locBuf)
	if err != nil {
		return nil, nil, peepholeOptions{}, err
	}
	store, fo := x.finishLoopBody(b, root, dst, nt)
	return b, store, fo, nil
}

// finishLoopBody runs the peephole passes over loop body b computing root
// into dst, and returns the store narrowing its result into dst (nil when
// the body writes it there).
func (x *cpuExec) finishLoopBody(b *body, root *lower.Instr, dst loc, nt bool) (unaryFn, peepholeOptions) {
	var store unaryFn
	fo := x.cpu.peepholeOptions()
	fo.out, fo.nt = dst, nt
	d := root.DType
	if b.raw {
		d = rawDType(d) // the body carries bits
	}
	if b.out != dst {
		if store = narrowFn(d); store == nil {
			store = copyFn(d)
		}
		b.dropFinalRound(d, fo)
	}
	b.peephole(fo)
	x.checkBody(b)
	if store != nil && b.fuseStore(d, dst, fo) {
		store = nil
	}
	b.fuseWiden(fo)
	b.fuseIntWiden(fo)
	return store, fo
}

func (k *loopKernel) run(x *cpuExec, rs *runState) {
	block := k.body.block
	nblocks := (k.n + block - 1) / block
	x.parallel(rs, nblocks, k.n, k)
}

func (k *loopKernel) runRange(rs *runState, w *worker, lo, hi int) {
	block := k.body.block
	w.prepareAt(k.body, rs.srcs, rs.stamp)
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
		if next := start + block; b+1 < hi {
			m := min(block, k.n-next)
			for _, l := range k.ahead {
				simd.Prefetch(unsafe.Add(rs.srcs[l.idx], next*l.size), m*l.size)
			}
		}
		res := w.eval(k.body, rs.srcs, start, n)
		if k.store != nil {
			k.store(unsafe.Add(rs.srcs[k.out], start*k.size), res, n)
		}
	}
	if k.nt {
		simd.Fence()
	}
}

// transcendental reports whether a step of b computes a transcendental
// function (exp, log, sin, tanh, …): tens of cycles per vector, against a
// few for the arithmetic steps.
func (b *body) transcendental() bool {
	for i := range b.steps {
		if b.steps[i].op.Info().Transcendental {
			return true
		}
	}
	return false
}

// streamStore copies a block of elements of size bytes from a register to
// the output with non-temporal stores, left unfenced.
func streamStore(size int) unaryFn {
	return func(dst, src unsafe.Pointer, n int) { simd.StreamCopy(dst, src, n*size) }
}

// streamOut makes the step that writes the body's result to the output
// buffer dst write it to a new register instead, so that the loop can
// stream it to dst past the caches. It reports whether it did. Outputs of
// at least ntMinBytes (from which E1's affine loop measured faster with
// streaming stores) measured faster this way for bodies of several steps
// too: E2's 32 MiB f16 output took 12-15% less time in interleaved runs,
// because the output's lines are never read for ownership.
func (b *body) streamOut(dst loc) bool {
	if b.out != dst || len(b.steps) == 0 {
		return false
	}
	s := &b.steps[len(b.steps)-1]
	if s.dst != dst || s.kind == stepGather {
		return false
	}
	r := loc{kind: locReg, idx: b.nregs}
	b.nregs++
	s.dst, b.out = r, r
	return true
}
