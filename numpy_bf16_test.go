package kiln_test

import (
	"fmt"
	"math"
	"os/exec"
	"strings"
	"testing"

	"github.com/kiln-go/kiln"
	"github.com/kiln-go/kiln/kernels/conformance"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// TestNumPyDotBF16 holds bf16 × bf16 dot_general — bf16 results and f32
// ones by preferred_element_type — to the bf16 rule spelled in NumPy
// (numpyPrelude's dot_bf16 on bf16 bits), bit for bit (NaNs equal): odd
// and even K, transposed, batched and multi-contracting operands, inputs
// with subnormals, infinities and sums that flush.
func TestNumPyDotBF16(t *testing.T) {
	numpyOrSkip(t)
	type tc struct {
		xs, ys []int
		dims   trace.DotDims
	}
	mm := trace.DotDims{LhsContract: []int{1}, RhsContract: []int{0}}
	cases := []tc{
		{[]int{5, 1}, []int{1, 7}, mm},
		{[]int{5, 2}, []int{2, 7}, mm},
		{[]int{6, 9}, []int{9, 4}, mm},
		{[]int{13, 40}, []int{40, 35}, mm},
		{[]int{3, 301}, []int{301, 5}, mm},
		{[]int{9, 6}, []int{5, 9}, trace.DotDims{LhsContract: []int{0}, RhsContract: []int{1}}},
		{[]int{2, 5, 4, 3}, []int{2, 3, 5, 6}, trace.DotDims{LhsBatch: []int{0}, RhsBatch: []int{0}, LhsContract: []int{1, 3}, RhsContract: []int{2, 1}}},
	}
	var script strings.Builder
	script.WriteString(numpyPrelude)
	type want struct {
		name string
		got  *tensor.Array
	}
	var runs []want
	for i, c := range cases {
		for _, pref := range []bool{false, true} {
			x, y := conformance.BF16RuleInput(uint64(900+2*i), c.xs...), conformance.BF16RuleInput(uint64(901+2*i), c.ys...)
			var opts []kiln.DotOption
			res := "bf16"
			if pref {
				opts, res = []kiln.DotOption{kiln.PreferredElementType(tensor.F32)}, "f32"
			}
			dims := c.dims
			got, err := kiln.Jit(func(x, y kiln.Value) kiln.Value { return kiln.DotGeneral(x, y, dims, opts...) }).Run(x, y)
			name := fmt.Sprintf("%v·%v %+v → %s", c.xs, c.ys, c.dims, res)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			fmt.Fprintf(&script, "r = dot_bf16(arr('<u2', %s, '%s'), arr('<u2', %s, '%s'), %s, %s, %s, %s, '%s')\nprint(contig(r).tobytes().hex() or '-')\n",
				pyShape(c.xs), arrayHex(x), pyShape(c.ys), arrayHex(y), pyList(c.dims.LhsBatch), pyList(c.dims.RhsBatch),
				pyList(c.dims.LhsContract), pyList(c.dims.RhsContract), res)
			runs = append(runs, want{name, got})
		}
	}
	out, err := exec.Command(numpyPython, "-c", script.String()).CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != len(runs) {
		t.Fatalf("%d results from NumPy, want %d:\n%s", len(lines), len(runs), out)
	}
	for i, r := range runs {
		w, err := arrayFromHex(r.got.DType(), r.got.Shape(), lines[i])
		if err != nil {
			t.Fatalf("%s: %v", r.name, err)
		}
		for j := range r.got.Size() {
			g, n := bitsOf(r.got, j), bitsOf(w, j)
			if g != n && !(isNaNAt(r.got, j) && isNaNAt(w, j)) {
				t.Errorf("%s: element %d = %#x, NumPy %#x", r.name, j, g, n)
				break
			}
		}
	}
}

// bitsOf is element i of a bf16 or f32 array as bits.
func bitsOf(a *tensor.Array, i int) uint32 {
	switch v := a.Data().(type) {
	case []tensor.BFloat16:
		return uint32(v[i].Bits())
	case []float32:
		return math.Float32bits(v[i])
	}
	panic("bitsOf: " + a.DType().String())
}

func isNaNAt(a *tensor.Array, i int) bool {
	switch v := a.Data().(type) {
	case []tensor.BFloat16:
		return v[i].IsNaN()
	case []float32:
		return v[i] != v[i]
	}
	return false
}
