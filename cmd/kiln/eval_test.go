package main

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"
)

// eval runs kiln eval in-process.
func eval(args ...string) (string, string, int) { return kiln(append([]string{"eval"}, args...)...) }

// evalCase is one kiln eval command line and its exact output.
type evalCase struct {
	name string
	args []string
	out  string
}

func runEvalCases(t *testing.T, cases []evalCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, errOut, status := eval(c.args...)
			if status != 0 || errOut != "" || out != c.out {
				t.Errorf("kiln eval %q\n got %q (status %d, stderr %q)\nwant %q", c.args, out, status, errOut, c.out)
			}
		})
	}
}

const (
	a23 = "a=i32[2,3]:arange" // [[0 1 2] [3 4 5]]
	x8  = "x=i8[3]:1,2,3"
	y16 = "y=f16[3]:0.5,1,2"
)

func TestEvalAcceptance(t *testing.T) {
	runEvalCases(t, []evalCase{
		{"int8 times a weak literal stays int8", []string{"--arg", "x=i8[5]:0,1,2,3,4", "2*x"}, "i8[5] [0 2 4 6 8]\n"},
		// NumPy, per op in f16: x*2 = [2 4 6] (i8), + y = [2.5 5 8] (f16), * 0.5.
		{"mixed int8 and f16 with weak literals", []string{"--arg", x8, "--arg", y16, "(x*2 + y) * 0.5"}, "f16[3] [1.25 2.5 4]\n"},
		{"literals alone are weak", []string{"1 + 2"}, "i64*[] 3\n"},
		{"x32 literals are weak i32", []string{"--x32", "1 + 2"}, "i32*[] 3\n"},
		{"x32 float literal", []string{"--x32", "0.5 * 3"}, "f32*[] 1.5\n"},
		{"weak argument", []string{"--arg", "w=i64*:3", "--arg", "x=i8[2]:1,2", "w + x"}, "i8[2] [4 5]\n"},
		{"weak array argument", []string{"--arg", "w=f64*[2]:1,2", "w * 2"}, "f64*[2] [2 4]\n"},
		{"a minus sign is part of the literal", []string{"--arg", "x=i8[2]:1,2", "x + -128"}, "i8[2] [-127 -126]\n"},
		{"flags after the expression", []string{"1 + 2", "--x32"}, "i32*[] 3\n"},
	})
}

func TestEvalPrecedence(t *testing.T) {
	runEvalCases(t, []evalCase{
		{"unary minus is looser than **", []string{"--", "-2**2"}, "i64*[] -4\n"},
		{"** is right-associative", []string{"2**3**2"}, "i64*[] 512\n"},
		{"* before +", []string{"1 + 2 * 3"}, "i64*[] 7\n"},
		{"parentheses", []string{"(1 + 2) * 3"}, "i64*[] 9\n"},
		{"- is left-associative", []string{"10 - 3 - 2"}, "i64*[] 5\n"},
		{"* and % left to right", []string{"2 * 3 % 4"}, "i64*[] 2\n"},
		{"// and * left to right", []string{"7 // 2 * 2"}, "i64*[] 6\n"},
		{"unary minus on the right of *", []string{"2 * -3"}, "i64*[] -6\n"},
		{"| ^ & in Python's order", []string{"1 | 2 ^ 3 & 4"}, "i64*[] 3\n"},
		{"+ before <<", []string{"1 << 2 + 1"}, "i64*[] 8\n"},
		{"comparison is loosest", []string{"1 + 2 == 3"}, "bool[] true\n"},
		{"~ on an int", []string{"~5"}, "i64*[] -6\n"},
		// a < (b & c) = [1 2 3] < [1 0 1]; (a < b) & c would be [true false false].
		{"& binds tighter than <", []string{"--arg", "a=i32[3]:1,2,3", "--arg", "b=i32[3]:3,2,1", "--arg", "c=i32[3]:1,1,1", "a < b & c"}, "bool[3] [false false false]\n"},
		{"-x ** 2 is -(x ** 2)", []string{"--arg", "x=f32[2]:3,-1", "--", "-x ** 2"}, "f32[2] [-9 -1]\n"},
		{"** binds a unary minus on its right", []string{"--arg", "x=f32[2]:2,4", "x ** -1"}, "f32[2] [0.5 0.25]\n"},
		{"complex literals", []string{"2j * 2j"}, "c128*[] (-4+0j)\n"},
		{"constants", []string{"pi"}, "f64*[] 3.141592653589793\n"},
		{"int64 minimum literal", []string{"--", "-9223372036854775808"}, "i64*[] -9223372036854775808\n"},
		{"hex, binary and octal literals", []string{"0x10 + 0b11 + 0o7 + 1_000"}, "i64*[] 1026\n"},
	})
}

