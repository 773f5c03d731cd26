package trace_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/kiln-go/kiln/promote"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// jaxPreferred is JAX's _validate_preferred_element_type (jax/_src/lax/
// lax.py) evaluated in Python with NumPy's dtype hierarchy (np.issubdtype,
// itemsize; bfloat16 a 2-byte np.floating): row = operand dtype, column =
// preferred_element_type, both in tensor.AllDTypes order (bool u8 u16 u32
// u64 i8 i16 i32 i64 bf16 f16 f32 f64 c64 c128); y = allowed.
var jaxPreferred = []string{
	"yyyyyyyyyyyyyyy", // bool
	".yyyyyyyyyyyy..", // u8
	"..yyy.yyyyyyy..", // u16
	"...yy..yy..yy..", // u32
	"....y...y...y..", // u64
	".....yyyyyyyy..", // i8
	"......yyyyyyy..", // i16
	".......yy..yy..", // i32
	"........y...y..", // i64
	".........yyyy..", // bf16
	".........yyyy..", // f16
	"...........yy..", // f32
	"............y..", // f64
	".............yy", // c64
	"..............y", // c128
}

// Every (operand, preferred) dtype pair, through dot_general and matmul:
// allowed pairs give a strong result of the preferred dtype whose program
// checks; refused ones a *DTypeError naming the op, both dtypes and this
// file's line.
func TestPreferredElementTypeRule(t *testing.T) {
	all := tensor.StandardDTypes()
	for i, in := range all {
		for j, pref := range all {
			allowed := jaxPreferred[i][j] == 'y'
			if got := trace.PreferredRefusal(in, pref) == ""; got != allowed {
				t.Errorf("PreferredRefusal(%s, %s): allowed = %v, JAX says %v", in, pref, got, allowed)
			}
			for _, op := range []string{"dot_general", "matmul"} {
				p, err := trace.Trace(promote.Config{}, []trace.Abstract{{Type: promote.Strong(in), Shape: []int{2, 3}}, {Type: promote.Strong(in), Shape: []int{3, 4}}},
					func(a []trace.Value) []trace.Value {
						if op == "matmul" {
							return []trace.Value{trace.MatMul(a[0], a[1], trace.PreferredElementType(pref))}
						}
						return []trace.Value{trace.DotGeneral(a[0], a[1], trace.DotDims{LhsContract: []int{1}, RhsContract: []int{0}}, trace.PreferredElementType(pref))}
					})
				if !allowed {
					var de *trace.DTypeError
					if !errors.As(err, &de) {
						t.Errorf("%s %s→%s: got %v, want a *DTypeError", op, in, pref, err)
						continue
					}
					msg := err.Error()
					for _, want := range []string{op, "preferred_element_type=" + pref.String(), in.String(), "preferred_test.go:"} {
						if !strings.Contains(msg, want) {
							t.Errorf("%s %s→%s: error %q does not name %q", op, in, pref, msg, want)
						}
					}
					continue
				}
				if err != nil {
					t.Errorf("%s %s→%s: %v", op, in, pref, err)
					continue
				}
				if err := p.Check(); err != nil {
					t.Errorf("%s %s→%s: %v", op, in, pref, err)
				}
				if got := p.Outputs[0].Type; got != promote.Strong(pref) {
					t.Errorf("%s %s→%s: result %s, want strong %s", op, in, pref, got, pref)
				}
			}
		}
	}
}

