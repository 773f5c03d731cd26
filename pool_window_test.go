package kiln_test

import (
	"math"
	"testing"

	"github.com/kiln-go/kiln"
	"github.com/kiln-go/kiln/nn"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// reduce_window's compositions equal a plain loop over the windows, bit
// for bit, on data with ±0, NaN and ±Inf: max and min propagate NaN and
// order −0 < +0; the sum adds the window's elements (padding as 0) in
// row-major order starting from the first.
func TestReduceWindowMatchesLoop(t *testing.T) {
	const h, w = 7, 6
	vals := []float32{0, float32(math.Copysign(0, -1)), 1, -1, 2.5, float32(math.Inf(1)), float32(math.Inf(-1)), 3, -0.5, 7}
	data := make([]float32, h*w)
	for i := range data {
		data[i] = vals[(i*7+i/5)%len(vals)]
	}
	data[17] = float32(math.NaN())
	x := tensor.Must(tensor.FromSlice(data, h, w))
	window, strides, dil := []int{3, 2}, []int{2, 1}, []int{1, 2}
	pads := [][2]int{{1, 1}, {2, 0}}
	o := trace.WindowOptions{Strides: strides, Padding: pads, WindowDilation: dil}
	oh := (h+pads[0][0]+pads[0][1]-((window[0]-1)*dil[0]+1))/strides[0] + 1
	ow := (w+pads[1][0]+pads[1][1]-((window[1]-1)*dil[1]+1))/strides[1] + 1
	loop := func(init float32, comb func(a, b float32) float32) []float32 {
		out := make([]float32, oh*ow)
		for oy := range oh {
			for ox := range ow {
				first, acc := true, float32(0)
				for ky := range window[0] {
					for kx := range window[1] {
						iy, ix := oy*strides[0]+ky*dil[0]-pads[0][0], ox*strides[1]+kx*dil[1]-pads[1][0]
						v := init
						if iy >= 0 && iy < h && ix >= 0 && ix < w {
							v = data[iy*w+ix]
						}
						if first {
							acc, first = v, false
						} else {
							acc = comb(acc, v)
						}
					}
				}
				out[oy*ow+ox] = acc
			}
		}
		return out
	}
	maxIEEE := func(a, b float32) float32 {
		switch {
		case a != a || b != b:
			return float32(math.NaN())
		case a == b:
			if math.Signbit(float64(a)) {
				return b
			}
			return a
		}
		return max(a, b)
	}
	minIEEE := func(a, b float32) float32 { return -maxIEEE(-a, -b) }
	for _, c := range []struct {
		name string
		fn   func(x kiln.Value) kiln.Value
		want []float32
	}{
		{"max", func(x kiln.Value) kiln.Value { return trace.ReduceWindowMax(x, window, o) }, loop(float32(math.Inf(-1)), maxIEEE)},
		{"min", func(x kiln.Value) kiln.Value { return trace.ReduceWindowMin(x, window, o) }, loop(float32(math.Inf(1)), minIEEE)},
		{"sum", func(x kiln.Value) kiln.Value { return trace.ReduceWindowSum(x, window, o) }, loop(0, func(a, b float32) float32 { return a + b })},
	} {
		got, err := kiln.Jit(c.fn).Run(x)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		g, _ := tensor.Data[float32](got)
		if len(g) != len(c.want) {
			t.Fatalf("%s: %d elements, want %d", c.name, len(g), len(c.want))
		}
		for i := range g {
			same := math.Float32bits(g[i]) == math.Float32bits(c.want[i]) || g[i] != g[i] && c.want[i] != c.want[i]
			if !same {
				t.Errorf("%s [%d] = %v, want %v", c.name, i, g[i], c.want[i])
			}
		}
	}
}

// A window's maximum of −0 and +0 is +0 and its minimum −0, whichever
// comes first (IEEE 754-2019's maximum and minimum).
func TestReduceWindowSignedZeros(t *testing.T) {
	nz := math.Copysign(0, -1)
	for _, c := range []struct {
		name string
		data []float64
		fn   func(x kiln.Value) kiln.Value
		neg  bool
	}{
		{"max -0 first", []float64{nz, 0, -1, -1}, func(x kiln.Value) kiln.Value { return trace.ReduceWindowMax(x, []int{2, 2}, trace.WindowOptions{}) }, false},
		{"max +0 first", []float64{0, nz, -1, -1}, func(x kiln.Value) kiln.Value { return trace.ReduceWindowMax(x, []int{2, 2}, trace.WindowOptions{}) }, false},
		{"min +0 first", []float64{0, nz, 1, 1}, func(x kiln.Value) kiln.Value { return trace.ReduceWindowMin(x, []int{2, 2}, trace.WindowOptions{}) }, true},
		{"min -0 first", []float64{nz, 0, 1, 1}, func(x kiln.Value) kiln.Value { return trace.ReduceWindowMin(x, []int{2, 2}, trace.WindowOptions{}) }, true},
	} {
		got, err := kiln.Jit(c.fn).Run(tensor.Must(tensor.FromSlice(c.data, 2, 2)))
		if err != nil {
			t.Fatal(err)
		}
		g, _ := tensor.Data[float64](got)
		if len(g) != 1 || g[0] != 0 || math.Signbit(g[0]) != c.neg {
			t.Errorf("%s: %v (want a zero, negative %v)", c.name, g, c.neg)
		}
	}
}

// A max pool's gradient at a tie goes wholly to the window's first
// maximal element (JAX's select_and_gather_add): an all-zero 2×2 window
// sends 1 to its top-left element; a window whose maximum appears twice,
// to the first of the two.
func TestMaxPoolTieGradient(t *testing.T) {
	x := tensor.Must(tensor.FromSlice([]float64{
		0, 0, 1, 3,
		0, 0, 3, 2,
		5, 4, 7, 7,
		5, 5, 7, 7,
	}, 1, 4, 4, 1))
	g, err := kiln.Jit(kiln.Grad(func(x kiln.Value) kiln.Value {
		return nn.MaxPool(x, []int{2, 2}, []int{2, 2}, "VALID").Sum()
	})).Run(x)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := tensor.Data[float64](g)
	want := []float64{
		1, 0, 0, 1,
		0, 0, 0, 0,
		1, 0, 1, 0,
		0, 0, 0, 0,
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("gradient %v, want %v", got, want)
		}
	}
}
