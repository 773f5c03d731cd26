package simd

import "github.com/kiln-go/kiln/internal/numerics"

// F16ToF32Runs widens count runs of n binary16 values to float32, exactly
// (as F16ToF32): dst[l*ld + r] = float32(src[l*ls + r]) for l < count,
// r < n. Package gemm packs f16 operands with it — rows or steps of a
// panel, strided in the source and in the panel — in one call per panel.
// dst must hold (count−1)·ld + n elements and src (count−1)·ls + n, or it
// panics like an index out of range.
func F16ToF32Runs(dst []float32, src []uint16, n, count, ld, ls int) {
	if n <= 0 || count <= 0 {
		return
	}
	_, _ = dst[(count-1)*ld+n-1], src[(count-1)*ls+n-1]
	done := widenF16RunsAccel(dst, src, n, count, ld, ls)
	if done < n {
		f16RunsGo(dst, src, done, n, count, ld, ls)
	}
}

// f16RunsGo is F16ToF32Runs's Go twin for elements [from, n) of each run.
func f16RunsGo(dst []float32, src []uint16, from, n, count, ld, ls int) {
	for l := range count {
		d, s := dst[l*ld+from:l*ld+n], src[l*ls+from:l*ls+n]
		for r, v := range s {
			d[r] = numerics.F16BitsToF32(v)
		}
	}
}
