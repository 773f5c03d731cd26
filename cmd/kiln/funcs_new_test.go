package main

import (
	"strings"
	"testing"
)

// jax.random under its names: the values are the ones JAX gives
// (threefry, partitionable, x64; see package random's tests for their
// derivation).
func TestEvalRandom(t *testing.T) {
	runEvalCases(t, []evalCase{
		{"key", []string{"key(42)"}, "u32[2] [0 42]\n"},
		{"split", []string{"random.split(key(0))"}, "u32[2,2] [[1797259609 2579123966] [928981903 3453687069]]\n"},
		{"uniform f32", []string{"random.uniform(key(0), dtype=f32)"}, "f32[] 0.947667\n"},
		{"uniform x32 default", []string{"--x32", "random.uniform(random.PRNGKey(0))"}, "f32[] 0.947667\n"},
		{"permutation", []string{"random.permutation(key(0), 10)"}, "i64[10] [0 1 8 5 6 4 3 2 7 9]\n"},
		{"bits", []string{"random.bits(key(0), (2,), dtype=u32)"}, "u32[2] [4070199207 4202968722]\n"}, // random/testdata/known.json
	})
	out, _, status := eval("random.normal(key(0), (3, 4))")
	if status != 0 || !strings.HasPrefix(out, "f64[3,4] [[") {
		t.Errorf("random.normal(key(0), (3, 4)) = %q (status %d)", out, status)
	}
	_, errOut, status := eval("random.normal(key(0), (2,), dtype=i32)")
	if status != 1 || !strings.Contains(errOut, "must be a float or complex dtype, got i32") {
		t.Errorf("an int dtype: status %d, %q", status, errOut)
	}
	_, errOut, status = eval("random.nosuch(key(0))")
	if status != 1 || errOut == "" {
		t.Errorf("an unknown random function: status %d, %q", status, errOut)
	}
}

// jax.numpy's constructors and statistics under their names.
func TestEvalStructural(t *testing.T) {
	runEvalCases(t, []evalCase{
		{"arange", []string{"arange(1, 10, 3)"}, "i64[3] [1 4 7]\n"},
		{"eye", []string{"eye(2, 3, k=1)"}, "f64[2,3] [[0 1 0] [0 0 1]]\n"},
		{"README's causal mask", []string{"--arg", "s=f32[3,3]:arange", "where(tril(ones((3, 3), bool)), s, -inf)"}, "f32[3,3] [[0 -inf -inf] [3 4 -inf] [6 7 8]]\n"},
		{"causal mask", []string{"tril(ones((3, 3), bool))"}, "bool[3,3] [[true false false] [true true false] [true true true]]\n"},
		{"triu", []string{"--arg", "a=i32[2,2]:arange", "triu(a)"}, "i32[2,2] [[0 1] [0 3]]\n"},
		{"full weak", []string{"full((2,), 3.5)"}, "f64*[2] [3.5 3.5]\n"},
		{"zeros_like", []string{"--arg", "x=i8[2]:1,2", "zeros_like(x)"}, "i8[2] [0 0]\n"},
		{"logsumexp", []string{"--arg", "x=f32[2]:1000,1000", "logsumexp(x)"}, "f32[] 1000.6932\n"},
		{"var ddof", []string{"--arg", "x=f64[4]:1,2,3,4", "var(x, ddof=1)"}, "f64[] 1.6666666666666667\n"},
		{"std keepdims", []string{"--arg", "x=f64[1,2]:1,3", "std(x, axis=1, keepdims=True)"}, "f64[1,1] [[1]]\n"},
		{"any all", []string{"--arg", "x=i32[3]:0,0,1", "any(x) & ~all(x)"}, "bool[] true\n"},
		{"nanmean", []string{"--arg", "x=f64[3]:1,nan,3", "nanmean(x)"}, "f64[] 2\n"},
		{"nanvar", []string{"--arg", "x=f64[3]:1,nan,3", "nanvar(x)"}, "f64[] 1\n"},
		{"nanprod", []string{"--arg", "x=f64[3]:2,nan,3", "nanprod(x, keepdims=True)"}, "f64[1] [6]\n"},
		{"pad reflect", []string{"pad(arange(4), 2, mode='reflect')"}, "i64[8] [2 1 0 1 2 3 2 1]\n"},
		{"pad constant", []string{"--arg", "x=f32[3]:arange", "pad(x, (1, 2), constant_values=9)"}, "f32[6] [9 0 1 2 9 9]\n"},
		{"cumsum", []string{"--arg", "x=i8[4]:100,100,100,-1", "cumsum(x)"}, "i64[4] [100 200 300 299]\n"},
		{"cummax", []string{"--arg", "x=f32[4]:1,3,2,5", "cummax(x, axis=0)"}, "f32[4] [1 3 3 5]\n"},
		{"einsum", []string{"--arg", "a=f32[2,3]:arange", "--arg", "b=f32[4,3]:arange", "einsum('ij,kj->ik', a, b)"}, "f32[2,4] [[5 14 23 32] [14 50 86 122]]\n"},
		{"roll", []string{"roll(arange(5), 2)"}, "i64[5] [3 4 0 1 2]\n"},
		{"tile", []string{"tile(arange(2), (2, 2))"}, "i64[2,4] [[0 1 0 1] [0 1 0 1]]\n"},
		{"repeat", []string{"repeat(arange(3), 2)"}, "i64[6] [0 0 1 1 2 2]\n"},
		{"stack", []string{"stack((arange(2), arange(2)), axis=1)"}, "i64[2,2] [[0 0] [1 1]]\n"},
	})
}

