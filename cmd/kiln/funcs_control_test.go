package main

import (
	"strings"
	"testing"
)

// jax.lax's control flow with lambdas: fori_loop, while_loop, cond,
// switch and scan, with JAX's results (types included: a Python-float
// carry stays weak, a weak carry meeting an f32 array becomes f32).
func TestEvalControlFlow(t *testing.T) {
	runEvalCases(t, []evalCase{
		{"fori_loop", []string{"fori_loop(0, 10, lambda i, x: x * 2, 1.0)"}, "f64*[] 1024\n"},
		{"fori_loop uses i", []string{"fori_loop(1, 5, lambda i, x: x * i, 1)"}, "i64*[] 24\n"},
		{"fori_loop array", []string{"--arg", "x=f32[3]:1,2,3", "fori_loop(0, 3, lambda i, c: c * x, x)"}, "f32[3] [1 16 81]\n"},
		{"fori_loop weak carry promoted", []string{"--arg", "x=f32[]:0.5", "fori_loop(0, 2, lambda i, c: c * x, 1.0)"}, "f32[] 0.25\n"},
		{"while_loop", []string{"while_loop(lambda x: x < 100, lambda x: x * 3, 1)"}, "i64*[] 243\n"},
		{"cond true", []string{"--arg", "x=f32[4]:1,-2,3,-4", "cond(sum(x) < 0, lambda x: x, lambda x: -x, x)"}, "f32[4] [1 -2 3 -4]\n"},
		{"cond false", []string{"--arg", "x=f32[4]:1,-2,3,4", "cond(sum(x) < 0, lambda x: x, lambda x: -x, x)"}, "f32[4] [-1 2 -3 -4]\n"},
		{"cond int pred", []string{"--arg", "n=i32:3", "cond(n, lambda: 1, lambda: 2)"}, "i64*[] 1\n"},
		{"switch clamps", []string{"--arg", "i=i32:5", "switch(i, (lambda: 1.0, lambda: 2.0))"}, "f64*[] 2\n"},
		{"switch operand", []string{"--arg", "i=i32:0", "--arg", "x=f64[2]:1,2", "switch(i, (lambda v: v + 1, lambda v: v * 10), x)"}, "f64[2] [2 3]\n"},
		{"scan cumulative sum", []string{"--arg", "xs=f32[5]:arange", "scan(lambda c, x: (c + x, c + x), 0.0, xs)[1]"}, "f32[5] [0 1 3 6 10]\n"},
		{"scan carry", []string{"--arg", "xs=f32[5]:arange", "scan(lambda c, x: (c + x, c), 0.0, xs)[0]"}, "f32[] 10\n"},
		{"scan reverse", []string{"--arg", "xs=i32[4]:1,2,3,4", "scan(lambda c, x: (c * 10 + x, c), 0, xs, reverse=True)[1]"}, "i32[4] [432 43 4 0]\n"},
		{"nested", []string{"fori_loop(0, 3, lambda i, x: fori_loop(0, 2, lambda j, y: y + i, x), 0)"}, "i64*[] 6\n"},
		{"fori_loop tuple", []string{"fori_loop(0, 10, lambda i, c: (c[0] + i, c[1] * 2), (0, 1.0))[1]"}, "f64*[] 1024\n"},
		{"fori_loop tuple sum", []string{"fori_loop(0, 10, lambda i, c: (c[0] + i, c[1] * 2), (0, 1.0))[0]"}, "i64*[] 45\n"},
		{"while_loop tuple", []string{"while_loop(lambda c: c[0] < 5, lambda c: (c[0] + 1, c[1] + c[0]), (0, 0))[-1]"}, "i64*[] 10\n"},
		{"fibonacci", []string{"fori_loop(0, 10, lambda i, c: (c[1], c[0] + c[1]), (0, 1))[0]"}, "i64*[] 55\n"},
	})
	for _, tc := range []struct{ expr, want string }{
		{"fori_loop(0, 3, lambda x: x, 1.0)", "body_fun takes 2 arguments, the lambda has 1"},
		{"while_loop(lambda x: x, lambda x: x, 1.0)", "cond_fun must return a boolean scalar"},
		{"fori_loop(0, 3, lambda i, x: astype(x, f32), astype(1, i32))", "carry input and carry output must have equal types"},
		{"cond(1.5, lambda: 1, lambda: 2)", "Pred type must be either boolean or number, got f64"},
		{"cond(True, lambda: 1, lambda: 2.0)", "true_fun and false_fun output must have identical types"},
		{"scan(lambda c, x: c, 0.0, arange(3))", "f must return a pair (carry, y)"},
		{"scan(lambda c, x: (c, x), 0.0, arange(3))", "scan returns a tuple: index it"},
		{"fori_loop(0, 3, lambda i, c: (c[0], c[1]), (1, 2.0))", "fori_loop returns a tuple: index it"},
		{"fori_loop(0, 3, lambda i, c: c, (1, 2.0))[0]", "body_fun must return a tuple of 2 carries"},
		{"fori_loop(0, 3, lambda i, c: (c[2], c[0]), (1, 2.0))[0]", "index 2 out of range"},
		{"fori_loop(0, 3, lambda i, c: (c + 1, c), (1, 2.0))[0]", "c is a tuple of 2 carries: index it"},
		{"fori_loop(0, 3, lambda i, c: (c[0], c[1]), (1, 2.0))[5]", "index 5 out of range"},
		{"lambda x: x", "a lambda is not an array"},
		{"fori_loop(0, 2, lambda i, x: x + q, 1)", `unknown name "q"`},
	} {
		_, errOut, status := eval(tc.expr)
		if status == 0 || !strings.Contains(errOut, tc.want) {
			t.Errorf("%s: status %d, %q; want an error saying %q", tc.expr, status, errOut, tc.want)
		}
		if strings.Contains(errOut, ".go:") {
			t.Errorf("%s: the error points at the interpreter's Go source, not the expression: %q", tc.expr, errOut)
		}
	}
}
