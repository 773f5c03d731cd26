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
// within itself. Go's own float code on the thread (SSE instructions)
// sees the modes too, so f should do no float arithmetic but its
// assembly kernels' (internal/gemm's packing only moves bits). It reports
// false, without calling f, where the machine has no such mode.
func WithDenormalsFlushed(f func()) bool {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	old := getMXCSR()
	setMXCSR(old | mxcsrDAZ | mxcsrFTZ)
	defer setMXCSR(old)
	f()
	return true
}
