package kiln

import (
	"fmt"
	"math"
	"reflect"
	"strings"

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
// slices and arrays are strong.
func toArg(i int, v any, cfg promote.Config) (arg, error) {
	weak := func(a *tensor.Array) arg { return arg{array: a, weak: a.DType() != tensor.Bool} }
	strong := func(a *tensor.Array) arg { return arg{array: a} }
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
	case tensor.Float16:
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

// sigHash hashes a call's signature — every argument's dtype, weak flag
// and shape — without allocating (FNV-1a).
func sigHash(args []arg) uint64 {
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
