package kernels

import (
	"unsafe"

	"github.com/kiln-go/kiln/tensor"
)

// f16 and bf16 blocks are computed in f32. These move a block between its
// storage form and its compute form, and round a compute block to the
// storage precision after an op (docs/SPEC.md §3: after every op).

func widenF16(d, s unsafe.Pointer, n int) {
	out, in := view[float32](d, n), view[tensor.Float16](s, n)
	for i, v := range in {
		out[i] = v.Float32()
	}
}

func widenBF16(d, s unsafe.Pointer, n int) {
	out, in := view[float32](d, n), view[tensor.BFloat16](s, n)
	for i, v := range in {
		out[i] = v.Float32()
	}
}

func narrowF16(d, s unsafe.Pointer, n int) {
	out, in := view[tensor.Float16](d, n), view[float32](s, n)
	for i, v := range in {
		out[i] = tensor.Float32ToF16(v)
	}
}

func narrowBF16(d, s unsafe.Pointer, n int) {
	out, in := view[tensor.BFloat16](d, n), view[float32](s, n)
	for i, v := range in {
		out[i] = tensor.BFloat16FromFloat32(v)
	}
}

func roundF16(p unsafe.Pointer, n int) {
	v := view[float32](p, n)
	for i, f := range v {
		v[i] = tensor.Float32ToF16(f).Float32()
	}
}

func roundBF16(p unsafe.Pointer, n int) {
	v := view[float32](p, n)
	for i, f := range v {
		v[i] = tensor.BFloat16FromFloat32(f).Float32()
	}
}

// The block conversions in use: these Go loops (registerHalfForms), or
// package simd's vector kernels at tierSIMD.
var (
	widenF16Fn, widenBF16Fn, narrowF16Fn, narrowBF16Fn unaryFn
	roundF16Fn, roundBF16Fn                            func(p unsafe.Pointer, n int)
)

// registerHalfForms registers the Go loops above at tierGeneric.
func registerHalfForms() {
	put(&widenF16Fn, tierGeneric, widenF16)
	put(&widenBF16Fn, tierGeneric, widenBF16)
	put(&narrowF16Fn, tierGeneric, narrowF16)
	put(&narrowBF16Fn, tierGeneric, narrowBF16)
	put(&roundF16Fn, tierGeneric, roundF16)
	put(&roundBF16Fn, tierGeneric, roundBF16)
}

// widenFn loads a storage block of d into compute form; nil when the two
// forms are the same.
func widenFn(d tensor.DType) unaryFn {
	switch d {
	case tensor.F16:
		return widenF16Fn
	case tensor.BF16:
		return widenBF16Fn
	}
	return narrowFormTable[d].widen
}

// narrowFn stores a compute block as d; nil when the forms are the same.
func narrowFn(d tensor.DType) unaryFn {
	switch d {
	case tensor.F16:
		return narrowF16Fn
	case tensor.BF16:
		return narrowBF16Fn
	}
	return narrowFormTable[d].narrow
}

// roundFn rounds a compute block to d's precision in place; nil when d is
// computed at its own precision.
func roundFn(d tensor.DType) func(p unsafe.Pointer, n int) {
	switch d {
	case tensor.F16:
		return roundF16Fn
	case tensor.BF16:
		return roundBF16Fn
	}
	return narrowFormTable[d].round
}
