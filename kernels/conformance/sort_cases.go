package conformance

import (
	"fmt"

	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// sortCases cover sort, argsort (both directions), top_k and lax.sort of
// several operands over every dtype: rows with repeated keys (stability),
// both zeros, NaNs of both signs and the infinities (x joined with −x),
// the sorted axis first, inner and last, rows of 0, 1 and prime lengths,
// rows long and many enough for the parallel path, and lax.sort's results
// used together (one key and several: the CPU sorts them once). Each dtype is one
// program with several outputs, to keep OpenCL compiles few.
func sortCases() []Case {
	var cs []Case
	for _, d := range tensor.AllDTypes() {
		x := Input(d, 80, 2, 23, 3)
		cs = append(cs, Case{Name: "sort/" + d.String(), Inputs: []*tensor.Array{x, Input(tensor.I8, 81, 4, 23, 3)},
			Fn: func(a []trace.Value) []trace.Value {
				var v trace.Value
				if d == tensor.Bool || d.IsUnsigned() {
					v = trace.Concatenate(0, a[0], a[0].Not()) // repeats
				} else {
					v = trace.Concatenate(0, a[0], a[0].Neg()) // −0, −NaN, both infinities, repeats
				}
				out := []trace.Value{
					trace.Sort(v, 1), trace.Sort(v, -1), trace.Sort(v, 0, trace.Descending()),
					trace.Argsort(v, 1), trace.Argsort(v, 0, trace.Descending()), trace.Argsort(v, trace.AxisNone),
				}
				if d.IsFloat() {
					out = append(out, trace.Argsort(v.Floor(), 1)) // many equal keys
				}
				if !d.IsComplex() {
					vals, idx := trace.TopK(v.Transpose(0, 2, 1), 5)
					out = append(out, vals, idx)
				}
				k := a[1].Rem(trace.Int(3)) // keys with many repeats, then v, then a payload
				out = append(out, trace.SortMany([]trace.Value{k, v, trace.Iota(tensor.I32, []int{4, 23, 3}, 1)}, 1, 2, true)...)
				return out
			}})
	}
	for _, n := range []int{0, 1, 2, 13, 97} {
		cs = append(cs, Case{Name: fmt.Sprintf("sort-len-%d", n), Inputs: []*tensor.Array{Input(tensor.F32, 82, 3, n)},
			Fn: func(a []trace.Value) []trace.Value {
				vals, idx := trace.TopK(a[0], min(n, 3))
				return []trace.Value{trace.Sort(a[0], 1), trace.Argsort(a[0], 1), trace.Argsort(a[0], 0), vals, idx}
			}})
	}
	cs = append(cs, Case{Name: "sort-parallel", Inputs: []*tensor.Array{Input(tensor.I16, 83, 9, 3001), Input(tensor.F64, 84, 9, 3001)},
		Fn: func(a []trace.Value) []trace.Value {
			return append([]trace.Value{trace.Argsort(a[0], 1), trace.Sort(a[1], 1)}, trace.SortMany([]trace.Value{a[0], a[1]}, 1, 1, false)...)
		}})
	return cs
}
