package kiln

import (
	"fmt"
	"math"
	"reflect"
	"strings"

	"github.com/x448/float16"

	"github.com/kiln-go/kiln/promote"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// WeakArray marks an array argument as weak (JAX's weak_type=True): it
// promotes like a literal of its kind. Build one with Weak.
type WeakArray struct{ Array *tensor.Array }

// Weak marks a as a weak argument.
func Weak(a *tensor.Array) WeakArray { return WeakArray{a} }

// ArgError reports an argument Run cannot take.
type ArgError struct {
	Index int // the argument's position, or -1 for the count
	Msg   string
}

func (e *ArgError) Error() string {
	if e.Index < 0 {
		return "kiln: " + e.Msg
	}
	return fmt.Sprintf("kiln: argument %d: %s", e.Index, e.Msg)
}

// arg is one converted argument: its abstract type and its data.
type arg struct {
	abs   trace.Abstract
	array *tensor.Array
}

// toArg converts a Run argument. Go's int, float64 and complex128 — the
// types untyped constants default to — are weak scalars, as Python scalars
// are to a jitted JAX function; every other scalar type, bool, typed
// slices and arrays are strong.
func toArg(i int, v any, cfg promote.Config) (arg, error) {
	weak := func(a *tensor.Array) arg {
		return arg{abs: trace.Abstract{Type: promote.WeakOf(a.DType()), Shape: a.Shape()}, array: a}
	}
	strong := func(a *tensor.Array) arg {
		return arg{abs: trace.Abstract{Type: promote.Strong(a.DType()), Shape: a.Shape()}, array: a}
	}
	switch x := v.(type) {
	case nil:
		return arg{}, &ArgError{Index: i, Msg: "nil argument"}
	case *tensor.Array:
		if x == nil {
			return arg{}, &ArgError{Index: i, Msg: "nil *tensor.Array"}
		}
		return strong(x), nil
	case WeakArray:
		if x.Array == nil {
			return arg{}, &ArgError{Index: i, Msg: "nil weak array"}
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
	case float16.Float16:
		return strong(tensor.Scalar(x)), nil
	case tensor.BFloat16:
		return strong(tensor.Scalar(x)), nil
	case complex64:
		return strong(tensor.Scalar(x)), nil
	}
	if d, ok := tensor.SliceDType(v); ok {
		a, err := tensor.New(d, []int{sliceLen(v)}, v)
		if err != nil {
			return arg{}, &ArgError{Index: i, Msg: err.Error()}
		}
		return strong(a), nil
	}
	return arg{}, &ArgError{Index: i, Msg: fmt.Sprintf("%T is not an array, a typed slice or a scalar", v)}
}

func sliceLen(v any) int { return reflect.ValueOf(v).Len() }

// signature is the cache key of a call: every argument's dtype, weak flag
// and shape.
func signature(args []arg) string {
	var b strings.Builder
	for _, a := range args {
		fmt.Fprintf(&b, "%s%v;", a.abs.Type, a.abs.Shape)
	}
	return b.String()
}

// describeMiss says how a new signature differs from a cached one.
func describeMiss(prev, cur []arg) string {
	if prev == nil {
		return "first call"
	}
	if len(prev) != len(cur) {
		return fmt.Sprintf("%d arguments instead of %d", len(cur), len(prev))
	}
	var diffs []string
	for i := range cur {
		p, c := prev[i].abs, cur[i].abs
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
