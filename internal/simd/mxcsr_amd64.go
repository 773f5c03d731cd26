//go:build !purego

package simd

import "runtime"

func getMXCSR() uint32
func setMXCSR(v uint32)

// MXCSR's denormals-are-zero and flush-to-zero bits.
const mxcsrDAZ, mxcsrFTZ = 1 << 6, 1 << 15

// WithDenormalsFlushed runs f on the calling goroutine, locked to its
// thread, with the thread's SSE/AVX floating-point unit reading subnormal
// inputs as zeros of their sign (DAZ) and flushing tiny results, decided
// after rounding, to zeros of their sign (FTZ) — what VDPBF16PS does
// within itself. Only assembly kernels see it (Go's own float code may
// run in software), so f should run the AVX2 or AVX-512 tier's. It
// reports false, without calling f, where the machine has no such mode.
func WithDenormalsFlushed(f func()) bool {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	old := getMXCSR()
	setMXCSR(old | mxcsrDAZ | mxcsrFTZ)
	defer setMXCSR(old)
	f()
	return true
}
