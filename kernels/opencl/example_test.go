package opencl_test

import (
	"fmt"
	"log"

	"github.com/kiln-go/kiln/kernels"
	"github.com/kiln-go/kiln/kernels/opencl"
	"github.com/kiln-go/kiln/lower"
	"github.com/kiln-go/kiln/promote"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// Examples here have no Output comment: they need an OpenCL device.

// The devices `kiln devices` lists.
func ExampleDevices() {
	devs, err := opencl.Devices()
	if err != nil {
		fmt.Println(err) // says what to install
		return
	}
	for _, d := range devs {
		fmt.Println(d)
	}
}

// Running docs/SPEC.md's example, (x*2 + y) * 0.5 with x int8 and y f16, on the
// default OpenCL device, and printing the generated OpenCL C.
func ExampleNew() {
	b, err := opencl.New(opencl.Options{}) // KILN_OPENCL_DEVICE chooses, else the first GPU
	if opencl.Unavailable(err) {
		fmt.Println("no OpenCL here:", err)
		return
	} else if err != nil {
		log.Fatal(err)
	}
	defer b.Close()
	p, err := trace.Trace(promote.Config{}, []trace.Abstract{
		{Type: promote.Strong(tensor.I8), Shape: []int{3}},
		{Type: promote.Strong(tensor.F16), Shape: []int{3}},
	}, func(a []trace.Value) []trace.Value {
		return []trace.Value{a[0].Mul(trace.Int(2)).Add(a[1]).Mul(trace.Float(0.5))}
	})
	if err != nil {
		log.Fatal(err)
	}
	m, err := lower.Compile(p, lower.Options{Fold: kernels.Fold})
	if err != nil {
		log.Fatal(err)
	}
	exe, err := b.CompileModule(m)
	if err != nil {
		log.Fatal(err)
	}
	defer exe.Close()
	x, _ := tensor.FromSlice([]int8{1, 2, 3}, 3)
	y := tensor.Must(tensor.Arange(tensor.F16, 3))
	out, err := exe.Run([]*tensor.Array{x, y})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(out[0])
	fmt.Println(exe.Source())
}
