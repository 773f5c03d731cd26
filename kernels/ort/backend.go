package ort

import (
	"fmt"
	"runtime"
	"strings"
	"sync"
	"unsafe"

	"github.com/ebitengine/purego"
	"github.com/kiln-go/kiln/export/onnx"
	"github.com/kiln-go/kiln/kernels"
	"github.com/kiln-go/kiln/lower"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// Options configure the backend.
type Options struct {
	// Library is the path of libonnxruntime.so; "" reads
	// KILN_ORT_LIBRARY, then DefaultLibrary.
	Library string
	// Provider is the execution provider: "cpu" (or ""), "cuda" or
	// "tensorrt" (which needs a GPU build of the library; ONNX Runtime
	// falls back to its CPU kernels for the nodes the provider lacks).
	Provider string
	// Device is the GPU index for "cuda" and "tensorrt".
	Device int
	// Threads is ONNX Runtime's intra-op thread count; 0 is its default
	// (one per core).
	Threads int
}

// Backend runs modules on ONNX Runtime: Compile exports the module to
// ONNX (package export/onnx) and creates an ONNX Runtime session from it.
type Backend struct {
	api  *api
	opts Options
}

// New loads ONNX Runtime and checks the execution provider. A missing
// library or provider is an *Error for which Unavailable is true.
func New(opts Options) (*Backend, error) {
	switch strings.ToLower(opts.Provider) {
	case "", "cpu", "cuda", "tensorrt":
	default:
		return nil, &Error{Kind: KindProvider, Msg: fmt.Sprintf("unknown execution provider %q (cpu, cuda or tensorrt)", opts.Provider)}
	}
	if opts.Threads < 0 || opts.Device < 0 {
		return nil, fmt.Errorf("ort: Threads %d and Device %d must not be negative", opts.Threads, opts.Device)
	}
	a, err := load(libraryPath(opts.Library))
	if err != nil {
		return nil, err
	}
	b := &Backend{api: a, opts: opts}
	so, err := b.sessionOptions() // checks the provider now, not at the first Compile
	if err != nil {
		return nil, err
	}
	a.release(slotReleaseSessionOptions, so)
	return b, nil
}

// Name is "ort" (with the provider when it is not the CPU's).
func (b *Backend) Name() string {
	if p := strings.ToLower(b.opts.Provider); p != "" && p != "cpu" {
		return "ort-" + p
	}
	return "ort"
}

// Version is the library's version string ("1.30.0").
func (b *Backend) Version() string { return b.api.version }

func (b *Backend) sessionOptions() (uintptr, error) {
	a := b.api
	so, err := a.callOut("CreateSessionOptions", slotCreateSessionOptions)
	if err != nil {
		return 0, err
	}
	if b.opts.Threads > 0 {
		if err := a.call("SetIntraOpNumThreads", slotSetIntraOpNumThreads, so, uintptr(b.opts.Threads)); err != nil {
			a.release(slotReleaseSessionOptions, so)
			return 0, err
		}
	}
	var sym string
	switch strings.ToLower(b.opts.Provider) {
	case "cuda":
		sym = "OrtSessionOptionsAppendExecutionProvider_CUDA"
	case "tensorrt":
		sym = "OrtSessionOptionsAppendExecutionProvider_Tensorrt"
	}
	if sym != "" {
		fn, err := purego.Dlsym(a.handle, sym)
		if err == nil {
			if st, _, _ := purego.SyscallN(fn, so, uintptr(b.opts.Device)); st != 0 {
				err = a.statusError(sym, st)
			}
		}
		if err != nil {
			a.release(slotReleaseSessionOptions, so)
			return 0, &Error{Kind: KindProvider, Msg: fmt.Sprintf("%s execution provider: %v", b.opts.Provider, err)}
		}
	}
	return so, nil
}

// Compile exports m to ONNX and creates a session for it. An op the
// exporter refuses is its *onnx.UnsupportedError.
func (b *Backend) Compile(m *lower.Module) (kernels.Executable, error) {
	if m.Checks != 0 {
		return nil, fmt.Errorf("ort: checked mode (kiln.Checked, checks %s) runs on the CPU backend only", kernels.CheckKind(m.Checks))
	}
	model, err := onnx.Export(m, onnx.Options{})
	if err != nil {
		return nil, err
	}
	return b.CompileModel(m, model, nil, nil)
}

// CompileModel creates a session for model, an ONNX model exported from
// m (by onnx.Export, whose Options named its inputs and outputs
// inputNames and outputNames; nil means Export's defaults). The
// executable checks its arguments against m's parameters and outputs.
func (b *Backend) CompileModel(m *lower.Module, model []byte, inputNames, outputNames []string) (*Executable, error) {
	if len(model) == 0 {
		return nil, fmt.Errorf("ort: an empty model")
	}
	if inputNames != nil && len(inputNames) != len(m.Params) || outputNames != nil && len(outputNames) != len(m.Outputs) {
		return nil, fmt.Errorf("ort: %d input and %d output names for a module of %d parameters and %d outputs",
			len(inputNames), len(outputNames), len(m.Params), len(m.Outputs))
	}
	a := b.api
	so, err := b.sessionOptions()
	if err != nil {
		return nil, err
	}
	defer a.release(slotReleaseSessionOptions, so)
	var pin runtime.Pinner
	pin.Pin(&model[0])
	sess, err := a.callOut("CreateSessionFromArray", slotCreateSessionFromArray, a.env, uintptr(unsafe.Pointer(&model[0])), uintptr(len(model)), so)
	pin.Unpin()
	if err != nil {
		return nil, err
	}
	e := &Executable{api: a, session: sess, model: model}
	for i, p := range m.Params {
		e.ins = append(e.ins, sig{p.DType, p.Shape})
		name := fmt.Sprintf("arg%d", i)
		if inputNames != nil {
			name = inputNames[i]
		}
		e.inNames = append(e.inNames, cstr(name))
	}
	for i, o := range m.Outputs {
		e.outs = append(e.outs, sig{o.DType, o.Shape})
		name := "result"
		switch {
		case outputNames != nil:
			name = outputNames[i]
		case len(m.Outputs) > 1:
			name = fmt.Sprintf("result%d", i)
		}
		e.outNames = append(e.outNames, cstr(name))
	}
	runtime.SetFinalizer(e, (*Executable).Close)
	return e, nil
}

type sig struct {
	dt    tensor.DType
	shape []int
}

// Executable is a compiled module: an ONNX Runtime session. It is safe
// for concurrent use (OrtSession's Run is); Close releases the session.
type Executable struct {
	api               *api
	mu                sync.RWMutex // Close waits for running Runs
	session           uintptr
	model             []byte
	ins, outs         []sig
	inNames, outNames [][]byte
}

// Model returns the ONNX model the executable runs (shared; do not modify).
func (e *Executable) Model() []byte { return e.model }

// Close releases the session; later runs are a KindClosed *Error.
func (e *Executable) Close() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.session != 0 {
		e.api.release(slotReleaseSession, e.session)
		e.session = 0
	}
	return nil
}

