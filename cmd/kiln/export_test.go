package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kiln-go/kiln/kernels/ort"
)

// TestExportONNX writes a model with kiln export, runs it on ONNX
// Runtime when it is installed, and checks the usage errors and a
// refused op.
func TestExportONNX(t *testing.T) {
	path := filepath.Join(t.TempDir(), "model.onnx")
	_, errOut, status := kiln("export", "--format", "onnx", "-o", path, "--arg", "x=i32[2,3]:1,2,3,4,5,6", "--arg", "w=f32[3]:1,1,1", "x @ w + 1")
	if status != 0 {
		t.Fatalf("status %d: %s", status, errOut)
	}
	model, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"x", "w", "result", "Cast", "MatMul"} { // names and op types are plain strings in the protobuf
		if !strings.Contains(string(model), want) {
			t.Errorf("the model lacks %q", want)
		}
	}
	for _, c := range []struct {
		args []string
		want string
		code int
	}{
		{[]string{"export", "--format", "tflite", "-o", path, "1"}, "only onnx", 2},
		{[]string{"export", "--arg", "x=f32[2]:1,2", "x"}, "no output file", 2},
		{[]string{"export", "-o", path, "--arg", "x=f32[2]:1,2", "arctan2(x, x)"}, "atan2", 1},
		{[]string{"export", "-o", path, "--arg", "x=c64[2]:1,2", "x * 2"}, "c64 has no ONNX Runtime kernels", 1},
	} {
		_, errOut, status := kiln(c.args...)
		if status != c.code || !strings.Contains(errOut, c.want) || strings.Contains(errOut, ".go:") {
			t.Errorf("kiln %q: status %d, stderr %q; want %d and %q", c.args, status, errOut, c.code, c.want)
		}
	}
	if _, err := ort.New(ort.Options{}); err != nil {
		if ort.Unavailable(err) && os.Getenv("KILN_REQUIRE_ORT") != "1" {
			t.Skipf("skipping the ONNX Runtime part: %v", err)
		}
		t.Fatal(err)
	}
	out, errOut, status := kiln("eval", "--backend", "ort", "--arg", "x=i32[2,3]:1,2,3,4,5,6", "--arg", "w=f32[3]:1,1,1", "x @ w + 1")
	if status != 0 || strings.TrimSpace(out) != "f32[2] [7 16]" {
		t.Errorf("eval --backend ort: status %d, %q %s", status, out, errOut)
	}
}
