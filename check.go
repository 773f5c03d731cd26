package kiln

import (
	"github.com/kiln-go/kiln/kernels"
	"github.com/kiln-go/kiln/lower"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// CheckKind is a class of run-time check of checked mode (Checked).
type CheckKind = kernels.CheckKind

// The check kinds, combined with |. Checked() with none is CheckIndex and
// CheckDivide, as checkify's index and division checks.
const (
	// CheckIndex: a gather, scatter, dynamic_slice or dynamic_update_slice
	// index whose window does not fit (JAX clamps, fills or drops it):
	// indexing, Take, TakeAlongAxis, At(…).Set/Add, DynamicSlice.
	CheckIndex = kernels.CheckIndex
	// CheckDivide: an integer floor division or remainder by zero (which
	// gives 0).
	CheckDivide = kernels.CheckDivide
	// CheckNaN: a kernel writes a NaN into a floating-point result none of
	// whose floating-point operands holds one (checkify's nan_checks).
	CheckNaN = kernels.CheckNaN
)

// CheckError is the error of a failed check: the check's kind, the op and
// the file:line of the call that made it, and the first offending index
// (its value, the axis and the axis's size) or element. errors.As finds it
// in the error of Run, RunAll, RunInto and Eval.
type CheckError = kernels.CheckError

// Checked turns on checked mode, in the spirit of
// jax.experimental.checkify: conditions that JAX's semantics define away
// silently become a *CheckError from Run. With no kinds it checks indices
// and integer division (CheckIndex | CheckDivide); CheckNaN is opt-in.
//
// The checks run inside the compiled kernels, where they already look at
// the values: a gather's window start is tested where it is clamped, a
// divisor block just before the division reads it; loop and branch bodies
// are checked too. The first failure (the earliest kernel, its lowest
// element) ends the Run: Run returns no results, and the arrays RunInto
// was given hold unspecified values (the kernels before the failing one
// may have written some), as after a stopped run. A Func without Checked
// compiles exactly the kernels it always did, so its results are
// bit-identical; with it, a Run that passes its checks gives the same bits.
// Checked mode runs on the CPU backend; another backend's Compile refuses
// it.
func Checked(kinds ...CheckKind) Option {
	return func(c *config) {
		c.checks = 0
		for _, k := range kinds {
			c.checks |= k
		}
		if c.checks == 0 {
			c.checks = kernels.DefaultChecks
		}
	}
}

// checkedFold is lowering's constant folding under the checks: it declines
// to fold an op on constants whose check would fail (an integer division
// by a zero constant, an index op — its indices are not worth testing at
// compile time —, a NaN made from NaN-free constants), so the op stays in
// the program and its kernel reports the failure at its position when the
// program runs, as the same op on a parameter would. Without checks it is
// kernels.Fold.
func checkedFold(checks CheckKind) func(*lower.Instr, []*tensor.Array) (*tensor.Array, error) {
	if checks == 0 {
		return kernels.Fold
	}
	return func(in *lower.Instr, args []*tensor.Array) (*tensor.Array, error) {
		switch in.Op {
		case trace.OpGather, trace.OpScatter, trace.OpScatterAdd, trace.OpScatterMul, trace.OpScatterMin,
			trace.OpScatterMax, trace.OpDynamicSlice, trace.OpDynamicUpdateSlice:
			if checks&CheckIndex != 0 {
				return nil, nil
			}
		case trace.OpFloorDiv, trace.OpRem:
			if checks&CheckDivide != 0 && in.DType.IsInteger() && len(args) == 2 && hasZero(args[1]) {
				return nil, nil
			}
		}
		v, err := kernels.Fold(in, args)
		if err != nil || v == nil || checks&CheckNaN == 0 || !hasNaN(v) {
			return v, err
		}
		for _, a := range args {
			if hasNaN(a) {
				return v, nil // propagated, not made
			}
		}
		return nil, nil
	}
}

// hasZero reports whether an integer constant holds a zero.
func hasZero(a *tensor.Array) bool {
	for _, v := range a.Astype(tensor.I64).Data().([]int64) {
		if v == 0 {
			return true
		}
	}
	return false
}

// hasNaN reports whether a floating-point or complex constant holds a NaN.
func hasNaN(a *tensor.Array) bool {
	if !a.DType().IsFloat() && !a.DType().IsComplex() {
		return false
	}
	for _, v := range a.Astype(tensor.C128).Data().([]complex128) {
		if real(v) != real(v) || imag(v) != imag(v) {
			return true
		}
	}
	return false
}
