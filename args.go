package kiln

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"strings"

	"github.com/kiln-go/kiln/kernels"
	"github.com/kiln-go/kiln/promote"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// WeakArray marks an array argument as weak (JAX's weak_type=True): it
// promotes like a literal of its kind. Build one with Weak.
type WeakArray struct{ Array *tensor.Array }

// Weak marks a as a weak argument.
func Weak(a *tensor.Array) WeakArray { return WeakArray{a} }

// ArgError reports an argument a call cannot take: a Func's arguments
// (Run, RunAll, RunInto, Trace, Lower, Explain), RunInto's output arrays,
// the number of either, or an option (WithBackend(nil)). Every argument
// error of the package is one, so errors.As(err, &argErr) tells the
// caller's mistakes from the program's; Err, when set, is the typed cause
// (a *tensor.SizeError, a *kernels.ArgError, …), which errors.As also
// finds.
type ArgError struct {
	Index  int  // the argument's (or output's) position, or -1 for a count or an option
	Output bool // an output array given to RunInto
	Msg    string
	Err    error
}

func (e *ArgError) Error() string {
	switch {
	case e.Index < 0:
		return "kiln: " + e.Msg
	case e.Output:
		return fmt.Sprintf("kiln: output %d: %s", e.Index, e.Msg)
	}
	return fmt.Sprintf("kiln: argument %d: %s", e.Index, e.Msg)
}

// Unwrap returns the typed cause, if any.
func (e *ArgError) Unwrap() error { return e.Err }

// asArgError turns a backend's complaint about the arrays it was given (a
// *kernels.ArgError) into the package's *ArgError; other errors pass.
func asArgError(err error) error {
	if err == nil {
		return nil // before errors.As, whose target escapes: a RunInto loop allocates nothing
	}
	var ke *kernels.ArgError
	if errors.As(err, &ke) {
		return &ArgError{Index: ke.Index, Output: ke.Output, Msg: ke.Msg, Err: err}
	}
	return err
}

// checkConfig reports an option no call can run with: WithBackend(nil).
// Jit (Func.Err) and Eval report it.
func checkConfig(c *config) error {
	if v := reflect.ValueOf(c.backend); !v.IsValid() || v.Kind() == reflect.Pointer && v.IsNil() {
		return &ArgError{Index: -1, Msg: "WithBackend(nil): no backend to run on"}
	}
	return nil
}

// arg is one converted argument: its data and whether it is weak. Its
// abstract type (dtype, weak flag, shape) is the array's.
type arg struct {
	array *tensor.Array
	weak  bool
}

// abstract is the argument as the tracer sees it.
func (a arg) abstract() trace.Abstract {
	t := promote.Strong(a.array.DType())
	if a.weak {
		t = promote.WeakOf(a.array.DType())
	}
	return trace.Abstract{Type: t, Shape: a.array.Shape()}
}

