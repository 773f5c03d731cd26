//go:build !amd64 || purego

package kernels

// mapVMAvailable reports false: the mapped-region program runs only on
// amd64's AVX-512 tier.
func mapVMAvailable() bool { return false }

func runMapVM(prog []uint32, tab []uintptr, nadv, tiles int) {
	panic("kernels: runMapVM without mapVMAvailable")
}
