package main

import (
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kiln-go/kiln/tensor"
)

// cpuinfoText is two processors of a /proc/cpuinfo (trimmed).
const cpuinfoText = `processor	: 0
vendor_id	: AuthenticAMD
cpu family	: 26
model		: 2
model name	: AMD EPYC
stepping	: 1
cpu MHz		: 2596.124
flags		: fpu sse2 avx2 fma f16c avx512f avx512bw avx512vl avx512_bf16

processor	: 1
cpu MHz		: 3100.000
flags		: fpu sse2
`

func TestParseCPUInfo(t *testing.T) {
	c := parseCPUInfo(cpuinfoText)
	if c.model != "AMD EPYC, cpu family 26, model 2, stepping 1" {
		t.Errorf("model = %q", c.model)
	}
	if c.mhz != 2596.124 {
		t.Errorf("mhz = %v, want the first processor's 2596.124", c.mhz)
	}
	if want := []string{"avx2", "fma", "f16c", "avx512f", "avx512bw", "avx512vl", "avx512_bf16"}; !slices.Equal(c.flags, want) {
		t.Errorf("flags = %v, want %v", c.flags, want)
	}
}

func TestPeak(t *testing.T) {
	for _, tc := range []struct {
		name  string
		m     machine
		dt    tensor.DType
		gflop float64 // 0: unknown
	}{
		{"avx512 f32", machine{cores: 2, mhz: 2500, cpuFlags: []string{"avx2", "fma", "avx512f"}}, tensor.F32, 320},
		{"avx512 f64", machine{cores: 2, mhz: 2500, cpuFlags: []string{"avx2", "fma", "avx512f"}}, tensor.F64, 160},
		{"avx2 fma f32", machine{cores: 4, mhz: 3000, cpuFlags: []string{"avx2", "fma"}}, tensor.F32, 384},
		{"no fma", machine{cores: 4, mhz: 3000, cpuFlags: []string{"avx2"}}, tensor.F32, 0},
		{"no frequency", machine{cores: 2, cpuFlags: []string{"avx512f"}}, tensor.F32, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, how := tc.m.peak(tc.dt)
			if math.Abs(p/1e9-tc.gflop) > 1e-9 {
				t.Errorf("peak = %g GFLOP/s (%s), want %g", p/1e9, how, tc.gflop)
			}
			if (tc.gflop == 0) != strings.HasPrefix(how, "unknown") {
				t.Errorf("description %q for peak %g", how, p)
			}
		})
	}
}

func TestSelectWorkloads(t *testing.T) {
	for _, tc := range []struct {
		id   string
		want []string
	}{
		{"E6a", []string{"E6a"}},
		{"E6", []string{"E6a", "E6b", "E6c", "E6d", "E6e", "E6f", "E6g", "E6h", "E6i", "E6j", "E6k", "E6kb", "E6p", "E6pb", "E6l", "E6m", "E6n", "E6o"}},
		{"e5", []string{"E5a", "E5b"}},
		{"E", nil},                     // too short to be a family
		{"E9", []string{"E9a", "E9b"}}, // issue 24: the ONNX Runtime rows
		{"E99", nil},
	} {
		if got := selectWorkloads(tc.id); !slices.Equal(got, tc.want) {
			t.Errorf("selectWorkloads(%q) = %v, want %v", tc.id, got, tc.want)
		}
	}
}

