//go:build !amd64 || purego

package simd

// Fence orders earlier non-temporal stores before later stores. Without
// the assembly no store streams, and it does nothing.
func Fence() {}
