package main

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/kiln-go/kiln/tensor"
)

// options are the command line's choices.
type options struct {
	quick      bool
	out        string      // REPORT.md; report.svg goes beside it
	n          int         // elements per input for E1–E4
	mm         matrixSizes // matrix orders for the E6 family
	runs       int         // timed runs per cell, at most
	budget     time.Duration
	cc, python string // the C compiler and the Python with NumPy and PyTorch
	only       []string
	command    string // the command line, for the report
	progress   io.Writer
}

func (o *options) schedule() schedule {
	s := schedule{runs: o.runs, minRuns: min(3, o.runs), budget: o.budget}
	if o.quick {
		s.minRuns = min(2, o.runs)
	}
	return s
}

// cell is one measurement of the report: a workload run by a peer.
type cell struct {
	timing
	status  string  // "" when measured; "n/a"; "missing: why"; "error: why"
	checked bool    // the output was compared with Kiln fused's
	check   string  // the mismatch, when there is one
	worst   float64 // the worst relative error against Kiln fused (tolerance checks)
}

func (c *cell) measured() bool { return c.status == "" && c.sec > 0 }

// row is one workload's results.
type row struct {
	id, title string
	size      int
	bytes     float64
	flops     float64
	dtype     tensor.DType // a flops row's element type (its peak)
	calls     int
	checkHow  string
	cold      time.Duration
	cells     map[string]*cell

	// pair is the Kiln fused time of the workload's pair (E6g's bare
	// GEMM, E6a's for E6i–E6l, E6i's for E6n, E6j's for E6o), measured in the same rounds as the row's
	// in-process peers; pairFlops is its flops per run.
	pair      cell
	pairFlops float64

	// paired is Kiln fused's time over a subprocess peer's, measured in
	// alternating rounds, for the peers of the row's throughput targets.
	paired map[string]pairing

	// pairAlt is Kiln fused's time over its pair's, measured in
	// alternating rounds of the two alone (rowRounds).
	pairAlt pairing

	// copyGo and copyC are the copy bandwidth measured just before a
	// memory-bound workload, so its GB/s compare with the machine's state
	// at that moment (other work on a shared machine moves it a lot).
	copyGo, copyC cell
}

// results is everything one run measured.
type results struct {
	opts  options
	start time.Time
	took  time.Duration
	mach  machine
	exts  map[string]*external
	rows  []*row
}

// copyLimit is the faster copy bandwidth measured before row, in GB/s (0
// if none).
func (row *row) copyLimit() float64 {
	lim := 0.0
	for _, c := range []cell{row.copyGo, row.copyC} {
		if c.measured() {
			lim = max(lim, gbps(2*copyBytes, c.sec))
		}
	}
	return lim
}

