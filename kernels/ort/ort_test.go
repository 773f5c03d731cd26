package ort_test

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/kiln-go/kiln"
	"github.com/kiln-go/kiln/export/onnx"
	"github.com/kiln-go/kiln/kernels"
	"github.com/kiln-go/kiln/kernels/ort"
	"github.com/kiln-go/kiln/tensor"
)

// backend returns the ONNX Runtime backend or skips the test when the
// library is not installed — unless KILN_REQUIRE_ORT=1 (as in CI), which
// makes that a failure.
func backend(t *testing.T) *ort.Backend {
	t.Helper()
	b, err := ort.New(ort.Options{Threads: 1})
	if err != nil {
		if ort.Unavailable(err) && os.Getenv("KILN_REQUIRE_ORT") != "1" {
			t.Skipf("skipping: no ONNX Runtime (%v); set KILN_REQUIRE_ORT=1 to make this a failure", err)
		}
		t.Fatal(err)
	}
	return b
}

// TestWithBackend runs a Go program through kiln.WithBackend on ONNX
// Runtime and checks it against the CPU backend, then the argument
// checks and Close.
func TestWithBackend(t *testing.T) {
	b := backend(t)
	fn := func(x, w kiln.Value) kiln.Value {
		return kiln.MatMul(x, w).Add(kiln.Int(1)).Maximum(kiln.Float(0)).Sum()
	}
	x, _ := tensor.FromSlice([]int32{1, -2, 3, 4, 5, -6}, 2, 3)
	w, _ := tensor.FromSlice([]float32{0.5, -1, 2}, 3)
	got, err := kiln.Jit(fn, kiln.WithBackend(b)).Run(x, w)
	if err != nil {
		t.Fatal(err)
	}
	want, err := kiln.Jit(fn).Run(x, w)
	if err != nil {
		t.Fatal(err)
	}
	if !tensor.Equal(got, want) {
		t.Errorf("ort %v, cpu %v", got, want)
	}

	m, err := kiln.Jit(fn).Lower(x, w)
	if err != nil {
		t.Fatal(err)
	}
	exe, err := b.Compile(m)
	if err != nil {
		t.Fatal(err)
	}
	var ae *kernels.ArgError
	if _, err := exe.Run([]*tensor.Array{x}); !errors.As(err, &ae) {
		t.Errorf("one input: %v, want a *kernels.ArgError", err)
	}
	if _, err := exe.Run([]*tensor.Array{w, x}); !errors.As(err, &ae) {
		t.Errorf("swapped inputs: %v, want a *kernels.ArgError", err)
	}
	exe.(io.Closer).Close()
	var oe *ort.Error
	if _, err := exe.Run([]*tensor.Array{x, w}); !errors.As(err, &oe) || oe.Kind != ort.KindClosed {
		t.Errorf("after Close: %v, want a KindClosed *ort.Error", err)
	}
}

// TestRefusedAtCompile: a program with an op the exporter refuses fails
// Compile with its *onnx.UnsupportedError.
func TestRefusedAtCompile(t *testing.T) {
	b := backend(t)
	x, _ := tensor.FromSlice([]float32{1, 2}, 2)
	_, err := kiln.Jit(func(x kiln.Value) kiln.Value { return x.Atan2(x) }, kiln.WithBackend(b)).Run(x)
	var ue *onnx.UnsupportedError
	if !errors.As(err, &ue) {
		t.Fatalf("got %v, want an *onnx.UnsupportedError", err)
	}
}

// TestMissingLibrary: a wrong path is an error Unavailable recognizes.
func TestMissingLibrary(t *testing.T) {
	_, err := ort.New(ort.Options{Library: filepath.Join(t.TempDir(), "libonnxruntime.so.1")})
	if !ort.Unavailable(err) {
		t.Errorf("got %v, want an error for which Unavailable is true", err)
	}
	if _, err := ort.New(ort.Options{Provider: "rocm-nope"}); !ort.Unavailable(err) {
		t.Errorf("unknown provider: %v", err)
	}
}

