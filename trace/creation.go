package trace

import (
	"fmt"
	"math"
	"slices"

	"github.com/kiln-go/kiln/promote"
	"github.com/kiln-go/kiln/tensor"
)

// jax.numpy's array constructors, built on iota, broadcasts and converts
// (so they fuse into whatever uses them and need no kernels of their
// own). Dtype defaults and weak types are JAX's: zeros, ones and eye are
// the default float; full takes its fill value's type, weak for a weak
// literal; the _like forms take x's dtype and weak flag unless a dtype is
// given; arange takes the default int.

// optDType is an optional dtype argument: none, or one valid dtype.
func optDType(op string, dtype []tensor.DType) (tensor.DType, bool, error) {
	switch {
	case len(dtype) == 0:
		return 0, false, nil
	case len(dtype) > 1:
		return 0, false, &DTypeError{Op: op, Pos: callerPos(), Msg: fmt.Sprintf("one dtype at most, got %v", dtype)}
	case !dtype[0].Valid():
		return 0, false, &DTypeError{Op: op, Pos: callerPos(), Msg: fmt.Sprintf("an invalid dtype %v", dtype[0])}
	}
	return dtype[0], true, nil
}

func checkShapeArg(op string, shape []int) error {
	for _, n := range shape {
		if n < 0 {
			return &ShapeError{Op: op, Pos: callerPos(), Shapes: [][]int{shape}, Msg: fmt.Sprintf("negative dimension in shape %s", shapeString(shape))}
		}
	}
	if _, err := tensor.ShapeSize(shape); err != nil {
		return &ShapeError{Op: op, Pos: callerPos(), Shapes: [][]int{shape}, Msg: err.Error(), Err: err}
	}
	return nil
}

// Full is an array of the given shape filled with fill (jnp.full): fill's
// type (weak for a weak literal), or dtype when given; fill broadcasts to
// shape.
func Full(shape []int, fill Value, dtype ...tensor.DType) Value {
	d, set, err := optDType("full", dtype)
	if err == nil {
		err = checkShapeArg("full", shape)
	}
	if err != nil {
		return Failure(err)
	}
	shape = slices.Clone(shape)
	if set {
		fill = fill.Astype(d)
	}
	return fill.BroadcastTo(shape...)
}

// constant is Full of the literal v, in dtype or the default float.
func constant(op string, shape []int, v int64, dtype []tensor.DType) Value {
	d, set, err := optDType(op, dtype)
	if err == nil {
		err = checkShapeArg(op, shape)
	}
	if err != nil {
		return Failure(err)
	}
	shape = slices.Clone(shape)
	return freeOp(func(b *builder) Value {
		if !set {
			d = b.cfg.DefaultFloat()
		}
		return b.attach(Int(v).Astype(d).BroadcastTo(shape...), op)
	})
}

// Zeros is an array of zeros (jnp.zeros): the default float unless dtype.
func Zeros(shape []int, dtype ...tensor.DType) Value { return constant("zeros", shape, 0, dtype) }

// Ones is an array of ones (jnp.ones): the default float unless dtype.
func Ones(shape []int, dtype ...tensor.DType) Value { return constant("ones", shape, 1, dtype) }

// FullLike is an array of x's shape filled with fill (jnp.full_like): of
// x's dtype and weak flag, or of dtype (strong) when given.
func FullLike(x, fill Value, dtype ...tensor.DType) Value {
	d, set, err := optDType("full_like", dtype)
	if err != nil {
		return Failure(err)
	}
	return unary("full_like", x, func(b *builder, v *Var) Value {
		t := v.Type
		if set {
			t = promote.Strong(d)
		}
		f := b.attach(fill, "full_like")
		if b.err != nil {
			return Value{b: b}
		}
		if f.lit != nil {
			f = Value{b: b, v: b.to(f, t, "full_like", "")}
		} else {
			f = ConvertTo(f, t, "full_like")
		}
		return f.BroadcastTo(v.Shape...)
	})
}

// ZerosLike is FullLike(x, 0).
func ZerosLike(x Value, dtype ...tensor.DType) Value { return FullLike(x, Int(0), dtype...) }