// runAll measures every workload with every peer.
func runAll(opts options) (*results, error) {
	tmp, err := os.MkdirTemp("", "kiln-bench-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	res := &results{opts: opts, start: time.Now(), mach: describeMachine(), exts: map[string]*external{}}
	c, cf := buildC(opts.cc, tmp)
	ob := buildOpenBLAS(opts.cc, tmp)
	np := findNumPy(opts.python, tmp)
	tp := findTorch(opts.python, tmp)
	for _, e := range []*external{c, cf, ob, np, tp} {
		res.exts[e.name] = e
	}
	res.mach.gcc, res.mach.numpy = orWhy(c.version, c.why), orWhy(np.version, np.why)
	res.mach.openblas, res.mach.torch = orWhy(ob.version, ob.why), orWhy(tp.version, tp.why)
	s := opts.schedule()
	for _, id := range workloadIDs {
		if len(opts.only) > 0 && !contains(opts.only, id) {
			continue
		}
		w := newWorkload(id, opts.n, opts.mm)
		var goC, cC cell
		if w.bytes > 0 {
			goC, cC = measureCopies(c, s, tmp)
			logf(opts, "%-4s copy: Go %s, C %s", id, describeCell(&goC), describeCell(&cC))
		}
		row := runWorkload(w, res.exts, s, tmp, opts)
		row.copyGo, row.copyC = goC, cC
		res.rows = append(res.rows, row)
		runtime.GC() // drop the workload's data before the next one
	}
	res.took = time.Since(res.start)
	res.mach.loadEnd = loadAverage()
	return res, nil
}

// measureCopies times the Go and the C copy of copyBytes.
func measureCopies(c *external, s schedule, dir string) (goC, cC cell) {
	var err error
	if goC.timing, err = goCopy(s); err != nil {
		goC.status = "error: " + err.Error()
	}
	if c.why != "" {
		cC.status = c.why
	} else if cC.timing, _, err = c.run("copy", copyBytes/4, s, dir); err != nil {
		cC.status = "error: " + err.Error()
	}
	return goC, cC
}

func orWhy(version, why string) string {
	if why != "" {
		return why
	}
	return version
}

func contains(s []string, x string) bool {
	for _, v := range s {
		if strings.EqualFold(v, x) {
			return true
		}
	}
	return false
}

func logf(opts options, format string, args ...any) {
	if opts.progress != nil {
		fmt.Fprintf(opts.progress, format+"\n", args...)
	}
}

func isKiln(peer string) bool { return strings.HasPrefix(peer, "kiln-") }

// runWorkload times every peer on w and checks each peer's output against
// kiln-fused's. The in-process peers are timed together, one run of each
// in turn, so that load from other work on a shared machine falls on all
// of them alike; kiln-first (which returns the heap to the OS before each
// run, and would make the others page-fault) and the subprocess peers
// follow, one at a time.
func runWorkload(w *workload, exts map[string]*external, s schedule, dir string, opts options) *row {
	r := &row{id: w.id, title: w.title, size: w.size, bytes: w.bytes, flops: w.flops, dtype: w.dtype, calls: w.calls,
		checkHow: checkLabel(w), cells: map[string]*cell{}}
	var group []string
	var ims []impl
	for _, p := range peerNames {
		if _, ext := exts[p]; ext || p == kilnFirst {
			continue
		}
		c := &cell{}
		r.cells[p] = c
		im, status, err := inProcess(w, p)
		switch {
		case err != nil:
			c.status = "error: " + firstLine(err.Error())
		case status != "":
			c.status = status
		default:
			group, ims = append(group, p), append(ims, im)
		}
	}
	if w.pair != nil { // timed in the same rounds, last
		r.pairFlops = w.pair.flops
		im, err := runIntoImpl(w.pair)
		if err != nil {
			r.pair.status = "error: " + firstLine(err.Error())
		} else {
			ims = append(ims, im)
		}
	}
	ts, errs := measureTogether(ims, s, w.calls)
	if w.pair != nil && len(ims) > len(group) {
		if i := len(group); errs[i] != nil {
			r.pair.status = "error: " + firstLine(errs[i].Error())
		} else {
			r.pair.timing = ts[i]
		}
	}
	outs := map[string]any{}
	for i, p := range group {
		if errs[i] != nil {
			r.cells[p].status = "error: " + firstLine(errs[i].Error())
			continue
		}
		r.cells[p].timing, outs[p] = ts[i], ims[i].result()
	}
	ims = nil // let the group's buffers go
	want := outs[kilnFused]
	check := func(p string, got any) {
		c := r.cells[p]
		if c.status != "" || want == nil || p == kilnFused {
			return
		}
		tol := w.tol
		if isKiln(p) {
			tol = 0 // fused and op-by-op Kiln promise identical bits
		}
		c.checked = true
		c.check, c.worst = compareParts(got, want, tol, w.flops > 0, w.parts)
	}
	for p, got := range outs {
		check(p, got)
	}
	fileErr := writeInputs(w, exts, dir)
	defer removeInputs(w, dir)
	for _, p := range peerNames {
		if r.cells[p] != nil {
			continue
		}
		c := &cell{}
		r.cells[p] = c
		got, err := runAlone(w, p, exts, s, dir, fileErr, want, c)
		if err != nil {
			c.status = "error: " + firstLine(err.Error())
		}
		check(p, got)
	}
	for _, p := range peerNames {
		logf(opts, "%-4s %-12s %s", w.id, p, describeCell(r.cells[p]))
	}
	r.cold = w.cold // before the rounds below make fresh Jits of w
	if fileErr == nil && want != nil {
		r.paired = pairRounds(w, exts, s, dir, opts)
	}
	if w.pair != nil && want != nil && r.pair.measured() {
		r.pairAlt = rowRounds(w, s, opts)
	}
	return r
}

// rowRounds times Kiln fused on w and on its pair (E6a's GEMM for
// E6i–E6l, E6i for E6n, E6j for E6o, E6h for E6g) in alternating rounds of the two alone: each
// round is measureTogether of just the two, one run of each in turn,
// with a fifth of the schedule's budget; the result is the median over
// rounds of w's median time over the pair's. In the row's own rounds,
// minutes of other peers' runs (the naive loops take seconds) separate
// w's runs from the pair's; here they follow each other.
func rowRounds(w *workload, s schedule, opts options) pairing {
	rounds := 5
	if opts.quick {
		rounds = 2
	}
	im, err := runIntoImpl(w)
	if err != nil {
		return pairing{err: firstLine(err.Error())}
	}
	pm, err := runIntoImpl(w.pair)
	if err != nil {
		return pairing{err: firstLine(err.Error())}
	}
	round := schedule{runs: s.runs, minRuns: s.minRuns, budget: s.budget / time.Duration(rounds)}
	var ratios, cpuRatios []float64
	for range rounds {
		ts, errs := measureTogether([]impl{im, pm}, round, w.calls)
		for _, err := range errs {
			if err != nil {
				return pairing{err: firstLine(err.Error())}
			}
		}
		ratios = append(ratios, ts[0].sec/ts[1].sec)
		if ts[0].cpu > 0 && ts[1].cpu > 0 {
			cpuRatios = append(cpuRatios, ts[0].cpu/ts[1].cpu)
		}
	}
	p := pairing{ratio: medianOf(ratios), rounds: rounds}
	if len(cpuRatios) == rounds {
		p.cpuRatio = medianOf(cpuRatios)
	}
	logf(opts, "%-4s kiln-fused ÷ %s's in %d alternating rounds: %.3g (CPU time: %.3g)", w.id, w.pair.id, rounds, p.ratio, p.cpuRatio)
	return p
}

// medianOf is the median of xs (the mean of the middle two for an even
// count).
func medianOf(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// pairing is Kiln fused against a subprocess peer in alternating rounds.
type pairing struct {
	ratio  float64 // the median over rounds of Kiln's time ÷ the peer's
	rounds int
	err    string
	// cpuRatio is the same for the process CPU time of in-process pairs
	// (0: unknown). Unlike wall time it does not count the moments the
	// threads wait for cores held by other work, which on a loaded
	// machine lengthen a long run more than a short one.
	cpuRatio float64
}

// pairRounds times Kiln fused against each subprocess peer that a
// bounded target of w names (a throughput share or a time ratio; not a
// reported-only row), in alternating rounds: the peer's own
// median of its runs, then Kiln fused's (each timed run after an
// untimed one, as the peer's process warms up before its runs: see
// measureRuns), each with a fifth of the schedule's budget, repeated. A
// subprocess peer is otherwise timed alone, at another moment than Kiln,
// and on a shared machine the load moves between the two by more than a
// target's margin; in a round both see about the same load.
func pairRounds(w *workload, exts map[string]*external, s schedule, dir string, opts options) map[string]pairing {
	rounds := 5
	if opts.quick {
		rounds = 2
	}
	name := w.ext
	if name == "" {
		name = w.id
	}
	out := map[string]pairing{}
	for _, t := range targets {
		e := exts[t.peer]
		if t.id != w.id || t.report || t.minShare == 0 && t.maxRatio == 0 || e == nil || e.why != "" || !e.applies(w.id) {
			continue
		}
		if _, done := out[t.peer]; done {
			continue
		}
		im, err := runIntoImpl(w)
		if err != nil {
			out[t.peer] = pairing{err: firstLine(err.Error())}
			continue
		}
		round := schedule{runs: s.runs, minRuns: s.minRuns, budget: s.budget / time.Duration(rounds)}
		var ratios []float64
		for range rounds {
			pt, _, err := e.run(name, w.size, round, dir)
			if err != nil {
				out[t.peer] = pairing{err: firstLine(err.Error())}
				break
			}
			kt, errs := measureRuns([]impl{im}, round, w.calls, true) // right after the peer's process: see measureRuns
			if errs[0] != nil {
				out[t.peer] = pairing{err: firstLine(errs[0].Error())}
				break
			}
			ratios = append(ratios, kt[0].sec/pt.sec)
		}
		if len(ratios) == rounds {
			out[t.peer] = pairing{ratio: medianOf(ratios), rounds: rounds}
			logf(opts, "%-4s kiln-fused ÷ %s in %d alternating rounds: %.3g", w.id, t.peer, rounds, out[t.peer].ratio)
		}
	}
	return out
}

// inProcess prepares peer p's in-process implementation of w; status says
// why there is none ("n/a", or "missing: why").
func inProcess(w *workload, p string) (im impl, status string, err error) {
	if isKiln(p) {
		im, ok, err := kilnImpl(w, p)
		if !ok {
			return impl{}, "n/a", nil
		}
		return im, "", err
	}
	mk, ok := w.peers[p]
	if !ok {
		if why, ok := w.why[p]; ok {
			return impl{}, "missing: " + why, nil
		}
		return impl{}, "n/a", nil
	}
	im, err = mk()
	if err == nil {
		im.run, im.steps = w.repeat(im.run) // w.calls calls per run, as Kiln's
	}
	return im, "", err
}

// runAlone measures peer p (kiln-first or a subprocess) on w into c and
// returns its output; c.status is set when the peer does not apply or is
// missing.
func runAlone(w *workload, p string, exts map[string]*external, s schedule, dir string, fileErr error, want any, c *cell) (any, error) {
	e, ok := exts[p]
	if !ok {
		im, status, err := inProcess(w, p)
		if c.status = status; err != nil || status != "" {
			return nil, err
		}
		ts, errs := measureTogether([]impl{im}, s, w.calls)
		if errs[0] != nil {
			return nil, errs[0]
		}
		c.timing = ts[0]
		return im.result(), nil
	}
	switch {
	case !e.applies(w.id):
		c.status = "n/a"
		return nil, nil
	case e.why != "":
		c.status = e.why
		return nil, nil
	case fileErr != nil:
		return nil, fileErr
	case want == nil:
		return nil, fmt.Errorf("no Kiln output to check against")
	}
	name := w.ext
	if name == "" {
		name = w.id
	}
	t, data, err := e.run(name, w.size, s, dir)
	if err != nil {
		return nil, err
	}
	c.timing = t
	return decode(data, want)
}
