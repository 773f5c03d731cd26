package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// Issue 25's escapes as the CLI sees them: each command once failed
// inside the library, reported the wrong kind, or pointed at this
// program's Go source instead of the expression.
func TestEvalEscapes(t *testing.T) {
	runEvalCases(t, []evalCase{
		{"zero-length scan ys", []string{"scan(lambda c, x: (c + sum(x), c * x), 1.0, zeros((0, 2), float32))[1]"}, "f32[0,2] []\n"},
		{"zero-length scan carry", []string{"scan(lambda c, x: (c + sum(x), c * x), 1.0, zeros((0, 2), float32))[0]"}, "f32[] 1\n"},
		{"scan length", []string{"scan(lambda c, _: (c * 2, c), 1.0, length=3)[1]"}, "f64*[3] [1 2 4]\n"},
		{"scan length 0 ys", []string{"scan(lambda c, _: (c * 2, c), 1.0, length=0)[1]"}, "f64*[0] []\n"},
		{"scan length 0 carry", []string{"scan(lambda c, _: (c * 2, c), 1.0, length=0)[0]"}, "f64*[] 1\n"},
		{"strict weak loop grad", []string{"--strict", "--arg", "x=f32*:0.5", "--grad", "x", "astype(fori_loop(0, 1, lambda i, c: c * x, x), f64)"},
			"f64[] 0.25\ngrad x: f32*[] 1\n"},
		{"strict weak scan grad", []string{"--strict", "--arg", "x=f32*:0.5", "--grad", "x", "astype(scan(lambda c, y: (c * x, c), x, ones((2,), float32))[0], f64)"},
			"f64[] 0.125\ngrad x: f32*[] 0.75\n"},
	})
	for _, c := range []struct {
		name       string
		args       []string
		kind, want string
	}{
		{"carry changes type", []string{"--arg", "n=i32:1", "2 + fori_loop(0, 3, lambda i, c: c * 0.5, n)"}, "control",
			"trace: fori_loop at <expr>:1:5: fori_loop body function carry input and carry output must have equal types"},
		{"scan length 0 over xs", []string{"scan(lambda c, x: (c + x, c), 0.0, zeros((2,)), length=0)[0]"}, "control",
			"trace: scan at <expr>:1:1: scan got `length` argument of 0 and xs with leading axis sizes [2]"},
		{"scan without xs or length", []string{"1 + scan(lambda c, _: (c, c), 1.0)[0]"}, "control",
			"trace: scan at <expr>:1:5: scan got no values to scan over and `length` not provided"},
		{"scan carry error at the call", []string{"1 + scan(lambda c, x: (c + x, x), 0.0, zeros((2, 3)))[0]"}, "control",
			"trace: scan at <expr>:1:5: scan body function carry input and carry output must have equal types"},
		{"scan x without xs", []string{"scan(lambda c, x: (c + x, c), 0.0, length=2)[0]"}, "syntax",
			"eval: <expr>:1:6: scan: without xs, f's x (x) is None: give xs, or do not use x"},
		{"reverse mode through a while", []string{"--arg", "x=f32:0.5", "--grad", "x", "1 + while_loop(lambda c: c < 3, lambda c: c * x, x)"}, "derivative",
			"trace: while at <expr>:1:5: Reverse-mode differentiation does not work for lax.while_loop"},
		{"reverse mode through a dynamic fori_loop", []string{"--arg", "x=f32:0.5", "--arg", "n=i32:3", "--grad", "x", "x * 2 + sum(fori_loop(0, n, lambda i, c: c * x, x))"}, "derivative",
			"trace: while at <expr>:1:13: Reverse-mode differentiation does not work"},
	} {
		t.Run(c.name, func(t *testing.T) {
			out, _, status := eval(append([]string{"--json"}, c.args...)...)
			var got struct {
				Error struct{ Kind, Message string }
			}
			if err := json.Unmarshal([]byte(out), &got); err != nil || status != 1 || got.Error.Kind != c.kind || !strings.HasPrefix(got.Error.Message, c.want) {
				t.Errorf("kiln eval --json %q: status %d, %s; want kind %q, message %q…", c.args, status, out, c.kind, c.want)
			}
			_, errOut, _ := eval(c.args...)
			if !strings.HasPrefix(errOut, c.want) || !strings.Contains(errOut, "\n  "+c.args[len(c.args)-1]+"\n") {
				t.Errorf("kiln eval %q: stderr %q, want %q… with a caret", c.args, errOut, c.want)
			}
		})
	}
}