// TestJudge checks the target kinds' arithmetic on made-up medians.
func TestJudge(t *testing.T) {
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
	e6a := mk("E6a", map[string]float64{kilnFused: 2, openblasPeer: 1.9})
	dense, bare := mk("E6g", map[string]float64{kilnFused: 1.05}), mk("E6h", map[string]float64{kilnFused: 1})
	paired := mk("E6g", map[string]float64{kilnFused: 2})
	pairedE6 := mk("E6f", map[string]float64{kilnFused: 1, openblasPeer: 2})
	pairedE6.paired = map[string]pairing{openblasPeer: {ratio: 1.25, rounds: 5}}
	paired.pair.timing = timing{sec: 1, runs: 3}
	// A conv of 3 GFLOP in 2 s against a GEMM of 4 GFLOP in 1 s (paired: 2
	// GFLOP in 1 s): 0.375 (0.75) of its throughput.
	conv, gemm := mk("E6k", map[string]float64{kilnFused: 2}), mk("E6a", map[string]float64{kilnFused: 1})
	conv.flops, gemm.flops = 3e9, 4e9
	convPaired := mk("E6k", map[string]float64{kilnFused: 2})
	convPaired.flops, convPaired.pairFlops, convPaired.pair.timing = 3e9, 2e9, timing{sec: 1, runs: 3}
	// Alternating rounds of the two alone decide over the medians.
	alt := mk("E6j", map[string]float64{kilnFused: 2})
	alt.pair.timing, alt.pairAlt = timing{sec: 1, runs: 3}, pairing{ratio: 0.3, rounds: 5, cpuRatio: 0.32}
	convAlt := mk("E6k", map[string]float64{kilnFused: 2})
	convAlt.flops, convAlt.pairFlops, convAlt.pair.timing = 3e9, 2e9, timing{sec: 1, runs: 3}
	convAlt.pairAlt = pairing{ratio: 1.25, rounds: 5} // share 3/2/1.25 = 1.2
	for _, tc := range []struct {
		name         string
		t            target
		row, other   *row
		measured     string
		verdictStart string
	}{
		{"paired preferred", target{id: "E6f", peer: openblasPeer, minShare: 0.9}, pairedE6, nil, "= 0.8 in 5 alternating rounds (needs ≥ 0.9; 2 from the medians above)", "**missed**"},
		{"throughput met", target{id: "E6a", peer: openblasPeer, minShare: 0.9}, e6a, nil, "throughput = 0.95 (needs ≥ 0.9)", "met"},
		{"throughput missed", target{id: "E6a", peer: openblasPeer, minShare: 0.97}, e6a, nil, "throughput = 0.95", "**missed**"},
		{"peer missing", target{id: "E6a", peer: numpyPeer, minShare: 0.9}, e6a, nil, "numpy n/a", "unknown"},
		{"row ratio met", target{id: "E6g", vsRow: "E6h", maxRatio: 1.1}, dense, bare, "= 1.05 (needs ≤ 1.1)", "met"},
		{"row ratio missed", target{id: "E6g", vsRow: "E6h", maxRatio: 1.01}, dense, bare, "= 1.05", "**missed**"},
		{"row absent", target{id: "E6g", vsRow: "E6h", maxRatio: 1.1}, dense, nil, "not measured", "unknown"},
		{"pair preferred", target{id: "E6g", vsRow: "E6h", maxRatio: 1.1}, paired, bare, "(timed in the same rounds) = 2 s ÷ 1 s = 2", "**missed**"},
		{"row share met", target{id: "E6k", vsRow: "E6a", minShare: 0.35}, conv, gemm, "E6a's row) = 1.5 ÷ 4 = 0.375 (needs ≥ 0.35)", "met"},
		{"row share missed", target{id: "E6k", vsRow: "E6a", minShare: 0.8}, conv, gemm, "= 0.375", "**missed**"},
		{"row share paired", target{id: "E6k", vsRow: "E6a", minShare: 0.8}, convPaired, gemm, "(timed in the same rounds) = 1.5 ÷ 2 = 0.75", "**missed**"},
		{"row share no flops", target{id: "E6k", vsRow: "E6a", minShare: 0.8}, mk("E6k", map[string]float64{kilnFused: 2}), gemm, "no flop count", "unknown"},
		{"row rounds", target{id: "E6j", vsRow: "E6a", maxRatio: 0.35}, alt, nil, "= 2 s ÷ 1 s = 2; in 5 alternating rounds of the two alone: 0.3 (by process CPU time: 0.32) (needs ≤ 0.35)", "met"},
		{"row rounds share", target{id: "E6k", vsRow: "E6a", minShare: 0.8}, convAlt, nil, "= 1.5 ÷ 2 = 0.75; in 5 alternating rounds of the two alone: 1.2 (needs ≥ 0.8)", "met"},
		{"time ratio", target{id: "E6a", peer: openblasPeer, maxRatio: 1}, e6a, nil, "Kiln ÷ openblas = 1.05", "**missed**"},
		{"limit", target{id: "E6a", kiln: kilnFused, limit: 3 * time.Second}, e6a, nil, "2 s", "met"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, v := judge(tc.t, tc.row, tc.other)
			if !strings.Contains(m, tc.measured) || !strings.HasPrefix(v, tc.verdictStart) {
				t.Errorf("judge = %q, %q; want measured containing %q and a verdict starting %q", m, v, tc.measured, tc.verdictStart)
			}
		})
	}
}

// TestEnviron checks that a subprocess peer's environment lacks what it
// unsets and has what it adds.
func TestEnviron(t *testing.T) {
	t.Setenv("OPENBLAS_CORETYPE", "Haswell")
	e := &external{env: extEnv, unset: openblasUnset}
	env := e.environ()
	for _, kv := range env {
		if strings.HasPrefix(kv, "OPENBLAS_CORETYPE=") {
			t.Errorf("the OpenBLAS peer's environment has %s", kv)
		}
	}
	if !slices.Contains(env, "OPENBLAS_NUM_THREADS=2") {
		t.Error("the OpenBLAS peer's environment lacks OPENBLAS_NUM_THREADS=2")
	}
	if !slices.Contains((&external{}).environ(), "OPENBLAS_CORETYPE=Haswell") {
		t.Error("a peer that unsets nothing lost OPENBLAS_CORETYPE")
	}
}

