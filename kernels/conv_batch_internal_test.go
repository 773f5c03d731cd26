package kernels

import (
	"fmt"
	"testing"

	"github.com/kiln-go/kiln/internal/simd"
	"github.com/kiln-go/kiln/lower"
	"github.com/kiln-go/kiln/promote"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// TestConvBatchPlan: the kernel cotangent of an NHWC convolution (trace's
// convTransposeRHS) runs batch-major (convBatch), the forward
// convolution and the input cotangent as lines (the implicit GEMM) — so
// the conformance cases written for them (conv/kernel-cotangent,
// conv/batch-major-strided, conv-kernel-grad-epilogue, conv/lines-*) keep
// covering both.
func TestConvBatchPlan(t *testing.T) {
	abs := func(shape ...int) trace.Abstract {
		return trace.Abstract{Type: promote.Strong(tensor.F32), Shape: shape}
	}
	nhwc := trace.ConvOptions{PaddingMode: "SAME", DimensionNumbers: [3]string{"NHWC", "HWIO", "NHWC"}}
	p, err := trace.Trace(promote.Config{}, []trace.Abstract{abs(8, 12, 12, 16), abs(3, 3, 16, 16), abs(8, 12, 12, 16)}, func(a []trace.Value) []trace.Value {
		y, pull := trace.VJP(func(xw []trace.Value) []trace.Value {
			return []trace.Value{trace.ConvGeneralDilated(xw[0], xw[1], nhwc)}
		}, a[0], a[1])
		return append(pull(a[2]), y...)
	})
	if err != nil {
		t.Fatal(err)
	}
	m, err := lower.Compile(p, lower.Options{Fold: Fold, Verify: true})
	if err != nil {
		t.Fatal(err)
	}
	e, err := DefaultCPU().Compile(m)
	if err != nil {
		t.Fatal(err)
	}
	var batch, lines int
	for _, k := range e.(*cpuExec).kernels {
		c, ok := k.(*convKernel)
		switch {
		case !ok:
		case c.batch == nil:
			t.Errorf("a convolution of %d batch elements, %d positions, K %d on the im2col path", c.nb, c.npos, c.kk)
		case c.batch.lines:
			lines++
		default:
			batch++
			if c.nb != 16 || c.npos != 9 || c.kk != 12*12*8 {
				t.Errorf("batch-major conv of %d batch elements, %d positions, K %d; want the kernel cotangent's 16, 9, 1152", c.nb, c.npos, c.kk)
			}
		}
	}
	if batch != 1 || lines != 2 {
		t.Errorf("%d batch-major and %d lines convolutions, want 1 and 2", batch, lines)
	}
}

// TestBatchPanels: batch-major panels cover the batch in order, each on a
// kernel of the chain with at least its rows, and a remainder that would
// fall to a much smaller kernel is split into two of Low's panels (64 on
// 12-row tiles: 12·4 + 8 + 8; on the 14-row tall chain 14·4 + 8).
func TestBatchPanels(t *testing.T) {
	for _, mk := range []simd.GemmKernel[float32]{gemmKernel[float32](), gemmKernelTall[float32]()} {
		for nb := 1; nb <= 100; nb++ {
			ps := batchPanels(nb, &mk)
			next := 0
			for _, p := range ps {
				if p.start != next || p.rows < 1 || p.rows > p.k.MR || p.k.NR != mk.NR {
					t.Fatalf("%d-row chain, nb %d: panel %+v after %d rows", mk.MR, nb, p, next)
				}
				next += p.rows
			}
			if next != nb {
				t.Fatalf("%d-row chain, nb %d: panels cover %d rows", mk.MR, nb, next)
			}
		}
		want := map[int]string{12: "[12 12 12 12 8 8]", 14: "[14 14 14 14 8]"}[mk.MR]
		if want == "" || mk.Low == nil || mk.Low.MR != 8 {
			continue // the AVX2 and generic chains
		}
		var rows []int
		for _, p := range batchPanels(64, &mk) {
			rows = append(rows, p.k.MR)
		}
		if fmt.Sprint(rows) != want {
			t.Errorf("64 batch rows as panels %v on the %d-row chain, want %s", rows, mk.MR, want)
		}
	}
}

// TestLinesChain: a lines convBatch takes the tall chain exactly where its
// tiles cost less (E6k's 56 positions as 14·4, not 12·4 + 8), the tier's
// kernel where they cost the same or more (48 as 12·4), and the tier's
// kernel on tiers whose tall chain is that kernel; lineCost counts the
// tiles lineProducts runs, padding rows included.
func TestLinesChain(t *testing.T) {
	mk, tall := gemmKernel[float32](), gemmKernelTall[float32]()
	for n := 1; n <= 300; n++ {
		got := linesChain[float32](n)
		want := mk.MR
		if lineCost(&tall, n) < lineCost(&mk, n) {
			want = tall.MR
		}
		if got.MR != want || got.NR != mk.NR {
			t.Fatalf("%d positions: a %d×%d chain, want %d rows", n, got.MR, got.NR, want)
		}
		if f64 := linesChain[float64](n); f64.MR != gemmKernel[float64]().MR {
			t.Fatalf("f64, %d positions: %d rows, want the tier's %d", n, f64.MR, gemmKernel[float64]().MR)
		}
	}
	if tall.MR == mk.MR {
		t.Logf("tier %v: no tall chain; every line runs on the %d-row kernel", simd.Level(), mk.MR)
		return
	}
	for n, rows := range map[int]int{56: 14, 28: 14, 14: 14, 48: 12, 12: 12, 8: 12} {
		if got := linesChain[float32](n).MR; got != rows {
			t.Errorf("%d positions on %d rows, want %d", n, got, rows)
		}
	}
	if c12, c14 := lineCost(&mk, 56), lineCost(&tall, 56); c12 != 4*(12+tileSteps)+8+tileSteps || c14 != 4*(14+tileSteps) {
		t.Errorf("56 positions cost %d on 12 rows and %d on 14, want 12·4 + 8 and 14·4 tiles", c12, c14)
	}
}
