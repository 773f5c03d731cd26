package simd

import "unsafe"

// Prefetch asks the CPU to bring the n bytes at p into its caches without
// waiting for them (x86 PREFETCHT0, one per 64-byte line). It reads and
// writes no memory as far as the program can tell and never faults;
// without the assembly it does nothing, which is its whole contract.
func Prefetch(p unsafe.Pointer, n int) {
	if n > 0 && p != nil {
		prefetchAccel(unsafe.Slice((*byte)(p), n))
	}
}

// StreamCopy copies n bytes from src to dst, writing the 64-byte aligned
// part of dst with non-temporal stores: they bypass the caches and skip
// the read for ownership, which saves memory traffic for a destination far
// larger than the caches. The stores are not fenced: call Fence after the
// last StreamCopy, before another goroutine may read dst. dst and src must
// not overlap.
func StreamCopy(dst, src unsafe.Pointer, n int) {
	if n <= 0 {
		return
	}
	d, s := unsafe.Slice((*byte)(dst), n), unsafe.Slice((*byte)(src), n)
	h := min(n, int((64-uintptr(dst)%64)%64))
	copy(d[:h], s[:h])
	done := h + streamCopyAccel(d[h:], s[h:])
	copy(d[done:], s[done:])
}
