//go:build !purego

package kernels

import "github.com/kiln-go/kiln/internal/simd"

// mapVMF32AVX512 runs a mapped region's f32 program over tiles of 64
// elements (mapvm_amd64.s).
//
//go:noescape
func mapVMF32AVX512(prog *uint32, nprog int, tab *uintptr, nadv int, tiles int)

// mapVMAvailable reports whether runMapVM can run now: the kernels run at
// the AVX-512 tier.
func mapVMAvailable() bool { return simd.Level() == simd.AVX512 }

func runMapVM(prog []uint32, tab []uintptr, nadv, tiles int) {
	mapVMF32AVX512(&prog[0], len(prog), &tab[0], nadv, tiles)
}
