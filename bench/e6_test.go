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
		{"E6", []string{"E6a", "E6b", "E6c", "E6d", "E6e", "E6f", "E6g", "E6h"}},
		{"e5", []string{"E5a", "E5b"}},
		{"E", nil}, // too short to be a family
		{"E9", nil},
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
