package onnx_test

import (
	"encoding/binary"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kiln-go/kiln"
	"github.com/kiln-go/kiln/export/onnx"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// field is one decoded protobuf field: a varint or the bytes of a
// length-delimited one.
type field struct {
	num   int
	wire  int
	v     uint64
	bytes []byte
}

// decode splits a message into its fields (an independent reader of
// the wire format the exporter writes).
func decode(t *testing.T, b []byte) []field {
	t.Helper()
	var fs []field
	for len(b) > 0 {
		key, n := binary.Uvarint(b)
		if n <= 0 {
			t.Fatalf("bad key at %d bytes from the end", len(b))
		}
		b = b[n:]
		f := field{num: int(key >> 3), wire: int(key & 7)}
		switch f.wire {
		case 0:
			f.v, n = binary.Uvarint(b)
			b = b[n:]
		case 2:
			l, n := binary.Uvarint(b)
			f.bytes, b = b[n:n+int(l)], b[n+int(l):]
		case 5:
			f.v, b = uint64(binary.LittleEndian.Uint32(b)), b[4:]
		default:
			t.Fatalf("unexpected wire type %d", f.wire)
		}
		fs = append(fs, f)
	}
	return fs
}

func get(fs []field, num int) []field {
	var out []field
	for _, f := range fs {
		if f.num == num {
			out = append(out, f)
		}
	}
	return out
}

func lowered(t *testing.T, fn any, args ...any) []byte {
	t.Helper()
	m, err := kiln.Jit(fn).Lower(args...)
	if err != nil {
		t.Fatal(err)
	}
	b, err := onnx.Export(m, onnx.Options{InputNames: []string{"x", "w"}})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestModelStructure reads the model back: IR version, opset 21, inputs
// named after the arguments with their types and shapes, one output
// named result, and the promotion's convert visible as a Cast.
func TestModelStructure(t *testing.T) {
	x, _ := tensor.FromSlice([]int32{1, 2, 3, 4, 5, 6}, 2, 3)
	w, _ := tensor.FromSlice([]float32{1, 1, 1}, 3)
	b := lowered(t, func(x, w kiln.Value) kiln.Value { return kiln.MatMul(x, w).Add(kiln.Int(1)) }, x, w)
	m := decode(t, b)
	if ir := get(m, 1); len(ir) != 1 || ir[0].v != 10 {
		t.Errorf("ir_version %v, want 10", ir)
	}
	op := get(m, 8)
	if len(op) != 1 || get(decode(t, op[0].bytes), 2)[0].v != onnx.Opset {
		t.Errorf("opset_import %v, want version %d", op, onnx.Opset)
	}
	g := decode(t, get(m, 7)[0].bytes)
	var ins []string
	for _, in := range get(g, 11) {
		vi := decode(t, in.bytes)
		ins = append(ins, string(get(vi, 1)[0].bytes))
		tt := decode(t, get(decode(t, get(vi, 2)[0].bytes), 1)[0].bytes)
		var dims []uint64
		for _, d := range get(decode(t, get(tt, 2)[0].bytes), 1) {
			dims = append(dims, get(decode(t, d.bytes), 1)[0].v)
		}
		want := map[string][]uint64{"x": {2, 3}, "w": {3}}[ins[len(ins)-1]]
		if !slices.Equal(dims, want) {
			t.Errorf("input %s has dims %v, want %v", ins[len(ins)-1], dims, want)
		}
	}
	if !slices.Equal(ins, []string{"x", "w"}) {
		t.Errorf("inputs %q, want x, w", ins)
	}
	outs := get(g, 12)
	if len(outs) != 1 || string(get(decode(t, outs[0].bytes), 1)[0].bytes) != "result" {
		t.Errorf("want one output named result")
	}
	var ops []string
	for _, n := range get(g, 1) {
		ops = append(ops, string(get(decode(t, n.bytes), 4)[0].bytes))
	}
	if !slices.Contains(ops, "Cast") || !slices.Contains(ops, "MatMul") {
		t.Errorf("nodes %v: want the i32 → f32 promotion as a Cast and a MatMul", ops)
	}
}

// TestRefusal: an op ONNX cannot express is a typed error naming the op,
// the dtype and the caller's line, and no model.
func TestRefusal(t *testing.T) {
	x, _ := tensor.FromSlice([]float32{1, 2}, 2)
	m, err := kiln.Jit(func(x kiln.Value) kiln.Value { return x.Atan2(x) }).Lower(x)
	if err != nil {
		t.Fatal(err)
	}
	b, err := onnx.Export(m, onnx.Options{})
	var ue *onnx.UnsupportedError
	if !errors.As(err, &ue) || b != nil {
		t.Fatalf("got %v, %d bytes; want an *UnsupportedError and no model", err, len(b))
	}
	if ue.Op != trace.OpAtan2 || ue.DType != tensor.F32 || !strings.Contains(err.Error(), "export_test.go:") {
		t.Errorf("error %q (op %s, dtype %s): want atan2 on f32 at this file's line", err, ue.Op, ue.DType)
	}
}

// TestNames: bad input or output names are errors.
func TestNames(t *testing.T) {
	x, _ := tensor.FromSlice([]float32{1, 2}, 2)
	m, err := kiln.Jit(func(x kiln.Value) kiln.Value { return x.Neg() }).Lower(x)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range []onnx.Options{
		{InputNames: []string{"a", "b"}},
		{InputNames: []string{"result"}},
		{InputNames: []string{"t3"}},
		{OutputNames: []string{""}},
	} {
		if _, err := onnx.Export(m, o); err == nil {
			t.Errorf("%+v: no error", o)
		}
	}
}

// TestChecker runs onnx.checker.check_model(full_check=True) on exported
// models, when Python's onnx package is installed (KILN_REQUIRE_ONNX=1
// makes its absence a failure).
func TestChecker(t *testing.T) {
	if err := exec.Command("python3", "-c", "import onnx").Run(); err != nil {
		if os.Getenv("KILN_REQUIRE_ONNX") == "1" {
			t.Fatalf("python3 -c 'import onnx': %v", err)
		}
		t.Skipf("skipping: no python3 onnx package (%v); set KILN_REQUIRE_ONNX=1 to make this a failure", err)
	}
	x, _ := tensor.FromSlice([]int32{1, 2, 3, 4, 5, 6}, 2, 3)
	w, _ := tensor.FromSlice([]float32{1, 1, 1}, 3)
	b := lowered(t, func(x, w kiln.Value) kiln.Value {
		y := kiln.MatMul(x, w).Add(kiln.Int(1))
		return y.Maximum(y.Neg()).Sum()
	}, x, w)
	path := filepath.Join(t.TempDir(), "m.onnx")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("python3", "-c", "import onnx, sys; onnx.checker.check_model(sys.argv[1], full_check=True)", path).CombinedOutput()
	if err != nil {
		t.Fatalf("onnx.checker: %v\n%s", err, out)
	}
}
