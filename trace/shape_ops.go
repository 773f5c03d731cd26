package trace

import (
	"fmt"
	"slices"

	"github.com/kiln-go/kiln/tensor"
)

// jax.numpy's structural functions with static arguments, written as JAX
// writes them with slices, concatenation, broadcasts, reshapes and (for
// pad's mirrored and wrapped modes and per-element repeats) a gather of
// constant indices — so every backend, the StableHLO export and autodiff
// have them without kernels of their own.

// Stack joins arrays of one shape along a new axis (jnp.stack), promoting
// their dtypes as concatenate does.
func Stack(axis int, xs ...Value) Value {
	if len(xs) == 0 {
		return Failure(&ShapeError{Op: "stack", Pos: callerPos(), Msg: "stack needs at least one array"})
	}
	rank := len(xs[0].Shape())
	ax := axis
	if ax < 0 {
		ax += rank + 1
	}
	if ax < 0 || ax > rank {
		return Failure(&ShapeError{Op: "stack", Pos: callerPos(), Shapes: [][]int{xs[0].Shape()}, Msg: fmt.Sprintf("axis %d is out of range for a rank-%d result", axis, rank+1)})
	}
	for _, x := range xs[1:] {
		if !slices.Equal(x.Shape(), xs[0].Shape()) {
			return Failure(&ShapeError{Op: "stack", Pos: callerPos(), Shapes: [][]int{xs[0].Shape(), x.Shape()}, Msg: "all input arrays must have the same shape"})
		}
	}
	ys := make([]Value, len(xs))
	for i, x := range xs {
		ys[i] = x.ExpandDims(ax)
	}
	return Concatenate(ax, ys...)
}

// Split cuts x along axis into sections equal parts (jnp.split with an
// integer); the length must divide evenly.
func Split(x Value, sections, axis int) []Value {
	s := x.Shape()
	ax, ok := normAxis(axis, len(s))
	switch {
	case !ok:
		return []Value{Failure(&ShapeError{Op: "split", Pos: callerPos(), Shapes: [][]int{s}, Msg: fmt.Sprintf("axis %d is out of range for %s", axis, shapeString(s))})}
	case sections <= 0 || s[ax]%sections != 0:
		return []Value{Failure(&ShapeError{Op: "split", Pos: callerPos(), Shapes: [][]int{s},
			Msg: fmt.Sprintf("array split does not result in an equal division: %d into %d sections", s[ax], sections)})}
	}
	w := s[ax] / sections
	idx := make([]int, sections-1)
	for i := range idx {
		idx[i] = (i + 1) * w
	}
	return SplitAt(x, idx, ax)
}

// SplitAt cuts x along axis before each of the indices (jnp.split with a
// list): len(indices)+1 parts, indices clamped to the axis as NumPy does.
func SplitAt(x Value, indices []int, axis int) []Value {
	s := x.Shape()
	ax, ok := normAxis(axis, len(s))
	if !ok {
		return []Value{Failure(&ShapeError{Op: "split", Pos: callerPos(), Shapes: [][]int{s}, Msg: fmt.Sprintf("axis %d is out of range for %s", axis, shapeString(s))})}
	}
	n := s[ax]
	clamp := func(i int) int {
		if i < 0 {
			i += n
		}
		return min(max(i, 0), n)
	}
	out := make([]Value, 0, len(indices)+1)
	start := 0
	for _, i := range append(slices.Clone(indices), n) {
		stop := max(clamp(i), start)
		out = append(out, x.Slice(ax, start, stop, 1))
		start = stop
	}
	return out
}

