package main

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kiln-go/kiln/tensor"
)

// TestQuickReport runs the generator in -quick mode with the C compiler,
// NumPy and PyTorch made unavailable, and checks the report's structure: every
// workload has a row and the absent peers say "missing". It asserts
// nothing about timings.
func TestQuickReport(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every workload")
	}
	dir := t.TempDir()
	out := filepath.Join(dir, "REPORT.md")
	args := []string{"-quick", "-n", "4096", "-runs", "2", "-out", out,
		"-cc", filepath.Join(dir, "no-cc"), "-python", filepath.Join(dir, "no-python")}
	if err := run(args, io.Discard); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	report := string(b)
	for _, id := range workloadIDs {
		if !strings.Contains(report, "\n| "+id+" ") {
			t.Errorf("the report has no row for %s", id)
		}
	}
	for _, want := range []string{
		"- E1 c-O3: missing: no C compiler",
		"- E3 c-fastmath: missing: no C compiler",
		"- E1 numpy: missing: ",
		"- E2 gorgonia: missing: ",
		"- C copy bandwidth: missing: ",
		"- E6a openblas: missing: no C compiler",
		"- E6f numpy: missing: ",
		"- E6k torch: missing: ",
		"- E7 torch: missing: ",
		"| E6g (issue 12): dense layer",
	} {
		if !strings.Contains(report, want) {
			t.Errorf("the report lacks %q", want)
		}
	}
	if strings.Contains(report, "c-O3 ran as") || strings.Contains(report, "numpy ran as") || strings.Contains(report, "openblas ran as") || strings.Contains(report, "torch ran as") {
		t.Error("the report describes a peer that was missing")
	}
	if strings.Contains(report, "**ERROR**") {
		t.Logf("the report lists output mismatches (Kiln or a peer is wrong):\n%s", report[strings.Index(report, "## Checks"):])
	}
	if fi, err := os.Stat(filepath.Join(dir, "report.svg")); err != nil || fi.Size() == 0 {
		t.Errorf("no chart: %v", err)
	}
}

func TestCompare(t *testing.T) {
	h := tensor.Float32ToF16
	for _, tc := range []struct {
		name      string
		got, want any
		tol       float64
		matrix    bool
		ok        bool
	}{
		{"f32 exact", []float32{1, 2.5}, []float32{1, 2.5}, 0, false, true},
		{"f32 one ulp", []float32{1, 2.5000002}, []float32{1, 2.5}, 0, false, false},
		{"f32 one ulp within tol", []float32{1, 2.5000002}, []float32{1, 2.5}, 1e-6, false, true},
		{"f32 negative zero is not zero bit-exactly", []float32{float32(negZero())}, []float32{0}, 0, false, false},
		{"f64 relative", []float64{1e10 + 1}, []float64{1e10}, 1e-9, false, true},
		{"f64 beyond relative", []float64{1.001}, []float64{1}, 1e-9, false, false},
		{"NaN is a mismatch under a tolerance", []float64{nan()}, []float64{1}, 1e-3, false, false},
		{"matrix error scaled by the largest element", []float32{100, 0.001}, []float32{100, 0}, 1e-4, true, true},
		{"f16 bits", []tensor.Float16{h(0.5), h(-3)}, []tensor.Float16{h(0.5), h(-3)}, 0, false, true},
		{"f16 differs", []tensor.Float16{h(0.5)}, []tensor.Float16{h(0.50048828125)}, 0, false, false},
		{"length", []float32{1}, []float32{1, 2}, 0, false, false},
		{"type", []float64{1}, []float32{1}, 0, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			msg, _ := compare(tc.got, tc.want, tc.tol, tc.matrix)
			if (msg == "") != tc.ok {
				t.Errorf("compare = %q, want agreement %v", msg, tc.ok)
			}
		})
	}
}

func negZero() float64 { z := 0.0; return -z }

func nan() float64 { z := 0.0; return z / z }

// TestE2Reference pins the Go loop's per-op semantics where they show:
// x*2 wraps in int8, and every f16 op rounds to nearest even.
func TestE2Reference(t *testing.T) {
	for _, tc := range []struct {
		x       int8
		y, want float32
	}{
		{3, 1, 3.5},     // (6 + 1) / 2
		{100, 0, -28},   // 200 wraps to -56
		{-128, 0, 0},    // -256 wraps to 0
		{1, 4096, 2048}, // 2 + 4096 rounds to 4096 in f16 (a tie, to even), not 4098
		{0, 0x1p-24, 0}, // the smallest subnormal halved: a tie, rounded to even 0
	} {
		got := e2Elem(tc.x, tensor.Float32ToF16(tc.y)).Float32()
		if got != tc.want {
			t.Errorf("e2Elem(%d, %v) = %v, want %v", tc.x, tc.y, got, tc.want)
		}
	}
}

func TestFormatSeconds(t *testing.T) {
	for _, c := range []struct {
		sec  float64
		want string
	}{{999.6e-6, "1 ms"}, {999.4e-6, "999 µs"}, {1.5e-3, "1.5 ms"}, {2.5, "2.5 s"}, {0.9996, "1 s"}, {158e-9, "158 ns"}, {999.7e-9, "1 µs"}} {
		if got := formatSeconds(c.sec); got != c.want {
			t.Errorf("formatSeconds(%g) = %q, want %q", c.sec, got, c.want)
		}
	}
}
