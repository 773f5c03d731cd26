package kiln

import "github.com/kiln-go/kiln/trace"

// Control flow, as jax.lax's: the functions are traced once into
// sub-programs, not unrolled (see trace's package doc and control.go for
// the typing rules, which are JAX's).

// ScanOptions are Scan's keywords (lax.scan's reverse and length).
type ScanOptions = trace.ScanOptions

// ControlError reports a control-flow function whose types break the op's
// rule (a carry changing type, branches disagreeing, a bad predicate).
type ControlError = trace.ControlError

// ForiLoop is lax.fori_loop: for i in [lo, hi), carry = body(i, carry).
func ForiLoop(lo, hi Value, body func(i Value, carry []Value) []Value, init ...Value) []Value {
	return trace.ForiLoop(lo, hi, body, init...)
}

// WhileLoop is lax.while_loop: carry = body(carry) while cond(carry).
func WhileLoop(cond func(carry []Value) Value, body func(carry []Value) []Value, init ...Value) []Value {
	return trace.WhileLoop(cond, body, init...)
}

// Cond is lax.cond: onTrue(operands) if pred, else onFalse(operands).
func Cond(pred Value, onTrue, onFalse func(ops []Value) []Value, operands ...Value) []Value {
	return trace.Cond(pred, onTrue, onFalse, operands...)
}

// Switch is lax.switch: branches[clamp(index)](operands).
func Switch(index Value, branches []func(ops []Value) []Value, operands ...Value) []Value {
	return trace.Switch(index, branches, operands...)
}

// Scan is lax.scan: (carry, y) = f(carry, x) over the leading axis of xs;
// it returns the final carry and the stacked ys.
func Scan(f func(carry, x []Value) ([]Value, []Value), init, xs []Value, opts ...ScanOptions) ([]Value, []Value) {
	return trace.Scan(f, init, xs, opts...)
}
