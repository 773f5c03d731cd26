package simd

import (
	"math"

	"github.com/kiln-go/kiln/internal/numerics"
)

// GemmKernel is a GEMM micro-kernel and its tile: Run computes the MR×NR
// tile c (row-major, row stride ldc) as a-panel · b-panel over kc steps,
// with element (r, l) of the a panel at a[r*ra + l*sa] (packed: ra 1, sa
// MR; or a row-major matrix in place: ra its row stride, sa 1) and row l
// of the b panel at b[l*sb:] (packed: sb NR); it continues from the tile's values
// when load is set (else from +0). Each
// element takes its kc products in order, each added with one fused
// multiply-add (one rounding), so every kernel and its Go twin agree bit
// for bit, and a caller may split k into blocks.
//
// Run does not check lengths: a must hold (kc−1)·sa + (MR−1)·ra + 1
// elements, b (kc−1)·sb + NR and c (MR−1)·ldc + NR.
//
// Low, when not nil, is the same kernel on fewer rows (same NR, same
// bits): a bottom edge of at most Low.MR rows runs on it in place rather
// than on a whole tile of which most rows are padding (a 64-row product
// on 12-row tiles computes 72). Its own Low has fewer rows still.
//
// Run2, when not nil, is Run over k1·k2 steps of a packed a panel whose
// b rows step in two levels: step l = i1·k2 + i2 (i2 < k2, k2 ≥ 1) has
// a's elements at a[l*MR + r] (Run's ra 1, sa MR) and b's row at
// b[i1*sb1 + i2*sb2:] — the same steps in the same order, so the same
// bits as Run over a packed copy of those rows (a convolution's kernel
// cotangent reads the output cotangent in place with it: i1 the kernel's
// last spatial dim, i2 the input features).
type GemmKernel[T float32 | float64] struct {
	MR, NR int
	Run    func(kc int, a []T, ra, sa int, b []T, sb int, c []T, ldc int, load bool)
	Low    *GemmKernel[T]
	Run2   func(k1, k2 int, a, b []T, sb1, sb2 int, c []T, ldc int, load bool)
}

// For returns the kernel of k's chain (k, k.Low, k.Low.Low, ...) with
// the fewest rows that still covers mb rows (k itself when mb ≥ k.MR).
func (k *GemmKernel[T]) For(mb int) *GemmKernel[T] {
	for k.Low != nil && k.Low.MR >= mb {
		k = k.Low
	}
	return k
}

// The AVX-512 kernels' short forms, for bottom edges (GemmKernel.Low).
var (
	gemm4x32F32 = GemmKernel[float32]{MR: 4, NR: 32, Run: gemm4x32F32Accel, Run2: gemm4x32F32S2Accel}
	gemm8x32F32 = GemmKernel[float32]{MR: 8, NR: 32, Run: gemm8x32F32Accel, Low: &gemm4x32F32, Run2: gemm8x32F32S2Accel}
	gemm4x16F64 = GemmKernel[float64]{MR: 4, NR: 16, Run: gemm4x16F64Accel}
	gemm8x16F64 = GemmKernel[float64]{MR: 8, NR: 16, Run: gemm8x16F64Accel, Low: &gemm4x16F64}
)

// GemmF32 returns the float32 micro-kernel of the active tier: 12×32 on
// AVX-512, 6×16 on AVX2 and a 4×16 Go loop on the generic tier.
func GemmF32() GemmKernel[float32] {
	switch tier {
	case AVX512:
		return GemmKernel[float32]{MR: 12, NR: 32, Run: gemm12x32F32Accel, Low: &gemm8x32F32, Run2: gemm12x32F32S2Accel}
	case AVX2:
		return GemmKernel[float32]{MR: 6, NR: 16, Run: gemm6x16F32Accel}
	}
	return GemmTileGo(4, 16, fma32)
}

// GemmF32Tall returns the float32 micro-kernel chain for panels of many
// rows read against few columns (a convolution's kernel cotangent, whose
// rows are the input's features; and a convolution's lines of output
// positions where their length tiles better on 14 rows, kernels'
// linesChain): 14×32 on AVX-512 (28 accumulators, 16 loads per 28 FMAs,
// where 12×32 has 14 per 24) with the 8×32 and 4×32 forms below it, the
// GemmF32 kernel elsewhere. Same contract, same bits.
func GemmF32Tall() GemmKernel[float32] {
	if tier == AVX512 {
		return GemmKernel[float32]{MR: 14, NR: 32, Run: gemm14x32F32Accel, Low: &gemm8x32F32, Run2: gemm14x32F32S2Accel}
	}
	return GemmF32()
}

