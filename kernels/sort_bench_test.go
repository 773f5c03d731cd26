package kernels_test

import (
	"cmp"
	"math"
	"slices"
	"testing"

	"github.com/kiln-go/kiln/kernels/conformance"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// Sorting against Go's slices.SortStableFunc doing the same work on one
// goroutine (the peer): a stable argsort of 2²⁰ f32 in one row, and of 256
// rows of 4096 (rows run in parallel). Compare ns/op within one run
// (go test -bench 'Argsort' ./kernels).

const sortN = 1 << 20

func BenchmarkArgsortRow(b *testing.B) {
	x := conformance.Input(tensor.F32, 3, sortN)
	benchProgram(b, []*tensor.Array{x}, func(a []trace.Value) []trace.Value {
		return []trace.Value{trace.Argsort(a[0], 0)}
	})
}

func BenchmarkArgsortRowPeer(b *testing.B) { argsortPeer(b, 1, sortN) }

func BenchmarkArgsortRows(b *testing.B) {
	x := conformance.Input(tensor.F32, 3, 256, 4096)
	benchProgram(b, []*tensor.Array{x}, func(a []trace.Value) []trace.Value {
		return []trace.Value{trace.Argsort(a[0], 1)}
	})
}

func BenchmarkArgsortRowsPeer(b *testing.B) { argsortPeer(b, 256, 4096) }

// argsortPeer argsorts rows of n f32 with the standard library, NaNs last.
func argsortPeer(b *testing.B, rows, n int) {
	x, _ := tensor.Data[float32](conformance.Input(tensor.F32, 3, rows, n))
	idx := make([]int64, rows*n)
	b.SetBytes(int64(12 * rows * n))
	b.ResetTimer()
	for range b.N {
		for r := range rows {
			row, out := x[r*n:(r+1)*n], idx[r*n:(r+1)*n]
			for i := range out {
				out[i] = int64(i)
			}
			slices.SortStableFunc(out, func(i, j int64) int {
				a, c := float64(row[i]), float64(row[j])
				if math.IsNaN(a) || math.IsNaN(c) {
					return cmp.Compare(btoi(math.IsNaN(a)), btoi(math.IsNaN(c)))
				}
				return cmp.Compare(a, c)
			})
		}
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// BenchmarkArgsortShortRows: 10,000 rows of 100 (the merge path), and by
// two keys (the general path).
func BenchmarkArgsortShortRows(b *testing.B) {
	x := conformance.Input(tensor.F32, 3, 10000, 100)
	benchProgram(b, []*tensor.Array{x}, func(a []trace.Value) []trace.Value {
		return []trace.Value{trace.Argsort(a[0], 1)}
	})
}

func BenchmarkSortTwoKeys(b *testing.B) {
	x := conformance.Input(tensor.F32, 3, 10000, 100)
	k := conformance.Input(tensor.I8, 4, 10000, 100)
	benchProgram(b, []*tensor.Array{k, x}, func(a []trace.Value) []trace.Value {
		return trace.SortMany([]trace.Value{a[0], a[1]}, 1, 2, true)[1:]
	})
}

// BenchmarkSortKeyVal is lax.sort_key_val of 2²⁰ f32 keys and i32 values:
// both results of one sort.
func BenchmarkSortKeyVal(b *testing.B) {
	x := conformance.Input(tensor.F32, 3, sortN)
	v := conformance.Input(tensor.I32, 4, sortN)
	benchProgram(b, []*tensor.Array{x, v}, func(a []trace.Value) []trace.Value {
		return trace.SortMany([]trace.Value{a[0], a[1]}, 0, 1, true)
	})
}
