package kernels

import (
	"fmt"

	"github.com/kiln-go/kiln/lower"
	"github.com/kiln-go/kiln/tensor"
)

// Backend compiles a lowered module into an executable.
type Backend interface {
	// Name identifies the backend: "cpu", "opencl", ….
	Name() string
	// Compile prepares m (fused and buffer-planned) for running.
	Compile(m *lower.Module) (Executable, error)
}

// Executable runs a compiled module. Implementations are safe for
// concurrent use.
//
// An Executable that holds what the garbage collector does not free
// (device buffers, queues, programs) may also implement io.Closer. Package
// kiln's caches call Close exactly once, when the last cache entry and the
// last Run using the executable let it go, and never run it afterwards.
// Close is optional — an Executable without it is simply dropped — and
// must not be needed for correct results: one nobody closes must still be
// released some other way (the OpenCL backend's runtime cleanup).
type Executable interface {
	// Run checks inputs against the module's parameters and returns newly
	// allocated outputs. Inputs are never written.
	Run(inputs []*tensor.Array) ([]*tensor.Array, error)
	// RunInto is Run writing into caller-provided outputs, whose dtypes and
	// shapes must match the module's outputs and which must not share
	// memory with the inputs or each other.
	RunInto(outputs, inputs []*tensor.Array) error
}

// ArgError reports an input (or a caller-provided output) that does not
// match the compiled program.
type ArgError struct {
	Index  int  // the argument's position, or -1 for the count
	Output bool // the argument is an output array given to RunInto
	Msg    string
}

func (e *ArgError) Error() string {
	if e.Index < 0 {
		return "kernels: " + e.Msg
	}
	what := "input"
	if e.Output {
		what = "output"
	}
	return fmt.Sprintf("kernels: %s %d: %s", what, e.Index, e.Msg)
}

// checkInputs validates inputs against the module's parameters.
func checkInputs(m *lower.Module, inputs []*tensor.Array) error {
	if len(inputs) != len(m.Params) {
		return &ArgError{Index: -1, Msg: fmt.Sprintf("the program takes %d inputs, got %d", len(m.Params), len(inputs))}
	}
	for i, p := range m.Params {
		a := inputs[i]
		switch {
		case a == nil:
			return &ArgError{Index: i, Msg: "nil array"}
		case a.DType() != p.DType:
			return &ArgError{Index: i, Msg: fmt.Sprintf("dtype %s, the program was compiled for %s", a.DType(), p.DType)}
		case !a.HasShape(p.Shape):
			return &ArgError{Index: i, Msg: fmt.Sprintf("shape %v, the program was compiled for %v", a.Shape(), p.Shape)}
		}
		if b := a.PackedBytes(); b != nil {
			if f, _ := p.DType.IntFormat(); len(b) != f.PackedLen(p.Size()) {
				return &ArgError{Index: i, Msg: fmt.Sprintf("packed storage has %d bytes, shape %v needs %d", len(b), p.Shape, f.PackedLen(p.Size()))}
			}
			continue
		}
		if n, ok := sliceLen(a.Data()); !ok || n != p.Size() {
			return &ArgError{Index: i, Msg: fmt.Sprintf("backing slice has %d elements, shape %v needs %d", n, p.Shape, p.Size())}
		}
	}
	return nil
}