// OnesLike is FullLike(x, 1).
func OnesLike(x Value, dtype ...tensor.DType) Value { return FullLike(x, Int(1), dtype...) }

// Arange is start, start+step, … up to but not including stop
// (jnp.arange with integer arguments), in the default int dtype unless
// dtype: an iota, scaled and shifted, exact in any dtype that holds the
// values. Its length is NumPy's ⌈(stop − start)/step⌉, exact over the
// whole int range (arange(MinInt64, MaxInt64, 1<<62) has 4 elements); a
// length past the int range is a *ShapeError wrapping a *tensor.SizeError.
func Arange(start, stop, step int, dtype ...tensor.DType) Value {
	d, set, err := optDType("arange", dtype)
	if err != nil {
		return Failure(err)
	}
	if step == 0 {
		return Failure(&ShapeError{Op: "arange", Pos: callerPos(), Msg: "arange's step must not be zero"})
	}
	n, ok := arangeLen(start, stop, step)
	if !ok {
		return Failure(&ShapeError{Op: "arange", Pos: callerPos(),
			Msg: fmt.Sprintf("arange(%d, %d, %d) has %d elements, more than an int holds", start, stop, step, n),
			Err: &tensor.SizeError{Op: "arange", Msg: fmt.Sprintf("%d elements do not fit an int (at most %d)", n, math.MaxInt)}})
	}
	return freeOp(func(b *builder) Value {
		if !set {
			d = b.cfg.DefaultInt()
		}
		it := b.cfg.DefaultInt()
		v := Iota(it, []int{int(n)}, 0)
		if step != 1 {
			v = v.Mul(Int(int64(step)))
		}
		if start != 0 {
			v = v.Add(Int(int64(start)))
		}
		return b.attach(v.Astype(d), "arange")
	})
}

// arangeLen is the number of elements of arange(start, stop, step),
// NumPy's ⌈(stop − start)/step⌉ (0 when negative), exact over the whole
// int range: the distance stop − start, which may not fit an int, is
// taken in uint64, where it always fits; ok is false when the length does
// not fit an int (arange(MinInt64, MaxInt64, 1)). step is not 0.
func arangeLen(start, stop, step int) (n uint64, ok bool) {
	var dist, by uint64
	switch {
	case step > 0 && stop > start:
		dist, by = uint64(stop)-uint64(start), uint64(step)
	case step < 0 && stop < start:
		dist, by = uint64(start)-uint64(stop), -uint64(step) // -uint64 is exact for MinInt64 too
	default:
		return 0, true
	}
	n = (dist-1)/by + 1 // not (dist+by-1)/by, which overflows
	return n, n <= math.MaxInt
}

