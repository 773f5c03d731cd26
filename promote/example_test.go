package promote_test

import (
	"fmt"

	"github.com/kiln-go/kiln/promote"
	"github.com/kiln-go/kiln/tensor"
)

func ExampleConfig_ResultType() {
	var jax promote.Config // JAX's standard rules, 64-bit defaults
	x := promote.Strong(tensor.I8)
	lit := promote.WeakOf(tensor.I64) // an int literal such as 2
	fmt.Println(jax.ResultType(x, lit))
	fmt.Println(jax.ResultType(x, promote.Strong(tensor.F16)))
	fmt.Println(jax.ResultType(promote.Strong(tensor.U64), x))

	strict := promote.Config{Rules: promote.Strict}
	_, err := strict.ResultType(x, promote.Strong(tensor.F16))
	fmt.Println(err)
	// Output:
	// i8 <nil>
	// f16 <nil>
	// f64* <nil>
	// promote: strict promotion forbids implicit i8 with f16; convert explicitly, e.g. astype(x, f16) for the i8 operand
}

func ExampleCheck() {
	r, _ := promote.Lookup("numpy")
	rep := promote.Check(r, false)
	t := rep.NonAssociative[0]
	fmt.Printf("lattice: %v; (%s ∨ %s) ∨ %s = %s but %s ∨ (%s ∨ %s) = %s\n",
		rep.IsLattice(), t.A, t.B, t.C, t.Left, t.A, t.B, t.C, t.Right)
	fmt.Println("jax lattice:", promote.Check(promote.JAX, false).IsLattice())
	// Output:
	// lattice: false; (i8 ∨ u8) ∨ f16 = f32 but i8 ∨ (u8 ∨ f16) = f16
	// jax lattice: true
}

func ExampleParseType() {
	for _, s := range []string{"f16", "i*", "i16*"} {
		t, _ := promote.ParseType(s, false)
		fmt.Println(t, t.Weak)
	}
	// Output:
	// f16 false
	// i64* true
	// i16* true
}

func ExampleCheckIntLiteral() {
	fmt.Println(promote.CheckIntLiteral(1000, tensor.I8))
	// Output:
	// promote: integer literal 1000 overflows i8 (range -128..127); write astype(x, wider dtype) first or use a literal in range
}

func ExampleConfig_ResultTypeRanked() {
	torch := promote.Config{Rules: promote.Torch}
	tensor1 := func(d tensor.DType) promote.Operand { return promote.Operand{Type: promote.Strong(d), Rank: 1} }
	dim0 := func(d tensor.DType) promote.Operand { return promote.Operand{Type: promote.Strong(d)} }
	fmt.Println(torch.ResultTypeRanked(tensor1(tensor.U8), dim0(tensor.I8)))    // same kind: the tensor wins
	fmt.Println(torch.ResultTypeRanked(tensor1(tensor.U8), tensor1(tensor.I8))) // two tensors: the table
	fmt.Println(torch.ResultTypeRanked(tensor1(tensor.I32), dim0(tensor.F64)))  // a higher kind promotes
	fmt.Println(torch.ResultTypeRanked(tensor1(tensor.BF16), dim0(tensor.C128)))
	lit := promote.Operand{Type: promote.WeakOf(tensor.F64)} // a Python float
	fmt.Println(torch.ResultTypeRanked(tensor1(tensor.I64), lit))

	numpy := promote.Config{Rules: promote.NumPy} // NEP 50: rank is ignored
	fmt.Println(numpy.ResultTypeRanked(tensor1(tensor.U8), dim0(tensor.I8)))
	// Output:
	// u8 <nil>
	// i16 <nil>
	// f64 <nil>
	// c64 <nil>
	// f32 <nil>
	// i16 <nil>
}

func ExampleConfig_Profile() {
	for _, name := range []string{"jax", "numpy", "torch", "tensorflow"} {
		r, _ := promote.Lookup(name)
		c := promote.Config{Rules: r}
		div, _ := c.TrueDivType(promote.Strong(tensor.I8))
		exp := "refused"
		if t, err := c.FloatFuncType(promote.Strong(tensor.I8)); err == nil {
			exp = t.String()
		}
		_, meanErr := c.MeanType(promote.Strong(tensor.I8))
		lit, err := c.IntLiteral(1000, tensor.U8)
		fmt.Printf("%-10s default float %-4s i8/i8 %s  exp(i8) %-7s sum(u8) %s  mean(i8) refused %-5v u8+1000: %d %v\n",
			name, c.DefaultFloat(), div, exp, c.SumType(promote.Strong(tensor.U8)), meanErr != nil, lit, err != nil)
	}
	// Output:
	// jax        default float f64  i8/i8 f32  exp(i8) f32     sum(u8) u64  mean(i8) refused false u8+1000: 1000 true
	// numpy      default float f64  i8/i8 f64  exp(i8) f16     sum(u8) u64  mean(i8) refused false u8+1000: 1000 true
	// torch      default float f32  i8/i8 f32  exp(i8) f32     sum(u8) i64  mean(i8) refused true  u8+1000: 232 false
	// tensorflow default float f32  i8/i8 f32  exp(i8) refused sum(u8) u8  mean(i8) refused true  u8+1000: 1000 true
}

func ExampleConfig_ResultType_narrow() {
	var jax promote.Config
	f8 := promote.Strong(tensor.F8E4M3FN)
	fmt.Println(jax.ResultType(f8, promote.WeakOf(tensor.F64))) // a Python float
	fmt.Println(jax.ResultType(f8, promote.Strong(tensor.I32))) // ints lie below f*
	_, err := jax.ResultType(f8, promote.Strong(tensor.F32))
	fmt.Println(err)
	_, err = jax.ResultType(promote.Strong(tensor.I4), promote.Strong(tensor.I8))
	fmt.Println(err)
	// Output:
	// f8e4m3fn <nil>
	// f8e4m3fn <nil>
	// promote: Input dtypes ('float8_e4m3fn', 'float32') have no available implicit dtype promotion path. To avoid unintended promotion, 8-bit floats do not support implicit promotion. If you'd like your inputs to be promoted to another type, you can do so explicitly using e.g. x.astype('float32')
	// promote: Input dtypes ('int4', 'int8') have no available implicit dtype promotion path. To avoid unintended promotion, 1-bit, 2-bit and 4-bit integers do not support implicit promotion. If you'd like your inputs to be promoted to another type, you can do so explicitly using e.g. x.astype('int32')
}

func ExampleTableOver() {
	// The jax table with the narrow dtypes: the f8e4m3fn row.
	_, rows := promote.TableOver(promote.JAX, promote.JAX.AllRuleNodes(), false, false)
	fmt.Println(rows[tensor.F8E4M3FN])
	// Output:
	// [f8e4m3fn f8e4m3fn f8e4m3fn f8e4m3fn f8e4m3fn f8e4m3fn f8e4m3fn f8e4m3fn f8e4m3fn f8e4m3fn - - - - - - f8e4m3fn - - - - - - - - - - - - - - f8e4m3fn f8e4m3fn -]
}
