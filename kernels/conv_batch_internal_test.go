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
// convolution and the input cotangent on the im2col path — so the
// conformance cases written for convBatch (conv/kernel-cotangent,
// conv/batch-major-strided, conv-kernel-grad-epilogue) keep covering it.
func TestConvBatchPlan(t *testing.T) {
	abs := func(shape ...int) trace.Abstract {
		return trace.Abstract{Type: promote.Strong(tensor.F32), Shape: shape}
	}
	nhwc := trace.ConvOptions{PaddingMode: "SAME", DimensionNumbers: [3]string{"NHWC", "HWIO", "NHWC"}}
	p, err := trace.Trace(promote.Config{}, []trace.Abstract{abs(8, 12, 12, 16), abs(3, 3, 16, 8), abs(8, 12, 12, 8)}, func(a []trace.Value) []trace.Value {
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
	var batch, im2col int
	for _, k := range e.(*cpuExec).kernels {
		if c, ok := k.(*convKernel); ok {
			if c.batch != nil {
				batch++
				if c.nb != 16 || c.npos != 9 || c.kk != 12*12*8 {
					t.Errorf("batch-major conv of %d batch elements, %d positions, K %d; want the kernel cotangent's 16, 9, 1152", c.nb, c.npos, c.kk)
				}
			} else {
				im2col++
			}
		}
	}
	if batch != 1 || im2col != 2 {
		t.Errorf("%d batch-major and %d im2col convolutions, want 1 and 2", batch, im2col)
	}
}
