package kernels

import (
	"unsafe"

	"github.com/kiln-go/kiln/internal/numerics"
	"github.com/kiln-go/kiln/internal/simd"
	"github.com/kiln-go/kiln/lower"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// jax.random's primitives on the CPU: iota as a kernel of its own (it
// writes a buffer that fused consumers read), bitcast_convert_type and
// threefry2x32 as loop steps.

// iotaKernel writes element [i…] = i[axis] of its buffer.
type iotaKernel struct {
	out, n      int
	stride, dim int
	dtype       tensor.DType
}

func (x *cpuExec) compileIota(root *lower.Instr) (kernel, error) {
	st := numerics.RowMajorStrides(root.Shape)
	return &iotaKernel{out: x.m.Plan.Of[root], n: root.Size(), stride: st[root.Params.Axis], dim: root.Shape[root.Params.Axis], dtype: root.DType}, nil
}

func (k *iotaKernel) run(x *cpuExec, rs *runState) {
	x.parallel(rs, (k.n+copyChunk-1)/copyChunk, k.n, k)
}

func (k *iotaKernel) runRange(rs *runState, _ *worker, lo, hi int) {
	dst := rs.srcs[k.out]
	for c := lo; c < hi; c++ {
		start := c * copyChunk
		n := min(copyChunk, k.n-start)
		iotaFill(k.dtype, dst, start, n, k.stride, k.dim)
	}
}

// iotaFill writes elements start … start+n−1 of an iota of the given
// stride and dimension, converted to dtype d as convert does (exact for
// every count that d holds).
func iotaFill(d tensor.DType, dst unsafe.Pointer, start, n, stride, dim int) {
	iotaValues(d, unsafe.Add(dst, start*d.Size()), n, func(i int) int64 { return int64((start + i) / stride % dim) })
}

// iotaCounts writes the counts c0, c0+step, … (n of them) to dst,
// converted to dtype d as an iota converts them: a fused iota's values
// along a row of a mapped region (mapped.go).
func iotaCounts(d tensor.DType, dst unsafe.Pointer, n, c0, step int) {
	switch d { // the common dtypes without a call per element
	case tensor.F32:
		for i, s := 0, view[float32](dst, n); i < n; i++ {
			s[i] = float32(int64(c0 + i*step))
		}
	case tensor.F64:
		for i, s := 0, view[float64](dst, n); i < n; i++ {
			s[i] = float64(int64(c0 + i*step))
		}
	case tensor.I32:
		for i, s := 0, view[int32](dst, n); i < n; i++ {
			s[i] = int32(int64(c0 + i*step))
		}
	case tensor.I64:
		for i, s := 0, view[int64](dst, n); i < n; i++ {
			s[i] = int64(c0 + i*step)
		}
	default:
		iotaValues(d, dst, n, func(i int) int64 { return int64(c0 + i*step) })
	}
}

// iotaValues writes count(0) … count(n−1) to dst converted to dtype d
// as convert does (exact for every count that d holds).
func iotaValues(d tensor.DType, dst unsafe.Pointer, n int, count func(i int) int64) {
	if d.IsNarrow() { // converted as tensor.ConvertSlice does
		ints := make([]int64, n)
		for i := range ints {
			ints[i] = count(i)
		}
		out := tensor.MakeSlice(d, n)
		_ = tensor.ConvertSlice(out, ints) // cannot fail: storage slices of one length
		b, _, _ := tensor.NarrowBytes(out)
		copy(view[uint8](dst, n), b)
		return
	}
	switch d {
	case tensor.U8:
		fill(view[uint8](dst, n), func(i int) uint8 { return uint8(count(i)) })
	case tensor.U16:
		fill(view[uint16](dst, n), func(i int) uint16 { return uint16(count(i)) })
	case tensor.U32:
		fill(view[uint32](dst, n), func(i int) uint32 { return uint32(count(i)) })
	case tensor.U64:
		fill(view[uint64](dst, n), func(i int) uint64 { return uint64(count(i)) })
	case tensor.I8:
		fill(view[int8](dst, n), func(i int) int8 { return int8(count(i)) })
	case tensor.I16:
		fill(view[int16](dst, n), func(i int) int16 { return int16(count(i)) })
	case tensor.I32:
		fill(view[int32](dst, n), func(i int) int32 { return int32(count(i)) })
	case tensor.I64:
		fill(view[int64](dst, n), count)
	case tensor.F32:
		fill(view[float32](dst, n), func(i int) float32 { return float32(count(i)) })
	case tensor.F64:
		fill(view[float64](dst, n), func(i int) float64 { return float64(count(i)) })
	case tensor.F16:
		fill(view[tensor.Float16](dst, n), func(i int) tensor.Float16 { return tensor.Float64ToF16(float64(count(i))) })
	case tensor.BF16:
		fill(view[tensor.BFloat16](dst, n), func(i int) tensor.BFloat16 { return tensor.Float64ToBF16(float64(count(i))) })
	case tensor.C64:
		fill(view[complex64](dst, n), func(i int) complex64 { return complex(float32(count(i)), 0) })
	case tensor.C128:
		fill(view[complex128](dst, n), func(i int) complex128 { return complex(float64(count(i)), 0) })
	}
}

func fill[T any](dst []T, f func(i int) T) {
	for i := range dst {
		dst[i] = f(i)
	}
}

// bitcastFn reinterprets the bits of a compute-form block of dtype from as
// dtype to (one width). f16 and bf16 are held as float32 in a loop, so
// their bits are taken from (or made into) that form; the rest is a copy.
func bitcastFn(from, to tensor.DType) unaryFn {
	half := func(d tensor.DType) bool { return d == tensor.F16 || d == tensor.BF16 }
	bits16 := func(d tensor.DType) func(float32) uint16 {
		if d == tensor.F16 {
			return func(f float32) uint16 { return numerics.F32ToF16Bits(f) }
		}
		return func(f float32) uint16 { return numerics.F32ToBF16Bits(f) }
	}
	widen16 := func(d tensor.DType) func(uint16) float32 {
		if d == tensor.F16 {
			return numerics.F16BitsToF32
		}
		return numerics.BF16BitsToF32
	}
	switch {
	case half(from) && half(to):
		b, w := bits16(from), widen16(to)
		return un(func(dst, src []float32) {
			for i, v := range src {
				dst[i] = w(b(v))
			}
		})
	case half(from):
		b := bits16(from)
		return un(func(dst []uint16, src []float32) {
			for i, v := range src {
				dst[i] = b(v)
			}
		})
	case half(to):
		w := widen16(to)
		return un(func(dst []float32, src []uint16) {
			for i, v := range src {
				dst[i] = w(v)
			}
		})
	}
	return copyFn(from)
}

// threefry2x32 is Threefry-2x32, 20 rounds, of the counter words (x>>32,
// x) with the key words (k>>32, k): see trace.Threefry2x32. The block with
// one key runs internal/simd's ThreefryKey (AVX-512, AVX2, or its Go twin).
func threefry2x32(k, x uint64) uint64 { return simd.Threefry2x32(k, x) }

func threefryBlock(d, k, x []uint64) {
	for i := range d {
		d[i] = threefry2x32(k[i], x[i])
	}
}

// threefryKey is threefry2x32 with one key for the whole block (the
// loop-invariant key of random_bits).
func threefryKey(dst, x, s unsafe.Pointer, n int) {
	k := *(*uint64)(s)
	d, xs := view[uint64](dst, n), view[uint64](x, n)
	for i := range d {
		d[i] = threefry2x32(k, xs[i])
	}
}

func registerPRNG() {
	put(&binaryTable[trace.OpThreefry2x32][tensor.U64], tierGeneric, bin(threefryBlock))
	put(&scalarTable[trace.OpThreefry2x32][tensor.U64][1], tierGeneric, threefryKey)
}
