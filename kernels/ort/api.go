package ort

import (
	"fmt"
	"os"
	"runtime"
	"sync"
	"unsafe"

	"github.com/ebitengine/purego"
)

// The OrtApi function table's slots this package calls. OrtApi (in
// onnxruntime_c_api.h) is a struct of function pointers that only ever
// grows at its end, so these indices hold for every version from the
// one that introduced them on; apiVersion asks for a table no newer
// than this package knows.
const (
	slotGetErrorCode                = 1
	slotGetErrorMessage             = 2
	slotCreateEnv                   = 3
	slotCreateSessionFromArray      = 8
	slotRun                         = 9
	slotCreateSessionOptions        = 10
	slotSetSessionGraphOptimization = 23
	slotSetIntraOpNumThreads        = 24
	slotSetInterOpNumThreads        = 25
	slotCreateTensorWithData        = 49
	slotCreateCpuMemoryInfo         = 69
	slotReleaseEnv                  = 92
	slotReleaseStatus               = 93
	slotReleaseMemoryInfo           = 94
	slotReleaseSession              = 95
	slotReleaseValue                = 96
	slotReleaseSessionOptions       = 100
)

// apiVersion is the ORT_API_VERSION requested: ONNX Runtime 1.16's (any
// later library serves it).
const apiVersion = 16

// DefaultLibrary is where ONNX Runtime's shared library is looked for
// when neither Options.Library nor KILN_ORT_LIBRARY names one: the
// dynamic loader's search path.
const DefaultLibrary = "libonnxruntime.so.1"

// api is a loaded ONNX Runtime: its function table, one OrtEnv and a CPU
// memory info for wrapping Go memory.
type api struct {
	path    string
	version string
	table   uintptr // const OrtApi*
	env     uintptr
	cpuMem  uintptr
	handle  uintptr
}

func (a *api) fn(slot int) uintptr {
	return *(*uintptr)(cptr(a.table + uintptr(slot)*unsafe.Sizeof(uintptr(0))))
}

// call runs a function returning OrtStatus*, turning a non-nil status
// into an *Error of kind KindRuntime (the status's code and message).
func (a *api) call(what string, slot int, args ...uintptr) error {
	st, _, _ := purego.SyscallN(a.fn(slot), args...)
	if st == 0 {
		return nil
	}
	return a.statusError(what, st)
}

// callOut is call for a function whose last argument is an out-pointer,
// returning what it wrote. The out value is heap-allocated and pinned:
// the address of a local variable handed to C as a uintptr would go stale
// if the goroutine's stack moved before the C code wrote through it.
func (a *api) callOut(what string, slot int, args ...uintptr) (uintptr, error) {
	out := new(uintptr)
	var pin runtime.Pinner
	pin.Pin(out)
	defer pin.Unpin()
	err := a.call(what, slot, append(args, uintptr(unsafe.Pointer(out)))...)
	return *out, err
}

func (a *api) statusError(what string, st uintptr) error {
	code, _, _ := purego.SyscallN(a.fn(slotGetErrorCode), st)
	msg, _, _ := purego.SyscallN(a.fn(slotGetErrorMessage), st)
	text := goString(msg)
	purego.SyscallN(a.fn(slotReleaseStatus), st)
	return &Error{Kind: KindRuntime, Msg: fmt.Sprintf("%s: %s (OrtErrorCode %d)", what, text, code)}
}

// release calls a Release* function.
func (a *api) release(slot int, p uintptr) {
	if p != 0 {
		purego.SyscallN(a.fn(slot), p)
	}
}

func goString(p uintptr) string {
	if p == 0 {
		return ""
	}
	var b []byte
	for i := uintptr(0); ; i++ {
		c := *(*byte)(cptr(p + i))
		if c == 0 {
			break
		}
		b = append(b, c)
	}
	return string(b)
}

// cstr is a NUL-terminated copy of s.
func cstr(s string) []byte { return append([]byte(s), 0) }

var (
	apisMu sync.Mutex
	apis   = map[string]*api{} // by library path: ONNX Runtime wants one OrtEnv per process
)

// libraryPath applies Options.Library, then KILN_ORT_LIBRARY, then
// DefaultLibrary.
func libraryPath(opt string) string {
	if opt != "" {
		return opt
	}
	if p := os.Getenv("KILN_ORT_LIBRARY"); p != "" {
		return p
	}
	return DefaultLibrary
}

// load opens the library at path once per process and creates its env.
func load(path string) (*api, error) {
	apisMu.Lock()
	defer apisMu.Unlock()
	if a := apis[path]; a != nil {
		return a, nil
	}
	if runtime.GOOS != "linux" && runtime.GOOS != "darwin" {
		return nil, &Error{Kind: KindNoLibrary, Msg: "the ONNX Runtime backend runs on linux and darwin only", Hint: hintInstall}
	}
	h, err := purego.Dlopen(path, purego.RTLD_NOW|purego.RTLD_LOCAL)
	if err != nil {
		return nil, &Error{Kind: KindNoLibrary, Msg: "cannot load " + path + ": " + err.Error(), Hint: hintInstall}
	}
	sym, err := purego.Dlsym(h, "OrtGetApiBase")
	if err != nil {
		return nil, &Error{Kind: KindNoLibrary, Msg: path + " has no OrtGetApiBase: it is not ONNX Runtime", Hint: hintInstall}
	}
	base, _, _ := purego.SyscallN(sym) // const OrtApiBase* {GetApi, GetVersionString}
	getAPI := *(*uintptr)(cptr(base))
	getVersion := *(*uintptr)(cptr(base + unsafe.Sizeof(uintptr(0))))
	v, _, _ := purego.SyscallN(getVersion)
	a := &api{path: path, version: goString(v), handle: h}
	a.table, _, _ = purego.SyscallN(getAPI, apiVersion)
	if a.table == 0 {
		return nil, &Error{Kind: KindNoLibrary, Msg: fmt.Sprintf("ONNX Runtime %s at %s does not serve C API version %d (1.16 or newer is needed)", a.version, path, apiVersion), Hint: hintInstall}
	}
	logid := cstr("kiln")
	const logError = 3 // ORT_LOGGING_LEVEL_ERROR
	var pin runtime.Pinner
	pin.Pin(&logid[0])
	env, err := a.callOut("CreateEnv", slotCreateEnv, logError, uintptr(unsafe.Pointer(&logid[0])))
	pin.Unpin()
	if err != nil {
		return nil, err
	}
	a.env = env
	// CreateTensorWithDataAsOrtValue reads only the device from it:
	// OrtDeviceAllocator (0), OrtMemTypeDefault (0).
	if a.cpuMem, err = a.callOut("CreateCpuMemoryInfo", slotCreateCpuMemoryInfo, 0, 0); err != nil {
		return nil, err
	}
	apis[path] = a
	return a, nil
}

// cptr turns an address returned by C (memory Go does not manage) into a
// pointer; reinterpreting the variable keeps go vet's uintptr check quiet
// for what is not Go memory.
func cptr(p uintptr) unsafe.Pointer { return *(*unsafe.Pointer)(unsafe.Pointer(&p)) }
