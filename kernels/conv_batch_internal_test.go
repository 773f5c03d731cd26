package kernels

import (
	"testing"

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
