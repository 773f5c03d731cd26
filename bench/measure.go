package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/kiln-go/kiln/tensor"
)

// timing is a measured cell: the median of runs timed runs.
type timing struct {
	sec  float64 // median seconds per run, or per call when runs time batches of calls (the median call's, for a perStep workload)
	runs int
	cpu  float64 // the median process CPU time (all threads) over the same runs, likewise (0: unknown)
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
// allocations still trigger collections inside its own timing. An impl
// that logs its calls (a perStep workload's) is timed by the median of all
// the calls of its timed runs, as NumPy's peer times its steps one by one.
func measureTogether(ims []impl, s schedule, perCall int) ([]timing, []error) {
	return measureRuns(ims, s, perCall, len(ims) > 1)
}

// measureRuns is measureTogether, with each timed run after an untimed
// run of the same impl when rewarm is set (measureTogether sets it for
// several impls). A lone impl timed right after another process (a
// subprocess peer's round, see pairRounds) needs it too: after the
// collection, or any pause of a millisecond, E7's two-worker step ran at
// its one-worker speed for the next run or so — per-run medians of
// 138-150 µs against 121-125 with an untimed run between (one worker:
// 142-145 either way) — and the subprocess peers, timed in their own
// process after their own warm-up run, never collect between runs.
func measureRuns(ims []impl, s schedule, perCall int, rewarm bool) ([]timing, []error) {
	times := make([][]time.Duration, len(ims))
	steps := make([][]time.Duration, len(ims))
	cpus := make([][]time.Duration, len(ims))
	spent := make([]time.Duration, len(ims))
	errs := make([]error, len(ims))
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
		c0 := processCPU()
		start := time.Now()
		err := ims[i].run()
		d := time.Since(start)
		cpus[i] = append(cpus[i], time.Duration((processCPU()-c0)*1e9))
		if ims[i].steps != nil {
			steps[i] = append(steps[i], ims[i].steps.d...)
		}
		return d, err
	}
	for i := range ims {
		_, errs[i] = once(i)
		cpus[i] = cpus[i][:0] // not the warm-up's
		steps[i] = steps[i][:0]
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
		calls := float64(max(perCall, 1))
		ts[i] = timing{sec: median(t).Seconds() / calls, runs: len(t), cpu: median(cpus[i]).Seconds() / calls}
		if ims[i].steps != nil && len(steps[i]) > 0 {
			ts[i].sec = median(steps[i]).Seconds()
		}
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
	cpu, flags, kernel, memory  string
	cores, procs                int
	goVersion                   string
	gcc, numpy, openblas, torch string // versions, or why missing
	cpuFlags                    []string
	mhz                         float64 // /proc/cpuinfo's "cpu MHz" of the first core (0: unknown)
	loadStart, loadEnd          string  // /proc/loadavg's 1-minute average
	commit                      string  // the Kiln source measured
}

func describeMachine() machine {
	m := machine{cores: runtime.NumCPU(), procs: runtime.GOMAXPROCS(0), goVersion: runtime.Version() + " " + runtime.GOOS + "/" + runtime.GOARCH}
	c := cpuInfo()
	m.cpu, m.cpuFlags, m.flags, m.mhz = c.model, c.flags, strings.Join(c.flags, " "), c.mhz
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

// cpuInfo describes /proc/cpuinfo's CPU.
func cpuInfo() cpu {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return cpu{model: "unknown (" + err.Error() + ")"}
	}
	return parseCPUInfo(string(b))
}

// cpu is what the report says about the processor.
type cpu struct {
	model string   // model name, family, model and stepping
	flags []string // the vector features that matter here
	mhz   float64  // the first core's "cpu MHz" (0: unknown)
}

// parseCPUInfo reads the first processor's entry of a /proc/cpuinfo text.
func parseCPUInfo(text string) cpu {
	var c cpu
	var fam []string
	seenFlags := false
	for line := range strings.Lines(text) {
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		v = strings.TrimSpace(v)
		switch strings.TrimSpace(k) {
		case "model name":
			if c.model == "" {
				c.model = v
			}
		case "cpu family", "model", "stepping":
			if len(fam) < 3 {
				fam = append(fam, strings.TrimSpace(k)+" "+v)
			}
		case "cpu MHz":
			if c.mhz == 0 {
				c.mhz, _ = strconv.ParseFloat(v, 64)
			}
		case "flags":
			if !seenFlags {
				seenFlags = true
				fs := strings.Fields(v)
				for _, f := range []string{"avx2", "fma", "f16c", "avx512f", "avx512bw", "avx512vl", "avx512_bf16", "avx512_fp16"} {
					if slices.Contains(fs, f) {
						c.flags = append(c.flags, f)
					}
				}
			}
		}
	}
	if len(fam) > 0 {
		c.model += ", " + strings.Join(fam, ", ")
	}
	return c
}

// flopsPerCycle is one core's peak f32 or f64 flops per cycle from its
// vector features, assuming two FMA units per core (as on AVX-512
// Intel server cores and AMD Zen 4/5): an FMA is 2 flops per lane, so
// AVX-512 gives 2 × 2 × 16 = 64 f32 flops a cycle and AVX2+FMA 32; f64
// has half the lanes. 0 when the features are unknown or have no FMA.
func flopsPerCycle(flags []string, dt tensor.DType) float64 {
	var f32 float64
	switch {
	case slices.Contains(flags, "avx512f"):
		f32 = 64
	case slices.Contains(flags, "avx2") && slices.Contains(flags, "fma"):
		f32 = 32
	}
	if dt == tensor.F64 {
		return f32 / 2
	}
	return f32
}

// peak is the machine's peak rate for dt in flop/s, cores × frequency ×
// flops per cycle per core (0 when the frequency or the vector width is
// unknown), and how it was computed.
func (m machine) peak(dt tensor.DType) (float64, string) {
	fpc := flopsPerCycle(m.cpuFlags, dt)
	switch {
	case m.mhz <= 0:
		return 0, "unknown (no \"cpu MHz\" in /proc/cpuinfo)"
	case fpc == 0:
		return 0, "unknown (no AVX2+FMA or AVX-512 in /proc/cpuinfo's flags)"
	}
	p := float64(m.cores) * m.mhz * 1e6 * fpc
	return p, fmt.Sprintf("%d cores × %.0f MHz × %.0f %s flops/cycle = %.0f GFLOP/s", m.cores, m.mhz, fpc, dt, p/1e9)
}

// commandOutput runs a command and returns its trimmed stdout, or an error
// carrying its stderr.
func commandOutput(name string, args ...string) (string, error) {
	return commandOutputEnv(nil, name, args...)
}

// commandOutputEnv is commandOutput in environment env (nil: this
// process's).
func commandOutputEnv(env []string, name string, args ...string) (string, error) {
	var out, errb bytes.Buffer
	cmd := exec.Command(name, args...)
	cmd.Env = env
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("%s: %v: %s", name, err, strings.TrimSpace(errb.String()))
	}
	return strings.TrimSpace(out.String()), nil
}
