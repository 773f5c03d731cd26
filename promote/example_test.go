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
