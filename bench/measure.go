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

// measure calls im.run once untimed (warm-up: caches, page faults of
// preallocated outputs), then times it per the schedule. perCall divides
// every run's time (E5a times a batch of calls).
func measure(im impl, s schedule, perCall int) (timing, error) {
	if im.before != nil {
		im.before()
	}
	if err := im.run(); err != nil {
		return timing{}, err
	}
	var times []time.Duration
	var spent time.Duration
	for len(times) < s.runs && (len(times) < s.minRuns || spent < s.budget) {
		if im.before != nil {
			im.before()
		}
		start := time.Now()
		err := im.run()
		d := time.Since(start)
		if err != nil {
			return timing{}, err
		}
		spent += d
		times = append(times, d)
	}
	m := median(times).Seconds()
	if perCall > 1 {
		m /= float64(perCall)
	}
	return timing{sec: m, runs: len(times)}, nil
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
	return measure(impl{run: run}, s, 0)
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
}

func describeMachine() machine {
	m := machine{cores: runtime.NumCPU(), procs: runtime.GOMAXPROCS(0), goVersion: runtime.Version() + " " + runtime.GOOS + "/" + runtime.GOARCH}
	m.cpu, m.flags = cpuInfo()
	m.loadStart = loadAverage()
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
