package kiln_test

import (
	"flag"
	"fmt"
	"math"
	"math/rand"
	"sync/atomic"
	"testing"

	"github.com/kiln-go/kiln"
	"github.com/kiln-go/kiln/internal/longtest"
	"github.com/kiln-go/kiln/internal/progen"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// Second derivatives of random elementwise and reduction programs: the
// Hessian-vector product H·v of a random loss, computed forward over
// reverse (JVP of Grad) and reverse over reverse (Grad of Grad·v), must
// agree with each other and with central differences of the gradient
// along v.

var hvpN = flag.Int("hvp.n", 0, "number of programs of TestHessianPrograms (0: 2000 with KILN_LONG=1, else 500)")

// hvpOps are the ops the programs draw: smooth elementwise ops, the
// reductions and the structural ops.
var hvpOps = []trace.Op{trace.OpAdd, trace.OpSub, trace.OpMul, trace.OpDiv, trace.OpNeg, trace.OpExp, trace.OpSin, trace.OpCos,
	trace.OpTanh, trace.OpLogistic, trace.OpExpm1, trace.OpMax, trace.OpMin, trace.OpAbs, trace.OpSelect, trace.OpGt,
	trace.OpReduceSum, trace.OpReduceProd, trace.OpReduceMax, trace.OpReduceMin,
	trace.OpReshape, trace.OpTranspose, trace.OpBroadcastInDim, trace.OpSlice, trace.OpConcat, trace.OpConvert}

func TestHessianPrograms(t *testing.T) {
	n := int64(*hvpN)
	if n == 0 {
		n = longtest.Pick[int64](2000, 500)
	}
	if testing.Short() {
		n = min(n, 300)
	}
	var i, checked, progs atomic.Int64
	forSeeds(t, func() (int64, bool) { k := i.Add(1) - 1; return 5_000_000 + k, k < 4*n && progs.Load() < n }, func(seed int64) string {
		k, msg := runHVP(seed)
		if k > 0 {
			progs.Add(1)
			checked.Add(int64(k))
		}
		return msg
	})
	t.Logf("%d programs, %d Hessian-vector product elements checked", progs.Load(), checked.Load())
	if progs.Load() < n {
		t.Errorf("only %d programs had a second derivative to check, want %d", progs.Load(), n)
	}
}

// runHVP checks one program and returns how many elements it compared.
func runHVP(seed int64) (int, string) {
	r := rand.New(rand.NewSource(seed))
	c := progen.Generate(r, progen.Options{DTypes: []tensor.DType{tensor.F64}, Ops: hvpOps, Smooth: true, MaxDim: 3, LargeProb: -1,
		X32Prob: -1, MaxOps: 8, WeakProb: -1})
	loss, argnums, ok := gradSetup(c, r)
	if !ok {
		return 0, ""
	}
	vs := make([]*tensor.Array, len(argnums))
	for k, i := range argnums {
		v := make([]float64, c.Arrays[i].Size())
		for j := range v {
			v[j] = 2*r.Float64() - 1
		}
		a, _ := tensor.FromSlice(v)
		vs[k], _ = a.Reshape(c.Arrays[i].Shape()...)
	}
	grad := kiln.Grad(loss, argnums...)
	nin := len(c.Arrays)
	// Arguments: the case's inputs, then one direction per argnum.
	hvp := kiln.Jit(func(a ...kiln.Value) []kiln.Value {
		xs, dirs := a[:nin], a[nin:]
		tangents := make([]kiln.Value, nin)
		for j := range tangents {
			tangents[j] = kiln.Float(0)
		}
		for k, i := range argnums {
			tangents[i] = dirs[k]
		}
		_, fwd := kiln.JVP(grad, xs, tangents)
		dot := func(xs ...kiln.Value) kiln.Value {
			gs := grad(xs...)
			s := gs[0].Mul(dirs[0]).Sum()
			for k := 1; k < len(gs); k++ {
				s = s.Add(gs[k].Mul(dirs[k]).Sum())
			}
			return s
		}
		rev := kiln.Grad(dot, argnums...)(xs...)
		return append(fwd, rev...)
	})
	args := caseArgs(c)
	for _, v := range vs {
		args = append(args, v)
	}
	outs, err := hvp.RunAll(args...)
	if err != nil {
		return 0, fmt.Sprintf("hvp seed %d: %v\n%s", seed, err, c)
	}
	fwd, rev := outs[:len(argnums)], outs[len(argnums):]
	g := kiln.Jit(grad)
	gradAt := func(h float64) ([]*tensor.Array, bool) {
		at := caseArgs(c)
		for k, i := range argnums {
			x, _ := tensor.Data[float64](c.Arrays[i])
			v, _ := tensor.Data[float64](vs[k])
			y := make([]float64, len(x))
			for j := range y {
				y[j] = x[j] + h*v[j]
			}
			a, _ := tensor.FromSlice(y)
			a, _ = a.Reshape(c.Arrays[i].Shape()...)
			at[i] = a
		}
		gs, err := g.RunAll(at...)
		return gs, err == nil
	}
	checked := 0
	fdAt := func(h float64) ([][]float64, bool) {
		hi, ok1 := gradAt(h)
		lo, ok2 := gradAt(-h)
		if !ok1 || !ok2 {
			return nil, false
		}
		out := make([][]float64, len(hi))
		for k := range hi {
			a, _ := tensor.Data[float64](hi[k])
			b, _ := tensor.Data[float64](lo[k])
			out[k] = make([]float64, len(a))
			for j := range a {
				out[k][j] = (a[j] - b[j]) / (2 * h)
			}
		}
		return out, true
	}
	fd1, ok1 := fdAt(1e-5)
	fd2, ok2 := fdAt(2.5e-6)
	if !ok1 || !ok2 {
		return 0, ""
	}
	for k := range fwd {
		f, _ := tensor.Data[float64](fwd[k])
		b, _ := tensor.Data[float64](rev[k])
		scale := 0.0
		for _, x := range f {
			if !math.IsNaN(x) && !math.IsInf(x, 0) {
				scale = math.Max(scale, math.Abs(x))
			}
		}
		for j := range f {
			if math.IsNaN(f[j]) || math.IsInf(f[j], 0) {
				continue
			}
			if math.Abs(f[j]-b[j]) > 1e-9*(math.Abs(f[j])+scale+1) {
				return checked, fmt.Sprintf("hvp seed %d: argument %d [%d]: forward-over-reverse %v, reverse-over-reverse %v\n%s", seed, argnums[k], j, f[j], b[j], c)
			}
			d1, d2 := fd1[k][j], fd2[k][j]
			if math.IsNaN(d2) || math.Abs(d1-d2) > 1e-4*math.Abs(d2)+1e-9 {
				continue // not smooth here, or the gradient is rounding noise (x/(x·y) = 1/y)
			}
			checked++
			if math.Abs(f[j]-d2) > 1e-4*(math.Abs(d2)+0.01*scale)+1e-8 {
				return checked, fmt.Sprintf("hvp seed %d: argument %d [%d]: H·v %v, central differences of the gradient %v\n%s", seed, argnums[k], j, f[j], d2, c)
			}
		}
	}
	return checked, ""
}
