package kernels

import (
	"slices"
	"unsafe"

	"github.com/kiln-go/kiln/lower"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// multiLoopKernel runs a multi-output loop fusion (lower.FuseSiblings):
// one compiled body per result, each block of elements evaluated by every
// body in turn, so inputs the results share are still in L1 for the later
// bodies, and a result that reads an earlier one reads the block just
// stored. Each body is the single-output loop's for its result (members
// computed before it are read from their buffers), so the bits are the
// separate fusions'.
//
// When every result is read by the others elementwise only (the usual
// case: a ReLU and its mask, Adam's moments and update), the results are
// one body instead (compileRoots), computing each value once — a value
// two results share, the ReLU's pre-activation, is not computed twice —
// and subs[0] holds it, the others only where to store from. Each value
// is computed by the same steps either way; a later result reads an
// earlier one in its compute form rather than from its buffer, which is
// the same value (an f16 or bf16 result is rounded to its precision by
// the step that computes it). E7's ReLU epilogue took 1 µs less so.
type multiLoopKernel struct {
	subs     []*loopKernel
	n        int
	block    int
	combined bool  // subs[0].body computes every result; at[i] is where result i is
	at       []loc // combined: result i's location after the body
}

func (x *cpuExec) compileMultiLoop(f *lower.Fusion) (kernel, error) {
	root := f.Outputs[0]
	block := min(x.cpu.opts.Block, max(root.Size(), 1))
	k := &multiLoopKernel{n: root.Size(), block: block}
	if b, at, stores, err := x.combinedBody(f, nil, f.Outputs, x.source); err != nil {
		return nil, err
	} else if b != nil {
		k.combined, k.at = true, at
		for i, o := range f.Outputs {
			sub := &loopKernel{n: o.Size(), out: x.m.Plan.Of[o], size: o.DType.Size(), store: stores[i]}
			if i == 0 {
				sub.body = b
			}
			k.subs = append(k.subs, sub)
		}
		return k, nil
	}
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
	if k.combined {
		b := k.subs[0].body
		w.prepareAt(b, rs.srcs, rs.stamp)
		for blk := lo; blk < hi; blk++ {
			start := blk * k.block
			n := min(k.block, k.n-start)
			w.eval(b, rs.srcs, start, n)
			for i, s := range k.subs {
				if s.store != nil {
					s.store(unsafe.Add(rs.srcs[s.out], start*s.size), w.ptr(k.at[i], rs.srcs, start), n)
				}
			}
		}
		return
	}
	for len(w.subs) < len(k.subs) {
		w.subs = append(w.subs, &worker{})
	}
	for i, s := range k.subs {
		w.subs[i].chk, w.subs[i].chkSeq = w.chk, w.chkSeq
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

// combinedBody compiles results (all of one shape) of fusion f, less skip
// (a dot whose product the bodies read from source), as one body
// (compileRoots), with the stores that narrow or copy each result into
// its buffer (nil where the body writes it there). It returns a nil body
// when some result is read other than elementwise — through a broadcast,
// reshape or transpose, which would need elements of it the block has not
// computed — or is not an elementwise member, or repeats: then each
// result keeps a body of its own (as it does when a result is a bitcast
// to f16 or bf16, whose body writes storage bits, not a compute form).
func (x *cpuExec) combinedBody(f *lower.Fusion, skip *lower.Instr, results []*lower.Instr, source sourceFn) (*body, []loc, []unaryFn, error) {
	members := map[*lower.Instr]bool{}
	isResult := map[*lower.Instr]bool{}
	for _, r := range results {
		// A bitcast to f16 or bf16 writes its result's storage bits, not
		// the f32 compute form later steps would read (see emit).
		raw := r.Op == trace.OpBitcastConvert && (r.DType == tensor.F16 || r.DType == tensor.BF16)
		if raw || isResult[r] || !trace.ShapeEqual(r.Shape, results[0].Shape) || (r != skip && !r.Op.Elementwise()) {
			return nil, nil, nil, nil
		}
		isResult[r] = true
	}
	for _, in := range f.Instrs {
		if in == skip {
			continue
		}
		switch {
		case in.Op == trace.OpBroadcastInDim && !isResult[in.Args[0]], in.Op == trace.OpConst, in.Op.Elementwise():
		default:
			return nil, nil, nil, nil
		}
		members[in] = true
	}
	root := results[0]
	perm := make([]int, len(root.Shape))
	for i := range perm {
		perm[i] = i
	}
	dsts := make([]loc, len(results))
	for i, r := range results {
		dsts[i] = loc{kind: locBuf, idx: x.m.Plan.Of[r], size: r.DType.Size()}
	}
	b, at, err := compileRoots(members, results, root.Shape, perm, min(x.cpu.opts.Block, max(root.Size(), 1)), source, dsts)
	if err != nil {
		return nil, nil, nil, err
	}
	fo := x.cpu.peepholeOptions()
	b.peephole(fo)
	x.checkBody(b)
	b.fuseWiden(fo)
	b.fuseIntWiden(fo)
	stores := make([]unaryFn, len(results))
	for i, r := range results {
		if at[i] != dsts[i] {
			if stores[i] = narrowFn(r.DType); stores[i] == nil {
				stores[i] = copyFn(r.DType)
			}
		}
	}
	return b, at, stores, nil
}
