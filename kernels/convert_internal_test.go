package kernels

import (
	"math"
	"testing"
	"unsafe"

	"github.com/kiln-go/kiln/tensor"
)

// TestConvertToHalf: converting f64, 32-bit integers and complex values to
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
