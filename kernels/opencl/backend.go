package opencl

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/kiln-go/kiln/kernels"
	"github.com/kiln-go/kiln/lower"
)

// Options configure a Backend. The zero value picks the device from
// KILN_OPENCL_DEVICE, else the first GPU, else the first device.
type Options struct {
	// Device selects the device: its index in the list Devices returns, or
	// a case-insensitive substring of its platform, name, vendor or version ("pocl",
	// "nvidia", "gfx1100"). Empty reads KILN_OPENCL_DEVICE; if that is
	// empty too, the first GPU is chosen, else the first device.
	Device string
	// FastTranscendentals computes f32 (and f16/bf16) exp, log, sin, pow, …
	// with the device's float builtins, which OpenCL only bounds to 3–4 ulp
	// (16 for pow), instead of in double and rounding, which keeps docs/SPEC.md §3's
	// 2 ulp. Faster on GPUs with slow fp64; ignored where there is no fp64
	// (the float builtins are then the only way).
	FastTranscendentals bool
}

var (
	_ kernels.Backend       = (*Backend)(nil)
	_ kernels.Executable    = (*Executable)(nil)
	_ kernels.ContextRunner = (*Executable)(nil)
)

// maxCachedPrograms bounds a backend's cache of built programs.
const maxCachedPrograms = 64

// Backend runs lowered modules on one OpenCL device. It implements
// kernels.Backend; Compile is safe for concurrent use.
type Backend struct {
	res  *backendResources
	dev  device
	opts Options
}

// backendResources are what a Backend must release; kept apart from the
// Backend so runtime.AddCleanup can release them when it is unreachable.
type backendResources struct {
	cl     *api
	ctx    clContext
	mu     sync.Mutex
	closed bool
	cache  map[string]clProgram // generated source + build options → built program
	order  []string             // insertion order, for eviction
	execs  execCounts
}

// execCounts counts a backend's executables, for tests that check they are
// released: open ones, and those the garbage collector's cleanup released
// because nobody closed them.
type execCounts struct {
	open, collected atomic.Int64
}

func (r *backendResources) release() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return
	}
	r.closed = true
	for _, p := range r.cache {
		r.cl.ReleaseProgram(p) // kernels still alive keep their program
	}
	r.cache = nil
	r.cl.ReleaseContext(r.ctx) // executables' queues and buffers keep the context
}

// New loads the OpenCL library (on first use), chooses a device and
// creates a context on it. Errors are *Error values: KindNoLibrary,
// KindNoPlatform or KindNoDevice when OpenCL is not usable here (see
// Unavailable).
func New(opts Options) (*Backend, error) {
	devs, err := discover()
	if err != nil {
		return nil, err
	}
	dev, err := chooseDevice(devs, opts.Device)
	if err != nil {
		return nil, err
	}
	cl := theAPI
	var st int32
	id := dev.id
	ctx := cl.CreateContext(nil, 1, &id, 0, 0, &st)
	if st != clSuccess {
		return nil, callError("clCreateContext", st, "cannot create a context on "+dev.info.Name)
	}
	b := &Backend{res: &backendResources{cl: cl, ctx: ctx, cache: map[string]clProgram{}}, dev: dev, opts: opts}
	runtime.AddCleanup(b, func(r *backendResources) { r.release() }, b.res)
	return b, nil
}

// Name returns "opencl".
func (b *Backend) Name() string { return "opencl" }

// Device describes the device the backend runs on.
func (b *Backend) Device() DeviceInfo { return b.dev.info }

// Close releases the context and the cached programs. Executables compiled
// earlier keep working until they are closed themselves.
func (b *Backend) Close() error {
	b.res.release()
	return nil
}

// Source returns the OpenCL C that Compile would build for m (fused and
// buffer-planned, as lower.Compile returns it), without building it: one
// commented kernel per fusion, preceded by the helpers they call.
func (b *Backend) Source(m *lower.Module) (string, error) {
	g, err := generate(m, &b.dev.info, b.opts)
	if err != nil {
		return "", err
	}
	return g.source, nil
}

