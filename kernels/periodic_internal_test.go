package kernels

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// A row broadcast that a periodic register holds (locPer) reads, for
// every iteration element, the row's element at its column: in loops and
// in a product's epilogue, for rows shorter and longer than a block,
// blocks that start mid-row, rows of one element past the block, and
// workers that split the iteration space — checked element by element
// against the arithmetic done in Go.
func TestPeriodicRowReads(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	cpus := []*CPU{
		NewCPU(CPUOptions{Workers: 1}),
		NewCPU(CPUOptions{Workers: 2, ParallelMin: 1}),
		NewCPU(CPUOptions{Workers: 3, ParallelMin: 1, Block: 5}),
		NewCPU(CPUOptions{Workers: 2, ParallelMin: 1, Block: 7}),
	}
	vals := func(n int) []float32 {
		v := make([]float32, n)
		for i := range v {
			v[i] = float32(rng.NormFloat64())
		}
		return v
	}
	periodic := 0
	for ci, c := range cpus {
		for _, l := range []int{2, 3, 10, 16, 31, 100, 128, 1000, 3000, 5000} {
			for _, r := range []int{1, 3, 7, 300} {
				name := fmt.Sprintf("cpu %d, %d rows of %d", ci, r, l)
				xs, b, cc := vals(r*l), vals(l), vals(l)
				in := []*tensor.Array{tensor.Must(tensor.FromSlice(xs, r, l)), tensor.Must(tensor.FromSlice(b, l)), tensor.Must(tensor.FromSlice(cc, l))}
				// x·b + c, b − x and where(x > b, x, b), each row operand
				// broadcast down the rows.
				x := compileFor(t, c, 0, [][]int{{r, l}, {l}, {l}}, func(a []trace.Value) []trace.Value {
					return []trace.Value{a[0].Mul(a[1]).Add(a[2]), a[1].Sub(a[0]), trace.Where(a[0].Gt(a[1]), a[0], a[1])}
				})
				periodic += countPeriodic(x)
				outs, err := x.Run(in)
				if err != nil {
					t.Fatal(err)
				}
				for i, v := range xs {
					j := i % l
					want := [3]float32{float32(v*b[j]) + cc[j], b[j] - v, b[j]}
					if v > b[j] {
						want[2] = v
					}
					for o := range want {
						if got := outs[o].Data().([]float32)[i]; math.Float32bits(got) != math.Float32bits(want[o]) {
							t.Fatalf("%s: output %d element %d (row %d, column %d) is %v, want %v", name, o, i, i/l, j, got, want[o])
						}
					}
				}
			}
		}
		// A product's bias (rows of n), on the GEMM's finished blocks.
		for _, n := range []int{5, 10, 33, 128} {
			const m, k = 37, 9
			a, w, bias := vals(m*k), vals(k*n), vals(n)
			x := compileFor(t, c, 0, [][]int{{m, k}, {k, n}, {n}}, func(v []trace.Value) []trace.Value {
				return []trace.Value{v[0].MatMul(v[1]).Add(v[2])}
			})
			periodic += countPeriodic(x)
			outs, err := x.Run([]*tensor.Array{tensor.Must(tensor.FromSlice(a, m, k)), tensor.Must(tensor.FromSlice(w, k, n)), tensor.Must(tensor.FromSlice(bias, n))})
			if err != nil {
				t.Fatal(err)
			}
			got := outs[0].Data().([]float32)
			for i := range m {
				for j := range n {
					var acc float32
					for q := range k {
						acc = float32(math.FMA(float64(a[i*k+q]), float64(w[q*n+j]), float64(acc)))
					}
					if want := acc + bias[j]; math.Float32bits(got[i*n+j]) != math.Float32bits(want) {
						t.Fatalf("cpu %d, %d×%d product + bias: element (%d, %d) is %v, want %v", ci, m, n, i, j, got[i*n+j], want)
					}
				}
			}
		}
	}
	if periodic == 0 {
		t.Fatal("no body read a row through a periodic register")
	}
}

// countPeriodic counts the periodic row reads in x's loop and epilogue bodies.
func countPeriodic(x *cpuExec) int {
	n := 0
	count := func(b *body) {
		if b == nil {
			return
		}
		for _, s := range b.steps {
			for _, a := range s.args {
				if a.kind == locPer {
					n++
				}
			}
		}
	}
	for _, k := range x.kernels {
		switch k := k.(type) {
		case *loopKernel:
			count(k.body)
		case *multiLoopKernel:
			for _, sub := range k.subs {
				count(sub.body)
			}
		case *dotKernel:
			if k.epi != nil {
				for _, r := range k.epi.results {
					count(r.body)
				}
			}
		}
	}
	return n
}