// jnp.split: sections or indices, several outputs indexed as a tuple.
func TestEvalSplit(t *testing.T) {
	runEvalCases(t, []evalCase{
		{"sections", []string{"split(arange(6), 3)[1]"}, "i64[2] [2 3]\n"},
		{"indices", []string{"split(arange(6), (1, 4))[2]"}, "i64[2] [4 5]\n"},
		{"one index", []string{"split(arange(6), (2,))[0]"}, "i64[2] [0 1]\n"},
		{"axis", []string{"--arg", "x=f32[2,4]:arange", "split(x, 2, axis=1)[1]"}, "f32[2,2] [[2 3] [6 7]]\n"},
	})
	for _, bad := range []struct{ expr, want string }{
		{"split(arange(6), 3)", "split returns a tuple: index it"},
		{"split(arange(6), 4)[0]", "split"},
		{"split(arange(6), 3)[3]", "out of range"},
	} {
		_, errOut, status := eval(bad.expr)
		if status != 1 || !strings.Contains(errOut, bad.want) {
			t.Errorf("%s: status %d, %q (want an error containing %q)", bad.expr, status, errOut, bad.want)
		}
	}
}

// arange with a float argument is NumPy's float arange (default float).
func TestEvalArangeFloat(t *testing.T) {
	runEvalCases(t, []evalCase{
		{"floats", []string{"arange(0, 1, 0.25)"}, "f64[4] [0 0.25 0.5 0.75]\n"},
		{"float stop", []string{"arange(2.5)"}, "f64[3] [0 1 2]\n"},
		{"x32", []string{"--x32", "arange(0., 1., .1)"}, "f32[10] [0 0.1 0.2 0.3 0.4 0.5 0.6 0.7 0.8 0.90000004]\n"},
		{"f16", []string{"arange(0.5, 2, dtype=f16)"}, "f16[2] [0.5 1.5]\n"},
		{"ints stay ints", []string{"arange(1, 7, 2)"}, "i64[3] [1 3 5]\n"},
	})
	if _, errOut, status := eval("arange(0, 1, 0.0)"); status != 1 || !strings.Contains(errOut, "step") {
		t.Errorf("a zero float step: status %d, %q", status, errOut)
	}
}
