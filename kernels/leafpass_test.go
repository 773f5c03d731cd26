package kernels

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// Sums of x, of (x − c)² and of x·x take the leaf pass (leafpass.go), and their
// results are the bits of the unfused body's, for f64 and f32, at lengths
// with and without a short last group, on ordinary values and on values
// full of specials, with one and several workers and with spans of groups
// forced (maxParts); the second pass over x, which runs its chunks last to
// first (alternateStreams), gives the same bits as well.
func TestLeafPass(t *testing.T) {
	defer func(m int) { maxParts = m }(maxParts)
	progs := []struct {
		name string
		fast int // reductions taking the leaf pass: the sum of x, and of (x − c)²
		fn   func(a []trace.Value) []trace.Value
	}{
		{"variance", 2, func(a []trace.Value) []trace.Value {
			return []trace.Value{a[0].Sub(a[0].Mean()).Pow(trace.Int(2)).Sum()}
		}},
		{"mean-of-squares", 2, func(a []trace.Value) []trace.Value {
			d := a[0].Sub(a[0].Sum().Mul(trace.Float(0.75)))
			return []trace.Value{d.Mul(d).Mean()}
		}},
		{"sum", 1, func(a []trace.Value) []trace.Value {
			return []trace.Value{a[0].Sum()}
		}},
		{"moments", 2, func(a []trace.Value) []trace.Value {
			m := a[0].Mean()
			return []trace.Value{a[0].Mul(a[0]).Mean().Sub(m.Mul(m))}
		}},
	}
	normal := func(d tensor.DType, seed uint64, n int) *tensor.Array {
		r := rand.New(rand.NewPCG(seed, 3))
		v := make([]float64, n)
		for i := range v {
			v[i] = 3 + r.NormFloat64()*math.Pow(10, float64(r.IntN(7)-3))
		}
		a, _ := tensor.FromSlice(v, n)
		return a.Astype(d)
	}
	for _, d := range []tensor.DType{tensor.F64, tensor.F32} {
		for _, n := range []int{1000, 5000, 3 * 1024, 1<<15 + 7, 1<<15 + 300} {
			for _, p := range progs {
				dts := []tensor.DType{d}
				maxParts = 1 << 17
				ref := compileWith(t, &CPU{opts: NewCPU(CPUOptions{}).opts, noFuse: true}, dts, n, p.fn)
				for _, in := range []*tensor.Array{normal(d, uint64(n), n), specialInput(d, uint64(n), n)} {
					want, err := ref.Run([]*tensor.Array{in})
					if err != nil {
						t.Fatal(err)
					}
					for _, c := range []struct {
						opts  CPUOptions
						parts int
					}{{CPUOptions{}, 1 << 17}, {CPUOptions{ParallelMin: 1, Workers: 3}, 1 << 17}, {CPUOptions{ParallelMin: 1, Workers: 2}, 1}} {
						maxParts = c.parts
						x := compileWith(t, NewCPU(c.opts), dts, n, p.fn)
						fused, sums, reversed := 0, 0, 0
						for _, k := range x.kernels {
							if k, ok := k.(*reduceKernel); ok && k.fast != nil {
								fused++
								if k.fast.c < 0 && !k.fast.square {
									sums++
								}
								if k.reverse {
									reversed++
								}
							}
						}
						if fused != p.fast || sums != 1 {
							t.Errorf("%s %s n=%d: %d reductions take the leaf pass (%d plain sums), want %d (1)", p.name, d, n, fused, sums, p.fast)
						}
						// The second pass over x runs backwards when its
						// chunks are groups (alternateStreams).
						if wantRev := min(p.fast-1, n/(groupElems+1)); reversed != min(wantRev, 1) {
							t.Errorf("%s %s n=%d: %d reductions run backwards, want %d", p.name, d, n, reversed, min(wantRev, 1))
						}
						got, err := x.Run([]*tensor.Array{in})
						if err != nil {
							t.Fatal(err)
						}
						if g, w := got[0].Astype(tensor.F64), want[0].Astype(tensor.F64); !sameBitsOrNaN(g, w) {
							t.Errorf("%s %s n=%d %+v parts %d: %v, unfused %v", p.name, d, n, c.opts, c.parts, g, w)
						}
					}
				}
			}
		}
	}
}

// sameBitsOrNaN: two f64 scalars with the same bits, or both NaN.
func sameBitsOrNaN(a, b *tensor.Array) bool {
	x, _ := tensor.Data[float64](a)
	y, _ := tensor.Data[float64](b)
	return math.Float64bits(x[0]) == math.Float64bits(y[0]) || (x[0] != x[0] && y[0] != y[0])
}

// combineDef is treeCombine's tree, recursing down to single partials.
func combineDef[T number](p []T, prod bool) T {
	if len(p) == 1 {
		return p[0]
	}
	k := splitPoint(len(p))
	a, b := combineDef(p[:k], prod), combineDef(p[k:], prod)
	if prod {
		return a * b
	}
	return a + b
}

// TestTreeCombineWrittenOut: treeCombine's written-out eight partials
// give the recursion's bits (NaNs equal) at every length to 2,100, for
// sums and products, of floats and of wrapping integers.
func TestTreeCombineWrittenOut(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	for n := 1; n <= 2100; n += 1 + n/40 {
		f := make([]float64, n)
		q := make([]float64, n)
		i := make([]int32, n)
		for j := range f {
			f[j] = r.NormFloat64() * math.Pow(2, float64(r.IntN(80)-40))
			q[j] = 1 + r.NormFloat64()/64
			i[j] = int32(r.Uint32())
		}
		for _, prod := range []bool{false, true} {
			x := f
			if prod {
				x = q
			}
			if g, w := treeCombine(x, prod), combineDef(x, prod); math.Float64bits(g) != math.Float64bits(w) && !(g != g && w != w) {
				t.Fatalf("f64 n=%d prod=%v: %v, the recursion gives %v", n, prod, g, w)
			}
			if g, w := treeCombine(i, prod), combineDef(i, prod); g != w {
				t.Fatalf("i32 n=%d prod=%v: %v, the recursion gives %v", n, prod, g, w)
			}
		}
	}
}