func TestEvalOps(t *testing.T) {
	a := []string{"--arg", a23}
	cases := []evalCase{
		{"sum of i32 accumulates in the default int", append(a, "sum(a)"), "i64[] 15\n"},
		{"sum over an axis", append(a, "sum(a, axis=0)"), "i64[3] [3 5 7]\n"},
		{"sum over a tuple of axes, keepdims", append(a, "sum(a, axis=(0, 1), keepdims=True)"), "i64[1,1] [[15]]\n"},
		{"sum with a positional axis", append(a, "sum(a, 1)"), "i64[2] [3 12]\n"},
		{"mean of i32 is f32", append(a, "mean(a, axis=1)"), "f32[2] [1 4]\n"},
		{"max with a negative axis and keepdims", append(a, "max(a, axis=-1, keepdims=True)"), "i32[2,1] [[2] [5]]\n"},
		{"min", append(a, "min(a)"), "i32[] 0\n"},
		{"prod", append(a, "prod(a + 1, axis=1)"), "i64[2] [6 120]\n"},
		{"argmax of the flattened array", append(a, "argmax(a)"), "i64[] 5\n"},
		{"argmax along an axis", append(a, "argmax(a, axis=0)"), "i64[3] [1 1 1]\n"},
		{"argmin keepdims", append(a, "argmin(a, axis=1, keepdims=True)"), "i64[2,1] [[0] [0]]\n"},
		{"slice rows", append(a, "a[1:3]"), "i32[1,3] [[3 4 5]]\n"},
		{"slice with a step", append(a, "a[:, ::2]"), "i32[2,2] [[0 2] [3 5]]\n"},
		{"int index", append(a, "a[0]"), "i32[3] [0 1 2]\n"},
		{"negative indices", append(a, "a[-1, -1]"), "i32[] 5\n"},
		{"ellipsis", append(a, "a[..., 1]"), "i32[2] [1 4]\n"},
		{"None adds an axis", append(a, "a[:, None, 1]"), "i32[2,1] [[1] [4]]\n"},
		{"chained subscripts", append(a, "a[1][2]"), "i32[] 5\n"},
		{"negative step", append(a, "a[::-1, ::-2]"), "i32[2,2] [[5 3] [2 0]]\n"},
		{"index array with a slice", append(a, "--arg", "i=i8[3]:1,-1,0", "a[i, 1:]"), "i32[3,2] [[4 5] [4 5] [1 2]]\n"},
		{"index arrays apart go first", append(a, "--arg", "i=u8[2]:0,2", "a[0, :, None][None, i]"), "i32[1,2,1] [[[0] [2]]]\n"},
		{"index array out of bounds clamps (jax.numpy)", append(a, "--arg", "i=i32[2]:7,-9", "a[:, i]"), "i32[2,2] [[2 0] [5 3]]\n"},
		{"index list and bool mask", append(a, "a[[1, 0]][:, [True, False, True]]"), "i32[2,2] [[3 5] [0 2]]\n"},
		{"x.at[i].add with repeats", append(a, "--arg", "i=i32[3]:0,2,2", "a.at[1, i].add(10)"), "i32[2,3] [[0 1 2] [13 4 25]]\n"},
		{"x.at[i].set drops out-of-bounds", append(a, "--arg", "i=i32[2]:1,5", "a.at[i].set(-1)"), "i32[2,3] [[0 1 2] [-1 -1 -1]]\n"},
		{"x.at[i].max with mode clip", append(a, "--arg", "i=i32[1]:5", "a.at[:, i].max(4, mode='clip')"), "i32[2,3] [[0 1 4] [3 4 5]]\n"},
		{"x.at[i].get with fill", append(a, "--arg", "i=i32[2]:1,3", `a.at[0, i].get(mode="fill", fill_value=-7)`), "i32[2] [1 -7]\n"},
		{"take fills out of bounds", append(a, "--arg", "i=i32[2]:5,-1", "take(astype(a, f32), i, axis=1)"), "f32[2,2] [[nan 2] [nan 5]]\n"},
		{"take_along_axis", append(a, "--arg", "i=i32[2,1]:2,0", "take_along_axis(a, i, axis=1)"), "i32[2,1] [[2] [3]]\n"},
		{"flip", append(a, "flip(a, axis=1) + flipud(a)"), "i32[2,3] [[5 5 5] [5 5 5]]\n"},
		{"one_hot", []string{"--arg", "y=i8[3]:0,2,-1", "one_hot(y, 3, dtype=f16)"}, "f16[3,3] [[1 0 0] [0 0 1] [0 0 0]]\n"},
		{"dynamic_slice clamps", append(a, "--arg", "k=i32:1", "dynamic_slice(a, (k, 2), (2, 2))"), "i32[2,2] [[1 2] [4 5]]\n"},
		{"dynamic_update_slice", append(a, "dynamic_update_slice(a, a[:1, :2] * 0, (1, -1))"), "i32[2,3] [[0 1 2] [3 0 0]]\n"},
		{"@", append(a, "a @ transpose(a)"), "i32[2,2] [[5 14] [14 50]]\n"},
		{"matmul with a vector", append(a, "matmul(a, a[0])"), "i32[2] [5 14]\n"},
		{"reshape with a tuple", append(a, "reshape(a, (3, 2)) * 2"), "i32[3,2] [[0 2] [4 6] [8 10]]\n"},
		{"reshape with ints and -1", append(a, "reshape(a, -1, 2) + 1"), "i32[3,2] [[1 2] [3 4] [5 6]]\n"},
		{"transpose with axes", append(a, "transpose(a, (1, 0))"), "i32[3,2] [[0 3] [1 4] [2 5]]\n"},
		{"expand_dims", append(a, "expand_dims(a[0], 1) + 0"), "i32[3,1] [[0] [1] [2]]\n"},
		{"squeeze", append(a, "squeeze(a[:1], axis=0)"), "i32[3] [0 1 2]\n"},
		{"broadcast_to", append(a, "broadcast_to(a[0], (2, 3))"), "i32[2,3] [[0 1 2] [0 1 2]]\n"},
		{"concatenate", append(a, "concatenate((a, a[:1]), axis=0)"), "i32[3,3] [[0 1 2] [3 4 5] [0 1 2]]\n"},
		{"concatenate flattened", append(a, "concatenate((a, a[0]), axis=None)"), "i32[9] [0 1 2 3 4 5 0 1 2]\n"},
		{"where", append(a, "where(a > 2, a, -a)"), "i32[2,3] [[0 -1 -2] [3 4 5]]\n"},
		{"maximum with a weak int", append(a, "maximum(a, 3)"), "i32[2,3] [[3 3 3] [3 4 5]]\n"},
		{"minimum with a weak float is weak", append(a, "minimum(a, 2.5)"), "f64*[2,3] [[0 1 2] [2.5 2.5 2.5]]\n"},
		{"astype then true division", append(a, "astype(a, f16) / 3"), "f16[2,3] [[0 0.3333 0.6665] [1 1.333 1.667]]\n"},
		{"astype with a long name", append(a, "astype(a, bool)"), "bool[2,3] [[false true true] [true true true]]\n"},
		{"integer_pow", append(a, "a ** 2"), "i32[2,3] [[0 1 4] [9 16 25]]\n"},
		{"int true division is f32", append(a, "a / 2"), "f32[2,3] [[0 0.5 1] [1.5 2 2.5]]\n"},
		{"floordiv and rem", append(a, "a // 2 + a % 4"), "i32[2,3] [[0 1 3] [4 2 3]]\n"},
		{"shifts", append(a, "(a << 2) >> 1"), "i32[2,3] [[0 2 4] [6 8 10]]\n"},
		{"bitwise", append(a, "(a & 3) | 8 ^ 1"), "i32[2,3] [[9 9 11] [11 9 9]]\n"},
		{"not", append(a, "~a"), "i32[2,3] [[-1 -2 -3] [-4 -5 -6]]\n"},
		{"comparisons", append(a, "a != 2"), "bool[2,3] [[true true false] [true true true]]\n"},
		{"unary plus", append(a, "+a[0]"), "i32[3] [0 1 2]\n"},
		{"elementwise functions", []string{"--arg", "x=f32[3]:0,1,4", "sqrt(x) + floor(exp(x))"}, "f32[3] [1 3 56]\n"},
		{"sigmoid is logistic", []string{"--arg", "x=f64:0", "sigmoid(x) == logistic(x)"}, "bool[] true\n"},
		{"complex parts", []string{"--arg", "z=c64[2]:1+2j,-0.5j", "real(z) + imag(conj(z))"}, "f32[2] [-1 0.5]\n"},
		{"abs of complex is real", []string{"--arg", "z=c128:3+4j", "abs(z)"}, "f64[] 5\n"},
		{"isnan and isfinite", []string{"--arg", "x=f32[3]:nan,inf,1", "isnan(x) | isfinite(x)"}, "bool[3] [true false true]\n"},
	}
	runEvalCases(t, cases)
}

