package kiln_test

import (
	"fmt"

	"github.com/kiln-go/kiln"
	"github.com/kiln-go/kiln/tensor"
)

// Params is a model's parameters as a tree: Values inside a traced
// function, arrays outside it.
type Params[T kiln.Leaf] struct {
	W, B   T
	Layers []Params[T] // nested trees: slices (and maps) of them
}

// TreeFlatten lists a tree's leaves in order — fields as declared, slice
// elements by index, map values by sorted key — with its structure.
func ExampleTreeFlatten() {
	p := Params[*tensor.Array]{W: tensor.Scalar(float32(1)), B: tensor.Scalar(float32(2)),
		Layers: []Params[*tensor.Array]{{W: tensor.Scalar(float32(3)), B: tensor.Scalar(float32(4))}}}
	leaves, def, err := kiln.TreeFlatten[*tensor.Array](&p)
	fmt.Println(leaves, err)
	fmt.Println(def, def.NumLeaves())
	// Output:
	// [f32[] 1 f32[] 2 f32[] 3 f32[] 4] <nil>
	// {W:*, B:*, Layers:[{W:*, B:*, Layers:[]}]} 4
}

// TreeUnflatten builds a tree from leaves: here the Value side's type
// from the structure of the array side's.
func ExampleTreeUnflatten() {
	_, def, _ := kiln.TreeFlatten[*tensor.Array](map[string]*tensor.Array{"b": nil, "a": nil})
	m, err := kiln.TreeUnflatten[map[string]*tensor.Array](def, []*tensor.Array{tensor.Scalar(1.0), tensor.Scalar(2.0)})
	fmt.Println(m["a"], m["b"], err)
	// Output: f64[] 1 f64[] 2 <nil>
}

// TreeMap applies a function to every leaf, keeping the tree's type.
func ExampleTreeMap() {
	f := kiln.Jit(func(p Params[kiln.Value]) Params[kiln.Value] {
		return kiln.TreeMap(p, func(x kiln.Value) kiln.Value { return x.Mul(kiln.Int(10)) })
	})
	in := Params[*tensor.Array]{W: tensor.Must(tensor.FromSlice([]float32{1, 2})), B: tensor.Scalar(float32(3))}
	var out Params[*tensor.Array]
	err := f.RunTree([]any{&out}, &in)
	fmt.Println(out.W, out.B, len(out.Layers), err)
	// Output: f32[2] [10 20] f32[] 30 0 <nil>
}

// GradTree differentiates with respect to a struct of parameters and
// returns the gradient as the same struct.
func ExampleGradTree() {
	loss := func(p Params[kiln.Value], xy ...kiln.Value) kiln.Value { // Σ (w·x + b − y)²
		return p.W.Mul(xy[0]).Add(p.B).Sub(xy[1]).Square().Sum()
	}
	grad := kiln.Jit(func(p Params[kiln.Value], x, y kiln.Value) Params[kiln.Value] {
		return kiln.GradTree(loss)(p, x, y)
	})
	p := Params[*tensor.Array]{W: tensor.Scalar(2.0), B: tensor.Scalar(0.5)}
	var g Params[*tensor.Array]
	err := grad.RunTree([]any{&g}, &p, []float64{1, 2}, []float64{2, 4})
	fmt.Println("dW:", g.W, "dB:", g.B, err) // residuals 0.5, 0.5
	// Output: dW: f64[] 3 dB: f64[] 2 <nil>
}

// A loop whose carry is a struct: the body takes and returns it.
func ExampleForiLoopTree() {
	type State[T kiln.Leaf] struct{ Sum, Count T }
	f := kiln.Jit(func(x kiln.Value) State[kiln.Value] {
		return kiln.ForiLoopTree(kiln.Int(0), kiln.Int(4), func(i kiln.Value, s State[kiln.Value]) State[kiln.Value] {
			return State[kiln.Value]{Sum: s.Sum.Add(x.Mul(i)), Count: s.Count.Add(kiln.Int(1))}
		}, State[kiln.Value]{Sum: x.Mul(kiln.Int(0)), Count: kiln.Int(0).Astype(tensor.I32)})
	})
	var s State[*tensor.Array]
	err := f.RunTree([]any{&s}, tensor.Must(tensor.FromSlice([]float32{1, 10})))
	fmt.Println(s.Sum, s.Count, err)
	// Output: f32[2] [6 60] i32[] 4 <nil>
}

// Scan over the leaves of a tree of sequences, returning a tree of
// stacked results.
func ExampleScanTree() {
	type Step[T kiln.Leaf] struct{ X, Y T }
	f := kiln.Jit(func(xs, ys kiln.Value) (kiln.Value, map[string]kiln.Value) {
		return kiln.ScanTree(func(c kiln.Value, s Step[kiln.Value]) (kiln.Value, map[string]kiln.Value) {
			c = c.Add(s.X.Mul(s.Y))
			return c, map[string]kiln.Value{"running": c, "product": s.X.Mul(s.Y)}
		}, kiln.Float(0), Step[kiln.Value]{X: xs, Y: ys})
	})
	var total *tensor.Array
	var out map[string]*tensor.Array
	err := f.RunTree([]any{&total, &out}, []float32{1, 2, 3}, []float32{4, 5, 6})
	fmt.Println(total, out["running"], out["product"], err)
	// Output: f32[] 32 f32[3] [4 14 32] f32[3] [4 10 18] <nil>
}

// RunTreeInto writes a step's results into trees of arrays the caller
// keeps; with the trees passed by pointer, a loop of it allocates nothing.
func ExampleFunc_RunTreeInto() {
	step := kiln.Jit(func(p Params[kiln.Value]) Params[kiln.Value] {
		return Params[kiln.Value]{W: p.W.Add(p.B), B: p.B}
	})
	a := Params[*tensor.Array]{W: tensor.Scalar(0.0), B: tensor.Scalar(1.0)}
	b := Params[*tensor.Array]{W: tensor.Scalar(0.0), B: tensor.Scalar(0.0)}
	outA, outB := []any{&a}, []any{&b}
	for i := range 5 {
		var err error
		if i%2 == 0 {
			err = step.RunTreeInto(outB, &a)
		} else {
			err = step.RunTreeInto(outA, &b)
		}
		if err != nil {
			fmt.Println(err)
		}
	}
	fmt.Println(b.W)
	// Output: f64[] 5
}
