package kernels

import (
	"math"
	"math/rand/v2"
	"testing"
	"unsafe"

	"github.com/kiln-go/kiln/tensor"
)

// TestConvertToHalf: converting f64, 32- and 64-bit integers and complex values to
// f16 and bf16 gives tensor.ConvertSlice's once-rounded values (halfway
// cases between f16 values, overflow, subnormals and NaN included) and
// allocates nothing.
func TestConvertToHalf(t *testing.T) {
	f64s := []float64{0, math.Copysign(0, -1), 1, 65504, 65519.99, 65520, 1 + 0x1p-11, 1 + 0x1p-11 + 0x1p-40, 1 - 0x1p-12,
		0x1p-24, 0x1.8p-25, 0x1p-25, 3e38, 3.4e38, 3.5e38, 1e300, math.Inf(-1), math.NaN(), 1.00390625, 1.0039062500001}
	cases := map[tensor.DType]*tensor.Array{}
	cases[tensor.F64], _ = tensor.FromSlice(f64s)
	i32s := []int32{0, 1, -1, 2049, 2051, 65519, 65520, 1<<24 + 1, 16777217 * 3, math.MaxInt32, math.MinInt32, 257, 259}
	cases[tensor.I32], _ = tensor.FromSlice(i32s)
	u32s := []uint32{0, 1, 2049, 65520, 1<<24 + 1, math.MaxUint32, 257, 0x80808080}
	cases[tensor.U32], _ = tensor.FromSlice(u32s)
	// 64-bit integers: bf16 ties (257·2**k, 259·2**k), values whose
	// float64 rounding would make a false tie (2**60 + 2**52 + 1), the
	// extremes.
	i64s := []int64{0, 1, -1, 257, 259, -259, 1<<24 + 1, 257 << 40, 259 << 40, 257<<40 + 1, 1<<60 + 1<<52 + 1,
		-(1<<60 + 1<<52 + 1), 1<<60 + 1<<52, math.MaxInt64, math.MinInt64, math.MinInt64 + 1, 0x0101010101010101}
	cases[tensor.I64], _ = tensor.FromSlice(i64s)
	u64s := []uint64{0, 1, 257, 1<<24 + 1, 257 << 50, 259 << 50, 1<<63 + 1<<55 + 1, 1<<63 + 1<<55, math.MaxUint64, 1 << 63}
	cases[tensor.U64], _ = tensor.FromSlice(u64s)
	r := rand.New(rand.NewPCG(3, 4))
	for range 2000 {
		i64s = append(i64s, int64(r.Uint64())>>r.IntN(64))
		u64s = append(u64s, r.Uint64()>>r.IntN(64))
	}
	cases[tensor.I64], _ = tensor.FromSlice(i64s)
	cases[tensor.U64], _ = tensor.FromSlice(u64s)
	c128s := make([]complex128, len(f64s))
	c64s := make([]complex64, len(f64s))
	for i, v := range f64s {
		c128s[i] = complex(v, 7)
		c64s[i] = complex(float32(v), -1)
	}
	cases[tensor.C128], _ = tensor.FromSlice(c128s)
	cases[tensor.C64], _ = tensor.FromSlice(c64s)
	for from, src := range cases {
		for _, to := range []tensor.DType{tensor.F16, tensor.BF16} {
			want := src.Astype(to).Astype(tensor.F32).Data().([]float32)
			n := src.Size()
			got := make([]float32, n)
			f := convertFn(from, to)
			p := dataPtr(src.Data())
			f(unsafe.Pointer(&got[0]), p, n)
			for i := range got {
				if math.Float32bits(got[i]) != math.Float32bits(want[i]) && !(got[i] != got[i] && want[i] != want[i]) {
					t.Errorf("%s → %s element %d: %v, want %v", from, to, i, got[i], want[i])
				}
			}
			if a := testing.AllocsPerRun(10, func() { f(unsafe.Pointer(&got[0]), p, n) }); a != 0 && !raceOn {
				t.Errorf("%s → %s: %v allocations per block", from, to, a)
			}
		}
	}
}

// TestConvertFnEveryPair builds the block conversion between every pair of
// dtypes to f16, bf16 and f32 (convertFn panics on a pair it lacks, when
// a program compiles) and checks each against tensor's conversion on a few
// values.
func TestConvertFnEveryPair(t *testing.T) {
	vals := []float64{0, 1, -2, 3.5, 300, -70000, 1e10}
	for from := range tensor.DType(tensor.NumDTypes) {
		if from == tensor.Bool {
			continue
		}
		src := make([]float64, len(vals))
		copy(src, vals)
		a, _ := tensor.FromSlice(src)
		in := a.Astype(from)
		for _, to := range []tensor.DType{tensor.F16, tensor.BF16, tensor.F32} {
			f := convertFn(from, to)
			want := in.Astype(to).Astype(tensor.F32).Data().([]float32)
			got := make([]float32, len(vals))
			block := in.Astype(computeDType(from)) // f16 and bf16 blocks hold f32
			f(unsafe.Pointer(&got[0]), dataPtr(block.Data()), len(vals))
			for i := range got {
				if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
					t.Errorf("%s → %s of %v: %v, want %v", from, to, vals[i], got[i], want[i])
				}
			}
		}
	}
}
