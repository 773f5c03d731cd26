package kernels

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/kiln-go/kiln/lower"
	"github.com/kiln-go/kiln/promote"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
	"github.com/x448/float16"
)

// A reduction whose partials would pass maxParts makes each partial from
// an aligned span of groups (a subtree of the fixed tree): the bits are
// those of one partial per group, for every reduction and dtype, NaNs
// (which one wins, and argmax's first NaN), signed zeros and ties, with
// spans that end short. maxParts is made small here so that spans happen
// at test sizes; at its real value a sum over a broadcast of 2^40
// elements keeps a MiB of partials, not 4 GiB (TestEvalContext).
func TestSpanPartialsKeepBits(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	special := func() float64 {
		switch rng.IntN(40) {
		case 0:
			return math.NaN()
		case 1:
			return math.Copysign(0, -1)
		case 2:
			return math.Inf(1 - 2*rng.IntN(2))
		case 3:
			return 3 // ties for argmax
		}
		return rng.NormFloat64() * math.Exp2(float64(rng.IntN(20)-10))
	}
	input := func(d tensor.DType, shape ...int) *tensor.Array {
		n := 1
		for _, s := range shape {
			n *= s
		}
		var a *tensor.Array
		switch d {
		case tensor.F32:
			v := make([]float32, n)
			for i := range v {
				v[i] = float32(special())
			}
			a = tensor.Must(tensor.FromSlice(v, shape...))
		case tensor.F64:
			v := make([]float64, n)
			for i := range v {
				v[i] = special()
			}
			a = tensor.Must(tensor.FromSlice(v, shape...))
		case tensor.F16:
			v := make([]tensor.Float16, n)
			for i := range v {
				v[i] = tensor.Float16(float16.Fromfloat32(float32(special())).Bits())
			}
			a = tensor.Must(tensor.FromSlice(v, shape...))
		case tensor.C64:
			v := make([]complex64, n)
			for i := range v {
				v[i] = complex(float32(special()), float32(special()))
			}
			a = tensor.Must(tensor.FromSlice(v, shape...))
		case tensor.I32:
			v := make([]int32, n)
			for i := range v {
				v[i] = int32(rng.IntN(2001) - 1000)
			}
			a = tensor.Must(tensor.FromSlice(v, shape...))
		case tensor.I8:
			v := make([]int8, n)
			for i := range v {
				v[i] = int8(rng.IntN(256) - 128)
			}
			a = tensor.Must(tensor.FromSlice(v, shape...))
		case tensor.U8:
			v := make([]uint8, n)
			for i := range v {
				v[i] = uint8(rng.IntN(256))
			}
			a = tensor.Must(tensor.FromSlice(v, shape...))
		}
		return a
	}
	type reduction struct {
		name    string
		fn      func(x trace.Value) trace.Value
		ordered bool // not for complex
	}
	reductions := []reduction{
		{"sum", func(x trace.Value) trace.Value { return x.Sum(-1) }, false},
		{"sum-all", func(x trace.Value) trace.Value { return x.Sum() }, false},
		{"prod", func(x trace.Value) trace.Value { return x.Mul(trace.Float(0.999)).Prod(-1) }, false},
		{"max", func(x trace.Value) trace.Value { return x.Max(-1) }, true},
		{"min", func(x trace.Value) trace.Value { return x.Min(-1) }, true},
		{"argmax", func(x trace.Value) trace.Value { return x.ArgMax(-1) }, true},
		{"argmin", func(x trace.Value) trace.Value { return x.ArgMin(-1) }, true},
	}
	shapes := [][]int{{3, 9 * groupElems}, {2, 13*groupElems + 77}, {1, 5*groupElems + 1}}
	run := func(p *trace.Program, in *tensor.Array, parts int) *tensor.Array {
		t.Helper()
		defer func(m int) { maxParts = m }(maxParts)
		maxParts = parts
		m, err := lower.Compile(p, lower.Options{Fold: Fold, Verify: true})
		if err != nil {
			t.Fatal(err)
		}
		e, err := DefaultCPU().Compile(m)
		if err != nil {
			t.Fatal(err)
		}
		out, err := e.Run([]*tensor.Array{in})
		if err != nil {
			t.Fatal(err)
		}
		return out[0]
	}
	spans := 0
	for _, d := range []tensor.DType{tensor.F32, tensor.F64, tensor.F16, tensor.C64, tensor.I32, tensor.I8, tensor.U8} {
		for _, r := range reductions {
			if r.ordered && d == tensor.C64 {
				continue
			}
			for _, shape := range shapes {
				name := fmt.Sprintf("%s/%s/%v", d, r.name, shape)
				p, err := trace.Trace(promote.Config{}, []trace.Abstract{{Type: promote.Strong(d), Shape: shape}},
					func(a []trace.Value) []trace.Value { return []trace.Value{r.fn(a[0])} })
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				in := input(d, shape...)
				want := run(p, in, 1<<30)
				for _, parts := range []int{1, 2, 3, 4} {
					if got := run(p, in, parts); !tensor.Equal(got, want) {
						t.Errorf("%s, maxParts %d: %v, want %v (one partial per group)", name, parts, got, want)
					}
				}
				spans++
			}
		}
	}
	// At the real bound: a sum of 2^40 values keeps 2^17 partials; a
	// million outputs of two groups each keep one partial per output.
	if got := groupSpan(1, 1<<30); got != 1<<13 {
		t.Errorf("groupSpan(1, 2^30) = %d, want 2^13", got)
	}
	if got := groupSpan(1<<20, 2); got != 2 {
		t.Errorf("groupSpan(2^20, 2) = %d, want 2", got)
	}
	if got := groupSpan(3, 9); got != 1 {
		t.Errorf("groupSpan(3, 9) = %d, want 1 (27 partials are few)", got)
	}
	if spans == 0 {
		t.Fatal("no reduction was checked")
	}
}