// GemmF32Narrow returns the float32 micro-kernel for products of at most
// 16 columns: 12×16 on AVX-512 (a 32-wide tile would compute more than
// half zeros), the GemmF32 kernel elsewhere. Same contract, same bits.
func GemmF32Narrow() GemmKernel[float32] {
	if tier == AVX512 {
		return GemmKernel[float32]{MR: 12, NR: 16, Run: gemm12x16F32Accel}
	}
	return GemmF32()
}

// GemmF64 returns the float64 micro-kernel of the active tier: 12×16 on
// AVX-512, 6×8 on AVX2 and a 4×8 Go loop on the generic tier.
func GemmF64() GemmKernel[float64] {
	switch tier {
	case AVX512:
		return GemmKernel[float64]{MR: 12, NR: 16, Run: gemm12x16F64Accel, Low: &gemm8x16F64}
	case AVX2:
		return GemmKernel[float64]{MR: 6, NR: 8, Run: gemm6x8F64Accel}
	}
	return GemmTileGo(4, 8, math.FMA)
}

// GemmTileGo is the pure-Go twin of the micro-kernels for an mr×nr tile,
// with fma the element type's fused multiply-add.
func GemmTileGo[T float32 | float64](mr, nr int, fma func(x, y, z T) T) GemmKernel[T] {
	return GemmKernel[T]{MR: mr, NR: nr, Run: func(kc int, a []T, ra, sa int, b []T, sb int, c []T, ldc int, load bool) {
		for r := range mr {
			row := c[r*ldc : r*ldc+nr]
			for j := range row {
				var s T
				if load {
					s = row[j]
				}
				for l := range kc {
					s = fma(a[r*ra+l*sa], b[l*sb+j], s)
				}
				row[j] = s
			}
		}
	}}
}

// GemmI8Kernel is the int8 micro-kernel: Run computes the 12×32 int32
// tile c (row-major, row stride ldc) as Σ u8(a)·s8(b) over kc4 steps of
// four k values, from +0 or, with load, from the tile. Step l of the a
// panel holds a[(l*12+r)*4+t] (row r, k = 4l+t), of the b panel
// b[(l*32+j)*4+t]. Before storing, it subtracts corr[j] (32 values) from
// every row's column j. Sums wrap modulo 2^32, so every tier gives the
// same result whatever its order.
type GemmI8Kernel struct {
	Run func(kc4 int, a []uint8, b []int8, c []int32, ldc int, load bool, corr []int32)
}

// GemmI8MR and GemmI8NR are the int8 tile's rows and columns.
const GemmI8MR, GemmI8NR = 12, 32

// GemmI8 returns the int8 micro-kernel: VPDPBUSD on ZMM registers on the
// AVX512 tier of a CPU with AVX512_VNNI, the VEX-encoded VPDPBUSD on YMM
// registers (as four 6×16 sub-tiles of the same tile and panels) on the
// AVX2 tier of a CPU with AVX-VNNI, else the Go twin (see VNNI). Fast
// reports which: callers with a fast plain path of their own should use
// it when the kernel is not.
func GemmI8() (k GemmI8Kernel, fast bool) {
	if VNNI() {
		return GemmI8Kernel{gemm12x32I8Accel}, true
	}
	return GemmI8Kernel{gemmI8Go}, false
}

// gemmI8Go is the Go twin of the int8 micro-kernel.
func gemmI8Go(kc4 int, a []uint8, b []int8, c []int32, ldc int, load bool, corr []int32) {
	corr = corr[:GemmI8NR]
	for r := range GemmI8MR {
		row := c[r*ldc : r*ldc+GemmI8NR]
		for j := range row {
			s := -corr[j]
			if load {
				s += row[j]
			}
			for l := range kc4 {
				for t := range 4 {
					s += int32(a[(l*GemmI8MR+r)*4+t]) * int32(b[(l*GemmI8NR+j)*4+t])
				}
			}
			row[j] = s
		}
	}
}

// InterleaveI8x4 packs four rows of int8 (four k values) into one step of
// the int8 GEMM's b panels, for the n = len(sums) columns: column j's
// four values side by side as one dword, the 32 columns of panel p at
// dst[p*stride:] — dst[p*stride + 4(j−32p) + t] = r_t[j] — and adds each
// column's four values to sums[j]. Each row must hold n values, and dst
// reach the last column's dword.
func InterleaveI8x4(dst []int8, sums []int32, r0, r1, r2, r3 []int8, stride int) {
	n := len(sums)
	if n == 0 {
		return
	}
	last := (n-1)/GemmI8NR*stride + (n-1)%GemmI8NR*4 + 4
	dst, r0, r1, r2, r3 = dst[:last], r0[:n], r1[:n], r2[:n], r3[:n]
	done := interleaveI8x4Accel(dst, sums, r0, r1, r2, r3, stride)
	interleaveI8x4Go(dst, sums, r0, r1, r2, r3, stride, done)
}

