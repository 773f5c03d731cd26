package kiln_test

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/kiln-go/kiln/internal/progen"
	"github.com/kiln-go/kiln/promote"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// The NumPy differential test of indexing: random indices — ints, slices
// with any steps, None, an ellipsis, integer arrays of every integer dtype
// (constant or traced, broadcasting together, adjacent or not), bool masks
// and scalar bools — into arrays of random shapes, computed by Kiln as
// x.Index(…) and x.At(…).Set/Add/Mul/Min/Max(v) and by NumPy as x[idx],
// x[idx] = v and np.add.at (multiply, minimum, maximum): the same shapes
// (NumPy's placement of advanced-index dims) and the same bits. Indices
// are in bounds here, as NumPy raises otherwise; out-of-bounds behaviour
// is JAX's and checked against the reference by the conformance suite.

// indexCase is one random index.
type indexCase struct {
	shape  []int
	items  []any    // for Kiln; *tensor.Array items of traced arrays are replaced by inputs
	py     []string // the same items in Python
	traced []int    // positions in items of arrays passed as inputs
}

// randomIndex draws an index into an array of the given shape.
func randomIndex(r *rand.Rand, shape []int) indexCase {
	c := indexCase{shape: shape}
	add := func(it any, py string) { c.items, c.py = append(c.items, it), append(c.py, py) }
	// The broadcast shape of this index's arrays; each array's shape is a
	// suffix of it with some dims set to 1.
	bshape := make([]int, r.IntN(3))
	for i := range bshape {
		bshape[i] = 1 + r.IntN(3)
	}
	arrays, masks := false, false
	dim, ellipsis := 0, r.IntN(3) == 0
	for dim < len(shape) {
		n := shape[dim]
		if r.IntN(8) == 0 {
			add(trace.NewAxis, "None")
			continue
		}
		if ellipsis && r.IntN(3) == 0 {
			ellipsis = false
			skip := r.IntN(len(shape) - dim + 1)
			add(trace.Ellipsis, "Ellipsis")
			// The ellipsis stands for skip dims; the rest of the index then
			// covers the dims after them exactly, so it must end there.
			dim = len(shape) - (len(shape) - dim - skip)
			if dim < len(shape) && r.IntN(2) == 0 {
				dim = len(shape) // nothing after the ellipsis
			}
			continue
		}
		switch k := r.IntN(10); {
		case k < 2 && n > 0:
			i := r.IntN(2*n) - n
			add(i, fmt.Sprint(i))
		case k < 5:
			s := trace.Span{Step: []int{0, 1, 2, 3, -1, -2, -3}[r.IntN(7)]}
			pyPart := func(has bool, v int) string {
				if !has {
					return "None"
				}
				return fmt.Sprint(v)
			}
			s.HasStart, s.Start = r.IntN(2) == 0, r.IntN(n+5)-n-2
			s.HasStop, s.Stop = r.IntN(2) == 0, r.IntN(n+5)-n-2
			step := "None"
			if s.Step != 0 {
				step = fmt.Sprint(s.Step)
			}
			add(s, fmt.Sprintf("slice(%s, %s, %s)", pyPart(s.HasStart, s.Start), pyPart(s.HasStop, s.Stop), step))
		case k < 8 && n > 0 && !masks:
			arrays = true
			sh := slices.Clone(bshape[r.IntN(len(bshape)+1):])
			for i := range sh {
				if r.IntN(3) == 0 {
					sh[i] = 1
				}
			}
			d := []tensor.DType{tensor.I8, tensor.I16, tensor.I32, tensor.I64, tensor.U8, tensor.U32}[r.IntN(6)]
			vals := make([]int64, trace.ShapeSize(sh))
			for i := range vals {
				if d.IsUnsigned() {
					vals[i] = int64(r.IntN(n))
				} else {
					vals[i] = int64(r.IntN(2*n) - n)
				}
			}
			a, _ := tensor.FromSlice(vals)
			a, _ = a.Reshape(sh...)
			a = a.Astype(d)
			if r.IntN(2) == 0 {
				c.traced = append(c.traced, len(c.items))
			}
			add(a, fmt.Sprintf("arr('%s', %s, '%s')", numpyDType[d], pyTuple(sh), arrayHex(a)))
		case k < 9 && !arrays && !masks:
			masks = true
			m := make([]bool, n)
			var py []string
			for i := range m {
				m[i] = r.IntN(2) == 0
				py = append(py, map[bool]string{true: "True", false: "False"}[m[i]])
			}
			add(m, "np.array(["+strings.Join(py, ", ")+"], dtype=bool).reshape(("+fmt.Sprint(n)+",))")
		case k == 9 && !masks && !arrays && r.IntN(3) == 0:
			masks = true // a scalar bool is an index array of shape (1,) or (0,)
			b := r.IntN(2) == 0
			add(b, map[bool]string{true: "True", false: "False"}[b])
			continue // a scalar bool adds a dim, it takes none
		default:
			add(trace.All, "slice(None)")
		}
		dim++
	}
	if r.IntN(6) == 0 {
		add(trace.NewAxis, "None")
	}
	return c
}