func TestEvalArgSpecs(t *testing.T) {
	runEvalCases(t, []evalCase{
		{"rank 0", []string{"--arg", "x=f32:1.5", "x"}, "f32[] 1.5\n"},
		{"explicit rank 0", []string{"--arg", "x=i8[]:7", "x"}, "i8[] 7\n"},
		{"arange", []string{"--arg", "x=f16[2,2]:arange", "x"}, "f16[2,2] [[0 1] [2 3]]\n"},
		{"zeros", []string{"--arg", "x=c64[2]:zeros", "x"}, "c64[2] [(0+0j) (0+0j)]\n"},
		{"ones", []string{"--arg", "x=bool[2]:ones", "x"}, "bool[2] [true true]\n"},
		{"rand ints", []string{"--arg", "x=i8[6]:rand(1)", "x"}, "i8[6] [3 49 86 -20 29 49]\n"},
		{"rand unsigned", []string{"--arg", "x=u8[3]:rand(3)", "x"}, "u8[3] [58 54 101]\n"},
		{"rand bool", []string{"--arg", "x=bool[4]:rand(2)", "x"}, "bool[4] [false true false true]\n"},
		{"rand f16", []string{"--arg", "x=f16[3]:rand(5)", "x"}, "f16[3] [0.4285 0.739 0.1664]\n"},
		{"rand complex", []string{"--arg", "x=c64[1]:rand(4)", "x"}, "c64[1] [(0.8558915+0.96565974j)]\n"},
		{"ints are exact", []string{"--arg", "x=u64[2]:18446744073709551615,0x10", "x"}, "u64[2] [18446744073709551615 16]\n"},
		{"i64 extremes", []string{"--arg", "x=i64[2]:-9223372036854775808,9223372036854775807", "x"}, "i64[2] [-9223372036854775808 9223372036854775807]\n"},
		{"floats round once to f16", []string{"--arg", "x=f16[4]:65520,1e-8,0.1,-0", "x"}, "f16[4] [inf 0 0.1 -0]\n"},
		{"bf16 ties to even", []string{"--arg", "x=bf16[2]:1.00390625,3.14159", "x"}, "bf16[2] [1 3.14]\n"},
		{"special floats", []string{"--arg", "x=f64[3]:nan,inf,-inf", "x"}, "f64[3] [nan inf -inf]\n"},
		{"bools in a numeric list", []string{"--arg", "x=f32[2]:true,false", "x"}, "f32[2] [1 0]\n"},
		{"bool from 0 and 1", []string{"--arg", "x=bool[2]:1,0", "x"}, "bool[2] [true false]\n"},
		{"complex spellings", []string{"--arg", "z=c128[4]:1+2j,-0.5j,3,(1-1J)", "z"}, "c128[4] [(1+2j) (0-0.5j) (3+0j) (1-1j)]\n"},
		{"empty array", []string{"--arg", "x=f32[0]:", "x"}, "f32[0] []\n"},
		{"weak bool is bool", []string{"--arg", "x=bool*[2]:true,false", "x"}, "bool[2] [true false]\n"},
	})
}

