package tensor_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/kiln-go/kiln/tensor"
)

func ExampleWriteNPY() {
	a := tensor.Must(tensor.FromSlice([]float32{1, 2, 3, 4, 5, 6}, 2, 3))
	var buf bytes.Buffer
	if err := tensor.WriteNPY(&buf, a); err != nil {
		panic(err)
	}
	fmt.Printf("%q\n", buf.Bytes()[10:69]) // np.save's header
	b, err := tensor.ReadNPY(&buf)
	fmt.Println(b, err)
	// Output:
	// "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }"
	// f32[2,3] [[1 2 3] [4 5 6]] <nil>
}

func ExampleReadNPY_malformed() {
	// A header that claims more data than the file has.
	file := []byte("\x93NUMPY\x01\x00\x39\x00{'descr': '<f8', 'fortran_order': False, 'shape': (4,), }")
	_, err := tensor.ReadNPY(bytes.NewReader(file))
	var fe *tensor.FileError
	fmt.Println(errors.As(err, &fe), fe.Offset)
	fmt.Println(err)
	// Output:
	// true 67
	// tensor: read npy: byte 67: truncated: shape [4] of f64 needs 32 bytes of data, the file has 0
}

func ExampleWriteNPZ() {
	arrays := []tensor.NamedArray{
		{Name: "w", Array: tensor.Must(tensor.FromSlice([]tensor.BFloat16{tensor.BFloat16FromFloat32(0.5)}))},
		{Name: "n", Array: tensor.Scalar(int64(7))},
	}
	var buf bytes.Buffer
	if err := tensor.WriteNPZ(&buf, arrays, true); err != nil {
		panic(err)
	}
	back, err := tensor.ReadNPZ(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	fmt.Println(back, err)
	// Output:
	// [{w bf16[1] [0.5]} {n i64[] 7}] <nil>
}

func ExampleOpenSafetensors() {
	path := filepath.Join(os.TempDir(), "kiln-example.safetensors")
	defer os.Remove(path)
	weights := []tensor.NamedArray{
		{Name: "bias", Array: tensor.Must(tensor.FromSlice([]float32{0.5, -1}))},
		{Name: "mask", Array: tensor.Must(tensor.FromSlice([]bool{true, false}))},
	}
	if err := tensor.WriteSafetensorsFile(path, weights, map[string]string{"format": "kiln"}); err != nil {
		panic(err)
	}
	f, err := tensor.OpenSafetensors(path)
	if err != nil {
		panic(err)
	}
	defer f.Close() // the arrays view the mapping until then
	bias, _ := f.Lookup("bias")
	fmt.Println(f.Names(), bias, f.Metadata())
	// Output:
	// [bias mask] f32[2] [0.5 -1] map[format:kiln]
}
