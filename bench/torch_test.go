package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// torchPython is the Python whose PyTorch is the torch peer (the report's
// -python default).
const torchPython = "/usr/bin/python3"

// torchOrSkip finds the torch peer, skipping the test when PyTorch is
// missing, or failing it when KILN_REQUIRE_TORCH=1 (as CI sets).
func torchOrSkip(t *testing.T, dir string) *external {
	t.Helper()
	e := findTorch(torchPython, dir)
	if e.why == "" {
		return e
	}
	msg := "the torch peer needs " + torchPython + " with PyTorch (apt-get install python3-torch): " + e.why
	if os.Getenv("KILN_REQUIRE_TORCH") == "1" {
		t.Fatal(msg)
	}
	t.Skip(msg + "; set KILN_REQUIRE_TORCH=1 to make this a failure")
	return nil
}

// TestTorchMissing: a Python that is absent, or that cannot import torch,
// leaves the torch peer missing with the reason, and its cells say so (a
// workload it has no form of says n/a).
func TestTorchMissing(t *testing.T) {
	dir := t.TempDir()
	noTorch := filepath.Join(dir, "python-without-torch")
	script := "#!/bin/sh\necho 'Traceback (most recent call last):' >&2\necho \"ModuleNotFoundError: No module named 'torch'\" >&2\nexit 1\n"
	if err := os.WriteFile(noTorch, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	for python, want := range map[string]string{
		filepath.Join(dir, "no-python"): "has no PyTorch",
		noTorch:                         "has no PyTorch (ModuleNotFoundError: No module named 'torch')",
	} {
		e := findTorch(python, dir)
		if !strings.HasPrefix(e.why, "missing: "+python) || !strings.Contains(e.why, want) {
			t.Errorf("findTorch(%s).why = %q, want it to start with missing: and contain %q", python, e.why, want)
		}
		if e.argv != nil {
			t.Errorf("a missing peer has a command: %v", e.argv)
		}
		exts := map[string]*external{torchPeer: e}
		for id, status := range map[string]string{"E6k": e.why, "E7": e.why, "E6g": "n/a"} {
			c := &cell{}
			w := newWorkload(id, 0, quickMatrices)
			if _, err := runAlone(w, torchPeer, exts, schedule{runs: 1, minRuns: 1}, dir, nil, []float32{0}, c); err != nil {
				t.Errorf("%s: %v", id, err)
			}
			if c.status != status {
				t.Errorf("%s torch cell status %q, want %q", id, c.status, status)
			}
		}
	}
}

// TestTorchEnviron: the torch peer runs with 2 OpenMP threads and a
// passive wait policy, the only value of each in its environment.
func TestTorchEnviron(t *testing.T) {
	t.Setenv("OMP_WAIT_POLICY", "active")
	e := &external{env: torchEnv}
	env := e.environ()
	for _, want := range []string{"OMP_NUM_THREADS=2", "OMP_WAIT_POLICY=PASSIVE"} {
		if !slices.Contains(env, want) {
			t.Errorf("the torch peer's environment lacks %s", want)
		}
	}
	// exec.Cmd keeps the last of repeated variables: ours come last.
	last := ""
	for _, kv := range env {
		if strings.HasPrefix(kv, "OMP_WAIT_POLICY=") {
			last = kv
		}
	}
	if last != "OMP_WAIT_POLICY=PASSIVE" {
		t.Errorf("OMP_WAIT_POLICY's last value is %q", last)
	}
}

// TestTorchPeer runs the torch peer on -quick sizes of issue 26's
// workloads and of the output forms the others share (E4's f64 scalar,
// E6m's complex matrix; E7 at its one size) and checks each output against
// Kiln fused's within the row's tolerance, as the report does (which
// checks the rest: each run starts a Python that imports torch, seconds
// on a loaded machine). It asserts nothing about the times.
func TestTorchPeer(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a Python with PyTorch for each of 9 workloads")
	}
	dir := t.TempDir()
	e := torchOrSkip(t, dir)
	for _, want := range []string{"oneDNN", "2 threads", "OMP_WAIT_POLICY=PASSIVE"} {
		if !strings.Contains(e.version, want) {
			t.Errorf("PyTorch reports %q, want it to contain %q", e.version, want)
		}
	}
	for _, id := range []string{"E4", "E5a", "E6a", "E6k", "E6kb", "E6m", "E6p", "E6pb", "E7"} {
		if !slices.Contains(torchWorkloads, id) {
			t.Errorf("the torch peer does not run %s", id)
			continue
		}
		t.Run(id, func(t *testing.T) {
			w := newWorkload(id, 4096, quickMatrices)
			k, err := runIntoImpl(w)
			if err != nil {
				t.Fatal(err)
			}
			if err := k.run(); err != nil {
				t.Fatal(err)
			}
			if err := writeInputs(w, map[string]*external{torchPeer: e}, dir); err != nil {
				t.Fatal(err)
			}
			defer removeInputs(w, dir)
			c := &cell{}
			got, err := runAlone(w, torchPeer, map[string]*external{torchPeer: e}, schedule{runs: 1, minRuns: 1, budget: time.Millisecond}, dir, nil, k.result(), c)
			if err != nil {
				t.Fatal(err)
			}
			if c.status != "" || c.runs != 1 {
				t.Errorf("cell %+v, want one measured run", c)
			}
			if msg, _ := compareParts(got, k.result(), w.tol, w.flops > 0, w.parts); msg != "" {
				t.Errorf("torch vs Kiln: %s", msg)
			}
		})
	}
}

