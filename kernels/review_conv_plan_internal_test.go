package kernels

import (
	"testing"

	"github.com/kiln-go/kiln/lower"
	"github.com/kiln-go/kiln/promote"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// reviewConvModes compiles a convolution and its VJP and counts its
// convolutions run as lines, batch-major and im2col.
func reviewConvModes(t *testing.T, dt tensor.DType, x, w []int, o trace.ConvOptions) (lines, batch, im2col int) {
	t.Helper()
	abs := func(shape ...int) trace.Abstract { return trace.Abstract{Type: promote.Strong(dt), Shape: shape} }
	probe, err := trace.Trace(promote.Config{}, []trace.Abstract{abs(x...), abs(w...)}, func(a []trace.Value) []trace.Value {
		return []trace.Value{trace.ConvGeneralDilated(a[0], a[1], o)}
	})
	if err != nil {
		t.Fatal(err)
	}
	ys := probe.Outputs
	p, err := trace.Trace(promote.Config{}, []trace.Abstract{abs(x...), abs(w...), abs(ys[0].Shape...)}, func(a []trace.Value) []trace.Value {
		y, pull := trace.VJP(func(xw []trace.Value) []trace.Value {
			return []trace.Value{trace.ConvGeneralDilated(xw[0], xw[1], o)}
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
	for _, k := range e.(*cpuExec).kernels {
		c, ok := k.(*convKernel)
		switch {
		case !ok:
		case c.batch == nil:
			im2col++
		case c.batch.lines:
			lines++
		default:
			batch++
		}
	}
	return
}

// TestReviewConvPlanCoverage: the shapes of the kiln package's
// TestReviewConv* cases reach the paths they are written for (lines,
// batch-major), so those tests keep testing them.
func TestReviewConvPlanCoverage(t *testing.T) {
	nhwc := [3]string{"NHWC", "HWIO", "NHWC"}
	for _, c := range []struct {
		name                 string
		x, w                 []int
		o                    trace.ConvOptions
		lines, batch, im2col int
	}{
		{"width-5", []int{2, 3, 5, 16}, []int{3, 3, 16, 17}, trace.ConvOptions{PaddingMode: "SAME", DimensionNumbers: nhwc}, 2, 0, 1},
		{"width-3", []int{2, 3, 3, 16}, []int{3, 3, 16, 17}, trace.ConvOptions{PaddingMode: "SAME", DimensionNumbers: nhwc}, 0, 0, 3},
		{"stride-w-3", []int{1, 5, 40, 12}, []int{2, 4, 12, 9}, trace.ConvOptions{WindowStrides: []int{1, 3}, Padding: [][2]int{{0, 1}, {3, 3}}, DimensionNumbers: nhwc}, 1, 0, 2},
		{"layout-NWHC", []int{2, 19, 7, 16}, []int{3, 3, 16, 20}, trace.ConvOptions{PaddingMode: "SAME", DimensionNumbers: [3]string{"NWHC", "HWIO", "NWHC"}}, 2, 0, 1},
		{"layout-HNWC", []int{7, 3, 19, 16}, []int{20, 3, 3, 16}, trace.ConvOptions{PaddingMode: "SAME", DimensionNumbers: [3]string{"HNWC", "OHWI", "WHNC"}}, 2, 0, 1},
		{"batch-major-13", []int{13, 8, 8, 128}, []int{3, 3, 128, 17}, trace.ConvOptions{PaddingMode: "SAME", DimensionNumbers: nhwc}, 1, 1, 1},
		{"batch-major-ncw", []int{9, 40, 40}, []int{40, 40, 30}, trace.ConvOptions{WindowStrides: []int{3}, Padding: [][2]int{{1, 0}}, DimensionNumbers: [3]string{"NCW", "OIW", "NCW"}}, 0, 1, 2},
		{"empty-input-lines", []int{2, 0, 10, 16}, []int{1, 3, 16, 8}, trace.ConvOptions{Padding: [][2]int{{1, 1}, {1, 1}}, DimensionNumbers: nhwc}, 1, 0, 1},
		{"empty-input-batch-major", []int{8, 0, 4, 128}, []int{1, 9, 128, 8}, trace.ConvOptions{Padding: [][2]int{{2, 2}, {4, 4}}, DimensionNumbers: nhwc}, 0, 1, 1},
		{"batch-major-strided", []int{11, 17, 15, 96}, []int{4, 3, 96, 9}, trace.ConvOptions{WindowStrides: []int{3, 2}, Padding: [][2]int{{0, 1}, {2, 0}}, RhsDilation: []int{2, 1}, DimensionNumbers: nhwc}, 0, 1, 2},
		{"kgrad-5x5-n8", []int{8, 12, 12, 9}, []int{5, 5, 9, 16}, trace.ConvOptions{PaddingMode: "SAME", DimensionNumbers: nhwc}, 2, 1, 0},
	} {
		l, b, i := reviewConvModes(t, tensor.F32, c.x, c.w, c.o)
		t.Logf("%s: %d lines, %d batch-major, %d im2col", c.name, l, b, i)
		if l != c.lines || b != c.batch || i != c.im2col {
			t.Errorf("%s: %d lines, %d batch-major, %d im2col; want %d, %d, %d", c.name, l, b, i, c.lines, c.batch, c.im2col)
		}
	}
}
