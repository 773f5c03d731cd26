package kernels_test

import (
	"math/rand/v2"
	"testing"

	"github.com/kiln-go/kiln/kernels/conformance"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// The indexing kernels against plain Go loops doing the same work on one
// goroutine (the peers): an embedding lookup (a row gather), its gradient
// (a row scatter-add with repeated rows) and a flip. Compare ns/op within
// one run (go test -bench 'Rows|Flip' ./kernels).

const (
	benchRows, benchCols = 1 << 16, 128 // a 32 MiB f32 table
	benchIDs             = 1 << 15      // rows looked up: 16 MiB out
)

func benchIDsArray(n, hi int) ([]int32, *tensor.Array) {
	r := rand.New(rand.NewPCG(1, 2))
	ids := make([]int32, n)
	for i := range ids {
		ids[i] = int32(r.IntN(hi))
	}
	a, _ := tensor.FromSlice(ids)
	return ids, a
}

func BenchmarkGatherRows(b *testing.B) {
	table := conformance.Input(tensor.F32, 1, benchRows, benchCols)
	_, ids := benchIDsArray(benchIDs, benchRows)
	benchProgram(b, []*tensor.Array{table, ids}, func(a []trace.Value) []trace.Value {
		return []trace.Value{a[0].Index(a[1])}
	})
}

func BenchmarkGatherRowsPeer(b *testing.B) {
	t := conformance.Input(tensor.F32, 1, benchRows, benchCols)
	table, _ := tensor.Data[float32](t)
	ids, _ := benchIDsArray(benchIDs, benchRows)
	out := make([]float32, benchIDs*benchCols)
	b.SetBytes(int64(4 * (len(table) + len(out))))
	b.ResetTimer()
	for range b.N {
		for i, id := range ids {
			copy(out[i*benchCols:(i+1)*benchCols], table[int(id)*benchCols:])
		}
	}
}

const gradRows, gradCols, gradIDs = 4096, 256, 1 << 15

func BenchmarkScatterAddRows(b *testing.B) {
	table := conformance.Input(tensor.F32, 1, gradRows, gradCols)
	upd := conformance.Input(tensor.F32, 2, gradIDs, gradCols)
	_, ids := benchIDsArray(gradIDs, gradRows)
	benchProgram(b, []*tensor.Array{table, ids, upd}, func(a []trace.Value) []trace.Value {
		return []trace.Value{a[0].At(a[1]).Add(a[2])}
	})
}

func BenchmarkScatterAddRowsPeer(b *testing.B) {
	t := conformance.Input(tensor.F32, 1, gradRows, gradCols)
	table, _ := tensor.Data[float32](t)
	u := conformance.Input(tensor.F32, 2, gradIDs, gradCols)
	upd, _ := tensor.Data[float32](u)
	ids, _ := benchIDsArray(gradIDs, gradRows)
	out := make([]float32, len(table))
	b.SetBytes(int64(4 * (2*len(table) + len(upd))))
	b.ResetTimer()
	for range b.N {
		copy(out, table)
		for i, id := range ids {
			row, src := out[int(id)*gradCols:(int(id)+1)*gradCols], upd[i*gradCols:(i+1)*gradCols]
			for j := range row {
				row[j] += src[j]
			}
		}
	}
}

func BenchmarkFlip(b *testing.B) {
	x := conformance.Input(tensor.F32, 1, 4096, 4096)
	benchProgram(b, []*tensor.Array{x}, func(a []trace.Value) []trace.Value {
		return []trace.Value{a[0].Flip(1)}
	})
}

func BenchmarkFlipPeer(b *testing.B) {
	t := conformance.Input(tensor.F32, 1, 4096, 4096)
	x, _ := tensor.Data[float32](t)
	out := make([]float32, len(x))
	b.SetBytes(int64(8 * len(x)))
	b.ResetTimer()
	for range b.N {
		for r := range 4096 {
			row, dst := x[r*4096:(r+1)*4096], out[r*4096:(r+1)*4096]
			for j, v := range row {
				dst[4095-j] = v
			}
		}
	}
}
