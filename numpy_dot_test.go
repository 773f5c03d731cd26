package kiln_test

import (
	"fmt"
	"math/rand"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/kiln-go/kiln"
	"github.com/kiln-go/kiln/tensor"
)

// jax.numpy's contractions with and without preferred_element_type
// against NumPy's own np.dot, np.tensordot, np.matmul and np.einsum on the
// operands cast to the preferred dtype: int8 operands over the whole
// range, so the products are exact and compared exactly (an int8 result
// wraps where int32 does not; int8 sums in float32 stay below 2²⁴).
func TestNumPyDotFunctions(t *testing.T) {
	numpyOrSkip(t)
	// pref i8 is the operands' own dtype: no preferred_element_type.
	opt := func(pref tensor.DType) []kiln.DotOption {
		if pref == tensor.I8 {
			return nil
		}
		return []kiln.DotOption{kiln.PreferredElementType(pref)}
	}
	type tc struct {
		py     string
		fn     func(x, y kiln.Value, pref tensor.DType) kiln.Value
		xs, ys []int
	}
	dot := func(x, y kiln.Value, pref tensor.DType) kiln.Value { return kiln.Dot(x, y, opt(pref)...) }
	cases := []tc{
		{"np.dot(a, b)", dot, []int{3, 40}, []int{40, 5}},
		{"np.dot(a, b)", dot, []int{2, 3, 40}, []int{4, 40, 5}},
		{"np.dot(a, b)", dot, []int{2, 3, 40}, []int{40}},
		{"np.dot(a, b)", dot, []int{40}, []int{40}},
		{"np.dot(a, b)", dot, []int{}, []int{3, 4}},
		{"np.matmul(a, b)", func(x, y kiln.Value, pref tensor.DType) kiln.Value { return kiln.MatMul(x, y, opt(pref)...) },
			[]int{2, 1, 3, 40}, []int{4, 40, 5}},
		{"np.tensordot(a, b, axes=2)", func(x, y kiln.Value, pref tensor.DType) kiln.Value { return kiln.TensordotN(x, y, 2, opt(pref)...) },
			[]int{3, 5, 8}, []int{5, 8, 2}},
		{"np.tensordot(a, b, axes=([0, 2], [1, -3]))", func(x, y kiln.Value, pref tensor.DType) kiln.Value {
			return kiln.Tensordot(x, y, []int{0, 2}, []int{1, -3}, opt(pref)...)
		}, []int{6, 3, 7}, []int{7, 6, 2}},
		{"np.einsum('ijk,kl->lj', a, b)", func(x, y kiln.Value, pref tensor.DType) kiln.Value {
			if pref == tensor.I8 {
				return kiln.Einsum("ijk,kl->lj", x, y)
			}
			return kiln.EinsumPreferred("ijk,kl->lj", pref, x, y)
		}, []int{2, 3, 40}, []int{40, 4}},
	}
	r := rand.New(rand.NewSource(12))
	var script strings.Builder
	script.WriteString("import numpy as np\n")
	type run struct {
		name string
		want func(out string) error
	}
	var runs []run
	for _, pref := range []tensor.DType{tensor.I8, tensor.I32, tensor.F32, tensor.I64} {
		for _, c := range cases {
			x, y := randI8(r, c.xs), randI8(r, c.ys)
			got, err := kiln.Jit(func(x, y kiln.Value) kiln.Value { return c.fn(x, y, pref) }).Run(x, y)
			name := fmt.Sprintf("%s %v %v preferred %s", c.py, c.xs, c.ys, pref)
			if err != nil {
				t.Errorf("%s: %v", name, err)
				continue
			}
			if got.DType() != pref {
				t.Errorf("%s: result %s, want %s", name, got.DType(), pref)
			}
			fmt.Fprintf(&script, "a = np.array(%s, dtype=np.int8).reshape(%s).astype(np.%s)\n", pyInts(x), pyShape(c.xs), pref.LongName())
			fmt.Fprintf(&script, "b = np.array(%s, dtype=np.int8).reshape(%s).astype(np.%s)\n", pyInts(y), pyShape(c.ys), pref.LongName())
			fmt.Fprintf(&script, "r = np.asarray(%s).astype(np.%s)\nprint(list(r.shape), ' '.join(str(int(v)) for v in r.ravel()))\n", c.py, pref.LongName())
			runs = append(runs, run{name, func(out string) error {
				shape, vals, _ := strings.Cut(out, "] ")
				if want := fmt.Sprint(got.Shape()); strings.ReplaceAll(shape+"]", ",", "") != want {
					return fmt.Errorf("shape %s, NumPy %s]", want, shape)
				}
				g := int64s(got)
				w := strings.Fields(vals)
				if len(w) != len(g) {
					return fmt.Errorf("%d elements, NumPy %d", len(g), len(w))
				}
				for i := range g {
					if n, _ := strconv.ParseInt(w[i], 10, 64); n != g[i] {
						return fmt.Errorf("element %d: %d, NumPy %d", i, g[i], n)
					}
				}
				return nil
			}})
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
		if err := r.want(lines[i]); err != nil {
			t.Errorf("%s: %v", r.name, err)
		}
	}
}

func randI8(r *rand.Rand, shape []int) *tensor.Array {
	n := 1
	for _, d := range shape {
		n *= d
	}
	v := make([]int8, n)
	for i := range v {
		v[i] = int8(r.Intn(256) - 128)
	}
	return tensor.Must(tensor.Must(tensor.FromSlice(v)).Reshape(shape...))
}

func pyInts(a *tensor.Array) string { return strings.Join(strings.Fields(fmt.Sprint(int64s(a))), ", ") }

func pyShape(s []int) string {
	if len(s) == 0 {
		return "()"
	}
	return "(" + strings.Trim(strings.Join(strings.Fields(fmt.Sprint(s)), ", "), "[]") + ",)"
}

func int64s(a *tensor.Array) []int64 { return slices.Clone(a.Astype(tensor.I64).Data().([]int64)) }
