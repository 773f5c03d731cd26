package simd_test

import (
	"math"
	"math/rand/v2"

	"github.com/kiln-go/kiln/internal/simd"
)

// Inputs for the twin test of the transcendentals: mostly their vector
// domains (so the assembly runs), with specials and out-of-domain values
// sprinkled in (so it stops early and the Go twin takes over mid-slice).

// specialRate is one over the share of special values and of random bit
// patterns among the inputs.
var specialRate = 64

func transGen32(lo, hi float64) func(*rand.Rand, []byte) {
	return func(r *rand.Rand, b []byte) {
		v := f32s(b)
		for i := range v {
			if r.IntN(specialRate) == 0 {
				v[i] = math.Float32frombits(special32[r.IntN(len(special32))])
			} else if r.IntN(specialRate) == 0 {
				v[i] = math.Float32frombits(r.Uint32())
			} else {
				v[i] = float32(lo + (hi-lo)*r.Float64())
			}
		}
	}
}

func transGen64(lo, hi float64) func(*rand.Rand, []byte) {
	return func(r *rand.Rand, b []byte) {
		v := f64s(b)
		for i := range v {
			if r.IntN(specialRate) == 0 {
				v[i] = math.Float64frombits(special64[r.IntN(len(special64))])
			} else if r.IntN(specialRate) == 0 {
				v[i] = math.Float64frombits(r.Uint64())
			} else {
				v[i] = lo + (hi-lo)*r.Float64()
			}
		}
	}
}

func transcendentalCases() []kcase {
	cs := transcendentalCasesAt()
	// Again with a special or random input every few lanes: most vectors
	// then settle specials by blends or stop early.
	for _, c := range transcendentalCasesAt() {
		gen := c.gen[0]
		c.name += "/specials"
		c.gen = []func(*rand.Rand, []byte){func(r *rand.Rand, b []byte) {
			specialRate = 4
			defer func() { specialRate = 64 }()
			gen(r, b)
		}}
		cs = append(cs, c)
	}
	return cs
}

func transcendentalCasesAt() []kcase {
	return []kcase{
		unary("ExpF32", simd.ExpF32, transGen32(-90, 90)),
		unary("LogF32", simd.LogF32, transGen32(0, 1e4)),
		unary("TanhF32", simd.TanhF32, transGen32(-12, 12)),
		unary("LogisticF32", simd.LogisticF32, transGen32(-90, 25)),
		unary("SinF32", simd.SinF32, transGen32(-100, 100)),
		unary("CosF32", simd.CosF32, transGen32(-100, 100)),
		unary("ExpF64", simd.ExpF64, transGen64(-710, 710)),
		unary("LogF64", simd.LogF64, transGen64(0, 1e4)),
		unary("TanhF64", simd.TanhF64, transGen64(-22, 22)),
		unary("LogisticF64", simd.LogisticF64, transGen64(-710, 45)),
		unary("SinF64", simd.SinF64, transGen64(-100, 100)),
		unary("CosF64", simd.CosF64, transGen64(-100, 100)),
	}
}
