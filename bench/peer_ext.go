package main

import (
	_ "embed"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/kiln-go/kiln/tensor"
)

// The external peers run as subprocesses that time themselves: the C
// loops in peers/peer.c, compiled here with gcc, and the NumPy script
// peers/peer.py. Inputs go to files in a temporary directory (native byte
// order), outputs come back the same way and are checked like any other.

//go:embed peers/peer.c
var peerC string

//go:embed peers/peer.py
var peerPy string

//go:embed peers/peer_torch.py
var peerTorchPy string

// external is one subprocess peer.
type external struct {
	name    string
	argv    []string // the command, before the workload arguments
	env     []string // added to the environment
	unset   []string // variables removed from the environment
	why     string   // non-empty: the peer is missing, and why
	version string
	only    map[string]bool // the workloads it runs
	note    string          // how it was built, for the report
}

func (e *external) applies(id string) bool { return e.only[id] }

// extEnv pins the subprocesses to 2 threads. A passive OpenMP wait policy
// keeps idle threads from spinning, which on a shared 2-core machine would
// steal the core the working thread needs.
var extEnv = []string{"OMP_NUM_THREADS=2", "OMP_WAIT_POLICY=passive", "OPENBLAS_NUM_THREADS=2"}

// buildC compiles peer.c twice (strict and -ffast-math) into dir.
func buildC(cc, dir string) (strict, fast *external) {
	strict = &external{name: cPeer, env: extEnv, only: set("copy", "E1", "E2", "E3", "E4", "E6a", "E6b", "E6c", "E6d", "E6e", "E6f", "E6j", "E6k", "E6kb", "E8")}
	fast = &external{name: cFastPeer, env: extEnv, only: set("E3")}
	path, err := exec.LookPath(cc)
	if err != nil {
		strict.why = fmt.Sprintf("missing: no C compiler (%v)", err)
		fast.why = strict.why
		return
	}
	ver, _ := commandOutput(path, "-dumpfullversion")
	strict.version, fast.version = filepath.Base(cc)+" "+ver, filepath.Base(cc)+" "+ver
	src := filepath.Join(dir, "peer.c")
	if err := os.WriteFile(src, []byte(peerC), 0o644); err != nil {
		strict.why, fast.why = "missing: "+err.Error(), "missing: "+err.Error()
		return
	}
	build := func(e *external, out string, flags ...string) {
		bin := filepath.Join(dir, out)
		for _, omp := range []string{"-fopenmp", ""} { // without OpenMP: 1 thread
			args := append([]string{"-O3", "-march=native"}, flags...)
			if omp != "" {
				args = append(args, omp)
			}
			args = append(args, "-o", bin, src, "-lm")
			if _, err = commandOutput(path, args...); err == nil {
				e.argv, e.note = []string{bin}, strings.Join(args[:len(args)-4], " ")
				if omp == "" {
					e.note += " (no OpenMP: 1 thread)"
				}
				return
			}
		}
		e.why = "missing: the C build failed: " + firstLine(err.Error())
	}
	build(strict, "peer", "-ffp-contract=off")
	build(fast, "peer-fast", "-ffast-math")
	return strict, fast
}

// openblasUnset is what the OpenBLAS peer's environment lacks (it gets
// extEnv's 2 threads too): OPENBLAS_CORETYPE (this machine's environment pins it to
// Haswell's AVX2 kernels; unset, OpenBLAS detects the CPU and picks its
// AVX-512 kernel where there is one).
var openblasUnset = []string{"OPENBLAS_CORETYPE"}

// buildOpenBLAS compiles peer.c (already written into dir by buildC) with
// -DKILN_CBLAS against Debian's libopenblas: its E6 matmuls are
// cblas_sgemm and cblas_dgemm. The peer is missing when the compiler,
// cblas.h or the library is.
func buildOpenBLAS(cc, dir string) *external {
	e := &external{name: openblasPeer, env: extEnv, unset: openblasUnset, only: set("E6a", "E6b", "E6c", "E6d", "E6e", "E6f")}
	path, err := exec.LookPath(cc)
	if err != nil {
		e.why = fmt.Sprintf("missing: no C compiler (%v)", err)
		return e
	}
	src, bin := filepath.Join(dir, "peer.c"), filepath.Join(dir, "peer-openblas")
	if err := os.WriteFile(src, []byte(peerC), 0o644); err != nil {
		e.why = "missing: " + err.Error()
		return e
	}
	flags := []string{"-O3", "-march=native", "-DKILN_CBLAS"}
	if _, err := commandOutput(path, append(flags, "-o", bin, src, "-lopenblas", "-lm")...); err != nil {
		e.why = "missing: the OpenBLAS build failed (is libopenblas-dev installed?): " + firstLine(err.Error())
		return e
	}
	ver, err := commandOutputEnv(e.environ(), bin, "version")
	if err != nil {
		e.why = "missing: the OpenBLAS peer does not run: " + firstLine(err.Error())
		return e
	}
	e.argv, e.version = []string{bin}, ver
	e.note = fmt.Sprintf("%s %s -o peer-openblas peer.c -lopenblas -lm, run with %s and %s removed from its environment only; OpenBLAS reports: %s",
		filepath.Base(cc), strings.Join(flags, " "), strings.Join(extEnv, " "), strings.Join(openblasUnset, ", "), e.version)
	return e
}

// environ is the subprocess's environment: this process's, less e.unset,
// plus e.env.
func (e *external) environ() []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if !slices.Contains(e.unset, k) {
			env = append(env, kv)
		}
	}
	return append(env, e.env...)
}

