package kiln

import (
	"testing"

	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// treeFlat runs a function of trees as a flat transformation would:
// leaves in, a transformation of the flat function (here JVP, with a
// tangent of one per leaf), leaves out, built back into result trees.
func TestTreeFlatForTransformations(t *testing.T) {
	type pair struct{ A, B Value }
	fn := func(p pair, xs []Value) (map[string]Value, Value) {
		return map[string]Value{"prod": p.A.Mul(p.B), "sum": xs[0].Add(xs[1])}, p.A.Sin()
	}
	f := Jit(func(a, b, c, d Value) []Value {
		tf, err := newTreeFlat(fn, "test")
		if err != nil {
			return []Value{trace.Failure(err)}
		}
		leaves, counts, err := tf.leaves([]any{pair{a, b}, []Value{c, d}})
		if err != nil || len(counts) != 2 || counts[0] != 2 || counts[1] != 2 {
			t.Errorf("leaves: %v %v", counts, err)
			return []Value{trace.Failure(err)}
		}
		ones := make([]Value, len(leaves))
		for i := range ones {
			ones[i] = Float(1)
		}
		_, tangents := JVP(tf.flat, leaves, ones)
		res, err := tf.results(tangents)
		if err != nil {
			return []Value{trace.Failure(err)}
		}
		m := res[0].Interface().(map[string]Value)
		if tf.out.counts[0] != 2 || tf.out.counts[1] != 1 {
			t.Errorf("result counts %v", tf.out.counts)
		}
		return []Value{m["prod"], m["sum"], res[1].Interface().(Value)}
	})
	x := func(v float64) *tensor.Array { return tensor.Scalar(v) }
	out, err := f.RunAll(x(2), x(3), x(4), x(5))
	if err != nil {
		t.Fatal(err)
	}
	// d(ab) = a + b; d(c + d) = 2; d sin a = cos a.
	if out[0].String() != "f64[] 5" || out[1].String() != "f64[] 2" || out[2].String() != x(-0.4161468365471424).String() {
		t.Errorf("tangents %v", out)
	}
	if _, err := newTreeFlat(func(n int) Value { return Int(1) }, "test"); err == nil {
		t.Error("a function of an int: no error")
	}
}