// interleaveI8x4Go is the Go twin of InterleaveI8x4, from column from on.
func interleaveI8x4Go(dst []int8, sums []int32, r0, r1, r2, r3 []int8, stride, from int) {
	for j := from; j < len(sums); j++ {
		x0, x1, x2, x3 := r0[j], r1[j], r2[j], r3[j]
		o := j/GemmI8NR*stride + j%GemmI8NR*4
		dst[o], dst[o+1], dst[o+2], dst[o+3] = x0, x1, x2, x3
		sums[j] += int32(x0) + int32(x1) + int32(x2) + int32(x3)
	}
}

// PackI8Rows packs n4 dwords (four k values) of each of rows int8 rows,
// row r at a[r*lda:], into an int8 GEMM panel of rows dwords per step:
// dword l4 of row r to dst[(l4*rows+r)*4:], each byte XORed with the
// matching byte of flip (0x80808080: the a panel's +128 offset; 0: a
// transposed b's columns as they are). rows must be a multiple of 4 and
// lda positive.
func PackI8Rows(dst []uint8, a []int8, lda, n4, rows int, flip uint32) {
	if n4 <= 0 || rows <= 0 {
		return
	}
	dst, a = dst[:n4*rows*4], a[:(rows-1)*lda+4*n4]
	done := transposeI8Accel(dst, a, lda, n4, rows/4, flip)
	packI8RowsGo(dst, a, lda, n4, rows, flip, done)
}

// packI8RowsGo is the Go twin of PackI8Rows, from dword from on.
func packI8RowsGo(dst []uint8, a []int8, lda, n4, rows int, flip uint32, from int) {
	for l4 := from; l4 < n4; l4++ {
		for r := range rows {
			for t := range 4 {
				dst[(l4*rows+r)*4+t] = uint8(a[r*lda+4*l4+t]) ^ uint8(flip>>(8*t))
			}
		}
	}
}

// PackI8Cols12 packs n4 steps of the int8 GEMM's a panel from an a
// stored transposed: step l's four k values are rows 4l…4l+3 of a, each
// holding the panel's 12 rows' values contiguously (row 4l+t at
// a[(4l+t)*lda:]). dword r of step l is dst[(l*12+r)*4:] with byte t =
// a[(4l+t)*lda + r], XORed with the matching byte of flip. Each row must
// hold 16 bytes (the vector kernel reads 4 past the 12 it packs); lda
// must be positive.
func PackI8Cols12(dst []uint8, a []int8, lda, n4 int, flip uint32) {
	if n4 <= 0 {
		return
	}
	dst, a = dst[:n4*GemmI8MR*4], a[:(4*n4-1)*lda+16]
	done := interleaveI8x12Accel(dst, a, lda, n4, flip)
	for l := done; l < n4; l++ {
		for r := range GemmI8MR {
			for t := range 4 {
				dst[(l*GemmI8MR+r)*4+t] = uint8(a[(4*l+t)*lda+r]) ^ uint8(flip>>(8*t))
			}
		}
	}
}

// SumPanelI8 adds, for each of the 32 columns of kc4 steps of an int8 b
// panel (b[(l*32+j)*4+t]), the sum of its 4·kc4 values to sums[j].
func SumPanelI8(kc4 int, b []int8, sums []int32) {
	b, sums = b[:kc4*GemmI8NR*4], sums[:GemmI8NR]
	if tier == AVX512 && hasVNNI || tier == AVX2 {
		sumPanelI8Accel(kc4, b, sums)
		return
	}
	for l := range kc4 {
		for j := range sums {
			for t := range 4 {
				sums[j] += int32(b[(l*GemmI8NR+j)*4+t])
			}
		}
	}
}

// GemmBF16Kernel is the bf16 micro-kernel: Run computes the 12×32 f32
// tile c (row-major, row stride ldc) over kc2 steps of two k values, from
// +0 or, with load, from the tile. Row r of the a panel holds its steps at
// a[r*ra+l] (a word: k = 2l in the low half, 2l+1 in the high half, each
// a bf16 — two bf16s as stored, read as one little-endian word); step l of
// the b panel is the 32 words b[l*32+j] likewise. Each element takes its
// steps in order, each as BF16Step — VDPBF16PS's lane — so every tier
// gives the same bits and a caller may split k into blocks of whole steps.
//
// Run does not check lengths: a must hold 11·ra + kc2 words, b 32·kc2 and
// c 11·ldc + 32.
type GemmBF16Kernel struct {
	Run func(kc2 int, a []uint32, ra int, b []uint32, c []float32, ldc int, load bool)
}

