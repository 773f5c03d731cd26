package kernels

import (
	"unsafe"

	"github.com/kiln-go/kiln/lower"
	"github.com/kiln-go/kiln/tensor"
)

// epilogue is the elementwise part of a dot fusion (lower.FuseEpilogues):
// the loop body the fusion's elementwise instructions compile to on their
// own — the same steps, peephole passes and stores as that loop fusion —
// reading the product from source index src, one past the buffers and
// constants, which each run points at the product's memory. Each element
// is thus computed by exactly the code of the unfused loop from exactly
// the product that loop would read, so fused and unfused results are the
// same bits.
//
// An f32, f64 or f16 dot_general runs it on the GEMM's blocks: internal/gemm
// tells the kernel of each block of MR rows as soon as its last block of k
// is added in (an f16 product's block is then rounded to f16, by
// halfFinisher), and the body runs over those rows while they are still in
// cache, L1 or (a block wider than L1 holds) L2 (a GEMM piece of at most
// epiPartMax bytes of product runs it over the piece's rows right after
// the piece). A conv with an NHWC-like output runs it on each block of
// output positions its worker has just computed. The product is computed in the output
// buffer itself when the epilogue has one result, of the product's dtype
// (the body then reads and writes the same elements, each read before it
// is written), in its own
// buffer when others read it too (the fusion's last output), else in a
// scratch buffer; with several results (a multi-output loop absorbed whole)
// each block is computed by one body computing every result (see
// multiLoopKernel), or by every result's body in turn. Other products
// (integers, int8 and bf16 GEMMs, complex, swapped narrow products, GEMMs
// split into column bands, a conv with another output layout) are
// computed whole first and the bodies run over them after.
type epilogue struct {
	results  []epilogueResult // one body per result of the fusion, in order
	out      int              // the first result's buffer
	n        int              // elements
	block    int              // elements per step of the bodies
	src      int              // the source index the bodies read the product from
	dt       tensor.DType
	inPlace  bool // the product is computed in the output buffer
	shared   int  // the product's own buffer (read by other kernels too), or -1
	perBlock bool // the kernel runs the body on each block it finishes
	slot     int  // scratch for the product, and the run record
	m, nn    int  // a dot's rows and columns per batch
	// combined: results[0].body computes every result (multiLoopKernel's
	// combined form); result i is at results[i].at after it.
	combined bool
}

// epilogueResult is the loop body of one result of an epilogue: the
// single-output loop's for that result, reading the results before it
// from their buffers (as a multi-output loop's bodies do, see
// multiLoopKernel), so each is computed by the code of its own loop.
type epilogueResult struct {
	body  *body
	store unaryFn // narrows the body's result into the output; nil when written in place
	out   int     // the output buffer
	size  int     // bytes per output element
	at    loc     // combined: where the result is after the body
}

// compileEpilogue compiles the epilogue of dot fusion f, whose product is
// dot; perBlock says the product's kernel runs it on the blocks it
// finishes (else runAll runs it after), m and n are a dot's rows and
// columns per batch.
func (x *cpuExec) compileEpilogue(f *lower.Fusion, dot *lower.Instr, perBlock bool, m, n int) (*epilogue, error) {
	results := f.EpilogueResults()
	e := &epilogue{out: x.m.Plan.Of[results[0]], n: results[0].Size(), src: x.nbuf + len(x.consts),
		dt: dot.DType, slot: x.newSlot(), m: m, nn: n, shared: -1}
	if f.SharesProduct() {
		e.shared = x.m.Plan.Of[dot]
	}
	source := func(in *lower.Instr) int {
		if in == dot {
			return e.src
		}
		return x.source(in)
	}
	if len(results) > 1 {
		b, at, stores, err := x.combinedBody(f, dot, results, source)
		if err != nil {
			return nil, err
		}
		if b != nil {
			e.combined, e.block = true, b.block
			for i, r := range results {
				er := epilogueResult{store: stores[i], out: x.m.Plan.Of[r], size: r.DType.Size(), at: at[i]}
				if i == 0 {
					er.body = b
				}
				e.results = append(e.results, er)
			}
		}
	}
	for i, r := range results {
		if e.combined {
			break
		}
		out := x.m.Plan.Of[r]
		b, store, _, err := x.loopBody(resultLoop(f, results, i, dot), source, loc{kind: locBuf, idx: out, size: r.DType.Size()}, false)
		if err != nil {
			return nil, err
		}
		e.results = append(e.results, epilogueResult{body: b, store: store, out: out, size: r.DType.Size()})
		if i == 0 || b.block < e.block {
			e.block = b.block
		}
	}
	e.perBlock = perBlock
	e.inPlace = perBlock && len(results) == 1 && results[0].DType == dot.DType && e.shared < 0
	return e, nil
}

// prepare readies worker w's registers (and its sub-workers', one per
// further result) for the bodies, with the run's sources srcs.
func (e *epilogue) prepare(w *worker, srcs []unsafe.Pointer) { e.prepareAt(w, srcs, 0) }

