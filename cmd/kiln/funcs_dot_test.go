package main

import (
	"strings"
	"testing"
)

// matmul, dot, tensordot, einsum and the convolutions take JAX's
// preferred_element_type: int8 sums that wrap at 8 bits are exact in
// int32; bf16 products are not rounded back to bf16 (1 + 2⁻⁸ is not a
// bf16).
func TestEvalPreferredElementType(t *testing.T) {
	i8 := []string{"--arg", "a=i8[1,2]:100,100", "--arg", "b=i8[2,1]:100,100"}
	bf := []string{"--arg", "x=bf16[1,2]:1,0.00390625", "--arg", "y=bf16[2,1]:1,1"}
	conv := []string{"--arg", "x=i8[1,1,1,3]:100,100,100", "--arg", "w=i8[1,1,1,2]:100,100"}
	runEvalCases(t, []evalCase{
		{"int8 wraps", append(i8, "matmul(a, b)"), "i8[1,1] [[32]]\n"},
		{"int8 in int32", append(i8, "matmul(a, b, preferred_element_type=i32)"), "i32[1,1] [[20000]]\n"},
		{"long dtype name", append(i8, "matmul(a, b, preferred_element_type=int32)"), "i32[1,1] [[20000]]\n"},
		{"int8 in float32", append(i8, "matmul(a, b, preferred_element_type=float32)"), "f32[1,1] [[20000]]\n"},
		{"bf16 rounds", append(bf, "matmul(x, y)"), "bf16[1,1] [[1]]\n"},
		{"bf16 in f32", append(bf, "matmul(x, y, preferred_element_type=f32)"), "f32[1,1] [[1.0039062]]\n"},
		{"einsum", append(i8, "einsum('ij,jk->ki', a, b, preferred_element_type=i32)"), "i32[1,1] [[20000]]\n"},
		{"einsum operands then keyword", append(i8, "einsum('ij,jk,kl->il', a, b, a, preferred_element_type=i64)"), "i64[1,2] [[2000000 2000000]]\n"},
		{"dot", append(i8, "dot(a, b, preferred_element_type=i32)"), "i32[1,1] [[20000]]\n"},
		{"dot wraps", append(i8, "dot(a, b)"), "i8[1,1] [[32]]\n"},
		{"dot scalar", []string{"--arg", "b=i8[2]:1,2", "dot(3, b)"}, "i8[2] [3 6]\n"},
		{"tensordot n", []string{"--arg", "a=i32[2,3]:arange", "--arg", "b=i32[3,2]:arange", "tensordot(a, b, axes=1)"}, "i32[2,2] [[10 13] [28 40]]\n"},
		{"tensordot default", []string{"--arg", "a=i32[2,3]:arange", "--arg", "b=i32[2,3]:arange", "tensordot(a, b)"}, "i32[] 55\n"},
		{"tensordot pair", append(i8, "tensordot(a, b, axes=(1, 0), preferred_element_type=i64)"), "i64[1,1] [[20000]]\n"},
		{"conv", append(conv, "conv(x, w, (1, 1), 'VALID', preferred_element_type=i32)"), "i32[1,1,1,2] [[[[20000 20000]]]]\n"},
		{"conv wraps", append(conv, "conv(x, w, (1, 1), 'VALID')"), "i8[1,1,1,2] [[[[32 32]]]]\n"},
		{"conv_general_dilated", append(conv, "conv_general_dilated(x, w, (1, 1), 'VALID', preferred_element_type=f32)"), "f32[1,1,1,2] [[[[20000 20000]]]]\n"},
	})
	for _, tc := range []struct{ expr, want string }{
		{"matmul(a, b, preferred_element_type=bool)", "preferred_element_type=bool is incompatible with i8 operands"},
		{"matmul(astype(a, i32), b, preferred_element_type=i8)", "must not be narrower than the i32 operands"},
		{"matmul(a, b, preferred_element_type=u32)", "must have the signedness of the i8 operands"},
		{"einsum('ij,jk', a, b, preferred_element_type=c64)", "einsum"},
		{"matmul(a, b, preferred_element_type=float99)", "unknown dtype"},
		{"tensordot(a, b, axes=(1, 0, 1))", "axes must be an int n or a pair"},
		{"tensordot(a, b, axes=3)", "exceeds input ranks"},
		{"dot(a, a)", "contracting dimensions"},
	} {
		_, errOut, status := eval(append(i8, tc.expr)...)
		if status != 1 || !strings.Contains(errOut, tc.want) || !strings.Contains(errOut, "<expr>:1:") && !strings.Contains(errOut, "unknown dtype") {
			t.Errorf("%s: status %d, %q; want an error naming %q and the position", tc.expr, status, errOut, tc.want)
		}
	}
}