// TestPeerRunsMakeCalls checks that a timed run of an in-process peer
// makes w.calls calls, as Kiln's do (the report divides every run's time
// by w.calls).
func TestPeerRunsMakeCalls(t *testing.T) {
	w := newWorkload("E6e", 0, quickMatrices)
	if w.calls < 2 {
		t.Fatalf("E6e at order %d batches %d calls; want several", w.size, w.calls)
	}
	n := 0
	w.add("counter", func() (impl, error) { return ready(func() error { n++; return nil }, nil) })
	im, status, err := inProcess(w, "counter")
	if err != nil || status != "" {
		t.Fatalf("inProcess: %q, %v", status, err)
	}
	if err := im.run(); err != nil {
		t.Fatal(err)
	}
	if n != w.calls {
		t.Errorf("one run made %d calls, want %d", n, w.calls)
	}
}

// TestPromotedRows checks that issue 12's bf16, int8 and conv rows run at
// -quick sizes, pair with E6a's f32 GEMM making as many calls per run,
// and that Kiln's int8 and bf16 products agree with their go-loop peers
// (exactly for int8; bf16 products are exact in f32, so only the order of
// the sums differs).
func TestPromotedRows(t *testing.T) {
	for _, id := range []string{"E6i", "E6j", "E6k", "E6l"} {
		t.Run(id, func(t *testing.T) {
			w := newWorkload(id, 0, quickMatrices)
			if w.pair == nil || w.pair.id != "E6a" || w.pair.calls != w.calls {
				t.Fatalf("pair = %+v, want E6a making %d calls", w.pair, w.calls)
			}
			if w.flops <= 0 {
				t.Errorf("flops = %g", w.flops)
			}
			k, err := runIntoImpl(w)
			if err != nil {
				t.Fatal(err)
			}
			if err := k.run(); err != nil {
				t.Fatal(err)
			}
			mk, ok := w.peers[goLoop]
			if !ok {
				return
			}
			p, err := mk()
			if err != nil {
				t.Fatal(err)
			}
			if err := p.run(); err != nil {
				t.Fatal(err)
			}
			if msg, _ := compare(p.result(), k.result(), w.tol, true); msg != "" {
				t.Errorf("go-loop vs Kiln: %s", msg)
			}
		})
	}
}

func TestCompareInt32(t *testing.T) {
	if msg, _ := compare([]int32{1, -2, 3}, []int32{1, -2, 3}, 0, true); msg != "" {
		t.Errorf("equal slices: %s", msg)
	}
	if msg, _ := compare([]int32{1, -2, 4}, []int32{1, -2, 3}, 0, true); !strings.Contains(msg, "1 of 3 elements differ") {
		t.Errorf("one element off: %q", msg)
	}
	if msg, _ := compare([]float32{1}, []int32{1}, 0, true); msg == "" {
		t.Error("a float32 output compared equal to an int32 one")
	}
}

// TestProcessCPU: the process CPU clock advances over busy work (on a
// platform without it, it reads 0 and the reports show wall times only).
func TestProcessCPU(t *testing.T) {
	c0 := processCPU()
	x := 1.0
	for i := range 50_000_000 {
		x += float64(i&7) * 1e-9
	}
	if c1 := processCPU(); c0 > 0 && c1 <= c0 {
		t.Errorf("process CPU time %v → %v over busy work (x = %v)", c0, c1, x)
	}
}

// TestE7NeedsOpenBLAS: E7's NumPy target is judged only when NumPy runs on
// OpenBLAS; on Debian's reference BLAS (what python3-numpy pulls in
// without libopenblas0) NumPy is several times slower and the verdict
// would be meaningless.
func TestE7NeedsOpenBLAS(t *testing.T) {
	e7 := &row{id: "E7", cells: map[string]*cell{}}
	for _, p := range peerNames {
		e7.cells[p] = &cell{status: "n/a"}
	}
	e7.cells[kilnFused] = &cell{timing: timing{sec: 100e-6, runs: 3}}
	e7.cells[numpyPeer] = &cell{timing: timing{sec: 1600e-6, runs: 3}}
	for blas, want := range map[string]string{
		"1.24.2 (Python 3.11.2; BLAS: /usr/lib/x86_64-linux-gnu/blas/libblas.so.3.11.0)":                   "not judged",
		"1.24.2 (Python 3.11.2; BLAS: /usr/lib/x86_64-linux-gnu/openblas-pthread/libblas.so.3)":            "Kiln ÷ numpy = 0.0625",
		"1.24.2 (Python 3.11.2; BLAS: /usr/lib/x86_64-linux-gnu/openblas-pthread/libopenblasp-r0.3.21.so)": "Kiln ÷ numpy = 0.0625",
	} {
		var b strings.Builder
		writeTargets(&b, &results{mach: machine{numpy: blas}, rows: []*row{e7}})
		line := ""
		for l := range strings.Lines(b.String()) {
			if strings.Contains(l, "3× faster than NumPy") {
				line = l
			}
		}
		if !strings.Contains(line, want) {
			t.Errorf("NumPy %q: E7's NumPy target reads %q, want it to contain %q", blas, line, want)
		}
	}
}
