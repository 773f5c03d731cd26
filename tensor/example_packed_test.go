package tensor_test

import (
	"errors"
	"fmt"

	"github.com/kiln-go/kiln/tensor"
)

// A 2×3 int4 matrix from its packed bytes (ONNX's layout: two values a
// byte, the first in the low nibble), without a copy.
func ExampleFromPacked() {
	w, err := tensor.FromPacked(tensor.I4, []int{2, 3}, []byte{0x21, 0xf3, 0x87})
	if err != nil {
		panic(err)
	}
	fmt.Println(w, w.IsPacked(), w.NBytes())
	u := w.Unpack()
	fmt.Println(u.IsPacked(), u.NBytes(), tensor.Equal(u, w))
	_, err = tensor.Data[tensor.Int4](w)
	var pe *tensor.PackedError
	fmt.Println(errors.As(err, &pe))
	_, err = tensor.FromPacked(tensor.I4, []int{2, 3}, []byte{0x21})
	fmt.Println(err)
	// Output:
	// i4[2,3] [[1 2 3] [-1 7 -8]] true 3
	// false 6 true
	// true
	// tensor: FromPacked: i4[2,3]: 6 elements pack into 3 bytes (2 a byte), got 1
}
