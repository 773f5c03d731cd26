package simd_test

import (
	"fmt"
	"math"

	"github.com/kiln-go/kiln/internal/simd"
)

func ExampleAddF32() {
	a := []float32{1, 2, 3, 4}
	b := []float32{10, 20, 30, 40}
	simd.AddF32(a, a, b) // dst may be an input
	fmt.Println(a)
	// Output: [11 22 33 44]
}

func ExampleMaxF32() {
	negZero := float32(math.Copysign(0, -1))
	a := []float32{negZero, 1, float32(math.NaN())}
	b := []float32{0, float32(math.NaN()), 2}
	dst := make([]float32, 3)
	simd.MaxF32(dst, a, b)
	fmt.Println(dst) // +0 beats −0; a NaN operand wins
	// Output: [0 NaN NaN]
}

func ExampleCmpF32() {
	dst := make([]bool, 3)
	simd.CmpF32(dst, []float32{1, 2, float32(math.NaN())}, []float32{2, 2, 2}, simd.Le)
	fmt.Println(dst)
	// Output: [true true false]
}

func ExampleF32ToF16() {
	h := make([]uint16, 3)
	simd.F32ToF16(h, []float32{1, 65520, 1 + 1.0/2048}) // 65520 overflows; the tie goes to even
	fmt.Printf("%#04x\n", h)
	// Output: [0x3c00 0x7c00 0x3c00]
}

func ExampleSetLevel() {
	defer simd.SetLevel(simd.Generic)() // the pure-Go twins until the deferred restore
	fmt.Println(simd.Level())
	// Output: generic
}
