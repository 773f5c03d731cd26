package kernels

import (
	"slices"
	"unsafe"

	"github.com/kiln-go/kiln/lower"
)

// multiLoopKernel runs a multi-output loop fusion (lower.FuseSiblings):
// one compiled body per result, each block of elements evaluated by every
// body in turn, so inputs the results share are still in L1 for the later
// bodies, and a result that reads an earlier one reads the block just
// stored. Each body is the single-output loop's for its result (members
// computed before it are read from their buffers), so the bits are the
// separate fusions'.
type multiLoopKernel struct {
	subs  []*loopKernel
	n     int
	block int
}

func (x *cpuExec) compileMultiLoop(f *lower.Fusion) (kernel, error) {
	root := f.Outputs[0]
	block := min(x.cpu.opts.Block, max(root.Size(), 1))
	k := &multiLoopKernel{n: root.Size(), block: block}
	for i, o := range f.Outputs {
		out := x.m.Plan.Of[o]
		b, store, _, err := x.loopBody(resultLoop(f, f.Outputs, i, nil), x.source, loc{kind: locBuf, idx: out, size: o.DType.Size()}, false)
		if err != nil {
			return nil, err
		}
		k.subs = append(k.subs, &loopKernel{body: b, n: o.Size(), out: out, size: o.DType.Size(), store: store})
	}
	return k, nil
}

func (k *multiLoopKernel) run(x *cpuExec, rs *runState) {
	nblocks := (k.n + k.block - 1) / k.block
	x.parallel(rs, nblocks, k.n, k)
}

func (k *multiLoopKernel) runRange(rs *runState, w *worker, lo, hi int) {
	for len(w.subs) < len(k.subs) {
		w.subs = append(w.subs, &worker{})
	}
	for i, s := range k.subs {
		w.subs[i].prepareAt(s.body, rs.srcs, rs.stamp)
	}
	for b := lo; b < hi; b++ {
		start := b * k.block
		n := min(k.block, k.n-start)
		for i, s := range k.subs {
			if k.n == 1 && i > 0 {
				// A one-element result is loop-invariant to the later
				// bodies, which load it once in prepare: only now is it
				// computed (Adam's step count and bias corrections).
				w.subs[i].prepare(s.body, rs.srcs)
			}
			res := w.subs[i].eval(s.body, rs.srcs, start, n)
			if s.store != nil {
				s.store(unsafe.Add(rs.srcs[s.out], start*s.size), res, n)
			}
		}
	}
}

// resultLoop is the single-output loop fusion computing results[i] of f:
// f's members but skip (a fused product, read from its memory) and the
// results before i, which it reads from their buffers. A multi-output
// loop's and a multi-result epilogue's bodies are these loops', so each
// result has its own loop's bits.
func resultLoop(f *lower.Fusion, results []*lower.Instr, i int, skip *lower.Instr) *lower.Fusion {
	loop := &lower.Fusion{ID: f.ID, Kind: lower.FusionLoop, Inputs: f.Inputs, Outputs: []*lower.Instr{results[i]}}
	for _, in := range f.Instrs {
		if in != skip && !slices.Contains(results[:i], in) {
			loop.Instrs = append(loop.Instrs, in)
		}
	}
	return loop
}
