//go:build !amd64 || purego

package simd

// WithDenormalsFlushed reports false: this architecture's build has no
// assembly kernels to run with denormals flushed.
func WithDenormalsFlushed(f func()) bool { return false }
