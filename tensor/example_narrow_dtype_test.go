package tensor_test

import (
	"fmt"
	"math"

	"github.com/kiln-go/kiln/tensor"
)

func ExampleNarrowDTypes() {
	for _, d := range tensor.NarrowDTypes()[:3] {
		fmt.Println(d, d.LongName(), d.Size(), d.Bits(), d.IsNarrow())
	}
	d, _ := tensor.ParseDType("int4")
	f, _ := tensor.F8E5M2.FloatFormat()
	fmt.Println(d, f, f.DType() == tensor.F8E5M2)
	// Output:
	// f8e4m3fn float8_e4m3fn 1 8 true
	// f8e5m2 float8_e5m2 1 8 true
	// f8e4m3fnuz float8_e4m3fnuz 1 8 true
	// i4 f8e5m2 true
}

func ExampleArray_Astype_narrow() {
	x := tensor.Must(tensor.FromSlice([]float32{0.3, 1, -500, float32(math.NaN())}))
	fmt.Println(x.Astype(tensor.F8E4M3FN)) // no Inf: overflow is NaN
	fmt.Println(x.Astype(tensor.F8E5M2))   // IEEE-like: overflow is Inf
	fmt.Println(x.Astype(tensor.F4E2M1FN)) // MX: saturates; NaN gives −0
	ints := tensor.Must(tensor.FromSlice([]int32{7, 8, -9, 100}))
	fmt.Println(ints.Astype(tensor.I4)) // wraps into 4 bits
	fmt.Println(x.Astype(tensor.I4))    // truncates and saturates, NaN → 0
	// Output:
	// f8e4m3fn[4] [0.3 1 nan nan]
	// f8e5m2[4] [0.3 1 -500 nan]
	// f4e2m1fn[4] [0.5 1 -6 -0]
	// i4[4] [7 -8 7 4]
	// i4[4] [0 1 -8 0]
}

func ExampleNarrowSlice() {
	// Bytes become a narrow array: each one element (a float's encoding,
	// an integer's value), checked.
	data, _ := tensor.NarrowSlice(tensor.F8E4M3FN, []byte{0x38, 0x40, 0x7f})
	a := tensor.Must(tensor.New(tensor.F8E4M3FN, []int{3}, data))
	fmt.Println(a)
	_, err := tensor.NarrowSlice(tensor.I4, []byte{9})
	fmt.Println(err)
	w := tensor.Must(tensor.FromSlice([]tensor.Int4{-8, 7}))
	b, d, _ := tensor.NarrowBytes(w.Data())
	fmt.Println(d, b)
	// Output:
	// f8e4m3fn[3] [1 2 nan]
	// tensor: NarrowSlice: element 0 of the i4 data is 9, outside -8 … 7
	// i4 [248 7]
}

func ExampleFloatFormat_NextAfter() {
	f := tensor.FormatF8E4M3FN
	one := f.FromFloat32(1)
	fmt.Println(f.ToFloat32(f.NextAfter(one, f.FromFloat32(2))), f.ToFloat32(f.NextAfter(one, 0)))
	// Output: 1.125 0.9375
}