// TestConcurrentRuns runs one executable from several goroutines (run
// with -race): every result is the single-threaded one.
func TestConcurrentRuns(t *testing.T) {
	b := backend(t)
	x, _ := tensor.FromSlice([]float32{1, -2, 3, 4, 5, -6, 7, 8}, 2, 4)
	m, err := kiln.Jit(func(x kiln.Value) kiln.Value { return x.Exp().Sum(1).Add(x.Max()) }).Lower(x)
	if err != nil {
		t.Fatal(err)
	}
	exe, err := b.Compile(m)
	if err != nil {
		t.Fatal(err)
	}
	defer exe.(io.Closer).Close()
	want, err := exe.Run([]*tensor.Array{x})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for range 8 {
		wg.Go(func() {
			for range 20 {
				got, err := exe.Run([]*tensor.Array{x})
				if err == nil && !tensor.Equal(got[0], want[0]) {
					err = fmt.Errorf("got %v, want %v", got[0], want[0])
				}
				if err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// TestProvider: the CUDA and TensorRT execution providers are options;
// with the CPU build of the library (the npm package's) asking for one
// is an error for which Unavailable is true, naming the provider.
func TestProvider(t *testing.T) {
	backend(t) // skips without the library
	for _, p := range []string{"cuda", "tensorrt"} {
		b, err := ort.New(ort.Options{Provider: p})
		if err == nil {
			t.Logf("%s: this library has the %s execution provider (%s)", p, p, b.Name())
			continue
		}
		var oe *ort.Error
		if !errors.As(err, &oe) || oe.Kind != ort.KindProvider || !ort.Unavailable(err) {
			t.Errorf("%s: %v, want a KindProvider error", p, err)
		}
		t.Logf("%s: %v", p, err)
	}
}

// TestExportProgram exports a traced program (lower.Lower only: the
// loop's and cond's sub-programs are lowered by the exporter) with named
// inputs and runs the model on ONNX Runtime against Kiln's CPU backend.
func TestExportProgram(t *testing.T) {
	b := backend(t)
	fn := func(x, n kiln.Value) kiln.Value {
		out := kiln.ForiLoop(kiln.Int(0), n, func(i kiln.Value, c []kiln.Value) []kiln.Value {
			return []kiln.Value{c[0].Mul(kiln.Float(0.5)).Add(i.Astype(tensor.F32))}
		}, x)
		return kiln.Cond(out[0].Sum().Gt(kiln.Int(10)),
			func(o []kiln.Value) []kiln.Value { return []kiln.Value{o[0].Neg()} },
			func(o []kiln.Value) []kiln.Value { return []kiln.Value{o[0].Exp()} }, out[0])[0]
	}
	x, _ := tensor.FromSlice([]float32{1, 2, 3}, 3)
	n := tensor.Scalar(int32(5))
	p, err := kiln.Jit(fn).Trace(x, n)
	if err != nil {
		t.Fatal(err)
	}
	model, err := onnx.ExportProgram(p, onnx.Options{InputNames: []string{"x", "n"}, OutputNames: []string{"y"}})
	if err != nil {
		t.Fatal(err)
	}
	m, err := kiln.Jit(fn).Lower(x, n)
	if err != nil {
		t.Fatal(err)
	}
	exe, err := b.CompileModel(m, model, []string{"x", "n"}, []string{"y"})
	if err != nil {
		t.Fatal(err)
	}
	got, err := exe.Run([]*tensor.Array{x, n})
	if err != nil {
		t.Fatal(err)
	}
	want, err := kiln.Jit(fn).Run(x, n)
	if err != nil {
		t.Fatal(err)
	}
	if !tensor.Equal(got[0], want) {
		t.Errorf("ort %v, cpu %v", got[0], want)
	}
}