func TestEvalJSON(t *testing.T) {
	j := func(args ...string) []string { return append([]string{"--json"}, args...) }
	runEvalCases(t, []evalCase{
		{"f16", j("--arg", x8, "--arg", y16, "(x*2 + y) * 0.5"), `{"dtype":"f16","weak":false,"shape":[3],"values":[1.25,2.5,4]}` + "\n"},
		{"weak scalar", j("1 + 2"), `{"dtype":"i64","weak":true,"shape":[],"values":[3]}` + "\n"},
		{"bool", j("--arg", "x=i8[2]:1,2", "x > 1"), `{"dtype":"bool","weak":false,"shape":[2],"values":[false,true]}` + "\n"},
		{"u64", j("--arg", "x=u64[1]:18446744073709551615", "x"), `{"dtype":"u64","weak":false,"shape":[1],"values":[18446744073709551615]}` + "\n"},
		{"negative ints, 2-D flat", j("--arg", "x=i16[2,2]:-1,2,-3,4", "x"), `{"dtype":"i16","weak":false,"shape":[2,2],"values":[-1,2,-3,4]}` + "\n"},
		{"nan and inf as strings", j("--arg", "x=f32[4]:1,-1,0,2", "x / 0"), `{"dtype":"f32","weak":false,"shape":[4],"values":["inf","-inf","nan","inf"]}` + "\n"},
		{"shortest decimals at their own precision", j("--arg", "x=f32[2]:0.1,1e-7", "x"), `{"dtype":"f32","weak":false,"shape":[2],"values":[0.1,1e-07]}` + "\n"},
		{"f64", j("--arg", "x=f64[2]:0.1,1e300", "x * 3"), `{"dtype":"f64","weak":false,"shape":[2],"values":[0.30000000000000004,3e+300]}` + "\n"},
		{"bf16", j("--arg", "x=bf16[2]:3.14159,-0", "x"), `{"dtype":"bf16","weak":false,"shape":[2],"values":[3.14,-0]}` + "\n"},
		{"complex as [re, im]", j("--arg", "z=c64[2]:1+2j,nan", "z * 2"), `{"dtype":"c64","weak":false,"shape":[2],"values":[[2,4],["nan","nan"]]}` + "\n"},
		{"weak complex", j("1 + 0.1j"), `{"dtype":"c128","weak":true,"shape":[],"values":[[1,0.1]]}` + "\n"},
		{"complex with infinities", j("--arg", "z=c128[1]:inf-2j", "z"), `{"dtype":"c128","weak":false,"shape":[1],"values":[["inf",-2]]}` + "\n"},
	})
}

// TestEvalErrors checks each failure's exit status, --json kind and exact
// message; trace errors point at the expression's column.
// TestEvalRankProfiles: an argument of rank 0 (DTYPE[]:V or DTYPE:V) is a
// 0-dim tensor, which --rules torch promotes as PyTorch does; literals are
// Python scalars; the per-op rules are the profile's.
func TestEvalRankProfiles(t *testing.T) {
	runEvalCases(t, []evalCase{
		{"torch: a 0-dim tensor of the same kind yields", []string{"--rules", "torch", "--arg", "x=u8[2]:1,2", "--arg", "y=i8[]:1", "x + y"}, "u8[2] [2 3]\n"},
		{"torch: the same operands as tensors promote", []string{"--rules", "torch", "--arg", "x=u8[2]:1,2", "--arg", "y=i8[1]:1", "x + y"}, "i16[2] [2 3]\n"},
		{"torch: f32 with an f64 0-dim is f32", []string{"--rules", "torch", "--arg", "x=f32[2]:1,2", "--arg", "y=f64:0.5", "x * y"}, "f32[2] [0.5 1]\n"},
		{"torch: a higher-kind 0-dim promotes", []string{"--rules", "torch", "--arg", "x=i32[2]:1,2", "--arg", "y=f64[]:0.5", "x * y"}, "f64[2] [0.5 1]\n"},
		{"torch: where sees ranks", []string{"--rules", "torch", "--arg", "x=u8[2]:1,2", "--arg", "y=i8[]:-1", "where(x > 1, x, y)"}, "u8[2] [255 2]\n"},
		{"torch: an out-of-range literal wraps", []string{"--rules", "torch", "--arg", "x=u8[2]:1,2", "x + 1000"}, "u8[2] [233 234]\n"},
		{"torch: true division of ints is f32", []string{"--rules", "torch", "--arg", "x=i64[2]:1,2", "x / x"}, "f32[2] [1 1]\n"},
		{"torch: integer sums accumulate in i64", []string{"--rules", "torch", "--arg", "x=u8[2]:200,100", "sum(x)"}, "i64[] 300\n"},
		{"numpy: exp of i8 is f16", []string{"--rules", "numpy", "--arg", "x=i8[1]:0", "exp(x)"}, "f16[1] [1]\n"},
		{"numpy: a 0-dim array is an array", []string{"--rules", "numpy", "--arg", "x=u8[2]:1,2", "--arg", "y=i8[]:1", "x + y"}, "i16[2] [2 3]\n"},
	})
}

