package gemm

import (
	"unsafe"

	"github.com/kiln-go/kiln/internal/numerics"
	"github.com/kiln-go/kiln/internal/simd"
)

// binary16 operands (Call.A16, Call.B16) are widened while they are
// packed: the panels the micro-kernels read hold the exact f32 (or f64)
// values of the stored bits, so the product is the float product of the
// widened operands with no widened copy of either made first. Runs along
// a contiguous dimension are widened by simd.F16ToF32Runs, a panel per
// call (F16C's VCVTPH2PS on the AVX2 and AVX-512 tiers, an exact Go loop
// elsewhere); other strides element by element.

// rowStride is the row stride, in elements of size bytes, of a panel of
// a copied row by row (packA's and packA16's row-major case), which the
// kernel reads in place (ra = the stride, sa = 1): kb rounded up to whole
// cache lines plus one line, and one more when that would make it a
// multiple of 2 KiB, so the panel's rows fall into different L1 sets (see
// Call.block's in-place rule).
func rowStride(kb, size int) int {
	line := 64 / size
	st := (kb+line-1)/line*line + line
	if st*size%2048 == 0 {
		st += line
	}
	return st
}

// halfSlack is the elements the a workspace holds per row past KC for
// rowStride's padding (at most three cache lines of float32).
const halfSlack = 48

// widen16 writes the values of count runs of n binary16 values into dst,
// exactly (a NaN stays NaN, quiet, its payload kept): dst[l*ld + r] =
// src[l*ls + r] widened, for l < count, r < n.
func widen16[T Float](dst []T, src []uint16, n, count, ld, ls int) {
	if unsafe.Sizeof(T(0)) == 4 {
		simd.F16ToF32Runs(unsafe.Slice((*float32)(unsafe.Pointer(unsafe.SliceData(dst))), len(dst)), src, n, count, ld, ls)
		return
	}
	for l := range count {
		for r, v := range src[l*ls : l*ls+n] {
			dst[l*ld+r] = T(numerics.F16BitsToF32(v))
		}
	}
}

// packA16 widens rows [ic, ic+mb) × steps [pc, pc+kb) of the binary16 a
// (row stride rs, column stride cs) into dst and returns the panel as the
// kernel reads it — element (r, l) at ap[r*ra + l*sa] — rows past mb
// zero. A row-major a's rows are widened whole, each a run of VCVTPH2PS,
// and read in place (ra = rowStride(kb, its size), sa = 1); a column-major one's
// steps are widened into the packed panel (ra = 1, sa = mr).
func packA16[T Float](dst []T, a []uint16, rs, cs, ic, mb, pc, kb, mr int) (ap []T, ra, sa int) {
	if cs == 1 && rs != 1 {
		st := rowStride(kb, int(unsafe.Sizeof(T(0))))
		widen16(dst, a[ic*rs+pc:], kb, mb, st, rs)
		return rowPanel(dst, st, kb, mb, mr), st, 1
	}
	dst = dst[:kb*mr]
	if mb < mr {
		clear(dst)
	}
	if rs == 1 {
		widen16(dst, a[ic+pc*cs:], mb, kb, mr, cs)
		return dst, 1, mr
	}
	for r := range mb {
		src := (ic+r)*rs + pc*cs
		for l := range kb {
			dst[l*mr+r] = T(numerics.F16BitsToF32(a[src+l*cs]))
		}
	}
	return dst, 1, mr
}

// packB16 is packB for a binary16 b, widening: columns [jc, jc+nb) ×
// steps [pc, pc+kb) as panels of nr columns, panel p at dst[p*kb*nr:],
// step l of it at [l*nr:], columns past nb zero. Rows of b with
// contiguous columns are widened a run at a time; a transposed b's
// columns (contiguous steps) are widened whole into tmp (at least kb·nr
// elements) and then written across the panel.
func packB16[T Float](dst, tmp []T, b []uint16, rs, cs, pc, kb, jc, nb, nr int) {
	for jp := 0; jp < nb; jp += nr {
		w := min(nr, nb-jp)
		panel := dst[jp*kb : jp*kb+kb*nr]
		switch {
		case cs == 1:
			widen16(panel, b[pc*rs+jc+jp:], w, kb, nr, rs)
			if w < nr {
				for l := range kb {
					clear(panel[l*nr+w : l*nr+nr])
				}
			}
		case rs == 1:
			widen16(tmp, b[(jc+jp)*cs+pc:], kb, w, kb, cs)
			for l := range kb {
				row := panel[l*nr : l*nr+nr]
				for j := range w {
					row[j] = tmp[j*kb+l]
				}
				clear(row[w:])
			}
		default:
			for l := range kb {
				row := panel[l*nr : l*nr+nr]
				src := (pc+l)*rs + (jc+jp)*cs
				for j := range w {
					row[j] = T(numerics.F16BitsToF32(b[src+j*cs]))
				}
				clear(row[w:])
			}
		}
	}
}
