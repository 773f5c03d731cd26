package simd

// GemmCKernel is a complex GEMM micro-kernel (c64 with T float32, c128
// with T float64) and its tile: Run computes the MR×NR tile c (complex,
// interleaved (re, im) pairs of T, row-major with row stride ldc complex
// elements) as a-panel · b-panel over kc steps, continuing from the
// tile's values when load is set (else from +0). Step l of the a panel
// is the MR rows' (re, im) pairs, a[l*2*MR+2r] and a[l*2*MR+2r+1]; step l
// of the b panel holds the real parts of its NR lanes, then their
// imaginary parts, b[l*2*NR+p] and b[l*2*NR+NR+p], lane p being column
// Lanes[p] of the tile (the vector kernels' order: see cgemmLanes).
//
// Each element takes its kc products in order, each rounded as NumPy's
// complex multiply (re = ar·br − ai·bi, im = ar·bi + ai·br: every
// product, difference and sum rounded, no FMA) and then added part by
// part, so every kernel and its Go twin agree bit for bit, and a caller
// may split k into blocks.
//
// Run does not check lengths: a must hold 2·MR·kc elements, b 2·NR·kc and
// c 2·((MR−1)·ldc + NR).
//
// Pack writes kb steps of a b panel from a row-major complex matrix: step
// l's NR columns are the pairs src[2*(l*rs+j)], src[2*(l*rs+j)+1] for j <
// NR, rs complex elements from one step to the next. dst must hold 2·NR·kb
// elements and src 2·((kb−1)·rs + NR).
type GemmCKernel[T float32 | float64] struct {
	MR, NR int
	Lanes  []int
	Run    func(kc int, a, b, c []T, ldc int, load bool)
	Pack   func(dst, src []T, rs, kb int)
}

// GemmC64 returns the c64 micro-kernel of the active tier: 4×32 on
// AVX-512, 4×8 on AVX2 and a 4×8 Go loop on the generic tier.
func GemmC64() GemmCKernel[float32] {
	switch tier {
	case AVX512:
		return GemmCKernel[float32]{4, 32, c64Lanes512, cgemm4x32F32Accel, cpack4x32F32Accel}
	case AVX2:
		return GemmCKernel[float32]{4, 8, c64Lanes256, cgemm4x8F32Accel, cpack4x8F32Accel}
	}
	return c64Go
}

// GemmC128 returns the c128 micro-kernel of the active tier: 4×16 on
// AVX-512, 4×4 on AVX2 and a 4×4 Go loop on the generic tier.
func GemmC128() GemmCKernel[float64] {
	switch tier {
	case AVX512:
		return GemmCKernel[float64]{4, 16, c128Lanes512, cgemm4x16F64Accel, cpack4x16F64Accel}
	case AVX2:
		return GemmCKernel[float64]{4, 4, c128Lanes256, cgemm4x4F64Accel, cpack4x4F64Accel}
	}
	return c128Go
}

// The kernels' lane orders (ZMM and YMM vectors of f32 and f64 parts),
// and the generic tier's Go kernels, which take the AVX2 order.
var (
	c64Lanes512, c64Lanes256   = cgemmLanes(32, 16, 4), cgemmLanes(8, 8, 4)
	c128Lanes512, c128Lanes256 = cgemmLanes(16, 8, 8), cgemmLanes(4, 4, 8)
	c64Go                      = GemmCTileGo[float32](4, 8, c64Lanes256)
	c128Go                     = GemmCTileGo[float64](4, 4, c128Lanes256)
)

// cgemmLanes is the column each lane of an nr-lane b panel step holds for
// vectors of n lanes of size-byte parts: the vector kernels store a
// vector's accumulators by pairing its real and imaginary lanes within
// each 128-bit lane (VUNPCKLPS/HPS or PD), so lane p = q·w + t of a vector
// (w parts per 128-bit lane) holds, of the vector's n columns, column
// q·w/2 + t for t < w/2 — the first half, stored first — and n/2 + q·w/2
// + t − w/2 otherwise. The Go twin takes the same order, so it reads the
// same packed panels.
func cgemmLanes(nr, n, size int) []int {
	w := 16 / size
	h := w / 2
	lanes := make([]int, nr)
	for p := range lanes {
		v, i := p/n, p%n
		q, t := i/w, i%w
		col := q*h + t
		if t >= h {
			col = n/2 + q*h + t - h
		}
		lanes[p] = v*n + col
	}
	return lanes
}

// GemmCTileGo is the pure-Go twin of the complex micro-kernels for an
// mr×nr tile whose b panels hold lane p's column at lanes[p].
func GemmCTileGo[T float32 | float64](mr, nr int, lanes []int) GemmCKernel[T] {
	pack := func(dst, src []T, rs, kb int) {
		for l := range kb {
			row := src[2*l*rs : 2*(l*rs+nr)]
			re, im := dst[2*l*nr:2*l*nr+nr], dst[2*l*nr+nr:2*(l+1)*nr]
			for q, j := range lanes {
				re[q], im[q] = row[2*j], row[2*j+1]
			}
		}
	}
	return GemmCKernel[T]{mr, nr, lanes, func(kc int, a, b, c []T, ldc int, load bool) {
		for r := range mr {
			for p, j := range lanes {
				var sr, si T
				if load {
					sr, si = c[2*(r*ldc+j)], c[2*(r*ldc+j)+1]
				}
				for l := range kc {
					ar, ai := a[l*2*mr+2*r], a[l*2*mr+2*r+1]
					br, bi := b[l*2*nr+p], b[l*2*nr+nr+p]
					sr += T(T(ar*br) - T(ai*bi)) // the conversions forbid FMA
					si += T(T(ar*bi) + T(ai*br))
				}
				c[2*(r*ldc+j)], c[2*(r*ldc+j)+1] = sr, si
			}
		}
	}, pack}
}