func TestEvalErrors(t *testing.T) {
	for _, c := range []struct {
		name      string
		args      []string
		kind, msg string
	}{
		{"torch: mean of ints", []string{"--rules", "torch", "--arg", "x=i8[2]:1,2", "mean(x)"}, "promotion",
			"trace: mean at <expr>:1:1: torch rules do not convert i8 to a float for mean; convert explicitly, e.g. astype(x, f32)"},
		{"torch: f16 with a complex 0-dim", []string{"--rules", "torch", "--arg", "x=f16[2]:1,2", "--arg", "y=c64[]:1", "x + y"}, "promotion",
			"trace: add at <expr>:1:3: PyTorch gives complex32 for f16 with a complex 0-dim tensor or scalar, and Kiln has no complex32; convert explicitly, e.g. astype(x, c64) for the f16 operand"},
		{"literal overflow", []string{"--arg", "x=i8[2]:1,2", "x + 1000"}, "overflow",
			"trace: add at <expr>:1:3: integer literal 1000 overflows i8 (range -128..127); write astype(x, wider dtype) first or use a literal in range"},
		{"negative literal overflow", []string{"--arg", "x=i8[2]:1,2", "x + -129"}, "overflow",
			"trace: add at <expr>:1:3: integer literal -129 overflows i8 (range -128..127); write astype(x, wider dtype) first or use a literal in range"},
		{"x32 literal overflow at the output", []string{"--x32", "3000000000"}, "overflow",
			"trace: output at <expr>:1:1: integer literal 3000000000 overflows i32 (range -2147483648..2147483647); write astype(x, wider dtype) first or use a literal in range"},
		{"int64 literal overflow", []string{"9223372036854775808"}, "overflow",
			"eval: <expr>:1:1: int literal 9223372036854775808 does not fit in int64, the width of a weak int literal"},
		{"shapes do not broadcast", []string{"--arg", "x=f32[3]:1,2,3", "--arg", "y=f32[4]:1,2,3,4", "exp(x) + y"}, "shape",
			"trace: add at <expr>:1:8: shapes [3] and [4] do not broadcast"},
		{"shape error inside a call", []string{"--arg", "x=f32[3]:1,2,3", "1 + sum(x, axis=1)"}, "shape",
			"trace: reduce_sum at <expr>:1:5: axis 1 is out of range for rank 1"},
		{"matmul shapes", []string{"--arg", a23, "a @ a"}, "shape",
			"trace: matmul at <expr>:1:3: contracting dimensions differ: [2,3] @ [2,3] (3 vs 2)"},
		{"index out of range", []string{"--arg", a23, "a[0, 5]"}, "shape",
			"trace: index at <expr>:1:6: index 5 is out of bounds for axis 1 with size 3"},
		{"too many indices", []string{"--arg", a23, "a[0, 0, 0]"}, "shape",
			"trace: index at <expr>:1:2: too many indices for an array of shape [2,3]: 3 given"},
		{"float index", []string{"--arg", a23, "a[a / 2]"}, "dtype",
			"trace: index at <expr>:1:2: arrays used as indices must be of integer (or boolean) type, not f32"},
		{"traced bool mask", []string{"--arg", a23, "a[a > 1]"}, "shape",
			"trace: index at <expr>:1:2: a boolean index needs a constant mask: with a traced one the result's shape would depend on the data (JAX's NonConcreteBooleanIndexError); use where(mask, x, 0), or a constant (*tensor.Array) mask"},
		{"at: bad mode", []string{"--arg", a23, "a.at[0].add(1, mode='wrap')"}, "syntax",
			`eval: <expr>:1:21: mode must be one of 'clip' 'drop' 'fill' 'promise_in_bounds', found the string "wrap"`},
		{"at: index out of range", []string{"--arg", a23, "a.at[5].set(0)"}, "shape",
			"trace: index at <expr>:1:6: index 5 is out of bounds for axis 0 with size 2"},
		{"at: update shape", []string{"--arg", a23, "a.at[0].set(a)"}, "shape",
			"trace: scatter at <expr>:1:9: cannot broadcast [2,3] to [3]"},
		{"literal-only failure is located", []string{"--arg", x8, "x + (True - True)"}, "dtype",
			"trace: sub at <expr>:1:11: numpy boolean subtract is not supported; use xor (^) or logical ops instead"},
		{"literal-only reshape", []string{"--arg", x8, "exp(x) + reshape(1, (2, 3))"}, "shape",
			"trace: reshape at <expr>:1:10: cannot reshape [] (1 elements) to [2,3] (6 elements)"},
		{"bitwise on floats", []string{"--arg", a23, "a & 1.5"}, "dtype",
			"trace: and at <expr>:1:3: and needs bool or integer operands, not f64"},
		{"negative integer power", []string{"--arg", a23, "a ** -1"}, "dtype",
			"trace: pow at <expr>:1:3: integers cannot be raised to a negative integer power (-1); convert to a float first"},
		{"strict promotion", []string{"--strict", "--arg", x8, "--arg", y16, "x*2 + y"}, "promotion",
			"trace: add at <expr>:1:5: strict promotion forbids implicit i8 with f16; convert explicitly, e.g. astype(x, f16) for the i8 operand"},
		{"lax rules", []string{"--rules", "lax", "--arg", x8, "--arg", y16, "y + x"}, "promotion",
			"trace: add at <expr>:1:3: lax rules allow no implicit promotion of f16, i8; convert explicitly, e.g. astype(x, f16) for the i8 operand"},
		{"forbidden widening", []string{"--forbid", "i8:f16", "--arg", x8, "--arg", y16, "exp(y) + sum(x + y)"}, "policy",
			"kiln: policy forbids the implicit widening i8 -> f16 at <expr>:1:16 (promote i8, f16 -> f16 (jax)); convert explicitly with Astype if it is intended"},
		{"unknown name", []string{"--arg", x8, "x + z"}, "argument",
			`eval: <expr>:1:5: unknown name "z" (arguments: x; constants: inf, nan, pi); define it with --arg z=DTYPE[SHAPE]:VALUES`},
		{"wrong value count", []string{"--arg", "x=f32[2,3]:1,2,3,4,5", "x"}, "argument",
			"eval: --arg x: shape [2,3] needs 6 values, got 5"},
		{"value out of range", []string{"--arg", "x=u8[2]:-1,2", "x"}, "argument",
			"eval: --arg x: value 0: -1 does not fit u8 (range 0..255)"},
		{"not a number", []string{"--arg", "x=f32[2]:1,two", "x"}, "argument",
			`eval: --arg x: value 1: "two" is not a number`},
		{"float for an int dtype", []string{"--arg", "x=i32[1]:1.5", "x"}, "argument",
			`eval: --arg x: value 0: "1.5" is not an integer (the dtype is i32)`},
		{"unknown function", []string{"--arg", x8, "frobnicate(x)"}, "syntax",
			`eval: <expr>:1:1: unknown function "frobnicate"; functions: ` + strings.Join(functionNames(), " ") + "; transformations: grad jit value_and_grad vmap"},
		{"unclosed parenthesis", []string{"(1 + 2"}, "syntax",
			`eval: <expr>:1:7: expected ")" to close the ( at column 1, found end of expression`},
		{"missing operand", []string{"1 +* 2"}, "syntax",
			`eval: <expr>:1:4: expected an operand (a name, a number or a parenthesized expression), found "*"`},
		{"trailing tokens", []string{"3 x"}, "syntax",
			`eval: <expr>:1:3: expected an operator or the end of the expression, found "x"`},
		{"chained comparison", []string{"1 < 2 < 3"}, "syntax",
			"eval: <expr>:1:7: chained comparisons (a < b < c) are not supported for arrays; write (a < b) & (b < c)"},
		{"and", []string{"--arg", x8, "x and x"}, "syntax",
			`eval: <expr>:1:3: "and" is not supported for arrays; use & | ~ (with parentheses around comparisons)`},
		{"attribute", []string{"--arg", x8, "x.T"}, "syntax",
			"eval: <expr>:1:2: attribute access is not supported but for x.astype(dtype) and x.at[idx].get/set/add/multiply/min/max(…)"},
		{"unknown keyword", []string{"--arg", x8, "sum(x, axes=0)"}, "syntax",
			`eval: <expr>:1:8: sum has no argument "axes": sum(x, axis=None, keepdims=False)`},
		{"too many arguments", []string{"--arg", x8, "exp(x, x)"}, "syntax",
			"eval: <expr>:1:8: exp takes at most 1 positional argument, got 2: exp(x)"},
		{"non-static axis", []string{"--arg", x8, "sum(x, axis=x)"}, "syntax",
			`eval: <expr>:1:13: expected an int literal (axes, shapes and indices are static), found name "x"`},
		{"unknown dtype", []string{"--arg", x8, "astype(x, f17)"}, "syntax",
			`eval: <expr>:1:11: astype: unknown dtype "f17" (bool u8 u16 u32 u64 i8 i16 i32 i64 bf16 f16 f32 f64 c64 c128 f8e4m3fn f8e5m2 f8e4m3fnuz f8e5m2fnuz f8e4m3b11fnuz f8e3m4 f8e4m3 f8e8m0fnu f6e2m3fn f6e3m2fn f4e2m1fn i4 u4 i2 u2, or long names such as float16, float8_e4m3fn, int4, with or without jnp.)`},
		{"mixed index list", []string{"--arg", x8, "x[[0, True]]"}, "syntax",
			`eval: <expr>:1:3: an index list holds static ints ([0, 2]) or bools ([True, False]); pass an index array with --arg`},
		{"tuple as an array", []string{"(1, 2)"}, "syntax",
			"eval: <expr>:1:1: a tuple or list is not an array (tuples are for shapes, axes and concatenate); pass arrays with --arg"},
		{"leading zero", []string{"012"}, "syntax",
			"eval: <expr>:1:1: leading zeros in a decimal int literal are not permitted (use 0o for octal)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			out, errOut, status := eval(append([]string{"--json"}, c.args...)...)
			want, _ := json.Marshal(map[string]map[string]string{"error": {"kind": c.kind, "message": c.msg}})
			var got, wantV any
			json.Unmarshal(want, &wantV)
			if err := json.Unmarshal([]byte(out), &got); err != nil || status != 1 || errOut != "" || !jsonEqual(got, wantV) {
				t.Errorf("kiln eval --json %q\n got %s (status %d, stderr %q)\nwant %s", c.args, out, status, errOut, want)
			}
			out, errOut, status = eval(c.args...)
			if status != 1 || out != "" || !strings.HasPrefix(errOut, c.msg+"\n") {
				t.Errorf("kiln eval %q: stdout %q, status %d, stderr %q", c.args, out, status, errOut)
			}
		})
	}
}

func jsonEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

// TestEvalErrorCaret checks the text form: the message, then the
// expression with a caret under the column.
func TestEvalErrorCaret(t *testing.T) {
	out, errOut, status := eval("--arg", "x=f32[3]:1,2,3", "--arg", "y=f32[4]:1,2,3,4", "exp(x) + y")
	want := "trace: add at <expr>:1:8: shapes [3] and [4] do not broadcast\n  exp(x) + y\n         ^\n"
	if status != 1 || out != "" || errOut != want {
		t.Errorf("got %q (status %d, stdout %q), want %q", errOut, status, out, want)
	}
	_, errOut, _ = eval("1 +")
	want = "eval: <expr>:1:4: expected an operand (a name, a number or a parenthesized expression), found end of expression\n  1 +\n     ^\n"
	if errOut != want {
		t.Errorf("got %q, want %q", errOut, want)
	}
}

func TestEvalUsage(t *testing.T) {
	for _, c := range []struct {
		name  string
		args  []string
		first string // the first line of stderr
	}{
		{"no expression", nil, "kiln eval: no expression (quote it: kiln eval --arg 'x=f32[3]:1,2,3' '2*x + 1')"},
		{"two expressions", []string{"1", "2"}, `kiln eval: one expression expected, got 2 arguments: ["1" "2"] (quote the expression)`},
		{"unknown flag", []string{"--bogus", "1"}, "flag provided but not defined: -bogus"},
		{"expression starting with -", []string{"-2**2"}, "flag provided but not defined: -2**2"},
		{"arg without =", []string{"--arg", "x", "x"}, "kiln eval: --arg x: want NAME=DTYPE[SHAPE]:VALUES, e.g. x=f32[3]:1,2,3"},
		{"arg without values", []string{"--arg", "x=f32[3]", "x"}, `kiln eval: --arg x: missing ':' before the values in "f32[3]" (DTYPE[SHAPE]:VALUES)`},
		{"bad arg name", []string{"--arg", "2x=f32:1", "1"}, `kiln eval: --arg 2x=f32:1: "2x" is not a name (letters, digits and _, not starting with a digit)`},
		{"bad dtype", []string{"--arg", "x=i9[3]:1,2,3", "x"}, `kiln eval: --arg x: unknown dtype "i9" (want one of bool u8 u16 u32 u64 i8 i16 i32 i64 bf16 f16 f32 f64 c64 c128 f8e4m3fn f8e5m2 f8e4m3fnuz f8e5m2fnuz f8e4m3b11fnuz f8e3m4 f8e4m3 f8e8m0fnu f6e2m3fn f6e3m2fn f4e2m1fn i4 u4 i2 u2, or JAX's long names)`},
		{"bad shape", []string{"--arg", "x=f32[2,a]:arange", "x"}, `kiln eval: --arg x: shape [2,a]: dimension "a" is not a non-negative int`},
		{"bad seed", []string{"--arg", "x=f32[2]:rand(x)", "x"}, `kiln eval: --arg x: rand(SEED) needs a non-negative int seed, got "rand(x)"`},
		{"duplicate arg", []string{"--arg", "x=f32:1", "--arg", "x=f32:2", "x"}, "kiln eval: --arg x is given twice"},
		{"unknown print", []string{"--print", "asm", "1"}, `kiln eval: unknown --print "asm" (want program, module, fused, dot, stablehlo, kernels)`},
		{"no kernel source on cpu", []string{"--print", "kernels", "1"}, "kiln eval: --print kernels: the cpu backend generates no kernel source (code-generating backends such as OpenCL do)"},
		{"unknown backend", []string{"--backend", "tpu", "1"}, `kiln eval: unknown --backend "tpu" (have cpu, opencl, ort)`},
		{"unknown rules", []string{"--rules", "nope", "1"}, `kiln eval: promote: unknown rules "nope" (want one of jax, anvil, lax, numpy, strict, tensorflow, torch)`},
		{"strict and rules disagree", []string{"--strict", "--rules", "numpy", "1"}, "kiln eval: --strict and --rules numpy disagree"},
		{"negative bench", []string{"--bench", "-1", "1"}, "kiln eval: --bench -1: the number of runs cannot be negative"},
		{"bad forbid", []string{"--forbid", "bf16", "1"}, `kiln eval: --forbid "bf16": want FROM:TO dtypes, e.g. bf16:f32`},
	} {
		t.Run(c.name, func(t *testing.T) {
			out, errOut, status := eval(c.args...)
			first, _, _ := strings.Cut(errOut, "\n")
			if status != 2 || out != "" || first != c.first {
				t.Errorf("kiln eval %q: status %d, stdout %q, stderr first line %q, want %q", c.args, status, out, first, c.first)
			}
		})
	}
}