// TestE8CPeer: the C stencil rounds as the Go loop does (every op one f32
// rounding, the ends wrapping around), so their results are the same bits;
// the Go loop's equal Kiln's in the report's checks.
func TestE8CPeer(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles peer.c and runs 2,000 stencil steps")
	}
	dir := t.TempDir()
	c, _ := buildC("gcc", dir)
	if c.why != "" {
		t.Skip(c.why)
	}
	w := newE8()
	mk, ok := w.peers[goLoop]
	if !ok {
		t.Fatal("E8 has no go-loop peer")
	}
	g, err := mk()
	if err != nil {
		t.Fatal(err)
	}
	if err := g.run(); err != nil {
		t.Fatal(err)
	}
	exts := map[string]*external{cPeer: c}
	if err := writeInputs(w, exts, dir); err != nil {
		t.Fatal(err)
	}
	cc := &cell{}
	got, err := runAlone(w, cPeer, exts, schedule{runs: 1, minRuns: 1}, dir, nil, g.result(), cc)
	if err != nil {
		t.Fatal(err)
	}
	if msg, _ := compare(got, g.result(), 0, false); msg != "" {
		t.Errorf("C vs the Go loop: %s", msg)
	}
}

// TestConvGradCPeer: the C peer's naive backward loops (E6kb) agree with
// Kiln's VJP within the conv row's tolerance, each gradient on its own,
// at a size where every padding branch is taken and batch-major conv
// (kernels' convBatch) runs Kiln's kernel gradient.
func TestConvGradCPeer(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles peer.c")
	}
	dir := t.TempDir()
	c, _ := buildC("gcc", dir)
	if c.why != "" {
		t.Skip(c.why)
	}
	w := newConvGradRow("E6kb", convSizes{n: 3, h: 19, cin: 9, cout: 5, k: 3})
	k, err := runIntoImpl(w)
	if err != nil {
		t.Fatal(err)
	}
	if err := k.run(); err != nil {
		t.Fatal(err)
	}
	exts := map[string]*external{cPeer: c}
	if err := writeInputs(w, exts, dir); err != nil {
		t.Fatal(err)
	}
	cc := &cell{}
	got, err := runAlone(w, cPeer, exts, schedule{runs: 1, minRuns: 1}, dir, nil, k.result(), cc)
	if err != nil {
		t.Fatal(err)
	}
	if msg, _ := compareParts(got, k.result(), w.tol, true, w.parts); msg != "" {
		t.Errorf("C vs Kiln: %s", msg)
	}
}

