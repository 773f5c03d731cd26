package kiln

import "github.com/kiln-go/kiln/trace"

// Sorting, as jax.numpy and jax.lax: Sort, Argsort (stable; NaN last, −0
// and +0 equal, as JAX's sort comparator), TopK (lax.top_k) and SortMany
// (lax.sort of several operands by num_keys keys). See trace/sort.go for
// the order and the choices.

// SortOption configures Sort and Argsort.
type SortOption = trace.SortOption

// Descending sorts from the largest element down (descending=True).
func Descending() SortOption { return trace.Descending() }

// Sort is jax.numpy.sort(x, axis); AxisNone sorts the flattened x.
func Sort(x Value, axis int, opts ...SortOption) Value { return trace.Sort(x, axis, opts...) }

// Argsort is jax.numpy.argsort(x, axis, stable=True): the default int
// indices that sort x along axis.
func Argsort(x Value, axis int, opts ...SortOption) Value { return trace.Argsort(x, axis, opts...) }

// TopK is jax.lax.top_k(x, k): the k largest along the last axis, largest
// first, and their int32 indices (ties: the lower index first).
func TopK(x Value, k int) (values, indices Value) { return trace.TopK(x, k) }

// SortMany is jax.lax.sort(operands, dimension=axis, is_stable, num_keys):
// the operands sorted together by the first numKeys of them.
func SortMany(operands []Value, axis, numKeys int, stable bool) []Value {
	return trace.SortMany(operands, axis, numKeys, stable)
}