// Compile generates, builds (or finds in the cache) and prepares m. The
// result is an *Executable.
func (b *Backend) Compile(m *lower.Module) (kernels.Executable, error) {
	return b.CompileModule(m)
}

// CompileModule is Compile returning the concrete type, whose Source and
// Close methods the kernels.Executable interface does not have.
func (b *Backend) CompileModule(m *lower.Module) (*Executable, error) {
	if m.Checks != 0 {
		return nil, fmt.Errorf("kernels/opencl: checked mode (kiln.Checked, checks %s) runs on the CPU backend only", kernels.CheckKind(m.Checks))
	}
	g, err := generate(m, &b.dev.info, b.opts)
	if err != nil {
		return nil, err
	}
	prog, err := b.program(g.source)
	if err != nil {
		return nil, err
	}
	return newExecutable(b, m, g, prog)
}

// buildOptions: never -cl-mad-enable or -cl-fast-relaxed-math (results
// must be bit-identical to the CPU); correctly rounded f32 ÷ and sqrt
// where the device offers them (elsewhere the generator emulates them in
// double).
func (b *Backend) buildOptions() string {
	if b.dev.info.CorrectlyRoundedDivideSqrt {
		return "-cl-fp32-correctly-rounded-divide-sqrt"
	}
	return ""
}

// program returns the built program for src, from the cache if possible,
// retained: the caller releases it once its kernels exist (they keep the
// program alive), so an eviction meanwhile cannot free it.
func (b *Backend) program(src string) (clProgram, error) {
	return b.programWith(src, b.buildOptions())
}

func (b *Backend) programWith(src, opts string) (clProgram, error) {
	r := b.res
	key := opts + "\x00" + src
	cl := r.cl
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return 0, &Error{Kind: KindClosed, Msg: "the backend is closed"}
	}
	if p, ok := r.cache[key]; ok {
		cl.RetainProgram(p)
		return p, nil
	}
	srcBytes := append([]byte(src), 0)
	ptr := &srcBytes[0]
	n := uintptr(len(src))
	var st int32
	p := cl.CreateProgramWithSource(r.ctx, 1, &ptr, &n, &st)
	if st != clSuccess {
		return 0, callError("clCreateProgramWithSource", st, "cannot create the program")
	}
	optBytes := append([]byte(opts), 0)
	id := b.dev.id
	st = cl.BuildProgram(p, 1, &id, &optBytes[0], 0, 0)
	runtime.KeepAlive(srcBytes)
	if st != clSuccess {
		log := buildLog(cl, p, id)
		cl.ReleaseProgram(p)
		if st == clBuildProgramFailure {
			return 0, &Error{Kind: KindBuild, Call: "clBuildProgram", Code: st, Msg: "the generated OpenCL C did not build on " + b.dev.info.Name,
				Hint: "this is a Kiln bug; please report it with the log and the source (Backend.Source)", Log: log}
		}
		e := callError("clBuildProgram", st, "cannot build the program on "+b.dev.info.Name)
		e.Log = log
		return 0, e
	}
	if len(r.order) >= maxCachedPrograms {
		old := r.order[0]
		r.order = r.order[1:]
		cl.ReleaseProgram(r.cache[old])
		delete(r.cache, old)
	}
	r.cache[key] = p
	r.order = append(r.order, key)
	cl.RetainProgram(p)
	return p, nil
}

const clProgramBuildLog = 0x1183

func buildLog(cl *api, p clProgram, d clDevice) string {
	var n uintptr
	if cl.GetProgramBuildInfo(p, d, clProgramBuildLog, 0, nil, &n) != clSuccess || n == 0 {
		return ""
	}
	buf := make([]byte, n)
	if cl.GetProgramBuildInfo(p, d, clProgramBuildLog, n, unsafe.Pointer(&buf[0]), nil) != clSuccess {
		return ""
	}
	return cString(buf)
}
