package trace

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/kiln-go/kiln/tensor"
)

// reduce_window (lax.reduce_window for max, min and add) is a composition,
// not a primitive: the operand padded with the reduction's identity, then
// one strided slice per window position, combined elementwise (maximum,
// minimum or add) in row-major window order. Every backend, the StableHLO
// export and the derivatives come with the ops it is made of. Consequences
// worth knowing: a window's sum adds its elements left to right in
// row-major order starting from the first (an all −0 window sums to −0);
// max and min propagate NaN, as lax.max does; and the result of a max
// (min) window is then picked out of the window as its first element equal
// to that extremum (firstChosen), so a derivative gives the whole tangent
// to that element, as JAX's reduce_window JVP does at ties (an all-zero
// window after relu sends its gradient to the window's first element).

// WindowOptions are lax.reduce_window's optional arguments, one entry per
// operand dim.
type WindowOptions struct {
	Strides        []int    // nil: 1
	Padding        [][2]int // {lo, hi}; nil: none; negative crops
	PaddingMode    string   // "SAME", "SAME_LOWER" or "VALID" (lax.padtype_to_pads); "" uses Padding
	WindowDilation []int    // nil: 1
}

// ReduceWindowMax is lax.reduce_window(x, -inf, lax.max, window, …): the
// maximum over each window, padding counting as the dtype's lowest value.
func ReduceWindowMax(x Value, window []int, o WindowOptions) Value {
	return reduceWindow("reduce_window_max", OpMax, x, window, o)
}

// ReduceWindowMin is lax.reduce_window(x, inf, lax.min, window, …).
func ReduceWindowMin(x Value, window []int, o WindowOptions) Value {
	return reduceWindow("reduce_window_min", OpMin, x, window, o)
}

// ReduceWindowSum is lax.reduce_window(x, 0, lax.add, window, …), summed
// in x's dtype.
func ReduceWindowSum(x Value, window []int, o WindowOptions) Value {
	return reduceWindow("reduce_window_sum", OpAdd, x, window, o)
}

func reduceWindow(name string, comb Op, x Value, window []int, o WindowOptions) Value {
	return unary(name, x, func(b *builder, v *Var) Value {
		rank := v.Rank()
		fail := func(format string, args ...any) Value {
			return b.shapeErr(name, fmt.Sprintf(format, args...)+" (operand "+shapeString(v.Shape)+")", v.Shape)
		}
		d := v.Type.DType
		if d == tensor.Bool || d.IsComplex() && comb != OpAdd {
			return b.dtypeErr(name, fmt.Sprintf("%s of %s is not supported", name, d), v.Type)
		}
		if len(window) != rank {
			return fail("%d window dims for a rank-%d operand", len(window), rank)
		}
		ones := func(what string, xs []int) ([]int, string) {
			if xs == nil {
				return slices.Repeat([]int{1}, rank), ""
			}
			if len(xs) != rank {
				return nil, fmt.Sprintf("%d %s for a rank-%d operand", len(xs), what, rank)
			}
			for _, s := range xs {
				if s < 1 {
					return nil, fmt.Sprintf("%s must be ≥ 1, got %v", what, xs)
				}
			}
			return xs, ""
		}
		strides, msg := ones("strides", o.Strides)
		if msg != "" {
			return fail("%s", msg)
		}
		wd, msg := ones("window dilations", o.WindowDilation)
		if msg != "" {
			return fail("%s", msg)
		}
		for _, w := range window {
			if w < 1 {
				return fail("window dims must be ≥ 1, got %v", window)
			}
		}
		pads := make([][2]int, rank)
		switch strings.ToUpper(o.PaddingMode) {
		case "":
			if o.Padding != nil {
				if len(o.Padding) != rank {
					return fail("%d padding pairs for a rank-%d operand", len(o.Padding), rank)
				}
				copy(pads, o.Padding)
			}
		case "VALID":
		case "SAME", "SAME_LOWER":
			for i := range rank {
				in, k, s := v.Shape[i], DilateDim(window[i], wd[i]), strides[i]
				out := (in + s - 1) / s
				pad := max((out-1)*s+k-in, 0)
				pads[i] = [2]int{pad / 2, pad - pad/2}
				if strings.EqualFold(o.PaddingMode, "SAME_LOWER") {
					pads[i] = [2]int{pad - pad/2, pad / 2}
				}
			}
		default:
			return fail("unknown padding %q (want SAME, SAME_LOWER, VALID or explicit pairs)", o.PaddingMode)
		}
		out := make([]int, rank)
		for i := range rank {
			if abs(pads[i][0]) > math.MaxInt/4 || abs(pads[i][1]) > math.MaxInt/4 {
				return fail("padding %v out of range", pads[i])
			}
			padded := v.Shape[i] + pads[i][0] + pads[i][1]
			if padded < 0 {
				return fail("negative padding %v larger than dim %d of size %d", pads[i], i, v.Shape[i])
			}
			if k := DilateDim(window[i], wd[i]); padded >= k {
				out[i] = (padded-k)/strides[i] + 1
			}
		}
		xv := Value{b: b, v: v}
		init := windowInit(xv, comb)
		if ShapeSize(out) == 0 {
			return Full(out, init)
		}
		// Negative padding crops; the rest pads with the identity.
		for i, p := range pads {
			lo, hi := max(-p[0], 0), max(-p[1], 0)
			if lo > 0 || hi > 0 {
				xv = xv.Slice(i, lo, xv.Shape()[i]-hi, 1)
			}
			pads[i] = [2]int{max(p[0], 0), max(p[1], 0)}
		}
		if slices.ContainsFunc(pads, func(p [2]int) bool { return p != [2]int{} }) {
			xv = Pad(xv, pads, PadConstant, init)
		}
		src := b.materialize(xv, name)
		if src == nil {
			return Value{b: b}
		}
		var parts []Value
		forEachIndex(window, func(k []int) {
			// One strided slice per window position, all dims at once.
			p := Params{Start: make([]int, rank), Limit: make([]int, rank), Stride: slices.Clone(strides)}
			for i := range rank {
				p.Start[i] = k[i] * wd[i]
				p.Limit[i] = p.Start[i] + (out[i]-1)*strides[i] + 1
			}
			parts = append(parts, b.emit(OpSlice, []*Var{src}, src.Type, slices.Clone(out), p, ""))
		})
		acc := parts[0]
		for _, p := range parts[1:] {
			acc = Elementwise(comb, acc, p)
		}
		if comb == OpAdd || len(parts) == 1 {
			return acc
		}
		return firstChosen(parts, acc)
	})
}

