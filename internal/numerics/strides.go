package numerics

// RowMajorStrides returns the element strides of a row-major (C order)
// array of the given shape: the last dimension is contiguous.
func RowMajorStrides(shape []int) []int {
	s := make([]int, len(shape))
	n := 1
	for i := len(shape) - 1; i >= 0; i-- {
		s[i] = n
		n *= shape[i]
	}
	return s
}