func TestEvalHelp(t *testing.T) {
	out, _, status := eval("--help")
	if status != 0 || !strings.HasPrefix(out, "usage: kiln eval [--json]") {
		t.Fatalf("status %d, help %q", status, out)
	}
	for _, want := range []string{"examples:", "rand(SEED)", "sum(x, axis=None, keepdims=False)", "-print value", "kinds: syntax, size,", "vmap(fun, in_axes=0, out_axes=0, axis_size=None)"} {
		if !strings.Contains(out, want) {
			t.Errorf("help lacks %q", want)
		}
	}
}

func TestEvalPrint(t *testing.T) {
	args := []string{"--arg", x8, "--arg", y16, "(x*2 + y) * 0.5"}
	out, errOut, status := eval(append([]string{"--print", "program"}, args...)...)
	want := `{ lambda ; a:i8[3] b:f16[3]. let
    d:i8[3] = mul a 2:i8[]
    e:f16[3] = convert[f16] d    # promote i8, f16 -> f16 (jax) at <expr>:1:6
    f:f16[3] = add e b
    h:f16[3] = mul f 0.5:f16[]
  in (h) }

f16[3] [1.25 2.5 4]
`
	if status != 0 || errOut != "" || out != want {
		t.Errorf("--print program:\n%s\nwant:\n%s", out, want)
	}

	// The fused plan is lower's to print; here it must be one kernel, shown
	// before the result and a blank line.
	out, _, status = eval(append([]string{"--print", "fused"}, args...)...)
	if status != 0 || !strings.HasPrefix(out, "1 kernel(s):\n  fusion.0 loop f16[3](") || strings.Count(out, "kernel(s)") != 1 ||
		strings.Count(out, "fusion.") != 1 || !strings.HasSuffix(out, "\n\nf16[3] [1.25 2.5 4]\n") {
		t.Errorf("--print fused:\n%s", out)
	}

	// Several stages, as a comma list and repeated, print once each in the
	// order asked, with no Go source positions of this interpreter.
	out, _, status = eval(append([]string{"--print", "dot,module", "--print", "dot"}, args...)...)
	dot, module := strings.Index(out, "digraph kiln {"), strings.Index(out, "module {")
	if status != 0 || dot != 0 || module < 0 || strings.Count(out, "digraph") != 1 || strings.Contains(out, ".go:") {
		t.Errorf("--print dot,module:\n%s", out)
	}

	// StableHLO text for XLA/IREE, before the result.
	out, _, status = eval(append([]string{"--print", "stablehlo"}, args...)...)
	if status != 0 || !strings.HasPrefix(out, "// A Kiln module as StableHLO") ||
		!strings.Contains(out, "func.func public @main(%0: tensor<3xi8>, %1: tensor<3xf16>) -> (tensor<3xf16>)") ||
		!strings.Contains(out, `"stablehlo.convert"`) || !strings.HasSuffix(out, "}\n}\n\nf16[3] [1.25 2.5 4]\n") {
		t.Errorf("--print stablehlo:\n%s", out)
	}

	out, _, status = eval(append([]string{"--json", "--print", "program,fused"}, args...)...)
	var v struct {
		DType, Program, Fused string
		Values                []float64
	}
	if err := json.Unmarshal([]byte(out), &v); err != nil || status != 0 || v.DType != "f16" ||
		!strings.HasPrefix(v.Program, "{ lambda ; a:i8[3]") || !strings.HasPrefix(v.Fused, "1 kernel(s):") || len(v.Values) != 3 {
		t.Errorf("--json --print: %s", out)
	}
}

