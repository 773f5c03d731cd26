package main

import (
	"strings"
	"testing"
)

// TestEvalMemoryLimit: --memory-limit takes 1GiB-style sizes; a program
// over it fails with kind size at the expression, the escapes of issue 25
// are size errors at their function, and arange at the int64 limits
// prints NumPy's values.
func TestEvalMemoryLimit(t *testing.T) {
	for _, c := range []struct {
		name string
		args []string
		msg  string // a substring of the --json error message
	}{
		{"three buffers over the budget", []string{"--memory-limit", "10MiB", "--arg", "x=f32:1",
			"stack([exp(broadcast_to(x, (1000000,))), sin(broadcast_to(x, (1000000,))), cos(broadcast_to(x, (1000000,)))])"},
			"over its memory budget of 10485760 bytes (10 MiB)"},
		{"repeat's index list over the budget", []string{"--memory-limit", "512MiB", "--arg", "x=f32[2]:1,2", "x + repeat(x, (10**9, 1))"},
			"trace: repeat at <expr>:1:5: the program would hold 8000000008 bytes"},
		{"repeat past the int range", []string{"--arg", "x=f32[2]:1,2", "repeat(x, (2**62, 2**62))"},
			"trace: repeat at <expr>:1:1: the repeated axis (the sum of 2 repeat counts) has more elements than an int holds"},
		{"one_hot of 2**62 classes", []string{"--arg", "i=i64[3]:0,1,2", "one_hot(i, 2**62)"},
			"trace: one_hot at <expr>:1:1: the result f64[3,4611686018427387904] is too large"},
	} {
		t.Run(c.name, func(t *testing.T) {
			out, _, status := eval(append([]string{"--json"}, c.args...)...)
			if status != 1 || !strings.Contains(out, `"kind":"size"`) || !strings.Contains(out, c.msg) {
				t.Errorf("kiln eval %q: status %d, %s; want kind size and %q", c.args, status, out, c.msg)
			}
		})
	}
	runEvalCases(t, []evalCase{
		{"arange over the whole int64 range", []string{"arange(-9223372036854775808, 9223372036854775807, 2**62)"},
			"i64[4] [-9223372036854775808 -4611686018427387904 0 4611686018427387904]\n"},
		{"arange to MaxInt64", []string{"arange(0, 9223372036854775807, 2**62)"}, "i64[2] [0 4611686018427387904]\n"},
		{"a budget that fits", []string{"--memory-limit", "1GiB", "--arg", "x=f32[3]:1,2,3", "x * 2"}, "f32[3] [2 4 6]\n"},
	})
	out, errOut, status := eval("--memory-limit", "lots", "1")
	if first, _, _ := strings.Cut(errOut, "\n"); status != 2 || out != "" || !strings.HasPrefix(first, `kiln eval: --memory-limit "lots": want bytes`) {
		t.Errorf("a malformed --memory-limit: status %d, stderr %q", status, errOut)
	}
}