// firstChosen is the window element the maximum (minimum) m is, the
// first in window order: m's value to the bit (a zero of m's sign; m
// itself when it is NaN), and in derivatives the whole tangent of that
// one element, as JAX's reduce_window max/min JVP (select_and_gather_add
// with ge) gives it — not the shares of a chain of maximum ops.
func firstChosen(parts []Value, m Value) Value {
	out := parts[len(parts)-1]
	for k := len(parts) - 2; k >= 0; k-- {
		out = Where(parts[k].Eq(m), parts[k], out)
	}
	if m.DType().IsFloat() {
		// A NaN maximum is no element's equal; a zero one equals both
		// zeros, and the sign is m's (−0 < +0).
		out = Where(m.IsNaN(), m, out)
		out = Where(out.Eq(Scalar(out, 0)), out.Copysign(m), out)
	}
	return out
}

// windowInit is the reduction's identity at x's type: the lowest value
// for max (−∞ for floats, −max for a narrow float without infinities),
// the highest for min, 0 for add.
func windowInit(x Value, comb Op) Value {
	d := x.DType()
	var v float64
	switch {
	case comb == OpAdd:
		return Scalar(x, 0)
	case d.IsFloat():
		v = math.Inf(1)
		if f, ok := d.FloatFormat(); ok && !f.HasInf() {
			// As JAX's _get_max_identity/_get_min_identity: finfo's
			// max/min where the format has no infinity (−∞ would
			// convert to NaN in the fn/fnuz and e8m0 formats).
			v = float64(f.MaxFinite())
			if comb == OpMax && !f.Signed() {
				return Scalar(x, complex(f.ToFloat64(0), 0)) // f8e8m0fnu's smallest, 2⁻¹²⁷
			}
		}
	case d.IsUnsigned():
		if comb == OpMax {
			return Scalar(x, 0)
		}
		return Scalar(x, 0).Not() // all ones
	default:
		hi := int64(1)<<(d.Bits()-1) - 1
		if comb == OpMax {
			return Scalar(x, complex(float64(-hi-1), 0))
		}
		return Scalar(x, complex(float64(-hi-1), 0)).Not() // ^MIN = MAX
	}
	if comb == OpMax {
		v = -v
	}
	return Scalar(x, complex(v, 0))
}

// forEachIndex calls f with every multi-index of shape in row-major
// order (f must not keep the slice).
func forEachIndex(shape []int, f func(idx []int)) {
	if ShapeSize(shape) == 0 {
		return
	}
	idx := make([]int, len(shape))
	for {
		f(idx)
		i := len(shape) - 1
		for ; i >= 0; i-- {
			if idx[i]++; idx[i] < shape[i] {
				break
			}
			idx[i] = 0
		}
		if i < 0 {
			return
		}
	}
}
