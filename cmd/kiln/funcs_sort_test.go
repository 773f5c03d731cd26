package main

import (
	"strings"
	"testing"
)

// jax.numpy's sort and argsort and lax.top_k under their names, with
// JAX's answers (NaN last, −0 and 0 equal and kept in order, stable
// descending argsort, top_k's ties to the lower index).
func TestEvalSort(t *testing.T) {
	x := []string{"--arg", "x=f32[6]:3,nan,-0,0,-inf,3"}
	runEvalCases(t, []evalCase{
		{"sort", append(x, "sort(x)"), "f32[6] [-inf -0 0 3 3 nan]\n"},
		{"sort descending", append(x, "sort(x, descending=True)"), "f32[6] [nan 3 3 0 -0 -inf]\n"},
		{"argsort", append(x, "argsort(x)"), "i64[6] [4 2 3 0 5 1]\n"},
		{"argsort x32", append(x, "--x32", "argsort(x)"), "i32[6] [4 2 3 0 5 1]\n"},
		{"argsort descending", append(x, "argsort(x, descending=True)"), "i64[6] [1 0 5 2 3 4]\n"},
		{"argsort stable=False", append(x, "argsort(x, stable=False)"), "i64[6] [4 2 3 0 5 1]\n"},
		{"sort axis=None", []string{"--arg", "a=i8[2,2]:4,-1,3,2", "sort(a, axis=None)"}, "i8[4] [-1 2 3 4]\n"},
		{"sort axis 0", []string{"--arg", "a=i8[2,2]:4,-1,3,2", "sort(a, axis=0)"}, "i8[2,2] [[3 -1] [4 2]]\n"},
		{"top_k", []string{"--arg", "a=f32[2,3]:3,1,2,0,5,5", "top_k(a, 2)"}, "f32[2,2] [[3 2] [5 5]]\n"},
		{"top_k_indices", []string{"--arg", "a=f32[2,3]:3,1,2,0,5,5", "top_k_indices(a, 2)"}, "i32[2,2] [[0 2] [1 2]]\n"},
		{"grad of sort", []string{"--arg", "x=f32[4]:3,1,2,5", "--grad", "x", "sum(sort(x) * arange(4))"}, "f32[] 23\ngrad x: f32[4] [2 0 1 3]\n"},
		{"grad of top_k", []string{"--arg", "x=f32[4]:3,1,2,5", "--grad", "x", "sum(top_k(x, 2))"}, "f32[] 8\ngrad x: f32[4] [1 0 0 1]\n"},
	})
	_, errOut, status := eval("--arg", "a=f32[2]:1,2", "sort(a, axis=1)")
	if status != 1 || !strings.Contains(errOut, "axis 1 is out of range for [2]") {
		t.Errorf("sort(a, axis=1): status %d, %q", status, errOut)
	}
	_, errOut, status = eval("--arg", "a=f32[2]:1,2", "top_k(a, 3)")
	if status != 1 || !strings.Contains(errOut, "k 3 is out of range") {
		t.Errorf("top_k(a, 3): status %d, %q", status, errOut)
	}
}