// toArg converts a Run argument. Go's int, float64 and complex128 — the
// types untyped constants default to — are weak scalars, as Python scalars
// are to a jitted JAX function; every other scalar type, bool, typed
// slices and arrays are strong. Go's platform-width uint, []int and []uint
// take the default integer dtypes (u64, i64, u64; u32, i32, u32 with X32).
func toArg(i int, v any, cfg promote.Config) (arg, error) {
	weak := func(a *tensor.Array) arg { return arg{array: a, weak: a.DType() != tensor.Bool} }
	strong := func(a *tensor.Array) arg { return arg{array: a} }
	switch x := v.(type) {
	case nil:
		return arg{}, &ArgError{Index: i, Msg: "nil argument"}
	case *tensor.Array:
		if msg := invalidArray(x); msg != "" {
			return arg{}, &ArgError{Index: i, Msg: msg}
		}
		return strong(x), nil
	case WeakArray:
		if msg := invalidArray(x.Array); msg != "" {
			return arg{}, &ArgError{Index: i, Msg: "weak array: " + msg}
		}
		if x.Array.DType() == tensor.Bool {
			return strong(x.Array), nil
		}
		return weak(x.Array), nil
	case int:
		if cfg.X32 {
			if x < math.MinInt32 || x > math.MaxInt32 {
				return arg{}, &ArgError{Index: i, Msg: fmt.Sprintf("int %d overflows the weak i32 of 32-bit mode", x)}
			}
			return weak(tensor.Scalar(int32(x))), nil
		}
		return weak(tensor.Scalar(int64(x))), nil
	case uint:
		if cfg.X32 {
			if x > math.MaxUint32 {
				return arg{}, &ArgError{Index: i, Msg: fmt.Sprintf("uint %d overflows the u32 of 32-bit mode", x)}
			}
			return strong(tensor.Scalar(uint32(x))), nil
		}
		return strong(tensor.Scalar(uint64(x))), nil
	case []int:
		if cfg.X32 {
			return narrowInts[int, int32](i, x, math.MinInt32, math.MaxInt32, "[]int", "i32")
		}
		return narrowInts[int, int64](i, x, math.MinInt64, math.MaxInt64, "[]int", "i64")
	case []uint:
		if cfg.X32 {
			return narrowInts[uint, uint32](i, x, 0, math.MaxUint32, "[]uint", "u32")
		}
		return narrowInts[uint, uint64](i, x, 0, math.MaxUint64, "[]uint", "u64")
	case float64:
		if cfg.X32 {
			return weak(tensor.Scalar(float32(x))), nil
		}
		return weak(tensor.Scalar(x)), nil
	case complex128:
		if cfg.X32 {
			return weak(tensor.Scalar(complex64(x))), nil
		}
		return weak(tensor.Scalar(x)), nil
	case bool:
		return strong(tensor.Scalar(x)), nil
	case int8:
		return strong(tensor.Scalar(x)), nil
	case int16:
		return strong(tensor.Scalar(x)), nil
	case int32:
		return strong(tensor.Scalar(x)), nil
	case int64:
		return strong(tensor.Scalar(x)), nil
	case uint8:
		return strong(tensor.Scalar(x)), nil
	case uint16:
		return strong(tensor.Scalar(x)), nil
	case uint32:
		return strong(tensor.Scalar(x)), nil
	case uint64:
		return strong(tensor.Scalar(x)), nil
	case float32:
		return strong(tensor.Scalar(x)), nil
	case tensor.Float16:
		return strong(tensor.Scalar(x)), nil
	case tensor.BFloat16:
		return strong(tensor.Scalar(x)), nil
	case complex64:
		return strong(tensor.Scalar(x)), nil
	}
	if a, ok, err := narrowScalar(v); ok {
		if err != nil {
			return arg{}, &ArgError{Index: i, Msg: err.Error(), Err: err}
		}
		return strong(a), nil
	}
	if d, ok := tensor.SliceDType(v); ok {
		a, err := tensor.New(d, []int{sliceLen(v)}, v)
		if err != nil {
			return arg{}, &ArgError{Index: i, Msg: err.Error(), Err: err}
		}
		return strong(a), nil
	}
	return arg{}, &ArgError{Index: i, Msg: fmt.Sprintf("%T is not an array, a typed slice or a scalar", v)}
}

// invalidArray says what is wrong with an array argument — nil, or the
// zero tensor.Array, which no constructor makes — or returns "".
func invalidArray(a *tensor.Array) string {
	switch {
	case a == nil:
		return "nil *tensor.Array"
	case !a.IsPacked() && a.Data() == nil:
		return "the zero tensor.Array (not made by a tensor constructor such as FromSlice or Zeros)"
	}
	return ""
}

