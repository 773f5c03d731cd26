package opencl

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/kiln-go/kiln/kernels"
	"github.com/kiln-go/kiln/lower"
	"github.com/kiln-go/kiln/promote"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata")

// module traces and lowers fn over inputs of the given dtypes and shapes.
func module(t testing.TB, fn func(a []trace.Value) []trace.Value, inputs ...trace.Abstract) *lower.Module {
	t.Helper()
	p, err := trace.Trace(promote.Config{}, inputs, fn)
	if err != nil {
		t.Fatal(err)
	}
	m, err := lower.Compile(p, lower.Options{Fold: kernels.Fold})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func abstract(d tensor.DType, shape ...int) trace.Abstract {
	return trace.Abstract{Type: promote.Strong(d), Shape: shape}
}

// e2 is docs/SPEC.md's running example: (x*2 + y) * 0.5 with x int8, y f16.
func e2(a []trace.Value) []trace.Value {
	return []trace.Value{a[0].Mul(trace.Int(2)).Add(a[1]).Mul(trace.Float(0.5))}
}

// fakeDevice is a device description for code generation without OpenCL.
func fakeDevice() *DeviceInfo {
	return &DeviceInfo{Name: "test device", Platform: "test platform", OpenCLC: "OpenCL C 1.2", Type: "gpu",
		ComputeUnits: 8, MaxWorkGroupSize: 256, FP64: true, CorrectlyRoundedDivideSqrt: true, Denormals: true}
}

func TestChooseDevice(t *testing.T) {
	devs := []device{
		{info: DeviceInfo{Index: 0, Name: "pthread-skylake", Platform: "Portable Computing Language", Vendor: "AuthenticAMD", Version: "OpenCL 3.0 PoCL", Type: "cpu"}},
		{info: DeviceInfo{Index: 1, Name: "NVIDIA GeForce RTX 4090", Platform: "NVIDIA CUDA", Vendor: "NVIDIA Corporation", Type: "gpu"}},
		{info: DeviceInfo{Index: 2, Name: "gfx1100", Platform: "AMD Accelerated Parallel Processing", Vendor: "Advanced Micro Devices", Type: "gpu"}},
	}
	t.Setenv("KILN_OPENCL_DEVICE", "")
	for _, c := range []struct {
		want, env string
		index     int
	}{
		{"", "", 1}, // the first GPU
		{"0", "", 0},
		{"2", "", 2},
		{"pocl", "", 0},
		{"portable", "", 0},
		{"amd", "", 0}, // the vendor substring of the first device
		{"GFX", "", 2},
		{"", "nvidia", 1},
		{"1", "0", 1}, // Options.Device beats the variable
	} {
		t.Setenv("KILN_OPENCL_DEVICE", c.env)
		d, err := chooseDevice(devs, c.want)
		if err != nil || d.info.Index != c.index {
			t.Errorf("chooseDevice(%q, env %q) = %d, %v; want %d", c.want, c.env, d.info.Index, err, c.index)
		}
	}
	t.Setenv("KILN_OPENCL_DEVICE", "")
	for _, bad := range []string{"7", "-1", "intel"} {
		_, err := chooseDevice(devs, bad)
		if !IsKind(err, KindNoDevice) || !Unavailable(err) || !strings.Contains(err.Error(), "NVIDIA GeForce") {
			t.Errorf("chooseDevice(%q): %v, want a KindNoDevice error listing the devices", bad, err)
		}
	}
	cpuOnly := devs[:1]
	if d, err := chooseDevice(cpuOnly, ""); err != nil || d.info.Index != 0 {
		t.Errorf("without a GPU: %d, %v; want the first device", d.info.Index, err)
	}
}

func TestUnsupportedWithoutFP64(t *testing.T) {
	dev := fakeDevice()
	dev.FP64 = false
	for _, c := range []struct {
		name string
		fn   func(a []trace.Value) []trace.Value
		in   trace.Abstract
	}{
		{"f64", func(a []trace.Value) []trace.Value { return []trace.Value{a[0].Add(a[0])} }, abstract(tensor.F64, 3)},
		{"c128", func(a []trace.Value) []trace.Value { return []trace.Value{a[0].Mul(a[0])} }, abstract(tensor.C128, 3)},
		{"c64-abs", func(a []trace.Value) []trace.Value { return []trace.Value{a[0].Abs()} }, abstract(tensor.C64, 3)},
		{"c64-exp", func(a []trace.Value) []trace.Value { return []trace.Value{a[0].Exp()} }, abstract(tensor.C64, 3)},
	} {
		_, err := generate(module(t, c.fn, c.in), dev, Options{})
		var e *Error
		if !errors.As(err, &e) || e.Kind != KindUnsupported || !strings.Contains(e.Error(), "cl_khr_fp64") {
			t.Errorf("%s: %v, want a KindUnsupported error naming cl_khr_fp64", c.name, err)
		}
	}
	// f32 and c64 arithmetic need no double: f32 exp uses the float builtin.
	g, err := generate(module(t, func(a []trace.Value) []trace.Value {
		return []trace.Value{a[0].Exp().Div(a[0]), a[1].Mul(a[1]).Add(a[1])}
	}, abstract(tensor.F32, 3), abstract(tensor.C64, 3)), dev, Options{})
	if err != nil || strings.Contains(g.source, "double") {
		t.Errorf("f32/c64 without fp64: %v, or the source uses double", err)
	}
}

func TestDivSqrtEmulation(t *testing.T) {
	m := module(t, func(a []trace.Value) []trace.Value { return []trace.Value{a[0].Div(a[0]).Sqrt()} }, abstract(tensor.F32, 3))
	dev := fakeDevice()
	dev.CorrectlyRoundedDivideSqrt = false
	g, err := generate(m, dev, Options{})
	if err != nil || !strings.Contains(g.source, "(float)sqrt((double)") || !strings.Contains(g.source, "(double)v0 / (double)v0") {
		t.Errorf("without correctly rounded f32 ÷/sqrt, expected double emulation: %v\n%s", err, g.source)
	}
	dev.FP64 = false
	if _, err := generate(m, dev, Options{}); !IsKind(err, KindUnsupported) {
		t.Errorf("neither correctly rounded ÷ nor fp64: %v, want KindUnsupported", err)
	}
}

// TestSourceGolden pins the generated OpenCL C of the running example
// (on a fixed fake device, so the text does not depend on this machine).
func TestSourceGolden(t *testing.T) {
	for _, c := range []struct {
		name string
		fn   func(a []trace.Value) []trace.Value
		in   []trace.Abstract
	}{
		{"e2", e2, []trace.Abstract{abstract(tensor.I8, 1000), abstract(tensor.F16, 1000)}},
		{"variance", func(a []trace.Value) []trace.Value {
			x := a[0]
			d := x.Sub(x.Mean())
			return []trace.Value{d.Mul(d).Sum()}
		}, []trace.Abstract{abstract(tensor.F64, 100000)}},
		{"matmul", func(a []trace.Value) []trace.Value { return []trace.Value{a[0].MatMul(a[1]).Transpose(1, 0)} },
			[]trace.Abstract{abstract(tensor.F32, 30, 40), abstract(tensor.F32, 40, 50)}},
	} {
		g, err := generate(module(t, c.fn, c.in...), fakeDevice(), Options{})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range g.source {
			if r > 127 {
				t.Errorf("%s: non-ASCII %q in the generated source", c.name, r)
				break
			}
		}
		path := filepath.Join("testdata", c.name+".cl")
		if *update {
			if err := os.WriteFile(path, []byte(g.source), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (run go test -update)", err)
		}
		if g.source != string(want) {
			t.Errorf("%s: generated source differs from %s (run go test -update and review the diff):\n%s", c.name, path, g.source)
		}
	}
}

func TestDevices(t *testing.T) {
	testBackend(t)
	devs, err := Devices()
	if err != nil || len(devs) == 0 {
		t.Fatalf("Devices: %v, %v", devs, err)
	}
	if _, err := New(Options{Device: "no such device"}); !IsKind(err, KindNoDevice) {
		t.Errorf("New with an unknown device: %v, want KindNoDevice", err)
	}
	t.Setenv("KILN_OPENCL_DEVICE", devs[0].Name)
	if b, err := New(Options{}); err != nil || b.Device().Name != devs[0].Name {
		t.Errorf("New with KILN_OPENCL_DEVICE=%q: %v", devs[0].Name, err)
	} else {
		b.Close()
	}
	for i, d := range devs {
		if d.Index != i || d.Name == "" || d.ComputeUnits <= 0 || d.MaxWorkGroupSize <= 0 || d.GlobalMemory <= 0 {
			t.Errorf("implausible device %d: %+v", i, d)
		}
		t.Log(d)
	}
}

func TestBuildErrorHasLog(t *testing.T) {
	b := testBackend(t)
	_, err := b.programWith("__kernel void broken(__global float* x) { x[0] = undefined_name; }\n", "")
	var e *Error
	if !errors.As(err, &e) || e.Kind != KindBuild || !strings.Contains(e.Log, "undefined_name") {
		t.Fatalf("got %v, want a KindBuild error whose log names the problem", err)
	}
}

func TestRunErrorsAndClose(t *testing.T) {
	b := testBackend(t)
	exe, err := b.CompileModule(module(t, e2, abstract(tensor.I8, 3), abstract(tensor.F16, 3)))
	if err != nil {
		t.Fatal(err)
	}
	x, _ := tensor.FromSlice([]int8{1, 2, 3}, 3)
	y := x.Astype(tensor.F16)
	var argErr *kernels.ArgError
	if _, err := exe.Run([]*tensor.Array{x}); !errors.As(err, &argErr) {
		t.Errorf("one input: %v, want *kernels.ArgError", err)
	}
	if _, err := exe.Run([]*tensor.Array{x, x}); !errors.As(err, &argErr) || argErr.Index != 1 {
		t.Errorf("wrong dtype: %v, want *kernels.ArgError for input 1", err)
	}
	bad, _ := tensor.Zeros(tensor.F32, 3)
	if err := exe.RunInto([]*tensor.Array{bad}, []*tensor.Array{x, y}); !errors.As(err, &argErr) {
		t.Errorf("wrong output dtype: %v, want *kernels.ArgError", err)
	}
	// An output over an input's memory would be written before the input
	// is read (the uploads do not block): refused, the input untouched.
	keep := y.Astype(tensor.F16)
	if err := exe.RunInto([]*tensor.Array{y}, []*tensor.Array{x, y}); !errors.As(err, &argErr) || !argErr.Output {
		t.Errorf("output aliasing input 1: %v, want *kernels.ArgError for the output", err)
	}
	if !reflect.DeepEqual(y.Data(), keep.Data()) {
		t.Errorf("input changed to %v", y)
	}
	if !strings.Contains(exe.Source(), "__kernel void fusion0") {
		t.Errorf("Source lacks the kernel:\n%s", exe.Source())
	}
	exe.Close()
	exe.Close() // idempotent
	if _, err := exe.Run([]*tensor.Array{x, y}); !IsKind(err, KindClosed) {
		t.Errorf("Run after Close: %v, want KindClosed", err)
	}
}

func TestConcurrentRuns(t *testing.T) {
	b := testBackend(t)
	exe, err := b.Compile(module(t, e2, abstract(tensor.I8, 4096), abstract(tensor.F16, 4096)))
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			xs := make([]int8, 4096)
			ys := make([]float32, 4096)
			for i := range xs {
				xs[i], ys[i] = int8(i+g), float32(g)
			}
			x, _ := tensor.FromSlice(xs, 4096)
			y, _ := tensor.FromSlice(ys, 4096)
			for range 20 {
				out, err := exe.Run([]*tensor.Array{x, y.Astype(tensor.F16)})
				if err != nil {
					t.Error(err)
					return
				}
				got := out[0].Astype(tensor.F32).Data().([]float32)
				for i, v := range got {
					if want := (float32(int8(i+g)*2) + float32(g)) * 0.5; v != want {
						t.Errorf("goroutine %d: [%d] = %v, want %v", g, i, v, want)
						return
					}
				}
			}
		}()
	}
	wg.Wait()
}