// ArangeFloat is jnp.arange with float arguments: start, start+step, …
// below stop, in the default float dtype unless dtype (a float dtype).
// Like jnp.arange it is NumPy's arange made a constant, so its values are
// NumPy's bits: ceil((stop−start)/step) elements; the first is start and
// the second start+step (computed in float64, then rounded to the dtype);
// the rest start + i·delta with delta the difference of those two, in the
// dtype's arithmetic (for f16 and bf16, f32 arithmetic on the first two
// values as stored, each result rounded, as NumPy's and ml_dtypes' fill).
func ArangeFloat(start, stop, step float64, dtype ...tensor.DType) Value {
	d, set, err := optDType("arange", dtype)
	if err == nil && set && !d.IsFloat() {
		err = &DTypeError{Op: "arange", Pos: callerPos(), Msg: fmt.Sprintf("float arguments need a float dtype, got %v", d)}
	}
	if err == nil && (step == 0 || step != step || start != start || stop != stop) {
		err = &ShapeError{Op: "arange", Pos: callerPos(), Msg: fmt.Sprintf("arange(%g, %g, %g): the step must be non-zero and every argument a number", start, stop, step)}
	}
	n, pos := 0.0, callerPos()
	if err == nil {
		n = math.Ceil((stop - start) / step)
		if math.IsInf(n, 0) || n >= math.MaxInt {
			err = tooManyElements("arange", pos, fmt.Sprintf("arange(%g, %g, %g)", start, stop, step))
		}
	}
	if err != nil {
		return Failure(err)
	}
	length := int(max(n, 0))
	return freeOp(func(b *builder) Value {
		if !set {
			d = b.cfg.DefaultFloat()
		}
		// Its values are computed here, as NumPy's: their size is checked
		// before they are.
		if err := b.checkConst("arange", pos, tensor.F64, length); err != nil {
			return b.fail(err)
		}
		vals := make([]float64, length)
		switch d {
		case tensor.F64:
			delta := (start + step) - start
			for i := range vals {
				vals[i] = start + float64(float64(i)*delta) // the conversion forbids FMA, as NumPy's C
			}
			if length > 0 {
				vals[0] = start
			}
			if length > 1 {
				vals[1] = start + step
			}
		default: // f32 arithmetic; the narrow floats round its results
			// The first two values rounded to d from float64, as NumPy
			// stores them before its fill reads them back.
			s0, s1 := float32(start), float32(start+step)
			switch d {
			case tensor.F16:
				s0, s1 = tensor.Float64ToF16(start).Float32(), tensor.Float64ToF16(start+step).Float32()
			case tensor.BF16:
				s0, s1 = tensor.Float64ToBF16(start).Float32(), tensor.Float64ToBF16(start+step).Float32()
			}
			delta := s1 - s0
			for i := range vals {
				vals[i] = float64(s0 + float32(float32(i)*delta))
			}
			if length > 0 {
				vals[0] = float64(s0)
			}
			if length > 1 {
				vals[1] = float64(s1)
			}
		}
		a, err := tensor.FromSlice(vals)
		if err != nil {
			return Failure(err)
		}
		return b.attach(ownedConst(a).Astype(d), "arange")
	})
}

// Tri is the bool[n, m] mask of the elements on and below diagonal k
// (jnp.tri's pattern): row + k ≥ column.
func Tri(n, m, k int) Value {
	if err := checkShapeArg("tri", []int{n, m}); err != nil {
		return Failure(err)
	}
	return freeOp(func(b *builder) Value {
		it := b.cfg.DefaultInt()
		rows := Iota(it, []int{n, m}, 0)
		cols := Iota(it, []int{n, m}, 1)
		return b.attach(rows.Add(Int(int64(k))).Ge(cols), "tri")
	})
}

// Eye is the n×m matrix with ones on diagonal k (jnp.eye): the default
// float unless dtype.
func Eye(n, m, k int, dtype ...tensor.DType) Value {
	d, set, err := optDType("eye", dtype)
	if err == nil {
		err = checkShapeArg("eye", []int{n, m})
	}
	if err != nil {
		return Failure(err)
	}
	return freeOp(func(b *builder) Value {
		if !set {
			d = b.cfg.DefaultFloat()
		}
		it := b.cfg.DefaultInt()
		rows := Iota(it, []int{n, m}, 0)
		cols := Iota(it, []int{n, m}, 1)
		return b.attach(rows.Add(Int(int64(k))).Eq(cols).Astype(d), "eye")
	})
}

// Tril keeps the elements of x on and below diagonal k of its last two
// axes and zeroes the rest (jnp.tril); x keeps its type.
func Tril(x Value, k int) Value { return triangle("tril", x, k, false) }

// Triu keeps the elements of x on and above diagonal k of its last two
// axes and zeroes the rest (jnp.triu).
func Triu(x Value, k int) Value { return triangle("triu", x, k, true) }

func triangle(op string, x Value, k int, upper bool) Value {
	return unary(op, x, func(b *builder, v *Var) Value {
		r := v.Rank()
		if r < 2 {
			return b.shapeErr(op, fmt.Sprintf("%s requires at least 2 dimensions, got %s", op, shapeString(v.Shape)), v.Shape)
		}
		n, m := v.Shape[r-2], v.Shape[r-1]
		var keep Value
		if upper {
			keep = b.attach(Tri(n, m, k-1), op).Not() // column ≥ row + k
		} else {
			keep = b.attach(Tri(n, m, k), op)
		}
		xv := Value{b: b, v: v}
		return Where(keep, xv, ZerosLike(xv))
	})
}
