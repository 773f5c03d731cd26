package trace

import "fmt"

// Dot is jnp.dot(x, y, preferred_element_type=…): with a scalar operand
// the elementwise product; otherwise x's last axis contracted with y's
// only axis (y a vector) or its second-to-last, the result being x's
// other dims then y's (no broadcasting of batch dims: matmul does that).
// It is one dot_general, so the options and derivatives are its.
func Dot(x, y Value, opts ...DotOption) Value {
	xr, yr := len(x.Shape()), len(y.Shape())
	var d DotDims
	switch {
	case xr == 0 || yr == 0:
	case yr == 1:
		d = DotDims{LhsContract: []int{xr - 1}, RhsContract: []int{0}}
	default:
		d = DotDims{LhsContract: []int{xr - 1}, RhsContract: []int{yr - 2}}
	}
	return jnpResult(dotGeneral("dot", x, y, d, opts), dotOptions(opts))
}

// Tensordot is jnp.tensordot(x, y, axes=(xAxes, yAxes)): x's axes xAxes
// contracted pairwise with y's yAxes (negative axes count from the end);
// the result is x's other dims then y's. TensordotN is the axes=n form.
func Tensordot(x, y Value, xAxes, yAxes []int, opts ...DotOption) Value {
	xs, ys := x.Shape(), y.Shape()
	fail := func(msg string, args ...any) Value {
		return Failure(&ShapeError{Op: "tensordot", Pos: callerPos(), Shapes: [][]int{xs, ys}, Msg: fmt.Sprintf(msg, args...)})
	}
	if len(xAxes) != len(yAxes) {
		return fail("tensordot requires axes lists of equal length, got %v and %v", xAxes, yAxes)
	}
	norm := func(axes []int, rank int) ([]int, bool) {
		out := make([]int, len(axes))
		for i, a := range axes {
			if a < -rank || a >= rank {
				return nil, false
			}
			out[i] = (a + rank) % max(rank, 1)
		}
		return out, true
	}
	la, ok1 := norm(xAxes, len(xs))
	ra, ok2 := norm(yAxes, len(ys))
	if !ok1 || !ok2 {
		return fail("axes %v and %v out of range for shapes %s and %s", xAxes, yAxes, shapeString(xs), shapeString(ys))
	}
	return jnpResult(dotGeneral("tensordot", x, y, DotDims{LhsContract: la, RhsContract: ra}, opts), dotOptions(opts))
}

// TensordotN is jnp.tensordot(x, y, axes=n): x's last n axes contracted
// with y's first n, in order.
func TensordotN(x, y Value, n int, opts ...DotOption) Value {
	xr, yr := len(x.Shape()), len(y.Shape())
	if n < 0 || n > min(xr, yr) {
		return Failure(&ShapeError{Op: "tensordot", Pos: callerPos(), Shapes: [][]int{x.Shape(), y.Shape()},
			Msg: fmt.Sprintf("number of tensordot axes (axes %d) exceeds input ranks (%d and %d)", n, xr, yr)})
	}
	return jnpResult(dotGeneral("tensordot", x, y, DotDims{LhsContract: span(xr-n, n), RhsContract: span(0, n)}, opts), dotOptions(opts))
}
