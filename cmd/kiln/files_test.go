package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kiln-go/kiln/tensor"
)

// arrayFiles writes x (f32[2,3] 0…5) as x.npy, an .npz with x and y
// (i8[2] 7 8), and a .safetensors with the same two, in dir.
func arrayFiles(t *testing.T, dir string) (x, y *tensor.Array) {
	t.Helper()
	x = tensor.Must(tensor.FromSlice([]float32{0, 1, 2, 3, 4, 5}, 2, 3))
	y = tensor.Must(tensor.FromSlice([]int8{7, 8}))
	both := []tensor.NamedArray{{Name: "x", Array: x}, {Name: "y", Array: y}}
	for _, err := range []error{
		tensor.WriteNPYFile(filepath.Join(dir, "x.npy"), x),
		tensor.WriteNPZFile(filepath.Join(dir, "xy.npz"), both, true),
		tensor.WriteSafetensorsFile(filepath.Join(dir, "xy.safetensors"), both, nil),
		tensor.WriteSafetensorsFile(filepath.Join(dir, "y.safetensors"), both[1:], nil),
	} {
		if err != nil {
			t.Fatal(err)
		}
	}
	return x, y
}

func TestEvalFileArgs(t *testing.T) {
	dir := t.TempDir()
	arrayFiles(t, dir)
	p := func(name string) string { return filepath.Join(dir, name) }
	runEvalCases(t, []evalCase{
		{"npy", []string{"--arg", "x=@" + p("x.npy"), "x * 2"}, "f32[2,3] [[0 2 4] [6 8 10]]\n"},
		{"npz member", []string{"--arg", "x=@" + p("xy.npz") + ":x", "--arg", "y=@" + p("xy.npz") + ":y", "sum(x) + y"}, "f32[2] [22 23]\n"},
		{"safetensors tensor", []string{"--arg", "x=@" + p("xy.safetensors") + ":x", "--arg", "y=@" + p("xy.safetensors") + ":y", "x[1] - y[0]"}, "f32[3] [-4 -3 -2]\n"},
		{"the only tensor needs no name", []string{"--arg", "y=@" + p("y.safetensors"), "y"}, "i8[2] [7 8]\n"},
		{"mixed with a value spec", []string{"--arg", "x=@" + p("x.npy"), "--arg", "b=f32[3]:1,1,1", "x + b"}, "f32[2,3] [[1 2 3] [4 5 6]]\n"},
	})
}

func TestEvalFileArgErrors(t *testing.T) {
	dir := t.TempDir()
	arrayFiles(t, dir)
	if err := os.WriteFile(filepath.Join(dir, "bad.npy"), []byte("\x93NUMPY\x01\x00\xff\xff{"), 0o644); err != nil {
		t.Fatal(err)
	}
	p := func(name string) string { return filepath.Join(dir, name) }
	cases := []struct {
		name, arg, kind, msg string
		status               int
	}{
		{"missing file", "x=@" + p("none.npy"), "file", "cannot open", 1},
		{"malformed file", "x=@" + p("bad.npy"), "file", "truncated: the header claims 65535 bytes", 1},
		{"no such member", "x=@" + p("xy.npz") + ":z", "argument", `has no array named "z" (it has x, y)`, 1},
		{"no such tensor", "x=@" + p("xy.safetensors") + ":z", "argument", `has no array named "z"`, 1},
		{"a member must be named", "x=@" + p("xy.npz"), "", "holds 2 arrays: name one", 2},
		{"unknown extension", "x=@" + p("x.txt"), "", "must end in .npy, .npz or .safetensors", 2},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, errOut, status := eval("--json", "--arg", c.arg, "x")
			if status != c.status {
				t.Fatalf("status %d, want %d (stdout %q, stderr %q)", status, c.status, out, errOut)
			}
			if c.status == 2 {
				if !strings.Contains(errOut, c.msg) {
					t.Errorf("stderr %q, want %q", errOut, c.msg)
				}
				return
			}
			var e struct {
				Error struct{ Kind, Message string }
			}
			if err := json.Unmarshal([]byte(out), &e); err != nil || e.Error.Kind != c.kind || !strings.Contains(e.Error.Message, c.msg) {
				t.Errorf("output %q, want kind %q and a message with %q", out, c.kind, c.msg)
			}
		})
	}
}

func TestEvalOut(t *testing.T) {
	dir := t.TempDir()
	p := func(name string) string { return filepath.Join(dir, name) }
	out, errOut, status := eval("--out", p("r.npy"), "--arg", "x=f16[3]:1,2,3", "x * 2")
	if status != 0 || out != "f16[3] [2 4 6]\n" {
		t.Fatalf("kiln eval --out r.npy: %q %q %d", out, errOut, status)
	}
	a, err := tensor.ReadNPYFile(p("r.npy"))
	if err != nil || a.String() != "f16[3] [2 4 6]" {
		t.Errorf("r.npy holds %v, %v", a, err)
	}
	// One result is named result; the value and the gradients result0, result1.
	for _, c := range []struct {
		file  string
		args  []string
		names string
	}{
		{"r.safetensors", []string{"--arg", "x=f32[2]:1,2", "x + 1"}, "result: f32[2] [2 3]"},
		{"g.safetensors", []string{"--arg", "x=f64[2]:1,2", "--grad", "x", "sum(x * x)"}, "result0: f64[] 5; result1: f64[2] [2 4]"},
		{"g.npz", []string{"--arg", "x=f64[2]:1,2", "--grad", "x", "sum(x * x)"}, "result0: f64[] 5; result1: f64[2] [2 4]"},
	} {
		if _, errOut, status := eval(append([]string{"--out", p(c.file)}, c.args...)...); status != 0 {
			t.Fatalf("%s: %s", c.file, errOut)
		}
		var arrays []tensor.NamedArray
		if strings.HasSuffix(c.file, ".npz") {
			arrays, err = tensor.ReadNPZFile(p(c.file))
		} else {
			arrays, _, err = tensor.ReadSafetensorsFile(p(c.file))
		}
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, na := range arrays {
			got = append(got, na.Name+": "+na.Array.String())
		}
		if strings.Join(got, "; ") != c.names {
			t.Errorf("%s holds %q, want %q", c.file, strings.Join(got, "; "), c.names)
		}
	}
	// A file written by --out is an argument again.
	out, _, _ = eval("--arg", "r=@"+p("r.npy"), "r + 1")
	if out != "f16[3] [3 5 7]\n" {
		t.Errorf("reading --out's file back: %q", out)
	}
	for _, c := range []struct{ args []string }{
		{[]string{"--out", p("r.txt"), "1"}},
		{[]string{"--out", p("g.npy"), "--arg", "x=f64[2]:1,2", "--grad", "x", "sum(x)"}},
	} {
		if _, errOut, status := eval(c.args...); status != 2 || !strings.Contains(errOut, "--out") {
			t.Errorf("kiln eval %q: status %d, stderr %q; want a usage error", c.args, status, errOut)
		}
	}
	if _, errOut, status := eval("--json", "--out", p("no/such/dir/r.npy"), "1"); status != 1 || errOut != "" {
		t.Errorf("--out into a missing directory: status %d, stderr %q", status, errOut)
	}
}