// Tile repeats x reps[i] times along each axis (jnp.tile): x gains leading
// axes of size 1 when reps is longer than its rank, reps leading ones when
// it is shorter.
func Tile(x Value, reps ...int) Value {
	return unary("tile", x, func(b *builder, v *Var) Value {
		for _, r := range reps {
			if r < 0 {
				return b.shapeErr("tile", fmt.Sprintf("negative repetition in %v", reps), v.Shape)
			}
		}
		rank := max(len(reps), v.Rank())
		shape := append(make([]int, rank-v.Rank()), v.Shape...)
		rs := append(make([]int, rank-len(reps)), reps...)
		for i := range rank - v.Rank() {
			shape[i] = 1
		}
		for i := range rank - len(reps) {
			rs[i] = 1
		}
		var inter, big, final []int
		for i := range rank {
			inter = append(inter, 1, shape[i])
			big = append(big, rs[i], shape[i])
			final = append(final, rs[i]*shape[i])
		}
		return Value{b: b, v: v}.Reshape(inter...).BroadcastTo(big...).Reshape(final...)
	})
}

// Repeat repeats each element of x along axis (jnp.repeat): repeats has
// one count for all elements or one per element. AxisNone flattens x
// first.
func Repeat(x Value, repeats []int, axis int) Value {
	return unary("repeat", x, func(b *builder, v *Var) Value {
		xv := Value{b: b, v: v}
		if axis == AxisNone {
			xv, axis = xv.Reshape(-1), 0
		}
		s := xv.Shape()
		ax, ok := normAxis(axis, len(s))
		if !ok {
			return b.shapeErr("repeat", fmt.Sprintf("axis %d is out of range for %s", axis, shapeString(s)), s)
		}
		for _, r := range repeats {
			if r < 0 {
				return b.shapeErr("repeat", fmt.Sprintf("negative repeat count in %v", repeats), s)
			}
		}
		n := s[ax]
		switch len(repeats) {
		case 1:
			r := repeats[0]
			big := slices.Insert(slices.Clone(s), ax+1, r)
			final := slices.Clone(s)
			final[ax] = n * r
			return xv.ExpandDims(ax + 1).BroadcastTo(big...).Reshape(final...)
		case n:
			// The index list has one entry per element of the result: its
			// size is checked before it is built.
			pos := b.errPos()
			total, ok := sumSizes(repeats...)
			if !ok {
				return b.fail(tooManyElements("repeat", pos, fmt.Sprintf("the repeated axis (the sum of %d repeat counts)", n)))
			}
			if err := b.checkConst("repeat", pos, tensor.I64, total); err != nil {
				return b.fail(err)
			}
			idx := make([]int64, 0, total)
			for i, r := range repeats {
				for range r {
					idx = append(idx, int64(i))
				}
			}
			return Take(xv, ownedConst(tensor.Must(tensor.FromSlice(idx))), ax)
		}
		return b.shapeErr("repeat", fmt.Sprintf("%d repeat counts for an axis of %d", len(repeats), n), s)
	})
}

// Roll shifts x's elements along axis by shift, those leaving one end
// entering at the other (jnp.roll); AxisNone rolls the flattened array.
func Roll(x Value, shift, axis int) Value {
	return unary("roll", x, func(b *builder, v *Var) Value {
		xv := Value{b: b, v: v}
		if axis == AxisNone {
			return Roll(xv.Reshape(-1), shift, 0).Reshape(v.Shape...)
		}
		ax, ok := normAxis(axis, v.Rank())
		if !ok {
			return b.shapeErr("roll", fmt.Sprintf("axis %d is out of range for %s", axis, shapeString(v.Shape)), v.Shape)
		}
		n := v.Shape[ax]
		if n == 0 {
			return xv
		}
		s := ((shift % n) + n) % n
		if s == 0 {
			return xv
		}
		return Concatenate(ax, xv.Slice(ax, n-s, n, 1), xv.Slice(ax, 0, n-s, 1))
	})
}

// PadMode is how Pad fills: NumPy's and jnp.pad's modes.
type PadMode int

const (
	PadConstant  PadMode = iota // the constant value
	PadEdge                     // the edge element repeated
	PadReflect                  // mirrored without the edge: 3 2 | 1 2 3 | 2 1
	PadSymmetric                // mirrored with the edge: 2 1 | 1 2 3 | 3 2
	PadWrap                     // the other end: 2 3 | 1 2 3 | 1 2 (periodic for any width, as JAX's; NumPy's differs past one period)
)

