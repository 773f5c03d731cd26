package trace

import (
	"fmt"

	"github.com/kiln-go/kiln/promote"
)

// ScanOptions are lax.scan's keywords.
type ScanOptions struct {
	// Reverse scans from the last element to the first; the stacked
	// outputs keep the elements' order (ys[i] comes from xs[i]).
	Reverse bool
	// Length is lax.scan's length: the number of steps, required when
	// there are no xs; with xs it must be their leading dimension. A
	// Length of 0 counts as not given (the steps are then the xs' leading
	// dimension) unless HasLength is set.
	Length int
	// HasLength says Length is given even when it is 0, as lax.scan's
	// length=0: ScanOptions{HasLength: true} scans zero steps, returning
	// the initial carry and empty ys, and with xs it requires their
	// leading dimension to be 0. A nonzero Length is given whether or not
	// HasLength is set, so code written before HasLength keeps its meaning.
	HasLength bool
}

// Scan is lax.scan: for each slice x of xs along their leading axis (all
// xs have the same leading dimension), (carry, y) = f(carry, x); it
// returns the final carry and the ys stacked along a new leading axis.
// The carry keeps its types as in WhileLoop. f is traced twice: once to
// learn the ys' types, once as the loop's body.
//
// Kiln builds scan on its while loop, as XLA lowers it: the loop's carry
// is a counter, the carries and the stacked ys, each step reading its x
// with dynamic_slice and writing its y in place with
// dynamic_update_slice.
//
// A scan of zero steps (xs with a leading dimension of 0, or Length 0
// with HasLength) is JAX's: f is traced, its carry checked as for any
// scan, and the result is the initial carry (promoted as the loop would
// promote it) and ys of shape [0, …] with f's ys' dtypes.
func Scan(f func(carry, x []Value) ([]Value, []Value), init, xs []Value, opts ...ScanOptions) ([]Value, []Value) {
	pos := callerPos()
	var o ScanOptions
	if len(opts) > 0 {
		o = opts[0]
	}
	nc := len(init)
	outs := controlValues("scan", append(append([]Value{}, init...), xs...), func(b *builder, args []Value) []Value {
		return b.scan(pos, f, args[:nc], args[nc:], o)
	})
	// A failed scan still returns a carry per init and at least one y
	// (inert values of the failed trace), so indexing them does not panic
	// before the trace reports its error.
	if len(outs) < nc || (len(outs) == nc && outs[0].Err() != nil) {
		return inert(outs[0].b, max(nc, 1)), inert(outs[0].b, 1)
	}
	return outs[:nc], outs[nc:]
}

