package main

import (
	"strings"
	"testing"
)

// jnp.pad's pad_width and constant_values forms (issue 25: the per-axis
// form, the one most code uses, was a syntax error). Expected values are
// np.pad's.
func TestEvalPadForms(t *testing.T) {
	x := []string{"--arg", "x=f32[2,3]:arange"}
	runEvalCases(t, []evalCase{
		{"per axis", append(x, "pad(x, ((1, 2), (0, 1)))"), "f32[5,4] [[0 0 0 0] [0 1 2 0] [3 4 5 0] [0 0 0 0] [0 0 0 0]]\n"},
		{"one pair broadcast", append(x, "pad(x, ((1, 0),))"), "f32[3,4] [[0 0 0 0] [0 0 1 2] [0 3 4 5]]\n"},
		{"before after", append(x, "pad(x, (2, 1))"), "f32[5,6] [[0 0 0 0 0 0] [0 0 0 0 0 0] [0 0 0 1 2 0] [0 0 3 4 5 0] [0 0 0 0 0 0]]\n"},
		{"int", append(x, "pad(x, 1)"), "f32[4,5] [[0 0 0 0 0] [0 0 1 2 0] [0 3 4 5 0] [0 0 0 0 0]]\n"},
		{"one-tuple", append(x, "pad(x, (1,), constant_values=-1)"), "f32[4,5] [[-1 -1 -1 -1 -1] [-1 0 1 2 -1] [-1 3 4 5 -1] [-1 -1 -1 -1 -1]]\n"},
		{"per axis values", append(x, "pad(x, ((1, 1), (2, 0)), constant_values=((7, 8), (9, 10)))"),
			"f32[4,5] [[9 9 7 7 7] [9 9 0 1 2] [9 9 3 4 5] [9 9 8 8 8]]\n"},
		{"one pair of values", append(x, "pad(x, 1, mode='constant', constant_values=((5, 6),))"),
			"f32[4,5] [[5 5 5 5 6] [5 0 1 2 6] [5 3 4 5 6] [5 6 6 6 6]]\n"},
		{"per axis edge", append(x, "pad(x, ((0, 1), (1, 0)), mode='edge')"), "f32[3,4] [[0 0 1 2] [3 3 4 5] [3 3 4 5]]\n"},
		{"scalar", []string{"pad(2.5, 3)"}, "f64*[] 2.5\n"},
	})
	for _, c := range []struct{ expr, want string }{
		{"pad(x, ((1, 0), (1, 0), (1, 0)))", "trace: pad at <expr>:1:1: pad_width with nd=2 has unsupported shape (3, 2). Valid shapes are (2, 2), (1, 2), (2,), (1,), or ()"},
		{"pad(x, (1, 2, 3))", "pad_width with nd=2 has unsupported shape (3,)."},
		{"pad(x, ((1,), 2))", "eval: <expr>:1:15: pad: pad_width entries must be the same shape"},
		{"pad(x, ((1, 2), (3,)))", "pad: pad_width entries must be the same shape: (2 items, then 1)"},
		{"pad(x, (((1,),),))", "pad_width nests at most two tuples deep"},
		{"pad(x, x)", "expected an int literal"},
		{"pad(x, 1, mode='edge', constant_values=2)", "unsupported keyword arguments for mode 'edge': constant_values"},
		{"pad(x, 1, constant_values=(1, 2, 3))", "constant_values with nd=2 has unsupported shape (3,)."},
		{"pad(x, -1)", "negative pad width"},
	} {
		_, errOut, status := eval(append(x, c.expr)...)
		if status != 1 || !strings.Contains(errOut, c.want) {
			t.Errorf("%s: status %d, %q (want %q)", c.expr, status, errOut, c.want)
		}
	}
}
