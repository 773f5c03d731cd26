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