// Run checks inputs and returns newly allocated outputs.
func (e *Executable) Run(inputs []*tensor.Array) ([]*tensor.Array, error) {
	outs := make([]*tensor.Array, len(e.outs))
	for i, o := range e.outs {
		a, err := tensor.Zeros(o.dt, o.shape...)
		if err != nil {
			return nil, err
		}
		outs[i] = a
	}
	if err := e.RunInto(outs, inputs); err != nil {
		return nil, err
	}
	return outs, nil
}

func check(got []*tensor.Array, want []sig, output bool) error {
	what := "inputs"
	if output {
		what = "outputs"
	}
	if len(got) != len(want) {
		return &kernels.ArgError{Index: -1, Output: output, Msg: fmt.Sprintf("the program has %d %s, got %d", len(want), what, len(got))}
	}
	for i, a := range got {
		switch {
		case a == nil:
			return &kernels.ArgError{Index: i, Output: output, Msg: "nil array"}
		case a.DType() != want[i].dt:
			return &kernels.ArgError{Index: i, Output: output, Msg: fmt.Sprintf("dtype %s, the program was compiled for %s", a.DType(), want[i].dt)}
		case !trace.ShapeEqual(a.Shape(), want[i].shape):
			return &kernels.ArgError{Index: i, Output: output, Msg: fmt.Sprintf("shape %v, the program was compiled for %v", a.Shape(), want[i].shape)}
		case len(onnx.RawBytes(a)) != a.Size()*a.DType().Size():
			return &kernels.ArgError{Index: i, Output: output, Msg: "the backing slice does not match the shape"}
		}
	}
	return nil
}

