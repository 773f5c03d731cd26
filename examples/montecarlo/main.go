// Montecarlo estimates π and E[e^Z] for a standard normal Z with
// jax.random's samplers inside one jitted function: the key is an input,
// so each batch is a new draw from the same compiled program, and the
// random bits, the transform and the reduction fuse into one pass.
package main

import (
	"fmt"
	"log"
	"math"

	"github.com/kiln-go/kiln"
	"github.com/kiln-go/kiln/random"
	"github.com/kiln-go/kiln/tensor"
)

// batch is the number of samples per call.
const batch = 1 << 20

// estimate is one batch's estimates of π (the fraction of uniform points
// of the unit square inside the quarter circle, times 4, in f64) and of
// E[e^Z] (Z in f32, the mean in f64).
var estimate = kiln.Jit(func(key kiln.Value) (kiln.Value, kiln.Value) {
	k := random.Split(key, 2)
	xy := random.Uniform(k.Index(0), []int{batch, 2})
	r2 := xy.Square().Sum(1)
	pi := r2.Lt(kiln.Float(1)).Astype(tensor.F64).Mean().Mul(kiln.Float(4))
	z := random.Normal(k.Index(1), []int{batch}, tensor.F32)
	return pi, z.Exp().Astype(tensor.F64).Mean()
})

// run draws batches from seed and returns the mean estimates and their
// standard errors.
func run(seed int64, batches int) (pi, piErr, ez, ezErr float64, err error) {
	key, err := kiln.Eval(random.Key(seed))
	if err != nil {
		return 0, 0, 0, 0, err
	}
	var ps, es []float64
	for i := range batches {
		k, err := kiln.Eval(random.FoldIn(kiln.Const(key), kiln.Int(int64(i))))
		if err != nil {
			return 0, 0, 0, 0, err
		}
		outs, err := estimate.RunAll(k)
		if err != nil {
			return 0, 0, 0, 0, err
		}
		ps = append(ps, outs[0].Data().([]float64)[0])
		es = append(es, outs[1].Data().([]float64)[0])
	}
	pi, piErr = meanErr(ps)
	ez, ezErr = meanErr(es)
	return pi, piErr, ez, ezErr, nil
}

func meanErr(xs []float64) (float64, float64) {
	m := 0.0
	for _, x := range xs {
		m += x
	}
	m /= float64(len(xs))
	v := 0.0
	for _, x := range xs {
		v += (x - m) * (x - m)
	}
	return m, math.Sqrt(v / float64(len(xs)-1) / float64(len(xs)))
}

func main() {
	pi, piErr, ez, ezErr, err := run(0, 8)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("π      ≈ %.5f ± %.5f (true %.5f) from %d samples\n", pi, piErr, math.Pi, 8*batch)
	fmt.Printf("E[e^Z] ≈ %.5f ± %.5f (true √e = %.5f)\n", ez, ezErr, math.Sqrt(math.E))
}
