package tensor_test

import (
	"fmt"
	"math"

	"github.com/kiln-go/kiln/tensor"
)

func ExampleFloatFormat() {
	f := tensor.FormatF8E4M3FN
	fmt.Println(f, f.JAXName(), f.NaNEncoding(), f.MaxFinite())
	b := f.FromFloat32(0.3)
	fmt.Printf("%#02x %v\n", b, f.ToFloat32(b))
	// Overflow: NaN where the format has no infinity, Inf where it has one,
	// the largest value for the MX formats, which have neither.
	for _, g := range []tensor.FloatFormat{tensor.FormatF8E4M3FN, tensor.FormatF8E5M2, tensor.FormatF4E2M1FN} {
		fmt.Println(g, g.ToFloat32(g.FromFloat32(1e6)))
	}
	// Output:
	// f8e4m3fn float8_e4m3fn fn 448
	// 0x2a 0.3125
	// f8e4m3fn NaN
	// f8e5m2 +Inf
	// f4e2m1fn 6
}

func ExampleFloatFormat_FromFloat64() {
	// Every value of f4e2m1fn, and ties to even between them.
	f := tensor.FormatF4E2M1FN
	var vals []float32
	for b := range 8 {
		vals = append(vals, f.ToFloat32(uint8(b)))
	}
	fmt.Println(vals)
	fmt.Println(f.ToFloat32(f.FromFloat64(2.5)), f.ToFloat32(f.FromFloat64(5)), f.ToFloat32(f.FromFloat64(-0.25)))
	fmt.Println(math.Signbit(float64(f.ToFloat32(f.FromFloat64(-0.25)))))
	// Output:
	// [0 0.5 1 1.5 2 3 4 6]
	// 2 4 -0
	// true
}

func ExampleParseFloatFormat() {
	f, err := tensor.ParseFloatFormat("float8_e5m2fnuz")
	fmt.Println(f, err, f.Bias(), f.HasInf(), f.Signed())
	_, err = tensor.ParseFloatFormat("f8")
	fmt.Println(err != nil)
	// Output:
	// f8e5m2fnuz <nil> 16 false true
	// true
}

func ExamplePackInts() {
	f := tensor.FormatI4
	packed := make([]byte, f.PackedLen(3))
	if err := tensor.PackInts(f, packed, []int8{1, -2, 9}); err != nil { // 9 wraps to −7
		fmt.Println(err)
		return
	}
	fmt.Printf("% x\n", packed)
	vals := make([]int32, 3)
	if err := tensor.UnpackInts(f, vals, packed); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(vals, f.Int64(f.FromFloat64(-100.7)), f.Int64(f.FromFloat64(3.9)))
	// Output:
	// e1 09
	// [1 -2 -7] -8 3
}
