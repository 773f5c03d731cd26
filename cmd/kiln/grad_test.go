package main

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestEvalGrad(t *testing.T) {
	runEvalCases(t, []evalCase{
		{"gradient of a real scalar", []string{"--arg", "x=f64[2]:0,1", "--grad", "x", "sum(x * exp(x))"},
			"f64[] 2.718281828459045\ngrad x: f64[2] [1 5.43656365691809]\n"},
		// Each gradient has its argument's dtype: x's f32, w's f16 (sin(x)
		// rounded to f16 per op, as the forward pass).
		{"gradients keep their arguments' dtypes", []string{"--arg", "x=f32[3]:0.5,1,2", "--arg", "w=f16[3]:1,2,3", "--grad", "x,w", "sum(sin(x) * w)"},
			"f32[] 4.8902597\ngrad x: f32[3] [0.87758255 1.0806046 -1.2484405]\ngrad w: f16[3] [0.4795 0.8413 0.909]\n"},
		{"a weak argument has a weak gradient", []string{"--arg", "s=f64*:3", "--grad", "s", "s * s"}, "f64*[] 9\ngrad s: f64*[] 6\n"},
		{"ties split in half", []string{"--arg", "x=f32[2]:1,2", "--arg", "y=f32[2]:1,0", "--grad", "x,y", "sum(maximum(x, y))"},
			"f32[] 3\ngrad x: f32[2] [0.5 1]\ngrad y: f32[2] [0.5 0]\n"},
		{"--grad repeated", []string{"--arg", "a=f32:2", "--arg", "b=f32:3", "--grad", "b", "--grad", "a", "a * b"}, "f32[] 6\ngrad b: f32[] 2\ngrad a: f32[] 3\n"},
	})
}

func TestEvalGradJSON(t *testing.T) {
	out, errOut, status := eval("--json", "--arg", "x=f32[3]:0.5,1,2", "--arg", "w=f16[3]:1,2,3", "--grad", "w,x", "sum(sin(x) * w)")
	if status != 0 || errOut != "" {
		t.Fatalf("status %d, stderr %q", status, errOut)
	}
	want := `{"dtype":"f32","weak":false,"shape":[],"values":[4.8902597],"grad":{"w":{"dtype":"f16","weak":false,"shape":[3],"values":[0.4795,0.8413,0.909]},"x":{"dtype":"f32","weak":false,"shape":[3],"values":[0.87758255,1.0806046,-1.2484405]}}}` + "\n"
	if out != want {
		t.Errorf("got  %s\nwant %s", out, want)
	}
}

// TestEvalGradRefusals checks JAX's refusals: kind dtype or shape, status 1.
func TestEvalGradRefusals(t *testing.T) {
	for _, c := range []struct {
		args       []string
		kind, text string
	}{
		{[]string{"--arg", "n=i32[3]:1,2,3", "--grad", "n", "sum(n * 1.5)"}, "dtype", "grad requires real- or complex-valued inputs (input dtype that is a sub-dtype of np.inexact), but got int32"},
		{[]string{"--arg", "x=f32[3]:1,2,3", "--grad", "x", "x * 1.5"}, "shape", "Gradient only defined for scalar-output functions. Output had shape: (3,)."},
		{[]string{"--arg", "x=f32[3]:1,2,3", "--grad", "x", "sum(x * 1j)"}, "dtype", "grad requires real-valued outputs (output dtype that is a sub-dtype of np.floating), but got complex64"},
		{[]string{"--arg", "x=f32[3]:1,2,3", "--grad", "x", "argmax(x, axis=0)"}, "dtype", "For differentiation of functions with integer outputs, use jax.vjp directly"},
	} {
		out, _, status := eval(append([]string{"--json"}, c.args...)...)
		var got struct {
			Error struct{ Kind, Message string }
		}
		if err := json.Unmarshal([]byte(out), &got); err != nil || status != 1 || got.Error.Kind != c.kind || !strings.Contains(got.Error.Message, c.text) {
			t.Errorf("kiln eval %q: status %d, %s; want kind %q saying %q", c.args, status, out, c.kind, c.text)
		}
	}
	if _, errOut, status := eval("--arg", "x=f32:1", "--grad", "y", "x"); status != 2 || !strings.Contains(errOut, "--grad y: no --arg is named y") {
		t.Errorf("--grad of an unknown name: status %d, %q", status, errOut)
	}
}

// TestEvalGradPrint checks that --print program shows the backward pass,
// converts and their reasons included.
func TestEvalGradPrint(t *testing.T) {
	out, _, status := eval("--print", "program", "--arg", "x=f16[3]:1,2,3", "--grad", "x", "sum(x * x)")
	for _, want := range []string{"reduce_sum", "cotangent of convert f32 -> f16 goes back to f32", "cotangent of convert f16 -> f32 goes back to f16", "broadcast_in_dim", "grad x: f16[3] [2 4 6]"} {
		if status != 0 || !strings.Contains(out, want) {
			t.Errorf("--print program --grad: %q missing from\n%s", want, out)
		}
	}
}