// prepareAt is prepare through worker.prepareAt: once per parallel call
// (stamp 0: unconditionally).
func (e *epilogue) prepareAt(w *worker, srcs []unsafe.Pointer, stamp uint64) {
	if e.combined {
		w.prepareAt(e.results[0].body, srcs, stamp)
		return
	}
	for len(w.subs) < len(e.results)-1 {
		w.subs = append(w.subs, &worker{})
	}
	for i, r := range e.results {
		sw := e.worker(w, i)
		sw.chk, sw.chkSeq = w.chk, w.chkSeq
		sw.prepareAt(r.body, srcs, stamp)
	}
}

// worker is the registers of result i's body: w's own for the first.
func (e *epilogue) worker(w *worker, i int) *worker {
	if i == 0 {
		return w
	}
	return w.subs[i-1]
}

// target is where a product kernel with epilogue e (nil: none) writes
// its product — output buffer out, or the epilogue's product memory — and
// the epilogue's run, if any.
func (e *epilogue) target(rs *runState, out int) (unsafe.Pointer, *epilogueRun) {
	if e == nil {
		return rs.srcs[out], nil
	}
	r := e.start(rs)
	return r.product(), r
}

// start prepares a run: the product's memory (the output buffer, or
// scratch) and the sources the body reads, which it returns.
func (e *epilogue) start(rs *runState) *epilogueRun {
	r := slotJob[epilogueRun](rs, e.slot)
	r.e = e
	c := rs.srcs[e.out]
	if e.shared >= 0 {
		c = rs.srcs[e.shared]
	} else if !e.inPlace {
		c = unsafe.Pointer(unsafe.SliceData(rs.slotBytes(e.slot, 0, e.n*e.dt.Size()+regAlign)))
		c = unsafe.Add(c, (regAlign-int(uintptr(c)%regAlign))%regAlign)
	}
	r.srcs = append(append(r.srcs[:0], rs.srcs...), c)
	return r
}

// finished computes output elements [lo, lo+n) of a block the product's
// kernel has just finished, with worker w prepared for the body.
func (e *epilogue) finished(w *worker, srcs []unsafe.Pointer, lo, n int) {
	if e.n == 1 {
		// A one-element product is loop-invariant to the bodies, which
		// load it once in prepare: only now is it computed.
		e.prepare(w, srcs)
	}
	e.eval(w, srcs, lo, n)
}

// eval computes output elements [lo, lo+n) (flat indices of the
// product), a block at a time, each block by the combined body or by every
// result's body in turn.
func (e *epilogue) eval(w *worker, srcs []unsafe.Pointer, lo, n int) {
	for n > 0 {
		m := min(n, e.block)
		if e.combined {
			w.eval(e.results[0].body, srcs, lo, m)
			for _, r := range e.results {
				if r.store != nil {
					r.store(unsafe.Add(srcs[r.out], lo*r.size), w.ptr(r.at, srcs, lo), m)
				}
			}
			lo, n = lo+m, n-m
			continue
		}
		for i, r := range e.results {
			if e.n == 1 && i > 0 {
				// A later body holds an earlier one-element result as a
				// loop-invariant, loaded in prepare: only now is it computed.
				e.worker(w, i).prepare(r.body, srcs)
			}
			res := e.worker(w, i).eval(r.body, srcs, lo, m)
			if r.store != nil {
				r.store(unsafe.Add(srcs[r.out], lo*r.size), res, m)
			}
		}
		lo, n = lo+m, n-m
	}
}

// epilogueRun is one run of an epilogue: its sources (the run's, then
// the product), and a finisher for each piece of the GEMM.
type epilogueRun struct {
	e    *epilogue
	srcs []unsafe.Pointer
	fins []partFinisher
}

// product is where the dot kernel writes the product.
func (r *epilogueRun) product() unsafe.Pointer { return r.srcs[r.e.src] }

// finishers returns one finisher per piece of a GEMM of parts pieces.
func (r *epilogueRun) finishers(parts int) []partFinisher {
	if cap(r.fins) < parts {
		r.fins = make([]partFinisher, parts)
	}
	r.fins = r.fins[:parts]
	for i := range r.fins {
		r.fins[i] = partFinisher{r: r}
	}
	return r.fins
}

// runAll runs the body over the whole product, after it is computed.
func (r *epilogueRun) runAll(x *cpuExec, rs *runState) {
	block := r.e.block
	x.parallel(rs, (r.e.n+block-1)/block, r.e.n, r)
}

func (r *epilogueRun) runRange(rs *runState, w *worker, lo, hi int) {
	r.e.prepareAt(w, r.srcs, rs.stamp)
	block := r.e.block
	for b := lo; b < hi; b++ {
		start := b * block
		r.e.eval(w, r.srcs, start, min(block, r.e.n-start))
	}
}

// partFinisher runs the epilogue on the blocks one piece of the GEMM
// finishes, with its worker's registers (gemm.Finisher).
type partFinisher struct {
	r *epilogueRun
	w *worker
}

func (f *partFinisher) Finished(b, i0, i1, j0, j1 int) {
	e := f.r.e
	if j0 == 0 && j1 == e.nn { // whole rows: one run of the output
		e.finished(f.w, f.r.srcs, (b*e.m+i0)*e.nn, (i1-i0)*e.nn)
		return
	}
	for i := i0; i < i1; i++ {
		e.finished(f.w, f.r.srcs, (b*e.m+i)*e.nn+j0, j1-j0)
	}
}