// findNumPy checks that python has NumPy and writes the script into dir.
func findNumPy(python, dir string) *external {
	e := &external{name: numpyPeer, env: extEnv, only: set("E1", "E2", "E3", "E4", "E5a", "E6a", "E6b", "E6c", "E6d", "E6e", "E6f", "E6m", "E7", "E8")}
	script := filepath.Join(dir, "peer.py")
	if err := os.WriteFile(script, []byte(peerPy), 0o644); err != nil {
		e.why = "missing: " + err.Error()
		return e
	}
	// In the peer's environment, OpenBLAS reports the core it picks there.
	ver, err := commandOutputEnv(e.environ(), python, script, "version")
	if err != nil {
		e.why = fmt.Sprintf("missing: %s has no NumPy (%s)", python, firstLine(err.Error()))
		return e
	}
	e.argv, e.version, e.note = []string{python, script}, ver, python
	return e
}

// torchEnv is the PyTorch peer's environment (added to this process's):
// extEnv's 2 threads, and the passive OpenMP wait policy in the spelling
// issue 26 gives. PyTorch's intra-op pool is OpenMP's, whose idle threads
// otherwise spin between ops; on a shared 2-core machine they take the
// core the working thread needs. peer_torch.py also calls
// torch.set_num_threads(2).
var torchEnv = []string{"OMP_NUM_THREADS=2", "OMP_WAIT_POLICY=PASSIVE", "OPENBLAS_NUM_THREADS=2"}

// torchWorkloads are the workloads the PyTorch peer runs (their names in
// peer_torch.py are their ext names, as peer.py's).
var torchWorkloads = []string{"E1", "E3", "E4", "E5a", "E6a", "E6b", "E6c", "E6d", "E6e", "E6f", "E6k", "E6kb", "E6m", "E6p", "E6pb", "E7", "E8"}

// findTorch checks that python has PyTorch and writes peer_torch.py (and
// peer.py, whose loader and timing loop it imports) into dir. The peer is
// missing, and says why, when python cannot import torch.
func findTorch(python, dir string) *external {
	e := &external{name: torchPeer, env: torchEnv, only: set(torchWorkloads...)}
	script := filepath.Join(dir, "peer_torch.py")
	for name, src := range map[string]string{"peer.py": peerPy, "peer_torch.py": peerTorchPy} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			e.why = "missing: " + err.Error()
			return e
		}
	}
	ver, err := commandOutputEnv(e.environ(), python, script, "version")
	if err != nil {
		e.why = fmt.Sprintf("missing: %s has no PyTorch (%s)", python, lastLine(err.Error()))
		return e
	}
	e.argv, e.version = []string{python, script}, ver
	e.note = fmt.Sprintf("%s peer_torch.py with %s in its environment and torch.set_num_threads(2); PyTorch reports: %s", python, strings.Join(torchEnv, " "), ver)
	return e
}

func set(ids ...string) map[string]bool {
	m := map[string]bool{}
	for _, id := range ids {
		m[id] = true
	}
	return m
}

// lastLine is the last line of s: where Python puts the error of a
// traceback.
func lastLine(s string) string {
	s = strings.TrimSpace(s)
	return s[strings.LastIndex(s, "\n")+1:]
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}

// run runs the subprocess's workload name (peer.c's and peer.py's
// spelling) of size n, reading inputs from dir; it returns the timing and
// the output file's bytes.
func (e *external) run(name string, n int, s schedule, dir string) (timing, []byte, error) {
	out := filepath.Join(dir, "out-"+e.name+".bin")
	defer os.Remove(out)
	args := append(append([]string{}, e.argv[1:]...), name, strconv.Itoa(n), strconv.Itoa(s.runs),
		strconv.Itoa(s.minRuns), strconv.FormatInt(s.budget.Milliseconds(), 10), dir, out)
	cmd := exec.Command(e.argv[0], args...)
	cmd.Env = e.environ()
	b, err := cmd.CombinedOutput()
	if err != nil {
		return timing{}, nil, fmt.Errorf("%v: %s", err, firstLine(string(b)))
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	var ns float64
	var runs int
	if _, err := fmt.Sscanf(lines[len(lines)-1], "ok %g %d", &ns, &runs); err != nil {
		return timing{}, nil, fmt.Errorf("unexpected output %q", string(b))
	}
	t := timing{sec: ns / 1e9, runs: runs}
	if name == "copy" {
		return t, nil, nil
	}
	data, err := os.ReadFile(out)
	return t, data, err
}

// writeInputs writes w's input files into dir when an available
// subprocess peer runs w.
func writeInputs(w *workload, exts map[string]*external, dir string) error {
	for _, e := range exts {
		if e.why == "" && e.applies(w.id) {
			for name, b := range w.files {
				if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
					return err
				}
			}
			return nil
		}
	}
	return nil
}

// removeInputs deletes w's input files from dir.
func removeInputs(w *workload, dir string) {
	for name := range w.files {
		os.Remove(filepath.Join(dir, name))
	}
}

// decode turns an output file into a slice of like's type.
func decode(b []byte, like any) (any, error) {
	switch like.(type) {
	case []float32:
		return castBytes[float32](b)
	case []float64:
		return castBytes[float64](b)
	case []tensor.Float16:
		return castBytes[tensor.Float16](b)
	case []int32:
		return castBytes[int32](b)
	case []complex64:
		return castBytes[complex64](b)
	}
	return nil, fmt.Errorf("bench: cannot decode a %T output", like)
}

func castBytes[T any](b []byte) (any, error) {
	var z T
	size := len(bytesOf([]T{z}))
	if len(b)%size != 0 {
		return nil, fmt.Errorf("bench: output of %d bytes is not a whole number of %T", len(b), z)
	}
	out := make([]T, len(b)/size)
	copy(bytesOf(out), b)
	return out, nil
}
