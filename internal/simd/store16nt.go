package simd

import "unsafe"

// The kernels storing f16 or bf16 bits (AddToF16, …) with streaming stores:
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
