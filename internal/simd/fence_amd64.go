//go:build !purego

package simd

// Fence orders every earlier non-temporal store of the calling thread
// before its later stores (SFENCE, part of every x86-64, so it runs
// whatever the tier). The executor issues it once at the end of a range of
// streamed blocks; a goroutine moved to another core before that has
// drained its write-combining buffers already, since the scheduler's
// hand-off runs LOCK-prefixed instructions and preemption is an interrupt.
func Fence() { fenceAVX2() }