func TestBackendClose(t *testing.T) {
	testBackend(t) // skips without OpenCL
	b, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	m := module(t, e2, abstract(tensor.I8, 3), abstract(tensor.F16, 3))
	exe, err := b.Compile(m)
	if err != nil {
		t.Fatal(err)
	}
	b.Close()
	if _, err := b.Compile(m); !IsKind(err, KindClosed) {
		t.Errorf("Compile after Close: %v, want KindClosed", err)
	}
	x, _ := tensor.FromSlice([]int8{1, 2, 3}, 3)
	out, err := exe.Run([]*tensor.Array{x, x.Astype(tensor.F16)})
	if err != nil || out[0].FormatElem(2) != "4.5" {
		t.Errorf("an executable outlives its backend: %v %v", out, err)
	}
}

func TestOutOfDeviceMemory(t *testing.T) {
	b := testBackend(t)
	n := int(b.Device().MaxAlloc/4) + 1024 // one f32 buffer beyond the largest allocation
	_, err := b.Compile(module(t, func(a []trace.Value) []trace.Value { return []trace.Value{a[0].Add(trace.Int(1))} }, abstract(tensor.F32, n)))
	var e *Error
	if !errors.As(err, &e) || e.Kind != KindOutOfMemory || e.Hint == "" {
		t.Fatalf("got %v, want a KindOutOfMemory error with a hint", err)
	}
}

