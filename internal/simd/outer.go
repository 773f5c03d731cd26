package simd

import (
	"fmt"
	"math"
)

// Outer products: a matrix product with a single contracting step (vmap's
// per-example weight gradients, g_i ⊗ h_i) is c[i, j] = fma(a[i], b[j],
// +0), the in-order FMA chain of internal/gemm started at +0 and run for
// one step. The kernels write each element of c once, straight into its
// row: no packing, no tile, no zeroing first.
//
// The +0 addend is what makes the bits: an exact zero product (a zero
// times a finite value, of either sign) is +0, as −0 + +0 is, while a
// nonzero product that underflows keeps its sign (−0 for a tiny negative);
// ∞·0 is NaN. A multiply alone would give −0 for −1·0, and a multiply
// followed by an add of +0 would turn the underflowed −0 into +0: neither
// is the definition.

// OuterF32 sets dst[i*ldc+j] = fma(a[i], b[j], +0) for every i < len(a)
// and j < len(b), leaving the ldc−len(b) elements after each row alone.
// It panics, as an index out of range does, if ldc < len(b) (with more
// than one row) or dst is shorter than (len(a)−1)·ldc + len(b). dst must
// not overlap a or b.
func OuterF32(dst, a, b []float32, ldc int) {
	if n := len(b); n < 16 && ldc == n && len(a) > 1 && tier == AVX512 {
		// Rows shorter than a vector with no gaps (E10's 128×10
		// gradients): whole vectors of the flat run first, in whole
		// periods of its pattern (outerFlatF32); outerRows does the rest.
		dst = dst[:len(a)*n] // before the assembly: a short dst panics
		done := outerFlat(dst, a, b)
		dst, a = dst[done*n:], a[done:]
	}
	outerRows(dst, a, b, ldc, outerF32Accel, fmaZero32)
}

// outerFlat runs outerFlatF32 on the whole periods of the run of len(a)
// rows of n = len(b) < 16 elements each at dst, and returns the rows it
// did: a period is lcm(n, 16) elements, 16/gcd(n, 16) rows.
func outerFlat(dst, a, b []float32) int {
	n := len(b)
	t := &flatTables[n]
	rows := len(t.div) / n
	periods := len(a) / rows
	if periods == 0 {
		return 0
	}
	var pat [16 * 15]float32 // b laid out as a period: the kernel writes it
	return outerFlatF32Accel(dst[:periods*len(t.div)], a[:periods*rows], b, pat[:len(t.div)], t.div, t.mod, rows, periods)
}

// flatTables[n] holds e/n and e%n for the lcm(n, 16) elements of a period
// of rows of n (outerFlat).
var flatTables = func() (ts [16]struct{ div, mod []int32 }) {
	for n := 1; n < 16; n++ {
		g := 16
		for x := n; x != 0; g, x = x, g%x {
		}
		l := 16 * n / g
		t := &ts[n]
		t.div, t.mod = make([]int32, l), make([]int32, l)
		for e := range l {
			t.div[e], t.mod[e] = int32(e/n), int32(e%n)
		}
	}
	return ts
}()

// OuterF64 is OuterF32 for float64.
func OuterF64(dst, a, b []float64, ldc int) {
	outerRows(dst, a, b, ldc, outerF64Accel, fmaZero64)
}

// outerRows checks the shapes, runs the assembly (accel) and finishes the
// columns it left, on every row, with the Go twin.
func outerRows[T float](dst, a, b []T, ldc int, accel func(dst, a, b []T, ldc int) int, fma0 func(x, y T) T) {
	if len(a) == 0 || len(b) == 0 {
		return
	}
	if len(a) > 1 && ldc < len(b) {
		panic(fmt.Sprintf("simd: outer product rows of %d elements %d apart", len(b), ldc))
	}
	dst = dst[:(len(a)-1)*ldc+len(b)]
	done := accel(dst, a, b, ldc)
	outerGo(dst, a, b, ldc, done, fma0)
}

// outerGo is the Go twin: columns [j0, len(b)) of every row.
func outerGo[T float](dst, a, b []T, ldc, j0 int, fma0 func(x, y T) T) {
	if j0 >= len(b) {
		return
	}
	for i, x := range a {
		row := dst[i*ldc : i*ldc+len(b)]
		for j := j0; j < len(b); j++ {
			row[j] = fma0(x, b[j])
		}
	}
}

// fmaZero32 is fma(x, y, +0) in float32: the float64 product of two
// float32 values is exact (24 + 24 significant bits, exponents well within
// float64's), so converting it rounds once, as the FMA does, keeping the
// sign of a nonzero product that underflows; an exact zero product is +0.
func fmaZero32(x, y float32) float32 {
	p := float64(x) * float64(y)
	if p == 0 {
		return 0
	}
	return float32(p)
}

// fmaZero64 is fma(x, y, +0) in float64.
func fmaZero64(x, y float64) float64 { return math.FMA(x, y, 0) }