// fn builds x[idx] and the five updates with v, from the inputs x, v and
// the traced index arrays.
func (c indexCase) fn(a []trace.Value) []trace.Value {
	items := append([]any{}, c.items...)
	for k, pos := range c.traced {
		items[pos] = a[2+k]
	}
	x, v := a[0], a[1]
	ref := x.At(items...)
	return []trace.Value{x.Index(items...), ref.Set(v), ref.Add(v), ref.Mul(v), ref.Min(v), ref.Max(v)}
}

var (
	numpyIndexN    = flag.Int("numpy.index.n", 600, "number of random indices of TestNumPyIndexing")
	numpyIndexSeed = flag.Int64("numpy.index.seed", 11, "seed of TestNumPyIndexing's indices")
)

func TestNumPyIndexing(t *testing.T) {
	numpyOrSkip(t)
	r := rand.New(rand.NewPCG(uint64(*numpyIndexSeed), 12))
	n := *numpyIndexN
	if testing.Short() {
		n = min(n, 150)
	}
	var cases []numpyCase
	var pys []string
	for range n {
		shape := make([]int, 1+r.IntN(4))
		for i := range shape {
			shape[i] = 1 + r.IntN(4)
			if r.IntN(12) == 0 {
				shape[i] = 0
			}
		}
		ic := randomIndex(r, shape)
		x := tensor.Must(tensor.Arange(tensor.F32, trace.ShapeSize(shape)))
		x, _ = x.Reshape(shape...)
		// The index result's shape, traced with a placeholder update.
		probe := func(a []trace.Value) []trace.Value { return []trace.Value{a[0].Index(ic.items...)} }
		p, err := trace.Trace(promote.Config{}, []trace.Abstract{{Type: promote.Strong(tensor.F32), Shape: shape}}, probe)
		if err != nil {
			t.Fatalf("x%v[%s]: %v", shape, strings.Join(ic.py, ", "), err)
		}
		vshape := p.Outputs[0].Shape
		vals := make([]float64, trace.ShapeSize(vshape))
		for i := range vals {
			vals[i] = float64(1+r.IntN(7)) * []float64{0.5, 1, -1, 1.5}[r.IntN(4)]
		}
		v, _ := tensor.FromSlice(vals)
		v, _ = v.Reshape(vshape...)
		arrays := []*tensor.Array{x, v.Astype(tensor.F32)}
		inputs := []trace.Abstract{{Type: promote.Strong(tensor.F32), Shape: shape}, {Type: promote.Strong(tensor.F32), Shape: vshape}}
		for _, pos := range ic.traced {
			a := ic.items[pos].(*tensor.Array)
			arrays = append(arrays, a)
			inputs = append(inputs, trace.Abstract{Type: promote.Strong(a.DType()), Shape: a.Shape()})
		}
		cases = append(cases, numpyCase{fmt.Sprintf("x%v[%s]", shape, strings.Join(ic.py, ", ")),
			&progen.Case{Inputs: inputs, Arrays: arrays, Fn: ic.fn}})
		pys = append(pys, "("+strings.Join(ic.py, ", ")+",)")
	}
	const batch = 150
	for lo := 0; lo < len(cases); lo += batch {
		hi := min(lo+batch, len(cases))
		runNumPyIndexBatch(t, cases[lo:hi], pys[lo:hi])
	}
}

// runNumPyIndexBatch runs one batch in NumPy and compares.
func runNumPyIndexBatch(t *testing.T, cases []numpyCase, pys []string) {
	t.Helper()
	var script strings.Builder
	script.WriteString(numpyPrelude)
	progs := traceCases(t, cases)
	for i, nc := range cases {
		x, v := nc.c.Arrays[0], nc.c.Arrays[1]
		fmt.Fprintf(&script, "def case%d():\n", i)
		fmt.Fprintf(&script, "    x = arr('<f4', %s, '%s')\n", pyTuple(x.Shape()), arrayHex(x))
		fmt.Fprintf(&script, "    v = arr('<f4', %s, '%s')\n", pyTuple(v.Shape()), arrayHex(v))
		fmt.Fprintf(&script, "    idx = %s\n", pys[i])
		script.WriteString("    outs = [contig(x[idx])]\n")
		script.WriteString("    s = x.copy()\n    s[idx] = v\n    outs.append(s)\n")
		for _, u := range []string{"add", "multiply", "minimum", "maximum"} {
			fmt.Fprintf(&script, "    u = x.copy()\n    np.%s.at(u, idx, v)\n    outs.append(u)\n", u)
		}
		script.WriteString("    return outs\n")
	}
	for i := range cases {
		fmt.Fprintf(&script, "run(%d, case%d)\n", i, i)
	}
	runNumPyScript(t, script.String(), cases, progs)
}
