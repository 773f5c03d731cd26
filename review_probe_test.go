package kiln_test

import (
	"testing"

	"github.com/kiln-go/kiln"
)

// TestReviewVmapFreeControl: control flow whose operands are all free
// (literals), inside a vmapped function, closing over the example: the
// loop or branch is placed in the vmap's trace and batched by what it
// closes over — including a while whose predicate is batched only through
// the closure.
func TestReviewVmapFreeControl(t *testing.T) {
	xs := rf32([]int{4}, 0.5, 3, 7.25, -2)
	cases := map[string]func(x kiln.Value) kiln.Value{
		"cond on a literal, branches closing over x": func(x kiln.Value) kiln.Value {
			return kiln.Cond(kiln.Bool(true), func(o []kiln.Value) []kiln.Value {
				return []kiln.Value{o[0].Add(x)}
			}, func(o []kiln.Value) []kiln.Value { return []kiln.Value{o[0].Sub(x)} }, kiln.Float(1))[0]
		},
		"cond on x, literal operands": func(x kiln.Value) kiln.Value {
			return kiln.Cond(x.Gt(kiln.Int(1)), func(o []kiln.Value) []kiln.Value {
				return []kiln.Value{o[0].Mul(kiln.Int(3))}
			}, func(o []kiln.Value) []kiln.Value { return []kiln.Value{o[0].Neg()} }, kiln.Float(2))[0]
		},
		"fori from a literal, body closing over x": func(x kiln.Value) kiln.Value {
			return kiln.ForiLoop(kiln.Int(0), kiln.Int(3), func(i kiln.Value, c []kiln.Value) []kiln.Value {
				return []kiln.Value{c[0].Mul(x).Add(kiln.Int(1))}
			}, kiln.Float(0))[0]
		},
		"while from a literal, predicate batched by closure": func(x kiln.Value) kiln.Value {
			return kiln.WhileLoop(func(c []kiln.Value) kiln.Value { return c[0].Lt(x) },
				func(c []kiln.Value) []kiln.Value { return []kiln.Value{c[0].Add(kiln.Int(1))} }, kiln.Float(0))[0]
		},
		"fori to a bound computed from x": func(x kiln.Value) kiln.Value {
			hi := x.Abs().Floor().Astype(kiln.Int(0).DType())
			return kiln.ForiLoop(kiln.Int(0), hi, func(i kiln.Value, c []kiln.Value) []kiln.Value {
				return []kiln.Value{c[0].Add(i)}
			}, kiln.Int(0))[0]
		},
		"scan over literal xs closing over x": func(x kiln.Value) kiln.Value {
			c, _ := kiln.Scan(func(c, e []kiln.Value) ([]kiln.Value, []kiln.Value) {
				return []kiln.Value{c[0].Mul(x).Add(e[0])}, nil
			}, []kiln.Value{kiln.Float(0)}, []kiln.Value{kiln.Arange(0, 3, 1)})
			return c[0]
		},
	}
	for name, f := range cases {
		t.Run(name, func(t *testing.T) {
			reviewPerExample(t, name, f, []int{0}, nil, xs)
		})
	}
}

// TestReviewGradThroughFreeLoop: reverse mode through a loop whose carry
// starts free and whose body closes over the differentiated argument:
// c = ((0·x + 1)·x + 1)·x + 1 = x² + x + 1, dc/dx = 2x + 1, per example
// under vmap.
func TestReviewGradThroughFreeLoop(t *testing.T) {
	g := kiln.Grad(func(x kiln.Value) kiln.Value {
		return kiln.ForiLoop(kiln.Int(0), kiln.Int(3), func(i kiln.Value, c []kiln.Value) []kiln.Value {
			return []kiln.Value{c[0].Mul(x).Add(kiln.Int(1))}
		}, kiln.Float(0))[0]
	})
	got, err := kiln.Jit(kiln.Vmap(g)).Run(rf32([]int{3}, 0.5, -2, 3))
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []float32{2, -3, 7} {
		if g := got.Data().([]float32)[i]; g != want {
			t.Errorf("example %d: %v, want %v", i, g, want)
		}
	}
}