// TestNoLibrary runs Devices in a child process pointed at a library that
// does not exist: the error must say what to install.
func TestNoLibrary(t *testing.T) {
	if os.Getenv("KILN_OPENCL_CHILD") == "1" {
		_, err := Devices()
		if !IsKind(err, KindNoLibrary) || !Unavailable(err) || !strings.Contains(err.Error(), "pocl-opencl-icd") {
			fmt.Printf("unexpected: %v\n", err)
			os.Exit(1)
		}
		if _, err := New(Options{}); !IsKind(err, KindNoLibrary) {
			fmt.Printf("New: %v\n", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestNoLibrary$")
	cmd.Env = append(os.Environ(), "KILN_OPENCL_CHILD=1", "KILN_OPENCL_LIBRARY=/nonexistent/libOpenCL.so.1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
}

// TestAllHelpersBuild compiles every helper of the table in one program,
// including those no other test happens to use, and checks that the C
// source is plain ASCII (some OpenCL compilers reject anything else).
func TestAllHelpersBuild(t *testing.T) {
	h := helperSet{}
	for _, d := range helperList {
		h.use(d.name)
	}
	src, fp64 := h.source()
	for i, r := range src {
		if r > 127 {
			line := strings.Count(src[:i], "\n") + 1
			t.Fatalf("non-ASCII %q in helper source line %d: %s", r, line, strings.Split(src, "\n")[line-1])
		}
	}
	b := testBackend(t)
	if fp64 {
		src = "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n" + src
	}
	if _, err := b.programWith("#pragma OPENCL FP_CONTRACT OFF\n"+src+"__kernel void nothing(void) {}\n", b.buildOptions()); err != nil {
		t.Fatal(err)
	}
}

// The narrow dtypes are refused with a KindUnsupported error naming the
// dtype, whether an input or made by a convert (docs/SPEC.md).
func TestNarrowUnsupported(t *testing.T) {
	for _, d := range tensor.NarrowDTypes() {
		for name, m := range map[string]*lower.Module{
			"input":   module(t, func(a []trace.Value) []trace.Value { return []trace.Value{a[0].Astype(tensor.F32)} }, abstract(d, 3)),
			"convert": module(t, func(a []trace.Value) []trace.Value { return []trace.Value{a[0].Astype(d).Astype(tensor.F32)} }, abstract(tensor.F32, 3)),
		} {
			_, err := generate(m, fakeDevice(), Options{})
			if !IsKind(err, KindUnsupported) || !strings.Contains(err.Error(), d.String()) {
				t.Errorf("%s %s: %v, want a KindUnsupported error naming it", name, d, err)
			}
		}
	}
}
