package onnx_test

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kiln-go/kiln"
	"github.com/kiln-go/kiln/export/onnx"
	"github.com/kiln-go/kiln/kernels"
	"github.com/kiln-go/kiln/kernels/conformance"
	"github.com/kiln-go/kiln/lower"
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

// onnxPython is the Python whose onnx package reads the models:
// KILN_ONNX_PYTHON, else Debian's (python3-onnx), as the NumPy tests use
// Debian's NumPy.
func onnxPython() string {
	if p := os.Getenv("KILN_ONNX_PYTHON"); p != "" {
		return p
	}
	return "/usr/bin/python3"
}

// checkScript loads every model named on the command line with Python's
// onnx (a protobuf parser independent of the exporter's writer), checks
// its opset and input/output names against the expected ones, and — when
// the package knows opset 21 (onnx ≥ 1.16) — runs
// onnx.checker.check_model(full_check=True). It prints "checked N" or
// "parsed N (onnx V predates opset 21: not checked)".
const checkScript = `
import json, sys
import onnx, onnx.defs
want = json.load(open(sys.argv[1]))
full = onnx.defs.onnx_opset_version() >= 21
for path, names in want.items():
    m = onnx.load(path)
    assert [o.version for o in m.opset_import if o.domain == ""] == [21], (path, m.opset_import)
    got = [i.name for i in m.graph.input] + [o.name for o in m.graph.output]
    assert got == names, (path, got, names)
    if full:
        onnx.checker.check_model(m, full_check=True)
print(("checked %d" % len(want)) if full else ("parsed %d (onnx %s predates opset 21: not checked)" % (len(want), onnx.__version__)))
`

// TestChecker exports every conformance program the exporter accepts
// and has Python's onnx read them all (and check them, when it knows
// opset 21). KILN_REQUIRE_ONNX=1 makes a missing onnx package a failure.
func TestChecker(t *testing.T) {
	py := onnxPython()
	if err := exec.Command(py, "-c", "import onnx").Run(); err != nil {
		if os.Getenv("KILN_REQUIRE_ONNX") == "1" {
			t.Fatalf("%s -c 'import onnx': %v", py, err)
		}
		t.Skipf("skipping: no onnx package in %s (%v); set KILN_REQUIRE_ONNX=1 to make this a failure", py, err)
	}
	dir := t.TempDir()
	want := map[string][]string{}
	for i, c := range conformance.Cases() {
		p, _, err := conformance.Reference(c)
		if err != nil {
			t.Fatal(err)
		}
		m, err := lower.Compile(p, lower.Options{Fold: kernels.Fold})
		if err != nil {
			t.Fatal(err)
		}
		b, err := onnx.Export(m, onnx.Options{})
		var ue *onnx.UnsupportedError
		if errors.As(err, &ue) {
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", c.Name, err)
		}
		path := filepath.Join(dir, fmt.Sprintf("m%d.onnx", i))
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		var names []string
		for j := range m.Params {
			names = append(names, fmt.Sprintf("arg%d", j))
		}
		if len(m.Outputs) == 1 {
			names = append(names, "result")
		} else {
			for j := range m.Outputs {
				names = append(names, fmt.Sprintf("result%d", j))
			}
		}
		want[path] = names
	}
	js, _ := json.Marshal(want)
	list := filepath.Join(dir, "want.json")
	if err := os.WriteFile(list, js, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(py, "-c", checkScript, list).CombinedOutput()
	if err != nil {
		t.Fatalf("python onnx: %v\n%s", err, out)
	}
	t.Logf("%d exported conformance programs: %s", len(want), strings.TrimSpace(string(out)))
}

// TestNarrowRefusal: every narrow dtype, as an input or made by a
// convert, is a typed refusal naming it and the caller's line.
func TestNarrowRefusal(t *testing.T) {
	for _, d := range tensor.NarrowDTypes() {
		x := tensor.Must(tensor.FromSlice([]float32{1, 2})).Astype(d)
		for name, in := range map[string]*tensor.Array{"input": x, "convert": tensor.Must(tensor.FromSlice([]float32{1, 2}))} {
			m, err := kiln.Jit(func(x kiln.Value) kiln.Value { return x.Astype(d).Astype(tensor.F32).Add(kiln.Int(1)) }).Lower(in)
			if err != nil {
				t.Fatal(err)
			}
			b, err := onnx.Export(m, onnx.Options{})
			var ue *onnx.UnsupportedError
			if !errors.As(err, &ue) || b != nil || ue.DType != d || !strings.Contains(err.Error(), "narrow dtype") {
				t.Errorf("%s %s: got %v, %d bytes; want an *UnsupportedError naming %s", name, d, err, len(b), d)
			}
		}
	}
}