// TestIssue26Targets judges issue 26's targets, as the table has them, on
// made-up medians: conv throughput against PyTorch's (preferring the
// alternating rounds), the stencil's time against C's and the plain Go
// loop's, E4's against C's two-pass loop, and E7 reported against PyTorch
// without a bound.
func TestIssue26Targets(t *testing.T) {
	find := func(id, peer string) target {
		for _, tg := range targets {
			if tg.id == id && tg.peer == peer {
				return tg
			}
		}
		t.Fatalf("no target for %s against %s", id, peer)
		return target{}
	}
	mk := func(id string, secs map[string]float64) *row {
		r := &row{id: id, cells: map[string]*cell{}}
		for _, p := range peerNames {
			r.cells[p] = &cell{status: "n/a"}
		}
		for p, s := range secs {
			r.cells[p] = &cell{timing: timing{sec: s, runs: 3}}
		}
		return r
	}
	conv := find("E6k", torchPeer)
	if conv.minShare != 1 || conv.report {
		t.Errorf("E6k's PyTorch target %+v, want a throughput share of at least 1", conv)
	}
	if back := find("E6kb", torchPeer); back.minShare != 1 || back.report {
		t.Errorf("E6kb's PyTorch target %+v, want a throughput share of at least 1", back)
	}
	e8 := find("E8", cPeer)
	if e8.maxRatio != 1.2 {
		t.Errorf("E8's C target %+v, want a time ratio of at most 1.2", e8)
	}
	e8go := find("E8", goLoop)
	if e8go.maxRatio != 0.5 {
		t.Errorf("E8's Go loop target %+v, want a time ratio of at most 0.5", e8go)
	}
	e4 := find("E4", cPeer)
	if e4.maxRatio != 1.2 {
		t.Errorf("E4's C target %+v, want a time ratio of at most 1.2", e4)
	}
	for _, id := range []string{"E6p", "E6pb"} {
		if p := find(id, torchPeer); !p.report {
			t.Errorf("%s's PyTorch target %+v, want it reported without a bound", id, p)
		}
	}
	e7 := find("E7", torchPeer)
	if !e7.report {
		t.Errorf("E7's PyTorch target %+v, want it reported without a bound", e7)
	}
	convPaired := mk("E6k", map[string]float64{kilnFused: 5e-3, torchPeer: 4e-3})
	convPaired.paired = map[string]pairing{torchPeer: {ratio: 0.8, rounds: 5}}
	missing := mk("E7", map[string]float64{kilnFused: 1e-4})
	missing.cells[torchPeer] = &cell{status: "missing: no torch"}
	for _, tc := range []struct {
		name              string
		t                 target
		row               *row
		measured, verdict string
	}{
		{"conv slower", conv, mk("E6k", map[string]float64{kilnFused: 5e-3, torchPeer: 4e-3}), "Kiln ÷ torch throughput = 0.8 (needs ≥ 1)", "**missed**"},
		{"conv faster", conv, mk("E6k", map[string]float64{kilnFused: 4e-3, torchPeer: 5e-3}), "Kiln ÷ torch throughput = 1.25 (needs ≥ 1)", "met"},
		{"conv rounds decide", conv, convPaired, "throughput = 1.25 in 5 alternating rounds (needs ≥ 1; 0.8 from the medians above)", "met"},
		{"conv torch missing", conv, mk("E6k", map[string]float64{kilnFused: 4e-3}), "torch n/a", "unknown"},
		{"stencil met", e8, mk("E8", map[string]float64{kilnFused: 0.9, cPeer: 1}), "Kiln ÷ c-O3 = 0.9 (needs ≤ 1.2)", "met"},
		{"stencil missed", e8, mk("E8", map[string]float64{kilnFused: 2.6, cPeer: 1}), "Kiln ÷ c-O3 = 2.6 (needs ≤ 1.2)", "**missed**"},
		{"stencil vs go met", e8go, mk("E8", map[string]float64{kilnFused: 0.2, goLoop: 0.65}), "Kiln ÷ go-loop = 0.308 (needs ≤ 0.5)", "met"},
		{"stencil vs go missed", e8go, mk("E8", map[string]float64{kilnFused: 1.05, goLoop: 0.4}), "Kiln ÷ go-loop = 2.62 (needs ≤ 0.5)", "**missed**"},
		{"two-pass met", e4, mk("E4", map[string]float64{kilnFused: 3.9e-3, cPeer: 4.5e-3}), "Kiln ÷ c-O3 = 0.867 (needs ≤ 1.2)", "met"},
		{"two-pass missed", e4, mk("E4", map[string]float64{kilnFused: 8.2e-3, cPeer: 3.9e-3}), "Kiln ÷ c-O3 = 2.1 (needs ≤ 1.2)", "**missed**"},
		{"step faster", e7, mk("E7", map[string]float64{kilnFused: 1e-4, torchPeer: 4e-4}), "Kiln ÷ torch = 0.25 (Kiln 4× faster)", "reported (no bound)"},
		{"step slower", e7, mk("E7", map[string]float64{kilnFused: 5e-4, torchPeer: 4e-4}), "Kiln ÷ torch = 1.25 (Kiln 1.25× slower)", "reported (no bound)"},
		{"step torch missing", e7, missing, "torch missing: no torch", "not measured"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, v := judge(tc.t, tc.row, nil)
			if !strings.Contains(m, tc.measured) || v != tc.verdict {
				t.Errorf("judge = %q, %q; want measured containing %q and verdict %q", m, v, tc.measured, tc.verdict)
			}
		})
	}
}
