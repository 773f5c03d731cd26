package simd

// The short-row reductions reduce each row of a row-major matrix of rows
// shorter than a vector (1 ≤ l < 16 values) sixteen rows at a time, a row
// a lane, at the AVX-512 tier. They do whole groups of sixteen rows from
// the first and return how many rows they did (none at the other tiers);
// the caller reduces the rest a row at a time (package kernels' short
// sums and float folds, whose bits they give). x must hold len(dst)·l
// values.

// rowOffsets is the offsets of sixteen rows of l values.
func rowOffsets(l int) (idx [16]int32) {
	for q := range idx {
		idx[q] = int32(q * l)
	}
	return idx
}

// shortRows reports whether rows of l values suit the short-row kernels
// and x holds dst's rows (it panics, as a short input does everywhere in
// this package, when it does not).
func shortRows(dst, x []float32, l int) bool {
	if l < 1 || l >= 16 || len(dst) < 16 {
		return false
	}
	_ = x[:len(dst)*l]
	return true
}

// SumRowsF32 writes to dst[i] the sum of row i of x as Kiln's tree sums a
// segment of l values: l ≥ 8 as ((x0+x1)+(x2+x3))+((x4+x5)+(x6+x7)), then
// the rest left to right, shorter rows left to right, every addition
// keeping its left operand's NaN (numerics.AddFirstNaN), the sum added to
// +0 last. It returns how many rows it did.
func SumRowsF32(dst, x []float32, l int) int {
	if !shortRows(dst, x, l) {
		return 0
	}
	idx := rowOffsets(l)
	return sumRowsF32Accel(dst, x, idx[:], l)
}

// MaxRowsF32 writes to dst[i] the largest value of row i of x, +0 above
// −0 (Go's max), for the rows up to the first group of sixteen holding a
// NaN, and returns how many rows it did.
func MaxRowsF32(dst, x []float32, l int) int {
	if !shortRows(dst, x, l) {
		return 0
	}
	idx := rowOffsets(l)
	return maxRowsF32Accel(dst, x, idx[:], l)
}

// MinRowsF32 is MaxRowsF32 for the smallest value, −0 below +0 (Go's min).
func MinRowsF32(dst, x []float32, l int) int {
	if !shortRows(dst, x, l) {
		return 0
	}
	idx := rowOffsets(l)
	return minRowsF32Accel(dst, x, idx[:], l)
}
