package main

import (
	"strings"
	"testing"
)

// Convolution and pooling under lax's and flax's names.
func TestEvalConv(t *testing.T) {
	x := []string{"--arg", "x=f32[1,4,4,1]:arange"}
	runEvalCases(t, []evalCase{
		{"conv_general_dilated pairs nhwc", append(x, "--arg", "w=f32[2,2,1,1]:1,1,1,1",
			"conv_general_dilated(x, w, (1, 1), ((0, 1), (0, 1)), dimension_numbers=('NHWC', 'HWIO', 'NHWC'))"),
			"f32[1,4,4,1] [[[[10] [14] [18] [10]] [[26] [30] [34] [18]] [[42] [46] [50] [26]] [[25] [27] [29] [15]]]]\n"},
		{"conv strided valid", []string{"--arg", "x=i32[1,1,3,3]:arange", "--arg", "w=i32[1,1,2,2]:1,0,0,1", "conv(x, w, (1, 2), 'VALID')"},
			"i32[1,1,2,1] [[[[4] [10]]]]\n"},
		{"conv lhs dilation groups", []string{"--arg", "x=f64[1,2,2]:1,2,3,4", "--arg", "w=f64[2,1,1]:10,100",
			"conv_general_dilated(x, w, (1,), 'VALID', lhs_dilation=(2,), feature_group_count=2)"}, "f64[1,2,3] [[[10 0 20] [300 0 400]]]\n"},
		{"max_pool", append(x, "max_pool(x, (2, 2), strides=(2, 2))"), "f32[1,2,2,1] [[[[5] [7]] [[13] [15]]]]\n"},
		{"avg_pool same exclude pad", append(x, "avg_pool(x, (3, 3), padding='SAME', count_include_pad=False)"),
			"f32[1,4,4,1] [[[[2.5] [3] [4] [4.5]] [[4.5] [5] [6] [6.5]] [[8.5] [9] [10] [10.5]] [[10.5] [11] [12] [12.5]]]]\n"},
		{"avg_pool same include pad", append(x, "avg_pool(x, (2, 2), padding='SAME')"),
			"f32[1,4,4,1] [[[[2.5] [3.5] [4.5] [2.5]] [[6.5] [7.5] [8.5] [4.5]] [[10.5] [11.5] [12.5] [6.5]] [[6.25] [6.75] [7.25] [3.75]]]]\n"},
		{"sum_pool int", []string{"--arg", "x=i8[1,3,1]:100,100,100", "sum_pool(x, (2,))"}, "i8[1,2,1] [[[-56] [-56]]]\n"},
	})
	for _, c := range []struct{ expr, want string }{
		{"conv(x, w, (1, 1), 'SAME')", "must equal the rhs input feature dimension"},
		{"conv_general_dilated(x, w, (1, 1), 'SAME', batch_group_count=2)", "batch_group_count=2 is not supported"},
		{"conv_general_dilated(x, w, (1, 1), 'FULL')", `unknown padding "FULL"`},
		{"max_pool(x, (2,))", "one entry per spatial dim"},
		// lax refuses a group count ≤ 0; it computed as 1 (issue 25)
		{"conv_general_dilated(x, w, (1, 1), 'SAME', feature_group_count=0)", "conv_general_dilated at <expr>:1:1: feature_group_count must be a positive integer, got 0"},
		{"conv_general_dilated(x, w, (1, 1), 'SAME', feature_group_count=-2)", "feature_group_count must be a positive integer, got -2"},
		{"conv_general_dilated(x, w, (1, 1), 'SAME', batch_group_count=0)", "batch_group_count must be a positive integer, got 0"},
	} {
		_, errOut, status := eval("--arg", "x=f32[1,1,4,4]:arange", "--arg", "w=f32[1,2,3,3]:arange", c.expr)
		if status != 1 || !strings.Contains(errOut, c.want) {
			t.Errorf("%s: status %d, %q (want %q)", c.expr, status, errOut, c.want)
		}
	}
}