// GemmBF16MR and GemmBF16NR are the bf16 tile's rows and columns.
const GemmBF16MR, GemmBF16NR = 12, 32

// GemmBF16 returns the bf16 micro-kernel: VDPBF16PS on the AVX512 tier of
// a CPU with AVX512_BF16, else the Go twin. Fast reports which.
func GemmBF16() (k GemmBF16Kernel, fast bool) {
	if tier == AVX512 && hasBF16 {
		return GemmBF16Kernel{gemm12x32BF16Accel}, true
	}
	return GemmBF16Kernel{gemmBF16Go}, false
}

// BF16Step is one step of the bf16 dot on packed words a and b (two bf16
// each, k even in the low half) into the f32 accumulator acc, as one lane
// of VDPBF16PS: the odd products first, every input read with subnormals
// as zeros of their sign (DAZ) and each rounded result flushed (FTZ):
//
//	acc = FTZ(fma(a.hi, b.hi, DAZ(acc)))
//	acc = FTZ(fma(a.lo, b.lo, acc))
func BF16Step(acc float32, a, b uint32) float32 {
	acc = bf16FMA(bf16Word(a>>16), bf16Word(b>>16), numerics.DAZ32(acc))
	return bf16FMA(bf16Word(a&0xffff), bf16Word(b&0xffff), acc)
}

// bf16FMA is numerics.FMA32FTZ(x, y, z) for bf16 x and y (DAZ'ed) and a
// z that is zero or normal, quickly in the common case: the product of
// two bf16s (8-bit significands) is exact in f32 unless it underflows or
// overflows, and then x·y + z rounded once is the f32 sum p + z; that sum
// is a multiple of 2⁻¹⁴⁹, so below 2⁻¹²⁶ it is exact and flushes, and
// above it rounds as normals do — no tininess question. A product that
// underflows or overflows takes FMA32FTZ.
func bf16FMA(x, y, z float32) float32 {
	p := float32(x * y) // the conversion forbids fusing it into the sum
	e := math.Float32bits(p) >> 23 & 0xff
	finite := math.Float32bits(x)&0x7f800000 != 0x7f800000 && math.Float32bits(y)&0x7f800000 != 0x7f800000
	if e == 0 && x != 0 && y != 0 || e == 0xff && finite {
		return numerics.FMA32FTZ(x, y, z)
	}
	r := float32(p + z) // p is exact: one rounding, as the FMA's
	if r != 0 && math.Abs(float64(r)) < 0x1p-126 {
		return float32(math.Copysign(0, float64(r)))
	}
	return r
}

// bf16Word is the bf16 in the low half of w as f32, a subnormal as zero.
func bf16Word(w uint32) float32 {
	if w&0x7f80 == 0 {
		w &= 0x8000 // ±0 and subnormals
	}
	return math.Float32frombits(w << 16)
}

// gemmBF16Go is the Go twin of the bf16 micro-kernel.
func gemmBF16Go(kc2 int, a []uint32, ra int, b []uint32, c []float32, ldc int, load bool) {
	for r := range GemmBF16MR {
		row := c[r*ldc : r*ldc+GemmBF16NR]
		for j := range row {
			var s float32
			if load {
				s = row[j]
			}
			for l := range kc2 {
				s = BF16Step(s, a[r*ra+l], b[l*GemmBF16NR+j])
			}
			row[j] = s
		}
	}
}

// interleaveBF16Go is InterleaveBF16's Go twin.
func interleaveBF16Go(dst []uint32, lo, hi []uint16) {
	lo, hi = lo[:len(dst)], hi[:len(dst)]
	for i := range dst {
		dst[i] = uint32(lo[i]) | uint32(hi[i])<<16
	}
}

// unpackU4Go is UnpackU4's Go twin.
func unpackU4Go(dst []int8, src []uint8) {
	dst = dst[:2*len(src)]
	for i, b := range src {
		dst[2*i], dst[2*i+1] = int8(b&0xf), int8(b>>4)
	}
}

// unpackI4Go is UnpackI4's Go twin.
func unpackI4Go(dst []int8, src []uint8) {
	dst = dst[:2*len(src)]
	for i, b := range src {
		dst[2*i], dst[2*i+1] = int8(b<<4)>>4, int8(b)>>4
	}
}

// lookupU16Go is LookupU16's Go twin.
func lookupU16Go(dst []uint16, src []uint8, tab *[256]uint16) {
	src = src[:len(dst)]
	for i, c := range src {
		dst[i] = tab[c]
	}
}
