package simd

import "unsafe"

// The kernels storing f16 or bf16 bits (store16.go) with streaming stores:
// …NT writes the vectors of dst with non-temporal stores, which bypass the
// caches and skip the read for ownership, and leaves them unfenced: call
// Fence after the last call, before another goroutine reads dst. A dst not
// aligned to 64 bytes is written with normal stores, as is the tail after
// the last whole vector. The bits are those of the kernel without NT.

func aligned64(p []uint16) bool { return uintptr(unsafe.Pointer(unsafe.SliceData(p)))%64 == 0 }

func binToNT(dst []uint16, a, b []float32, nt func(dst []uint16, a, b []float32) int, plain func(dst []uint16, a, b []float32)) {
	a, b = a[:len(dst)], b[:len(dst)]
	n := 0
	if aligned64(dst) {
		n = nt(dst, a, b)
	}
	plain(dst[n:], a[n:], b[n:])
}

func scalarToNT(dst []uint16, a []float32, s float32, nt func(dst []uint16, a []float32, s float32) int, plain func(dst []uint16, a []float32, s float32)) {
	a = a[:len(dst)]
	n := 0
	if aligned64(dst) {
		n = nt(dst, a, s)
	}
	plain(dst[n:], a[n:], s)
}

// AddToF16NT is AddToF16 with streaming stores.
func AddToF16NT(dst []uint16, a, b []float32) { binToNT(dst, a, b, addToF16NTAccel, AddToF16) }

// SubToF16NT is SubToF16 with streaming stores.
func SubToF16NT(dst []uint16, a, b []float32) { binToNT(dst, a, b, subToF16NTAccel, SubToF16) }

// MulToF16NT is MulToF16 with streaming stores.
func MulToF16NT(dst []uint16, a, b []float32) { binToNT(dst, a, b, mulToF16NTAccel, MulToF16) }

// DivToF16NT is DivToF16 with streaming stores.
func DivToF16NT(dst []uint16, a, b []float32) { binToNT(dst, a, b, divToF16NTAccel, DivToF16) }

// AddScalarToF16NT is AddScalarToF16 with streaming stores.
func AddScalarToF16NT(dst []uint16, a []float32, s float32) {
	scalarToNT(dst, a, s, addScalarToF16NTAccel, AddScalarToF16)
}

// SubScalarToF16NT is SubScalarToF16 with streaming stores.
func SubScalarToF16NT(dst []uint16, a []float32, s float32) {
	scalarToNT(dst, a, s, subScalarToF16NTAccel, SubScalarToF16)
}

// SubScalarRevToF16NT is SubScalarRevToF16 with streaming stores.
func SubScalarRevToF16NT(dst []uint16, a []float32, s float32) {
	scalarToNT(dst, a, s, subScalarRevToF16NTAccel, SubScalarRevToF16)
}

// MulScalarToF16NT is MulScalarToF16 with streaming stores.
func MulScalarToF16NT(dst []uint16, a []float32, s float32) {
	scalarToNT(dst, a, s, mulScalarToF16NTAccel, MulScalarToF16)
}

// DivScalarToF16NT is DivScalarToF16 with streaming stores.
func DivScalarToF16NT(dst []uint16, a []float32, s float32) {
	scalarToNT(dst, a, s, divScalarToF16NTAccel, DivScalarToF16)
}

// DivScalarRevToF16NT is DivScalarRevToF16 with streaming stores.
func DivScalarRevToF16NT(dst []uint16, a []float32, s float32) {
	scalarToNT(dst, a, s, divScalarRevToF16NTAccel, DivScalarRevToF16)
}

// AddToBF16NT is AddToBF16 with streaming stores.
func AddToBF16NT(dst []uint16, a, b []float32) { binToNT(dst, a, b, addToBF16NTAccel, AddToBF16) }

// SubToBF16NT is SubToBF16 with streaming stores.
func SubToBF16NT(dst []uint16, a, b []float32) { binToNT(dst, a, b, subToBF16NTAccel, SubToBF16) }

// MulToBF16NT is MulToBF16 with streaming stores.
func MulToBF16NT(dst []uint16, a, b []float32) { binToNT(dst, a, b, mulToBF16NTAccel, MulToBF16) }

// DivToBF16NT is DivToBF16 with streaming stores.
func DivToBF16NT(dst []uint16, a, b []float32) { binToNT(dst, a, b, divToBF16NTAccel, DivToBF16) }

// AddScalarToBF16NT is AddScalarToBF16 with streaming stores.
func AddScalarToBF16NT(dst []uint16, a []float32, s float32) {
	scalarToNT(dst, a, s, addScalarToBF16NTAccel, AddScalarToBF16)
}

// SubScalarToBF16NT is SubScalarToBF16 with streaming stores.
func SubScalarToBF16NT(dst []uint16, a []float32, s float32) {
	scalarToNT(dst, a, s, subScalarToBF16NTAccel, SubScalarToBF16)
}

// SubScalarRevToBF16NT is SubScalarRevToBF16 with streaming stores.
func SubScalarRevToBF16NT(dst []uint16, a []float32, s float32) {
	scalarToNT(dst, a, s, subScalarRevToBF16NTAccel, SubScalarRevToBF16)
}

// MulScalarToBF16NT is MulScalarToBF16 with streaming stores.
func MulScalarToBF16NT(dst []uint16, a []float32, s float32) {
	scalarToNT(dst, a, s, mulScalarToBF16NTAccel, MulScalarToBF16)
}

// DivScalarToBF16NT is DivScalarToBF16 with streaming stores.
func DivScalarToBF16NT(dst []uint16, a []float32, s float32) {
	scalarToNT(dst, a, s, divScalarToBF16NTAccel, DivScalarToBF16)
}

// DivScalarRevToBF16NT is DivScalarRevToBF16 with streaming stores.
func DivScalarRevToBF16NT(dst []uint16, a []float32, s float32) {
	scalarToNT(dst, a, s, divScalarRevToBF16NTAccel, DivScalarRevToBF16)
}