// The rule applies to the operands' promoted dtype (u8 and i8 promote to
// i16, so i32 is allowed and u8 is not). A preferred type makes even a
// product of weak operands strong in the jax.numpy functions
// (output_weak_type=False), not in lax.dot_general; without one the
// result stays weak. The printed program shows the
// preferred type as a jaxpr does.
func TestPreferredElementTypePromotion(t *testing.T) {
	abs := []trace.Abstract{{Type: promote.Strong(tensor.U8), Shape: []int{2, 3}}, {Type: promote.Strong(tensor.I8), Shape: []int{3}}}
	p, err := trace.Trace(promote.Config{}, abs, func(a []trace.Value) []trace.Value {
		return []trace.Value{trace.MatMul(a[0], a[1], trace.PreferredElementType(tensor.I32))}
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := p.Outputs[0].TypeString(); got != "i32[2]" {
		t.Errorf("u8 @ i8 with i32: %s", got)
	}
	if s := p.String(); !strings.Contains(s, "preferred_element_type=i32") {
		t.Errorf("the program does not show the preferred type:\n%s", s)
	}
	_, err = trace.Trace(promote.Config{}, abs, func(a []trace.Value) []trace.Value {
		return []trace.Value{trace.MatMul(a[0], a[1], trace.PreferredElementType(tensor.DType(99)))}
	})
	var de *trace.DTypeError
	if !errors.As(err, &de) || !strings.Contains(err.Error(), "not a dtype") {
		t.Errorf("an invalid preferred dtype: %v", err)
	}
	_, err = trace.Trace(promote.Config{}, abs, func(a []trace.Value) []trace.Value {
		return []trace.Value{trace.MatMul(a[0], a[1], trace.PreferredElementType(tensor.U16))}
	})
	if err == nil || !strings.Contains(err.Error(), "promote to i16") {
		t.Errorf("u8 @ i8 with u16 (signed i16 operands): %v", err)
	}
	weak := []trace.Abstract{{Type: promote.WeakOf(tensor.F32), Shape: []int{2, 2}}, {Type: promote.WeakOf(tensor.F32), Shape: []int{2, 2}}}
	f32, f64 := []trace.DotOption{trace.PreferredElementType(tensor.F32)}, []trace.DotOption{trace.PreferredElementType(tensor.F64)}
	dims := trace.DotDims{LhsContract: []int{1}, RhsContract: []int{0}}
	for _, tc := range []struct {
		name string
		fn   func(x, y trace.Value) trace.Value
		want promote.Type
	}{
		{"matmul", func(x, y trace.Value) trace.Value { return trace.MatMul(x, y) }, promote.WeakOf(tensor.F32)},
		{"matmul f32", func(x, y trace.Value) trace.Value { return trace.MatMul(x, y, f32...) }, promote.Strong(tensor.F32)},
		{"matmul f64", func(x, y trace.Value) trace.Value { return trace.MatMul(x, y, f64...) }, promote.Strong(tensor.F64)},
		{"dot f64", func(x, y trace.Value) trace.Value { return trace.Dot(x, y, f64...) }, promote.Strong(tensor.F64)},
		{"tensordot f64", func(x, y trace.Value) trace.Value { return trace.TensordotN(x, y, 1, f64...) }, promote.Strong(tensor.F64)},
		{"einsum f64", func(x, y trace.Value) trace.Value { return trace.EinsumPreferred("ij,jk", tensor.F64, x, y) }, promote.Strong(tensor.F64)},
		// lax.dot_general: the standard weak-type rule (weak when every operand is).
		{"dot_general f64", func(x, y trace.Value) trace.Value { return trace.DotGeneral(x, y, dims, f64...) }, promote.WeakOf(tensor.F64)},
	} {
		p, err := trace.Trace(promote.Config{}, weak, func(a []trace.Value) []trace.Value { return []trace.Value{tc.fn(a[0], a[1])} })
		if err != nil {
			t.Fatal(err)
		}
		if got := p.Outputs[0].Type; got != tc.want {
			t.Errorf("weak f32, weak f32: %s gives %s, want %s\n%s", tc.name, got, tc.want, p)
		}
		if err := p.Check(); err != nil {
			t.Errorf("%s: %v", tc.name, err)
		}
	}
}

// einsum with a preferred type: the pairwise dots carry it, a sum over an
// operand's own letter runs in it, the result is strong; a refused type is
// a *DTypeError naming einsum.
func TestEinsumPreferred(t *testing.T) {
	abs := []trace.Abstract{{Type: promote.Strong(tensor.BF16), Shape: []int{2, 3, 5}}, {Type: promote.Strong(tensor.BF16), Shape: []int{3, 4}}}
	p, err := trace.Trace(promote.Config{}, abs, func(a []trace.Value) []trace.Value {
		return []trace.Value{trace.EinsumPreferred("ijx,jk->ki", tensor.F32, a[0], a[1])}
	})
	if err != nil {
		t.Fatal(err)
	}
	s := p.String()
	if got := p.Outputs[0].TypeString(); got != "f32[4,2]" {
		t.Errorf("result %s, want f32[4,2]\n%s", got, s)
	}
	if !strings.Contains(s, "preferred_element_type=f32") || !strings.Contains(s, "reduce_sum") {
		t.Errorf("program:\n%s", s)
	}
	for _, e := range p.Eqns {
		if e.Op == trace.OpReduceSum && e.Args[0].Type.DType != tensor.F32 {
			t.Errorf("the sum over x runs in %s, want f32\n%s", e.Args[0].Type, s)
		}
	}
	_, err = trace.Trace(promote.Config{}, abs, func(a []trace.Value) []trace.Value {
		return []trace.Value{trace.EinsumPreferred("ijx,jk->ki", tensor.I32, a[0], a[1])}
	})
	var de *trace.DTypeError
	if !errors.As(err, &de) || !strings.Contains(err.Error(), "einsum") || !strings.Contains(err.Error(), "preferred_test.go:") {
		t.Errorf("bf16 einsum with i32: %v", err)
	}
}

// jnp.dot and jnp.tensordot's bad shapes and axes are *ShapeErrors naming
// their op and the caller's line; their preferred type is dot_general's.
func TestDotTensordotErrors(t *testing.T) {
	abs := []trace.Abstract{{Type: promote.Strong(tensor.I8), Shape: []int{2, 3}}, {Type: promote.Strong(tensor.I8), Shape: []int{2, 3}}}
	for _, tc := range []struct {
		op, want string
		fn       func(x, y trace.Value) trace.Value
	}{
		{"dot", "contracting dimensions", func(x, y trace.Value) trace.Value { return trace.Dot(x, y) }},
		{"tensordot", "equal length", func(x, y trace.Value) trace.Value { return trace.Tensordot(x, y, []int{0}, []int{0, 1}) }},
		{"tensordot", "out of range", func(x, y trace.Value) trace.Value { return trace.Tensordot(x, y, []int{2}, []int{0}) }},
		{"tensordot", "exceeds input ranks", func(x, y trace.Value) trace.Value { return trace.TensordotN(x, y, 3) }},
		{"tensordot", "appears twice", func(x, y trace.Value) trace.Value { return trace.Tensordot(x, y, []int{0, -2}, []int{0, 1}) }},
	} {
		_, err := trace.Trace(promote.Config{}, abs, func(a []trace.Value) []trace.Value { return []trace.Value{tc.fn(a[0], a[1])} })
		var se *trace.ShapeError
		if !errors.As(err, &se) || se.Op != tc.op || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "preferred_test.go:") {
			t.Errorf("%s: %v, want a *ShapeError of %s saying %q at this file", tc.op, err, tc.op, tc.want)
		}
	}
	p, err := trace.Trace(promote.Config{}, abs, func(a []trace.Value) []trace.Value {
		return []trace.Value{trace.Tensordot(a[0], a[1], []int{0, 1}, []int{0, 1}, trace.PreferredElementType(tensor.F32))}
	})
	if err != nil || p.Outputs[0].TypeString() != "f32[]" {
		t.Errorf("tensordot to f32: %v %v", p, err)
	}
}

// lax.conv_general_dilated takes preferred_element_type as dot_general
// does: the rule, the printed param, the weak flag, the typed refusal.
func TestConvPreferred(t *testing.T) {
	abs := func(d tensor.DType, weak bool) []trace.Abstract {
		ty := promote.Strong(d)
		if weak {
			ty = promote.WeakOf(d)
		}
		return []trace.Abstract{{Type: ty, Shape: []int{1, 2, 5, 5}}, {Type: ty, Shape: []int{3, 2, 3, 3}}}
	}
	conv := func(d tensor.DType) func(a []trace.Value) []trace.Value {
		return func(a []trace.Value) []trace.Value {
			return []trace.Value{trace.ConvGeneralDilated(a[0], a[1], trace.ConvOptions{PaddingMode: "SAME"}, trace.PreferredElementType(d))}
		}
	}
	p, err := trace.Trace(promote.Config{}, abs(tensor.BF16, false), conv(tensor.F32))
	if err != nil {
		t.Fatal(err)
	}
	if got := p.Outputs[0].TypeString(); got != "f32[1,3,5,5]" || !strings.Contains(p.String(), "preferred_element_type=f32") {
		t.Errorf("bf16 conv with f32: %s\n%s", got, p)
	}
	if err := p.Check(); err != nil {
		t.Error(err)
	}
	p, err = trace.Trace(promote.Config{}, abs(tensor.F32, true), conv(tensor.F64))
	if err != nil || p.Outputs[0].Type != promote.WeakOf(tensor.F64) {
		t.Errorf("weak f32 conv with f64: %v %v", p, err)
	}
	_, err = trace.Trace(promote.Config{}, abs(tensor.I32, false), conv(tensor.I8))
	var de *trace.DTypeError
	if !errors.As(err, &de) || !strings.Contains(err.Error(), "conv_general_dilated") || !strings.Contains(err.Error(), "narrower") ||
		!strings.Contains(err.Error(), "preferred_test.go:") {
		t.Errorf("i32 conv with i8: %v", err)
	}
}

// The narrow dtypes take JAX's rule with ml_dtypes' itemsize, 1: a float8
// accumulates in any float (f32, bf16, another 8-bit float), an int4 in
// any signed integer or float, a uint4 in any integer or float.
func TestPreferredElementTypeNarrow(t *testing.T) {
	for _, c := range []struct {
		in, pref tensor.DType
		ok       bool
	}{
		{tensor.F8E4M3FN, tensor.F32, true}, {tensor.F8E4M3FN, tensor.BF16, true}, {tensor.F8E5M2, tensor.F8E4M3FN, true},
		{tensor.F4E2M1FN, tensor.F16, true}, {tensor.F8E4M3FN, tensor.I32, false}, {tensor.F8E4M3FN, tensor.C64, false},
		{tensor.I4, tensor.I32, true}, {tensor.I4, tensor.I8, true}, {tensor.I4, tensor.F32, true}, {tensor.I4, tensor.U8, false},
		{tensor.U4, tensor.I32, true}, {tensor.U2, tensor.U8, true}, {tensor.I2, tensor.F8E4M3FN, true},
	} {
		if got := trace.PreferredRefusal(c.in, c.pref) == ""; got != c.ok {
			t.Errorf("PreferredRefusal(%s, %s): allowed = %v, want %v", c.in, c.pref, got, c.ok)
		}
	}
}
