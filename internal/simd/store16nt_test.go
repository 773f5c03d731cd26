package simd_test

import (
	"math/rand/v2"
	"testing"
	"unsafe"

	"github.com/kiln-go/kiln/internal/simd"
)

// The streaming-store kernels (store16nt.go) against the plain ones.

var storeNTBinary = map[string][2]func(dst []uint16, a, b []float32){
	"AddToF16":  {simd.AddToF16NT, simd.AddToF16},
	"SubToF16":  {simd.SubToF16NT, simd.SubToF16},
	"MulToF16":  {simd.MulToF16NT, simd.MulToF16},
	"DivToF16":  {simd.DivToF16NT, simd.DivToF16},
	"AddToBF16": {simd.AddToBF16NT, simd.AddToBF16},
	"SubToBF16": {simd.SubToBF16NT, simd.SubToBF16},
	"MulToBF16": {simd.MulToBF16NT, simd.MulToBF16},
	"DivToBF16": {simd.DivToBF16NT, simd.DivToBF16},
}

var storeNTScalar = map[string][2]func(dst []uint16, a []float32, s float32){
	"AddScalarToF16":     {simd.AddScalarToF16NT, simd.AddScalarToF16},
	"SubScalarToF16":     {simd.SubScalarToF16NT, simd.SubScalarToF16},
	"SubScalarRevToF16":  {simd.SubScalarRevToF16NT, simd.SubScalarRevToF16},
	"MulScalarToF16":     {simd.MulScalarToF16NT, simd.MulScalarToF16},
	"DivScalarToF16":     {simd.DivScalarToF16NT, simd.DivScalarToF16},
	"DivScalarRevToF16":  {simd.DivScalarRevToF16NT, simd.DivScalarRevToF16},
	"AddScalarToBF16":    {simd.AddScalarToBF16NT, simd.AddScalarToBF16},
	"SubScalarToBF16":    {simd.SubScalarToBF16NT, simd.SubScalarToBF16},
	"SubScalarRevToBF16": {simd.SubScalarRevToBF16NT, simd.SubScalarRevToBF16},
	"MulScalarToBF16":    {simd.MulScalarToBF16NT, simd.MulScalarToBF16},
	"DivScalarToBF16":    {simd.DivScalarToBF16NT, simd.DivScalarToBF16},
	"DivScalarRevToBF16": {simd.DivScalarRevToBF16NT, simd.DivScalarRevToBF16},
}

// storeNTCases adds the NT kernels to the twin test (which also runs them
// on dst offsets that are not 64-byte aligned, where they store normally).
func storeNTCases() []kcase {
	var cs []kcase
	for name, f := range storeNTBinary {
		cs = append(cs, kcase{name: name + "NT", dst: 2, ins: []int{4, 4},
			call: func(d []byte, in [][]byte) { f[0](view[uint16](d), f32s(in[0]), f32s(in[1])) }})
	}
	for name, f := range storeNTScalar {
		cs = append(cs, kcase{name: name + "NT/s=2.5", dst: 2, ins: []int{4},
			call: func(d []byte, in [][]byte) { f[0](view[uint16](d), f32s(in[0]), 2.5) }})
	}
	return cs
}

// TestStoreNT: at every tier, each NT kernel gives the plain kernel's bits
// on 64-byte aligned and unaligned dsts of many lengths, and writes
// nothing outside dst.
func TestStoreNT(t *testing.T) {
	r := rand.New(rand.NewPCG(41, 42))
	const max = 4096 + 37
	a, b := make([]float32, max), make([]float32, max)
	genF32(r, asBytes(a))
	genF32(r, asBytes(b))
	buf := make([]uint16, max+128)
	want := make([]uint16, max)
	lengths := []int{0, 1, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128, 129, 255, 1024, 1031, 4096, max}
	for _, tier := range simd.Available() {
		restore := simd.SetLevel(tier)
		for _, n := range lengths {
			for _, shift := range []int{0, 1, 8, 16} { // in uint16s from a 64-byte boundary
				base := int((64-uintptr(unsafe.Pointer(&buf[0]))%64)%64) / 2
				dst := buf[base+32+shift : base+32+shift+n]
				check := func(name string, run func(dst []uint16), plain func(dst []uint16)) {
					for i := range buf {
						buf[i] = 0xA5A5
					}
					run(dst)
					simd.Fence()
					plain(want[:n])
					for i := range dst {
						if dst[i] != want[i] {
							t.Fatalf("%v %sNT n=%d shift=%d: element %d %#04x, want %#04x", tier, name, n, shift, i, dst[i], want[i])
						}
					}
					for i, v := range buf {
						if (i < base+32+shift || i >= base+32+shift+n) && v != 0xA5A5 {
							t.Fatalf("%v %sNT n=%d shift=%d: wrote outside dst at %d", tier, name, n, shift, i)
						}
					}
				}
				for name, f := range storeNTBinary {
					check(name, func(d []uint16) { f[0](d, a, b) }, func(d []uint16) { f[1](d, a, b) })
				}
				for name, f := range storeNTScalar {
					check(name, func(d []uint16) { f[0](d, a, 0.3) }, func(d []uint16) { f[1](d, a, 0.3) })
				}
			}
		}
		restore()
	}
}
