package kernels_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/kiln-go/kiln/internal/longtest"
	"github.com/kiln-go/kiln/internal/simd"
	"github.com/kiln-go/kiln/kernels"
	"github.com/kiln-go/kiln/kernels/conformance"
	"github.com/kiln-go/kiln/lower"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// i8Input is an int8 (or uint8) array whose values are a third of them
// the extremes -128, 127 (0 and 255 as uint8) and -1, the rest uniform.
func i8Input(d tensor.DType, seed uint64, shape ...int) *tensor.Array {
	r := rand.New(rand.NewPCG(seed, 8))
	vals := make([]int8, trace.ShapeSize(shape))
	for i := range vals {
		vals[i] = int8(r.IntN(256) - 128)
		if r.IntN(3) == 0 {
			vals[i] = [3]int8{-128, 127, -1}[r.IntN(3)]
		}
	}
	a, _ := tensor.FromSlice(vals, shape...)
	if d == tensor.U8 {
		return a.Astype(tensor.U8) // the same bytes: -128 is 128, -1 is 255
	}
	return a
}

// The int8 products against the reference evaluator, exactly, in every
// simd.Mode (the VNNI GEMM at the AVX512 tier with AVX512_VNNI and at the
// AVX2 tier with AVX-VNNI, the plain loop with them hidden and at the
// generic tier) on one, two and three workers: i8×i8 and u8×i8, into
// int32 (preferred_element_type) and wrapping into the promoted dtype,
// with and without a bias added after (the fused epilogue), in size one,
// primes, past the GEMM's k block (KC 512, k not a multiple of 4) and
// column block (NC 1024), with the lhs or rhs transposed and batched.
func TestInt8DotReference(t *testing.T) {
	type layout struct {
		name  string
		lhs   func(b, m, k int) []int
		rhs   func(b, k, n int) []int
		dims  trace.DotDims
		batch bool
	}
	layouts := []layout{
		{"plain", func(_, m, k int) []int { return []int{m, k} }, func(_, k, n int) []int { return []int{k, n} },
			trace.DotDims{LhsContract: []int{1}, RhsContract: []int{0}}, false},
		{"lhs-transposed", func(_, m, k int) []int { return []int{k, m} }, func(_, k, n int) []int { return []int{k, n} },
			trace.DotDims{LhsContract: []int{0}, RhsContract: []int{0}}, false},
		{"rhs-transposed", func(_, m, k int) []int { return []int{m, k} }, func(_, k, n int) []int { return []int{n, k} },
			trace.DotDims{LhsContract: []int{1}, RhsContract: []int{1}}, false},
		{"batched", func(b, m, k int) []int { return []int{b, m, k} }, func(b, k, n int) []int { return []int{b, k, n} },
			trace.DotDims{LhsBatch: []int{0}, RhsBatch: []int{0}, LhsContract: []int{2}, RhsContract: []int{1}}, true},
	}
	sizes := [][3]int{{1, 1, 1}, {13, 7, 17}, {37, 1030, 53}, {5, 41, 1031}, {29, 131, 3}}
	cpus := []*kernels.CPU{
		kernels.NewCPU(kernels.CPUOptions{Workers: 1}),
		kernels.NewCPU(kernels.CPUOptions{Workers: 2, ParallelMin: 1}),
		kernels.NewCPU(kernels.CPUOptions{Workers: 3, ParallelMin: 1}),
	}
	seed := uint64(0)
	for _, lhsType := range []tensor.DType{tensor.I8, tensor.U8} {
		for _, l := range layouts {
			for si, s := range sizes {
				if (testing.Short() || !longtest.Enabled()) && si == 2 { // 37×1030×53: with KILN_LONG=1
					continue
				}
				for _, pref := range []bool{true, false} {
					for _, bias := range []bool{false, true} {
						m, k, n := s[0], s[1], s[2]
						seed++
						inputs := []*tensor.Array{i8Input(lhsType, seed, l.lhs(2, m, k)...), i8Input(tensor.I8, seed+1000, l.rhs(2, k, n)...)}
						out := []int{m, n}
						if l.batch {
							out = []int{2, m, n}
						}
						inputs = append(inputs, i8Input(tensor.I8, seed+2000, out[len(out)-1]))
						c := conformance.Case{Name: fmt.Sprintf("%v×i8/%s/%dx%dx%d/pref=%v/bias=%v", lhsType, l.name, m, k, n, pref, bias),
							Inputs: inputs, Fn: func(a []trace.Value) []trace.Value {
								var opts []trace.DotOption
								if pref {
									opts = append(opts, trace.PreferredElementType(tensor.I32))
								}
								y := trace.DotGeneral(a[0], a[1], l.dims, opts...)
								if bias {
									y = y.Add(a[2])
								}
								return []trace.Value{y}
							}}
						p, want, err := conformance.Reference(c)
						if err != nil {
							t.Fatalf("%s: reference: %v", c.Name, err)
						}
						mod, err := lower.Compile(p, lower.Options{Fold: kernels.Fold})
						if err != nil {
							t.Fatal(err)
						}
						if bias && !hasEpilogue(mod) {
							t.Fatalf("%s: the bias is not the product's epilogue:\n%s", c.Name, mod.FusedString())
						}
						for _, mode := range simd.Modes() {
							restore := mode.Set()
							for w, cpu := range cpus {
								exe, err := cpu.Compile(mod)
								if err != nil {
									t.Fatalf("%s %v: %v", c.Name, mode, err)
								}
								got, err := exe.Run(inputs)
								if err != nil {
									t.Fatalf("%s %v: %v", c.Name, mode, err)
								}
								if msg := conformance.Compare(got[0], want[0], 0); msg != "" {
									t.Fatalf("%s %v, %d workers: %s", c.Name, mode, w+1, msg)
								}
							}
							restore()
						}
					}
				}
			}
		}
	}
}
