package main

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/kiln-go/kiln/tensor"
)

// TestEvalHugeArgs: before checked sizes a shape whose size overflowed
// made an empty array that panicked when printed, and one that fit but
// did not fit in memory crashed the process allocating it.
func TestEvalHugeArgs(t *testing.T) {
	for _, c := range []struct{ arg, msg string }{
		{"x=f32[4294967296,4294967296]:zeros", "shape [4294967296,4294967296]: 18446744073709551616 elements"},
		{"x=f32[1000000000000]:zeros", "shape [1000000000000]: 4000000000000 bytes of f32"},
		{"x=c64[1000000000000]:1,2", "shape [1000000000000]: 8000000000000 bytes of c64"},
		{"x=i8[0,4294967296,4294967296]:arange", "shape [0,4294967296,4294967296]: 18446744073709551616 elements"},
	} {
		out, errOut, status := eval("--json", "--arg", c.arg, "x")
		var got struct {
			Error struct{ Kind, Message string }
		}
		if err := json.Unmarshal([]byte(out), &got); err != nil || status != 1 || errOut != "" {
			t.Errorf("--arg %s: status %d, stdout %q, stderr %q", c.arg, status, out, errOut)
			continue
		}
		if got.Error.Kind != "size" || !strings.Contains(got.Error.Message, c.msg) {
			t.Errorf("--arg %s: %+v, want kind size and %q", c.arg, got.Error, c.msg)
		}
	}
	prev := tensor.SetMaxAlloc(1 << 10) // as KILN_MAX_ALLOC=1KiB would
	defer tensor.SetMaxAlloc(prev)
	_, errOut, status := eval("--arg", "x=f32[1000]:zeros", "x")
	if status != 1 || !strings.Contains(errOut, "over the allocation limit of 1 KiB") {
		t.Errorf("f32[1000] under a 1 KiB limit: status %d, %q", status, errOut)
	}
}

// TestEvalHelpOnce: --help printed the short usage to stderr before the
// full usage to stdout.
func TestEvalHelpOnce(t *testing.T) {
	for _, cmd := range []string{"eval", "promote", "table"} {
		out, errOut, status := kiln(cmd, "--help")
		if status != 0 || errOut != "" || strings.Count(out, "usage: kiln "+cmd) != 1 {
			t.Errorf("kiln %s --help: status %d, %d usages on stdout, stderr %q", cmd, status, strings.Count(out, "usage:"), errOut)
		}
	}
	_, errOut, status := eval("--bogus", "1")
	if status != 2 || strings.Count(errOut, "usage: kiln eval") != 1 || !strings.HasPrefix(errOut, "flag provided but not defined: -bogus\n") {
		t.Errorf("a bad flag: status %d, stderr %q", status, errOut)
	}
}

// FuzzParseArg: any --arg text parses to an array of its shape or fails
// with a *specError; it never panics, and never allocates past the limit.
func FuzzParseArg(f *testing.F) {
	for _, s := range []string{"x=f32[3]:1,2,3", "x=i8[2,3]:arange", "x=c64[2]:1+2j,nan", "x=u8*:3",
		"x=f32[4294967296,4294967296]:zeros", "x=bool[0,99999999999]:ones", "x=f16[2]:rand(1)", "x=i64[-1]:1", "x=f32["} {
		f.Add(s)
	}
	old := tensor.SetMaxAlloc(1 << 20)
	defer tensor.SetMaxAlloc(old)
	f.Fuzz(func(t *testing.T, s string) {
		a, err := parseArg(s)
		var se *specError
		if err != nil {
			if !errors.As(err, &se) {
				t.Fatalf("parseArg(%q): untyped error %v", s, err)
			}
			return
		}
		n, err := tensor.ShapeSize(a.shape)
		if err != nil || a.array.Size() != n || !a.array.HasShape(a.shape) || a.array.DType() != a.dtype {
			t.Fatalf("parseArg(%q): array %v for shape %v (%v)", s, a.array, a.shape, err)
		}
		_ = a.array.String()
	})
}

// TestEvalHugeShapes: sum(broadcast_to(x, (2**40, 2**40, 2, 3))) printed
// f32[] 0 (the broadcast's size wrapped to 0), and 2**40 was not accepted
// as a dimension.
func TestEvalHugeShapes(t *testing.T) {
	for _, c := range []struct{ expr, msg string }{
		{"sum(broadcast_to(x, (2**40, 2**40, 2, 3)))", "the result f32[1099511627776,1099511627776,2,3] is too large"},
		{"exp(broadcast_to(x, (100000, 100000, 100)))", "shape [100000,100000,100]: 4000000000000 bytes of f32 (3.64 TiB) are over the allocation limit"},
	} {
		out, errOut, status := eval("--json", "--arg", "x=f32:1", c.expr)
		var got struct {
			Error struct{ Kind, Message string }
		}
		if err := json.Unmarshal([]byte(out), &got); err != nil || status != 1 || errOut != "" ||
			got.Error.Kind != "size" || !strings.Contains(got.Error.Message, c.msg) {
			t.Errorf("%s: status %d, %q, stderr %q; want kind size and %q", c.expr, status, out, errOut, c.msg)
		}
	}
}

func TestEvalStaticIntExpressions(t *testing.T) {
	runEvalCases(t, []evalCase{
		{"power and negation", []string{"--arg", a23, "reshape(a, (2**1, -1))"}, "i32[2,3] [[0 1 2] [3 4 5]]\n"},
		{"floor division as Python", []string{"--arg", a23, "sum(a, axis=-7//4)"}, "i64[3] [3 5 7]\n"},
		{"modulo as Python", []string{"--arg", a23, "sum(a, axis=-1 % 2)"}, "i64[2] [3 12]\n"},
	})
	for _, c := range []struct{ expr, kind, msg string }{
		{"sum(a, axis=2**64)", "overflow", "the static int 18446744073709551616 does not fit in int64"},
		{"sum(a, axis=1//0)", "syntax", "integer division or modulo by zero"},
		{"sum(a, axis=2**-1)", "syntax", "2 ** -1 is not an int (a negative power)"},
		{"sum(a, axis=1+a)", "syntax", `expected an int literal (axes, shapes and indices are static), found name "a"`},
	} {
		out, _, status := eval("--json", "--arg", a23, c.expr)
		var got struct {
			Error struct{ Kind, Message string }
		}
		if err := json.Unmarshal([]byte(out), &got); err != nil || status != 1 || got.Error.Kind != c.kind || !strings.HasSuffix(got.Error.Message, c.msg) {
			t.Errorf("%s: %q; want kind %s and %q", c.expr, out, c.kind, c.msg)
		}
	}
}
