package trace

// KeptDims is a value whose reductions keep each reduced axis as size 1,
// as NumPy's and JAX's keepdims=True: x.KeepDims().Max(-1) has x's rank,
// so it broadcasts against x. Make one with Value.KeepDims; it is not a
// Value itself, so it cannot be used as one by mistake.
type KeptDims struct{ x Value }

// KeepDims returns x's keepdims reductions:
//
//	x.Sub(x.KeepDims().Max(-1)) // softmax's shift, jnp: x - x.max(-1, keepdims=True)
//
// Reduce and ReduceMean take keepDims as a bool, for code that decides it
// at run time.
func (x Value) KeepDims() KeptDims { return KeptDims{x} }

// Sum is Value.Sum keeping the reduced axes.
func (k KeptDims) Sum(axes ...int) Value { return Reduce(OpReduceSum, k.x, axes, true) }

// Prod is Value.Prod keeping the reduced axes.
func (k KeptDims) Prod(axes ...int) Value { return Reduce(OpReduceProd, k.x, axes, true) }

// Max is Value.Max keeping the reduced axes.
func (k KeptDims) Max(axes ...int) Value { return Reduce(OpReduceMax, k.x, axes, true) }

// Min is Value.Min keeping the reduced axes.
func (k KeptDims) Min(axes ...int) Value { return Reduce(OpReduceMin, k.x, axes, true) }

// Mean is Value.Mean keeping the reduced axes.
func (k KeptDims) Mean(axes ...int) Value { return ReduceMean(k.x, axes, true) }

// ArgMax is Value.ArgMax keeping the reduced axis.
func (k KeptDims) ArgMax(axis int) Value { return keepAxis(k.x.ArgMax(axis), k.x, axis) }

// ArgMin is Value.ArgMin keeping the reduced axis.
func (k KeptDims) ArgMin(axis int) Value { return keepAxis(k.x.ArgMin(axis), k.x, axis) }

// keepAxis puts back, as size 1, the axis of x that r reduced: a reshape,
// which costs nothing. A bad axis has already failed r's trace, which
// ignores what follows.
func keepAxis(r, x Value, axis int) Value {
	if axis < 0 {
		axis += len(x.Shape())
	}
	return r.ExpandDims(axis)
}
