//go:build arm64 || riscv64 || ppc64 || ppc64le || s390x || loong64

package simd

// fma32 is x·y + z rounded once. The Go specification allows, and these
// ports' compilers do, fusing a float32 multiply and add that no
// conversion separates into one FMADDS (or FMADDF) instruction.
func fma32(x, y, z float32) float32 { return x*y + z }
