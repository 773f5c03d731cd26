package kiln_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/kiln-go/kiln"
	"github.com/kiln-go/kiln/internal/numerics"
	"github.com/kiln-go/kiln/internal/simd"
	"github.com/kiln-go/kiln/tensor"
)

func s35Val(rng *rand.Rand, nan bool) float32 {
	r := rng.IntN(24)
	switch {
	case nan && r == 0:
		return math.Float32frombits(0x7fc00000 | uint32(rng.IntN(2))<<31 | uint32(rng.Uint64())&0x3fffff)
	case nan && r == 1:
		return math.Float32frombits(0x7f800001 | uint32(rng.IntN(2))<<31 | uint32(rng.Uint64())&0x1fffff)
	case r == 2 || r == 3:
		return float32(math.Copysign(0, -1))
	case r == 4:
		return 0
	case r == 5:
		return float32(math.Inf(1 - 2*rng.IntN(2)))
	case r == 6:
		return math.Float32frombits(uint32(rng.IntN(2))<<31 | uint32(1+rng.IntN(0x7fffff)))
	}
	return float32(rng.NormFloat64()) * float32(math.Exp2(float64(rng.IntN(40)-20)))
}

// Row reductions (last axis, 1..15 values a row) through Jit at every
// tier: max/min equal numerics.Maximum/Minimum folds, sums equal the
// leaf-sum reference, and every tier gives the same bits for sums over
// the other axes.
func TestS35PublicShortReductions(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 35))
	fns := map[string]any{
		"sum1":   func(x kiln.Value) kiln.Value { return x.Sum(1) },
		"max1":   func(x kiln.Value) kiln.Value { return x.Max(1) },
		"min1":   func(x kiln.Value) kiln.Value { return x.Min(1) },
		"sum0":   func(x kiln.Value) kiln.Value { return x.Sum(0) },
		"max0":   func(x kiln.Value) kiln.Value { return x.Max(0) },
		"min0":   func(x kiln.Value) kiln.Value { return x.Min(0) },
		"sumAll": func(x kiln.Value) kiln.Value { return x.Sum() },
		"sum3d":  func(x kiln.Value) kiln.Value { return x.Reshape(-1, 1, x.Shape()[1]).Sum(2) },
		"max3d":  func(x kiln.Value) kiln.Value { return x.Reshape(1, -1, x.Shape()[1]).Max(0, 2) },
	}
	jits := map[string]*kiln.Func{}
	for k, f := range fns {
		jits[k] = kiln.Jit(f)
	}
	for _, rows := range []int{1, 5, 15, 16, 17, 31, 32, 33, 64, 100, 257, 1000} {
		for l := 1; l < 16; l++ {
			for _, nan := range []bool{false, true} {
				v := make([]float32, rows*l)
				for i := range v {
					v[i] = s35Val(rng, nan)
				}
				x := tensor.Must(tensor.FromSlice(v, rows, l))
				res := map[string][]uint32{}
				for _, tier := range simd.Available() {
					restore := simd.SetLevel(tier)
					for name, f := range jits {
						out, err := f.Run(x)
						if err != nil {
							t.Fatal(name, err)
						}
						d, err := tensor.Data[float32](out)
						if err != nil {
							t.Fatal(err)
						}
						bits := make([]uint32, len(d))
						for i := range d {
							bits[i] = math.Float32bits(d[i])
						}
						if prev, ok := res[name]; ok {
							for i := range bits {
								if bits[i] != prev[i] {
									t.Errorf("%s rows=%d l=%d nan=%v tier %v: out[%d] %#x, first tier %#x", name, rows, l, nan, tier, i, bits[i], prev[i])
									break
								}
							}
						} else {
							res[name] = bits
						}
						if name == "max1" || name == "min1" {
							fold := numerics.Maximum[float32]
							if name == "min1" {
								fold = numerics.Minimum[float32]
							}
							for i := range rows {
								r := v[i*l : (i+1)*l]
								w := r[0]
								for _, y := range r[1:] {
									w = fold(w, y)
								}
								if math.Float32bits(w) != bits[i] {
									t.Errorf("%s rows=%d l=%d tier %v row %d %v: %#x want %#x", name, rows, l, tier, i, r, bits[i], math.Float32bits(w))
									break
								}
							}
						}
						if name == "sum1" {
							for i := range rows {
								r := v[i*l : (i+1)*l]
								w := numerics.AddFirstNaN(float32(0), numerics.SumLeafFloat(r))
								if math.Float32bits(w) != bits[i] {
									t.Errorf("%s rows=%d l=%d tier %v row %d %v: %#x want %#x", name, rows, l, tier, i, r, bits[i], math.Float32bits(w))
									break
								}
							}
						}
					}
					restore()
				}
			}
		}
	}
}