var padNames = [...]string{"constant", "edge", "reflect", "symmetric", "wrap"}

func (m PadMode) String() string {
	if m >= 0 && int(m) < len(padNames) {
		return padNames[m]
	}
	return fmt.Sprintf("PadMode(%d)", int(m))
}

// Pad widens x by widths[i] = {before, after} elements on each axis
// (jnp.pad): one pair pads every axis alike. PadConstant fills with value
// (converted to x's type; a zero Value means 0), the others with x's own
// elements as their names say.
func Pad(x Value, widths [][2]int, mode PadMode, value Value) Value {
	return unary("pad", x, func(b *builder, v *Var) Value {
		r := v.Rank()
		ws := widths
		if len(ws) == 1 && r != 1 {
			ws = slices.Repeat(ws, r)
		}
		if len(ws) != r {
			return b.shapeErr("pad", fmt.Sprintf("%d pad widths for %s", len(ws), shapeString(v.Shape)), v.Shape)
		}
		if mode < PadConstant || mode > PadWrap {
			return b.shapeErr("pad", fmt.Sprintf("unknown pad mode %v", mode), v.Shape)
		}
		xv := Value{b: b, v: v}
		fill := value
		if fill.b == nil && fill.lit == nil && fill.konst == nil && fill.replay == nil {
			fill = Int(0)
		}
		for ax, w := range ws {
			before, after := w[0], w[1]
			if before < 0 || after < 0 {
				return b.shapeErr("pad", fmt.Sprintf("negative pad width %v on axis %d", w, ax), v.Shape)
			}
			if before == 0 && after == 0 {
				continue
			}
			s := xv.Shape()
			n := s[ax]
			if mode == PadConstant {
				parts := []Value{xv}
				block := func(k int) Value {
					bs := slices.Clone(s)
					bs[ax] = k
					return FullLike(xv.Slice(ax, 0, min(1, n), 1), fill).BroadcastTo(bs...)
				}
				if n == 0 { // a block of an empty axis cannot come from a slice of it
					block = func(k int) Value {
						bs := slices.Clone(s)
						bs[ax] = k
						return Full(bs, ConvertTo(b.attach(fill, "pad"), xv.Type(), "pad"))
					}
				}
				if before > 0 {
					parts = append([]Value{block(before)}, parts...)
				}
				if after > 0 {
					parts = append(parts, block(after))
				}
				xv = Concatenate(ax, parts...)
				continue
			}
			if n == 0 {
				return b.shapeErr("pad", fmt.Sprintf("can't extend empty axis %d using modes other than 'constant'", ax), v.Shape)
			}
			pos := b.errPos()
			total, ok := sumSizes(before, n, after)
			if !ok {
				return b.fail(tooManyElements("pad", pos, fmt.Sprintf("axis %d padded by %v", ax, w)))
			}
			if err := b.checkConst("pad", pos, tensor.I64, total); err != nil {
				return b.fail(err)
			}
			idx := make([]int64, total)
			for i := range idx {
				idx[i] = int64(padIndex(mode, i-before, n))
			}
			xv = Take(xv, ownedConst(tensor.Must(tensor.FromSlice(idx))), ax)
		}
		return xv
	})
}

// padIndex is the source index of position i (negative before the array)
// of an axis of n elements padded in mode.
func padIndex(mode PadMode, i, n int) int {
	mod := func(a, m int) int { return ((a % m) + m) % m }
	switch mode {
	case PadEdge:
		return min(max(i, 0), n-1)
	case PadWrap:
		return mod(i, n)
	case PadReflect:
		if n == 1 {
			return 0
		}
		j := mod(i, 2*(n-1))
		if j >= n {
			j = 2*(n-1) - j
		}
		return j
	}
	j := mod(i, 2*n) // symmetric
	if j >= n {
		j = 2*n - 1 - j
	}
	return j
}
