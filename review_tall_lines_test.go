package kiln_test

import (
	"fmt"
	"testing"

	"github.com/kiln-go/kiln"
	"github.com/kiln-go/kiln/internal/longtest"
	"github.com/kiln-go/kiln/tensor"
)

// Lines convolutions whose output widths make kernels' linesChain pick
// the tall (14-row) chain — and 9 and 29, where it does not — with
// strides, paddings, dilations, layouts, binary16 operands and special
// values, bit for bit against the reference evaluator (from the review of
// 0533ace).
func TestReviewTallLines(t *testing.T) {
	pad := func(p ...int) [][2]int {
		var out [][2]int
		for i := 0; i < len(p); i += 2 {
			out = append(out, [2]int{p[i], p[i+1]})
		}
		return out
	}
	nhwc := [3]string{"NHWC", "HWIO", "NHWC"}
	var cs []reviewConvCase
	i := 0
	for _, wd := range []int{9, 13, 14, 17, 25, 27, 28, 29, 40, 41, 54, 55, 56, 70} {
		i++
		cout := []int{17, 32, 64, 33}[i%4]
		cin := []int{16, 11, 32}[i%3]
		nb := 1 + i%3
		// SAME, stride 1
		cs = append(cs, reviewConvCase{name: fmt.Sprintf("w%d-same", wd), x: []int{nb, 3, wd, cin}, w: []int{3, 3, cin, cout}, o: kiln.ConvOptions{PaddingMode: "SAME", DimensionNumbers: nhwc}, dt: tensor.F32})
		// stride 2 along W, padding asymmetric: output width wd
		s := 2 + i%2
		in := (wd-1)*s + 3 - 1 - 2
		cs = append(cs, reviewConvCase{name: fmt.Sprintf("w%d-s%d", wd, s), x: []int{nb, 5, in, cin}, w: []int{2, 3, cin, cout}, o: kiln.ConvOptions{WindowStrides: []int{2, s}, Padding: pad(1, 0, 1, 2), RhsDilation: []int{2, 1}, DimensionNumbers: nhwc}, dt: tensor.F32})
		// VALID, width kernel 5
		cs = append(cs, reviewConvCase{name: fmt.Sprintf("w%d-valid-k5", wd), x: []int{nb, 2, wd + 4, 8}, w: []int{1, 5, 8, cout}, o: kiln.ConvOptions{PaddingMode: "VALID", DimensionNumbers: nhwc}, dt: tensor.F32})
		// another layout: the last kernel dim is not the input's innermost spatial dim
		cs = append(cs, reviewConvCase{name: fmt.Sprintf("w%d-NWHC", wd), x: []int{nb, wd, 3, 16}, w: []int{3, 3, 16, cout}, o: kiln.ConvOptions{PaddingMode: "SAME", DimensionNumbers: [3]string{"NWHC", "HWIO", "NWHC"}}, dt: tensor.F32})
		if i%3 == 0 {
			cs = append(cs, reviewConvCase{name: fmt.Sprintf("w%d-f16", wd), x: []int{nb, 3, wd, 16}, w: []int{3, 3, 16, cout}, o: kiln.ConvOptions{PaddingMode: "SAME", DimensionNumbers: nhwc}, dt: tensor.F16, prefer: tensor.F32})
			cs = append(cs, reviewConvCase{name: fmt.Sprintf("w%d-special", wd), x: []int{nb, 3, wd, 16}, w: []int{3, 3, 16, cout}, o: kiln.ConvOptions{PaddingMode: "SAME", DimensionNumbers: nhwc}, dt: tensor.F32, special: true})
		}
		if i%4 == 0 {
			cs = append(cs, reviewConvCase{name: fmt.Sprintf("w%d-1d", wd), x: []int{nb, wd, 16}, w: []int{5, 16, cout}, o: kiln.ConvOptions{PaddingMode: "SAME", DimensionNumbers: [3]string{"NWC", "WIO", "NWC"}}, dt: tensor.F32})
		}
	}
	every := longtest.Pick(1, 3) // a third of the cases, every width, without KILN_LONG
	for j, c := range cs {
		if j%every != 0 {
			continue
		}
		t.Run(c.name, func(t *testing.T) { reviewConvRun(t, c, uint64(900+j), reviewConvVariants) })
	}
}
