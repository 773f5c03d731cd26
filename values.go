package kiln

import (
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// Value is an abstract array inside a traced function, with jax.numpy's
// functions as methods: Add, Mul, Exp, Sum, MatMul, Reshape, Astype, …
// (the package doc indexes all of them by family). Builder methods never
// return errors: the first error sticks to the trace, with the op and your
// file:line, and Run returns it.
//
// Value is an alias of trace.Value, so `go doc` shows its methods there,
// by the full import path: `go doc github.com/kiln-go/kiln/trace
// Value.Add` (`go doc github.com/kiln-go/kiln Value.Add` finds nothing).
type Value = trace.Value

// Int is a weak integer literal, like a Python int in JAX: it takes the
// dtype of the array it meets (i64 alone, or i32 with X32).
func Int(v int64) Value { return trace.Int(v) }

// Float is a weak float literal (f64 alone, or f32 with X32).
func Float(v float64) Value { return trace.Float(v) }

// Complex is a weak complex literal (c128 alone, or c64 with X32).
func Complex(v complex128) Value { return trace.Complex(v) }

// Bool is a bool literal (never weak).
func Bool(v bool) Value { return trace.Bool(v) }

// Const is a strong constant array, copied into the program.
func Const(a *tensor.Array) Value { return trace.Const(a) }

// Where returns cond ? a : b elementwise; a non-bool cond means cond != 0.
func Where(cond, a, b Value) Value { return trace.Where(cond, a, b) }

// LogicalAnd, LogicalOr, LogicalXor and LogicalNot are NumPy's logical_*:
// operands are taken as truth values (x != 0) and the result is bool.
func LogicalAnd(x, y Value) Value { return trace.LogicalAnd(x, y) }

// LogicalOr is numpy.logical_or.
func LogicalOr(x, y Value) Value { return trace.LogicalOr(x, y) }

// LogicalXor is numpy.logical_xor.
func LogicalXor(x, y Value) Value { return trace.LogicalXor(x, y) }

// LogicalNot is numpy.logical_not.
func LogicalNot(x Value) Value { return trace.LogicalNot(x) }

// Concatenate joins xs along axis, promoting their dtypes together.
func Concatenate(axis int, xs ...Value) Value { return trace.Concatenate(axis, xs...) }

// StopGradient is x, through which derivatives do not flow
// (lax.stop_gradient).
func StopGradient(x Value) Value { return trace.StopGradient(x) }
