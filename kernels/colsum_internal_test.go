package kernels

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// A column sum (reduce_sum over the leading axis, colSumKernel) gives
// each column the bits of the summation tree run down that column
// (treeReduce from +0), whatever the rows: fewer than eight, a leaf's
// eight lane rows and its leftovers, rows that a body block splits, and
// several leaves, split over workers or not — with NaNs, signed zeros and
// infinities in the columns. (Which NaN a column of several returns is
// not compared: treeReduce's leaf, the row reduction's vector code, may
// keep another operand's payload.)
func TestColSumMatchesTree(t *testing.T) {
	atEveryTier(t, checkColSums)
}

func checkColSums(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	value := func() float32 {
		switch rng.IntN(40) {
		case 0:
			return math.Float32frombits(0x7f800000 | uint32(rng.IntN(2))<<31 | uint32(1+rng.IntN(0x3fffff)) | uint32(rng.IntN(2))<<22)
		case 1:
			return float32(math.Copysign(0, -1))
		case 2:
			return float32(math.Inf(1 - 2*rng.IntN(2)))
		}
		return float32(rng.NormFloat64() * math.Exp2(float64(rng.IntN(40)-20)))
	}
	for _, par := range []int{0, 1} { // the default split, and every kernel split
		c := NewCPU(CPUOptions{Workers: 2, ParallelMin: par})
		for _, k := range []int{16, 17, 40, 100, 128, 200} {
			for _, r := range []int{2, 7, 8, 9, 15, 16, 17, 23, 100, 128, 129, 255, 256, 300, 1000} {
				name := fmt.Sprintf("parallelMin=%d/%dx%d", par, r, k)
				x := compileFor(t, c, 0, [][]int{{r, k}}, func(a []trace.Value) []trace.Value {
					return []trace.Value{a[0].Sum(0)}
				})
				if _, ok := x.kernels[0].(*colSumKernel[float32]); !ok || len(x.kernels) != 1 {
					t.Fatalf("%s: compiled to %T (%d kernels), not a column sum", name, x.kernels[0], len(x.kernels))
				}
				vals := make([]float32, r*k)
				for i := range vals {
					vals[i] = value()
				}
				in := tensor.Must(tensor.FromSlice(vals, r, k))
				outs, err := x.Run([]*tensor.Array{in})
				if err != nil {
					t.Fatal(err)
				}
				got := outs[0].Data().([]float32)
				col := make([]float32, r)
				for j := range k {
					for i := range r {
						col[i] = vals[i*k+j]
					}
					want := float32(0) + treeReduce(col, false)
					if got[j] != got[j] && want != want {
						continue // which NaN: the row reduction's tree may take another operand's payload
					}
					if math.Float32bits(got[j]) != math.Float32bits(want) {
						t.Fatalf("%s: column %d sums to %v (%#08x), the tree to %v (%#08x)", name, j,
							got[j], math.Float32bits(got[j]), want, math.Float32bits(want))
					}
				}
			}
		}
	}
}