func TestEvalBench(t *testing.T) {
	out, errOut, status := eval("--bench", "5", "--arg", x8, "--arg", y16, "(x*2 + y) * 0.5")
	re := regexp.MustCompile(`^f16\[3\] \[1\.25 2\.5 4\]\nbench: 5 runs, min [0-9.]+(ns|µs|ms|s), median [0-9.]+(ns|µs|ms|s) per run\n$`)
	if status != 0 || errOut != "" || !re.MatchString(out) {
		t.Errorf("--bench output %q (status %d, stderr %q)", out, status, errOut)
	}
	out, _, status = eval("--json", "--bench", "4", "--arg", x8, "x + 1")
	var v struct {
		Values []int
		Bench  struct {
			Runs   int
			Min    int64 `json:"min_ns"`
			Median int64 `json:"median_ns"`
		}
	}
	if err := json.Unmarshal([]byte(out), &v); err != nil || status != 0 || v.Bench.Runs != 4 || v.Bench.Min <= 0 || v.Bench.Median < v.Bench.Min || len(v.Values) != 3 {
		t.Errorf("--json --bench: %s", out)
	}
}

// TestParse pins the grammar: every expression printed fully
// parenthesized.
func TestParse(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"-2**2", "(-(2 ** 2))"},
		{"2**3**2", "(2 ** (3 ** 2))"},
		{"2**-1", "(2 ** -1)"},
		{"-x**-y", "(-(x ** (-y)))"},
		{"1 + 2 * 3", "(1 + (2 * 3))"},
		{"a < b & c", "(a < (b & c))"},
		{"a | b ^ c & d << e + f * g", "(a | (b ^ (c & (d << (e + (f * g))))))"},
		{"a - b - c", "((a - b) - c)"},
		{"a @ b / c // d % e", "((((a @ b) / c) // d) % e)"},
		{"~-+x", "(~(-(+x)))"},
		{"- 3", "-3"},
		{"-(3)", "-3"},
		{"f(x, axis=(0, 1), keepdims=True)", "f(x, axis=(0, 1), keepdims=True)"},
		{"x[1:3, ::2, 0, ..., None, :-1]", "x[1:3, ::2, 0, ..., None, :-1]"},
		{"x[0][1]", "x[0][1]"},
		{"(x,)", "(x,)"},
		{"[1, 2]", "(1, 2)"},
		{"1.5e3 + .5 + 2j + 1_000", "(((1.5e3 + .5) + 2j) + 1000)"},
	} {
		n, err := parseExpr(c.src)
		if err != nil {
			t.Errorf("%q: %v", c.src, err)
			continue
		}
		if got := unparse(n); got != c.want {
			t.Errorf("%q parsed as %s, want %s", c.src, got, c.want)
		}
	}
}

// unparse prints a syntax tree fully parenthesized.
func unparse(n *node) string {
	if n == nil {
		return ""
	}
	switch n.kind {
	case nInt, nFloat, nImag:
		s := n.text
		if n.kind == nImag {
			s += "j"
		}
		if n.neg {
			s = "-" + s
		}
		return s
	case nName, nBool:
		return n.text
	case nNone:
		return "None"
	case nEllipsis:
		return "..."
	case nUnary:
		return "(" + n.text + unparse(n.kids[0]) + ")"
	case nBinary:
		return "(" + unparse(n.kids[0]) + " " + n.text + " " + unparse(n.kids[1]) + ")"
	case nTuple:
		parts := make([]string, len(n.kids))
		for i, k := range n.kids {
			parts[i] = unparse(k)
		}
		if len(parts) == 1 {
			return "(" + parts[0] + ",)"
		}
		return "(" + strings.Join(parts, ", ") + ")"
	case nCall:
		var parts []string
		for _, k := range n.kids {
			parts = append(parts, unparse(k))
		}
		for _, kw := range n.kws {
			parts = append(parts, kw.name+"="+unparse(kw.val))
		}
		return n.text + "(" + strings.Join(parts, ", ") + ")"
	case nSubscript:
		parts := make([]string, len(n.items))
		for i, it := range n.items {
			parts[i] = unparse(it)
		}
		return unparse(n.kids[0]) + "[" + strings.Join(parts, ", ") + "]"
	case nSlice:
		s := unparse(n.kids[0]) + ":" + unparse(n.kids[1])
		if n.kids[2] != nil {
			s += ":" + unparse(n.kids[2])
		}
		return s
	}
	return "?"
}
