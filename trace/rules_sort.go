package trace

import (
	"math"
	"slices"

	"github.com/kiln-go/kiln/tensor"
)

// jvpSort is JAX's: the permutation the keys sort an iota into, then the
// tangent of the equation's operand gathered at it (a gather from a primal
// index, so linear, and transposed by scatter_add). An integer result has
// a zero tangent.
func jvpSort(c *Call) Value {
	p := c.Eqn.Params
	t := c.Tangents[p.Sort.Output]
	if isZero(t) {
		return Value{}
	}
	shape := c.Eqn.Out.Shape
	d := tensor.I32
	if shape[p.Axis] > math.MaxInt32 {
		d = tensor.I64
	}
	keys := append(slices.Clone(c.In[:p.Sort.NumKeys]), Iota(d, shape, p.Axis))
	perm := sortOne("sort", keys, p.Axis, p.Sort.NumKeys, p.Sort.Stable, p.Sort.NumKeys)
	return TakeAlongAxis(t, perm, p.Axis, WithMode(ModeClip))
}