func (b *builder) scan(pos Pos, f func(carry, x []Value) ([]Value, []Value), init, xs []Value, o ScanOptions) []Value {
	const name = "scan"
	fail := func(format string, a ...any) []Value {
		b.controlErr(name, pos, format, a...)
		return inert(b, max(len(init), 1))
	}
	if f == nil {
		return fail("a nil function")
	}
	if len(init) == 0 {
		return fail("no carry: give at least one initial value")
	}
	cs := b.controlOperands(name, init)
	xv := b.controlOperands(name, xs)
	if cs == nil || (xv == nil && len(xs) > 0) {
		return inert(b, len(init))
	}
	length, given := o.Length, o.HasLength || o.Length != 0
	for i, x := range xv {
		if x.Rank() == 0 {
			return fail("scan got value with no leading axis to scan over: xs[%d] has shape %s", i, shapeString(x.Shape))
		}
		if i == 0 && !given {
			length = x.Shape[0]
		}
		if x.Shape[0] != length {
			return fail("scan got `length` argument of %d and xs with leading axis sizes %s", length, leadingSizes(xv))
		}
	}
	if len(xv) == 0 && !given {
		return fail("scan got no values to scan over and `length` not provided")
	}
	if length < 0 {
		return fail("scan got a negative length %d", length)
	}
	slices := func(xs []*Var) []Abstract {
		out := make([]Abstract, len(xs))
		for i, x := range xs {
			out[i] = Abstract{Type: x.Type, Shape: x.Shape[1:]}
		}
		return out
	}
	// The probe: f's ys types (and its errors, reported once here).
	ncOut := -1
	step := func(args []Value) []Value {
		c, y := f(args[:len(cs)], args[len(cs):])
		ncOut = len(c)
		return append(append([]Value{}, c...), y...)
	}
	probe, _, e := b.subTrace(append(abstracts(cs), slices(xv)...), step)
	if probe == nil {
		return inert(e, len(init))
	}
	if ncOut != len(cs) {
		return fail("scan body function carry input and carry output must have the same structure: the carry has %d components, the body returned %d", len(cs), max(ncOut, 0))
	}
	// A weak carry the function changes is promoted first, as the loop
	// will (JAX's _promote_weak_typed_inputs), and f traced again: the ys'
	// types are those of the promoted carry.
	promoted := false
	for i, o := range probe.Outputs[:ncOut] {
		if c := cs[i]; c.Type.Weak && o.Type != c.Type && ShapeEqual(o.Shape, c.Shape) {
			if t, err := b.cfg.ResultType(c.Type, o.Type); err == nil {
				cs[i] = b.to(Value{b: b, v: c}, promote.Strong(t.DType), name, "a weak carry promoted to the function's result type (JAX's scan)")
				promoted = true
			}
		}
	}
	if promoted {
		if probe, _, e = b.subTrace(append(abstracts(cs), slices(xv)...), step); probe == nil {
			return inert(e, len(init))
		}
	}
	ysT := probe.Outputs[ncOut:]
	bufs := make([]Value, len(ysT))
	for k, y := range ysT {
		bufs[k] = zerosOf(b, y.Type, append([]int{length}, y.Shape...))
	}
	xsV := make([]Value, len(xv))
	for i, x := range xv {
		xsV[i] = Value{b: b, v: x}
	}
	carry := make([]Value, len(cs))
	for i, c := range cs {
		carry[i] = Value{b: b, v: c}
	}
	body := func(i Value, c []Value) []Value {
		t := i
		if o.Reverse {
			t = Scalar(i, complex(float64(length-1), 0)).Sub(i)
		}
		// A loop of zero steps never runs its body, but it is traced
		// (its carry checked): it reads zeros where an x would be (an
		// empty xs has no window of one to slice) and leaves the empty
		// ys as they are.
		x := make([]Value, len(xsV))
		for k, xk := range xsV {
			sh := xk.Shape()
			if length == 0 {
				x[k] = zerosOf(i.b, xk.v.Type, sh[1:])
				continue
			}
			x[k] = DynamicSlice(xk, startsAt(t, len(sh)), append([]int{1}, sh[1:]...)).Reshape(sh[1:]...)
		}
		c2, y := f(c[:len(cs)], x)
		ys := c[len(cs):]
		out := append([]Value{}, c2...)
		for k := range ys {
			if k >= len(y) {
				break
			}
			if length == 0 {
				out = append(out, ys[k])
				continue
			}
			sh := ys[k].Shape()
			out = append(out, DynamicUpdateSlice(ys[k], y[k].Reshape(append([]int{1}, sh[1:]...)...), startsAt(t, len(sh))))
		}
		if len(y) != len(ys) {
			return append(out, Failure(fmt.Errorf("scan: the function returned %d outputs when traced again, %d the first time", len(y), len(ys))))
		}
		return out
	}
	return b.foriLoop(name, pos, body, Int(0), Int(int64(length)), append(carry, bufs...))
}

// startsAt are the starts of a window at t along the leading axis.
func startsAt(t Value, rank int) []Value {
	s := make([]Value, rank)
	s[0] = t
	for i := 1; i < rank; i++ {
		s[i] = Int(0)
	}
	return s
}

func leadingSizes(xs []*Var) string {
	s := make([]int, len(xs))
	for i, x := range xs {
		s[i] = x.Shape[0]
	}
	return shapeString(s)
}
