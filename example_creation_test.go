package kiln_test

import (
	"fmt"

	"github.com/kiln-go/kiln"
	"github.com/kiln-go/kiln/tensor"
)

// Arange takes ints and gives the default int; ArangeFloat takes floats
// and gives NumPy's float values (the last below shows f32 rounding, as
// np.arange(0, 1, 0.1, dtype=np.float32) does).
func ExampleArangeFloat() {
	fmt.Println(tensor.Must(kiln.Eval(kiln.Arange(1, 7, 2))))
	fmt.Println(tensor.Must(kiln.Eval(kiln.ArangeFloat(0, 1, 0.1, tensor.F32))))
	// Output:
	// i64[3] [1 3 5]
	// f32[10] [0 0.1 0.2 0.3 0.4 0.5 0.6 0.7 0.8 0.90000004]
}
