package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strings"
	"time"
)

// timing is a measured cell: the median of runs timed runs.
type timing struct {
	sec  float64 // median seconds per run, or per call when runs time batches of calls
	runs int
}

// schedule bounds how long one peer is timed: at most runs runs, and once
// budget is spent, no more than minRuns.
type schedule struct {
	runs, minRuns int
	budget        time.Duration
}

// measureTogether calls every impl's run once untimed (the warm-up:
// caches, page faults of preallocated outputs), then times them in
// rounds, one run of each in turn, so that other load on the machine
// falls on all of them alike. With several impls, each timed run follows
// an untimed run of the same impl: the other peers' passes over hundreds
// of MiB evict its data, and its page-table entries, from every cache, and
// a peer timed alone (the C and NumPy subprocesses loop over their own
// runs) never pays for that. A collection precedes every timed run,
// untimed: without it, the garbage of one peer (gorgonia's per-op arrays,
// Run's fresh outputs) is marked by the GC's background workers on the
// next peer's clock, taking one of the two cores from it. A peer's own
// allocations still trigger collections inside its own timing.
func measureTogether(ims []impl, s schedule, perCall int) ([]timing, []error) {
	times := make([][]time.Duration, len(ims))
	spent := make([]time.Duration, len(ims))
	errs := make([]error, len(ims))
	rewarm := len(ims) > 1
	once := func(i int) (time.Duration, error) {
		if rewarm {
			if err := ims[i].run(); err != nil {
				return 0, err
			}
		}
		runtime.GC()
		if ims[i].before != nil {
			ims[i].before()
		}
		start := time.Now()
		err := ims[i].run()
		return time.Since(start), err
	}
	for i := range ims {
		_, errs[i] = once(i)
	}
	for more := true; more; {
		more = false
		for i := range ims {
			n := len(times[i])
			if errs[i] != nil || n >= s.runs || (n >= s.minRuns && spent[i] >= s.budget) {
				continue
			}
			more = true
			var d time.Duration
			d, errs[i] = once(i)
			times[i], spent[i] = append(times[i], d), spent[i]+d
		}
	}
	ts := make([]timing, len(ims))
	for i, t := range times {
		ts[i] = timing{sec: median(t).Seconds() / float64(max(perCall, 1)), runs: len(t)}
	}
	return ts, errs
}

func median(ts []time.Duration) time.Duration {
	if len(ts) == 0 {
		return 0
	}
	s := slices.Clone(ts)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// copyBytes is the size of the STREAM-style copy: 64 MiB, far beyond any
// cache of the machine.
const copyBytes = 64 << 20

// goCopy times Go's copy() of copyBytes split over goWorkers goroutines;
// its rate counts both the bytes read and the bytes written, as STREAM does.
func goCopy(s schedule) (timing, error) {
	src, dst := make([]byte, copyBytes), make([]byte, copyBytes)
	for i := range src {
		src[i] = byte(i)
	}
	run := func() error {
		parallel(copyBytes, func(lo, hi int) { copy(dst[lo:hi], src[lo:hi]) })
		return nil
	}
	ts, errs := measureTogether([]impl{{run: run}}, s, 0)
	return ts[0], errs[0]
}

// gbps is the rate of moving bytes in sec seconds, in GB/s (1e9 bytes per second).
func gbps(bytes, sec float64) float64 {
	if sec <= 0 {
		return 0
	}
	return bytes / sec / 1e9
}

// machine describes where the report was measured.
type machine struct {
	cpu, flags, kernel, memory string
	cores, procs               int
	goVersion                  string
	gcc, numpy                 string // versions, or why missing
	loadStart, loadEnd         string // /proc/loadavg's 1-minute average
	commit                     string // the Kiln source measured
}

func describeMachine() machine {
	m := machine{cores: runtime.NumCPU(), procs: runtime.GOMAXPROCS(0), goVersion: runtime.Version() + " " + runtime.GOOS + "/" + runtime.GOARCH}
	m.cpu, m.flags = cpuInfo()
	m.loadStart = loadAverage()
	m.commit = kilnCommit()
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		m.kernel = "Linux " + strings.TrimSpace(string(b))
	}
	if b, err := os.ReadFile("/proc/meminfo"); err == nil {
		for line := range strings.Lines(string(b)) {
			if f := strings.Fields(line); len(f) >= 2 && f[0] == "MemTotal:" {
				var kb float64
				fmt.Sscan(f[1], &kb)
				m.memory = fmt.Sprintf("%.0f GiB", kb/(1<<20))
			}
		}
	}
	return m
}

// kilnCommit names the commit measured and whether the working tree
// (outside bench/) differed from it: other engineers' edits in progress.
func kilnCommit() string {
	head, err := commandOutput("git", "rev-parse", "--short", "HEAD")
	if err != nil {
		return "unknown (" + firstLine(err.Error()) + ")"
	}
	status, err := commandOutput("git", "status", "--porcelain", "--untracked-files=no", "--", ".", ":!bench")
	if err != nil || status == "" {
		return head
	}
	return fmt.Sprintf("%s plus uncommitted changes to %d files", head, len(strings.Split(status, "\n")))
}

// loadAverage is the 1-minute load average: other work on the machine.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if f := strings.Fields(string(b)); err == nil && len(f) > 0 {
		return f[0]
	}
	return "unknown"
}

// cpuInfo returns the CPU model and the vector features that matter here.
func cpuInfo() (model, flags string) {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return "unknown (" + err.Error() + ")", ""
	}
	var have, fam []string
	for line := range strings.Lines(string(b)) {
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		switch strings.TrimSpace(k) {
		case "model name":
			if model == "" {
				model = strings.TrimSpace(v)
			}
		case "cpu family", "model", "stepping":
			if len(fam) < 3 {
				fam = append(fam, strings.TrimSpace(k)+" "+strings.TrimSpace(v))
			}
		case "flags":
			if have == nil {
				fs := strings.Fields(v)
				for _, f := range []string{"avx2", "fma", "f16c", "avx512f", "avx512bw", "avx512vl", "avx512_bf16", "avx512_fp16"} {
					if slices.Contains(fs, f) {
						have = append(have, f)
					}
				}
			}
		}
	}
	if len(fam) > 0 {
		model += ", " + strings.Join(fam, ", ")
	}
	return model, strings.Join(have, " ")
}

// commandOutput runs a command and returns its trimmed stdout, or an error
// carrying its stderr.
func commandOutput(name string, args ...string) (string, error) {
	var out, errb bytes.Buffer
	cmd := exec.Command(name, args...)
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("%s: %v: %s", name, err, strings.TrimSpace(errb.String()))
	}
	return strings.TrimSpace(out.String()), nil
}
