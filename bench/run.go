package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"
)

// options are the command line's choices.
type options struct {
	quick      bool
	out        string // REPORT.md; report.svg goes beside it
	n          int    // elements per input for E1–E4
	mm         [2]int // matrix orders for E6a and E6b
	runs       int    // timed runs per cell, at most
	budget     time.Duration
	cc, python string // the C compiler and the Python with NumPy
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
	calls     int
	checkHow  string
	cold      time.Duration
	cells     map[string]*cell
}

// results is everything one run measured.
type results struct {
	opts          options
	start         time.Time
	took          time.Duration
	mach          machine
	copyGo, copyC cell
	exts          map[string]*external
	rows          []*row
}

// copyLimit is the faster measured copy bandwidth in GB/s (0 if none).
func (r *results) copyLimit() float64 {
	lim := 0.0
	for _, c := range []cell{r.copyGo, r.copyC} {
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
	np := findNumPy(opts.python, tmp)
	for _, e := range []*external{c, cf, np} {
		res.exts[e.name] = e
	}
	res.mach.gcc, res.mach.numpy = orWhy(c.version, c.why), orWhy(np.version, np.why)
	s := opts.schedule()
	logf(opts, "copy bandwidth …")
	res.copyGo.timing, err = goCopy(s)
	if err != nil {
		res.copyGo.status = "error: " + err.Error()
	}
	if c.why != "" {
		res.copyC.status = c.why
	} else if res.copyC.timing, _, err = c.run("copy", copyBytes/4, s, tmp); err != nil {
		res.copyC.status = "error: " + err.Error()
	}
	for _, id := range workloadIDs {
		if len(opts.only) > 0 && !contains(opts.only, id) {
			continue
		}
		w := newWorkload(id, opts.n, opts.mm)
		res.rows = append(res.rows, runWorkload(w, res.exts, s, tmp, opts))
		runtime.GC() // drop the workload's data before the next one
	}
	res.took = time.Since(res.start)
	res.mach.loadEnd = loadAverage()
	return res, nil
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

// runWorkload times every peer on w, kiln-fused first, and checks each
// peer's output against kiln-fused's.
func runWorkload(w *workload, exts map[string]*external, s schedule, dir string, opts options) *row {
	r := &row{id: w.id, title: w.title, size: w.size, bytes: w.bytes, flops: w.flops, calls: w.calls,
		checkHow: checkLabel(w), cells: map[string]*cell{}}
	wantFiles := false
	for _, e := range exts {
		wantFiles = wantFiles || (e.why == "" && e.applies(w.id))
	}
	var fileErr error
	if wantFiles {
		fileErr = writeInputs(w, dir)
		defer func() {
			for name := range w.files {
				os.Remove(filepath.Join(dir, name))
			}
		}()
	}
	var want any
	for _, p := range peerNames {
		c := &cell{}
		r.cells[p] = c
		got, err := runPeer(w, p, exts, s, dir, fileErr, want, c)
		if err != nil {
			c.status = "error: " + firstLine(err.Error())
		}
		if c.status == "" {
			switch {
			case p == kilnFused:
				want = got
			case want != nil:
				tol := w.tol
				if isKiln(p) {
					tol = 0 // fused and op-by-op Kiln promise identical bits
				}
				c.checked = true
				c.check, c.worst = compare(got, want, tol, w.flops > 0)
			}
		}
		logf(opts, "%-4s %-12s %s", w.id, p, describeCell(c))
	}
	r.cold = w.cold
	return r
}

// runPeer measures one peer on w into c and returns its output; c.status
// is set when the peer does not apply or is missing.
func runPeer(w *workload, p string, exts map[string]*external, s schedule, dir string, fileErr error, want any, c *cell) (any, error) {
	if e, ok := exts[p]; ok {
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
		t, data, err := e.run(w.id, w.size, s, dir)
		if err != nil {
			return nil, err
		}
		c.timing = t
		return decode(data, want)
	}
	var im impl
	if isKiln(p) {
		var ok bool
		var err error
		if im, ok, err = kilnImpl(w, p); !ok {
			c.status = "n/a"
			return nil, nil
		} else if err != nil {
			return nil, err
		}
	} else {
		mk, ok := w.peers[p]
		if !ok {
			if why, ok := w.why[p]; ok {
				c.status = "missing: " + why
			} else {
				c.status = "n/a"
			}
			return nil, nil
		}
		var err error
		if im, err = mk(); err != nil {
			return nil, err
		}
	}
	t, err := measure(im, s, w.calls)
	if err != nil {
		return nil, err
	}
	c.timing = t
	return im.result(), nil
}