// narrowInts copies a []int or []uint argument into a strong 1-D array of
// the default integer dtype T, refusing an element outside [lo, hi] (in
// 32-bit mode) as JAX refuses a Python int beyond int32 there.
func narrowInts[S int | uint, T int32 | int64 | uint32 | uint64](i int, xs []S, lo int64, hi uint64, goType, dtype string) (arg, error) {
	out := make([]T, len(xs))
	for j, x := range xs {
		if (lo < 0 && int64(x) < lo) || (x >= 0 && uint64(x) > hi) {
			return arg{}, &ArgError{Index: i, Msg: fmt.Sprintf("%s element %d (%d) overflows the %s of 32-bit mode", goType, j, x, dtype)}
		}
		out[j] = T(x)
	}
	a, err := tensor.FromSlice(out)
	if err != nil {
		return arg{}, &ArgError{Index: i, Msg: err.Error(), Err: err}
	}
	return arg{array: a}, nil
}

func sliceLen(v any) int { return reflect.ValueOf(v).Len() }

// sigHash hashes a call's signature — every argument's dtype, weak flag
// and shape, and its tree arguments' shape — without allocating (FNV-1a).
func sigHash(args []arg, st shape) uint64 {
	h := uint64(14695981039346656037)
	mix := func(v uint64) {
		h ^= v
		h *= 1099511628211
	}
	for _, a := range args {
		mix(uint64(a.array.DType())<<1 | b2u(a.weak))
		mix(uint64(a.array.Rank()))
		for i := range a.array.Rank() {
			mix(uint64(a.array.Dim(i)))
		}
	}
	for _, d := range st.dims {
		mix(uint64(d))
	}
	for _, k := range st.keys {
		for i := range len(k) {
			mix(uint64(k[i]))
		}
		mix(1 << 40)
	}
	return h
}

func b2u(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

// sig is a signature kept by a cache entry, to check a hash hit exactly.
type sig []trace.Abstract

func signatureOf(args []arg) sig {
	s := make(sig, len(args))
	for i, a := range args {
		s[i] = a.abstract()
	}
	return s
}

// matches reports whether args have exactly this signature.
func (s sig) matches(args []arg) bool {
	if len(s) != len(args) {
		return false
	}
	for i, a := range args {
		t := s[i].Type
		if t.DType != a.array.DType() || t.Weak != a.weak || !a.array.HasShape(s[i].Shape) {
			return false
		}
	}
	return true
}

// describeMiss says how a new signature differs from a cached one.
func describeMiss(prev sig, cur []arg) string {
	if prev == nil {
		return "first call"
	}
	if len(prev) != len(cur) {
		return fmt.Sprintf("%d arguments instead of %d", len(cur), len(prev))
	}
	var diffs []string
	for i := range cur {
		p, c := prev[i], cur[i].abstract()
		switch {
		case p.Type.DType != c.Type.DType:
			diffs = append(diffs, fmt.Sprintf("argument %d: dtype %s, was %s", i, c.Type.DType, p.Type.DType))
		case p.Type.Weak != c.Type.Weak:
			diffs = append(diffs, fmt.Sprintf("argument %d: weak %v, was %v", i, c.Type.Weak, p.Type.Weak))
		case !trace.ShapeEqual(p.Shape, c.Shape):
			diffs = append(diffs, fmt.Sprintf("argument %d: shape %v, was %v", i, c.Shape, p.Shape))
		}
	}
	return strings.Join(diffs, "; ")
}

// narrowScalar makes a rank-0 array of a scalar of a narrow dtype
// (tensor.Float8E4M3FN(0x38), tensor.Int4(-3)); ok is false for any other
// value, err reports an element out of its dtype (tensor.Int4(9)).
func narrowScalar(v any) (a *tensor.Array, ok bool, err error) {
	s := reflect.MakeSlice(reflect.SliceOf(reflect.TypeOf(v)), 1, 1)
	d, ok := tensor.SliceDType(s.Interface())
	if !ok || !d.IsNarrow() {
		return nil, false, nil
	}
	s.Index(0).Set(reflect.ValueOf(v))
	a, err = tensor.New(d, []int{}, s.Interface())
	return a, true, err
}