// RunInto runs the session writing into outputs (ONNX Runtime writes
// straight into their memory).
func (e *Executable) RunInto(outputs, inputs []*tensor.Array) error {
	if err := check(inputs, e.ins, false); err != nil {
		return err
	}
	if err := check(outputs, e.outs, true); err != nil {
		return err
	}
	e.mu.RLock()
	defer e.mu.RUnlock()
	if e.session == 0 {
		return &Error{Kind: KindClosed, Msg: "Run after Close"}
	}
	a := e.api
	var pin runtime.Pinner
	defer pin.Unpin()
	var values []uintptr
	defer func() {
		for _, v := range values {
			a.release(slotReleaseValue, v)
		}
	}()
	wrap := func(arr *tensor.Array) (uintptr, error) {
		et, err := elemType(arr.DType())
		if err != nil {
			return 0, err
		}
		raw := onnx.RawBytes(arr)
		var dummy [8]byte
		p := unsafe.Pointer(&dummy[0])
		if len(raw) > 0 {
			p = unsafe.Pointer(&raw[0])
		}
		pin.Pin(p)
		shape := make([]int64, len(arr.Shape())+1) // +1: never empty
		for i, d := range arr.Shape() {
			shape[i] = int64(d)
		}
		pin.Pin(&shape[0])
		v, err := a.callOut("CreateTensorWithDataAsOrtValue", slotCreateTensorWithData, a.cpuMem, uintptr(p), uintptr(len(raw)),
			uintptr(unsafe.Pointer(&shape[0])), uintptr(len(arr.Shape())), uintptr(et))
		if err != nil {
			return 0, err
		}
		values = append(values, v)
		return v, nil
	}
	inVals := make([]uintptr, len(inputs)+1)
	outVals := make([]uintptr, len(outputs)+1)
	inNames := make([]uintptr, len(inputs)+1)
	outNames := make([]uintptr, len(outputs)+1)
	for i, arr := range inputs {
		v, err := wrap(arr)
		if err != nil {
			return err
		}
		inVals[i] = v
		pin.Pin(&e.inNames[i][0])
		inNames[i] = uintptr(unsafe.Pointer(&e.inNames[i][0]))
	}
	for i, arr := range outputs {
		v, err := wrap(arr)
		if err != nil {
			return err
		}
		outVals[i] = v
		pin.Pin(&e.outNames[i][0])
		outNames[i] = uintptr(unsafe.Pointer(&e.outNames[i][0]))
	}
	pin.Pin(&inVals[0])
	pin.Pin(&outVals[0])
	pin.Pin(&inNames[0])
	pin.Pin(&outNames[0])
	return a.call("Run", slotRun, e.session, 0,
		uintptr(unsafe.Pointer(&inNames[0])), uintptr(unsafe.Pointer(&inVals[0])), uintptr(len(inputs)),
		uintptr(unsafe.Pointer(&outNames[0])), uintptr(len(outputs)), uintptr(unsafe.Pointer(&outVals[0])))
}

// elemType is ONNX's TensorProto.DataType of d.
func elemType(d tensor.DType) (int, error) {
	t, ok := map[tensor.DType]int{
		tensor.F32: 1, tensor.U8: 2, tensor.I8: 3, tensor.U16: 4, tensor.I16: 5, tensor.I32: 6, tensor.I64: 7,
		tensor.Bool: 9, tensor.F16: 10, tensor.F64: 11, tensor.U32: 12, tensor.U64: 13, tensor.BF16: 16,
	}[d]
	if !ok {
		return 0, fmt.Errorf("ort: %s has no ONNX Runtime tensor type", d)
	}
	return t, nil
}
