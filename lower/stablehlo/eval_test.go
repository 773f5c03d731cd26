package stablehlo

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"

	"github.com/kiln-go/kiln/lower"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// EvalStableHLO exports m, parses the text back (Parse) and interprets the
// parsed program on inputs — so what runs is the text an XLA user gets.
// It covers the ops the export writes (eval_ops_test.go has the
// structural ones, reduces and sorts, dot_general and convolution,
// gather and scatter, while and case). A reduce combines its elements in a
// random order (a reduce body must not care). Where StableHLO leaves a
// result undefined (a zero or overflowing integer divisor, a shift count
// outside [0, width), a negative integer exponent, an out-of-range float →
// int convert, abs(MIN)) it returns poison — a value no correct
// composition may let through — so that tests comparing it with Kiln's
// reference evaluator check the compositions. It is exported to the
// stablehlo_test package.
func EvalStableHLO(m *lower.Module, inputs []*tensor.Array, rng *rand.Rand) ([]*tensor.Array, error) {
	return EvalStableHLOWith(m, inputs, rng, nil)
}

// Transcendental computes a transcendental op for EvalStableHLOWith, as
// reference.Options.Transcendental does (kernels.Transcendental is one).
type Transcendental func(op trace.Op, d tensor.DType, x, y float64) float64

// transcendentalOps are the StableHLO ops a Transcendental computes.
var transcendentalOps = map[string]trace.Op{
	"exponential": trace.OpExp, "log": trace.OpLog, "log_plus_one": trace.OpLog1p, "exponential_minus_one": trace.OpExpm1,
	"rsqrt": trace.OpRsqrt, "sine": trace.OpSin, "cosine": trace.OpCos, "tan": trace.OpTan, "tanh": trace.OpTanh,
	"logistic": trace.OpLogistic, "power": trace.OpPow,
}

// EvalStableHLOWith is EvalStableHLO whose real transcendental ops are
// computed by tr (in f64 for f64, else in f32, then rounded), so that an
// interpreter and Kiln share their functions' bits (StableHLO leaves them
// to the implementation); nil uses Go's math.
func EvalStableHLOWith(m *lower.Module, inputs []*tensor.Array, rng *rand.Rand, tr Transcendental) ([]*tensor.Array, error) {
	text, err := Export(m)
	if err != nil {
		return nil, err
	}
	return evalText(text, inputs, rng, tr)
}

// evalText parses text and interprets its first function on inputs.
func evalText(text string, inputs []*tensor.Array, rng *rand.Rand, tr Transcendental) ([]*tensor.Array, error) {
	mod, err := Parse(text)
	if err != nil {
		return nil, err
	}
	f := mod.Funcs[0]
	if len(inputs) != len(f.Body.Args) {
		return nil, fmt.Errorf("%d inputs for %d parameters", len(inputs), len(f.Body.Args))
	}
	ev := &shloEval{vals: map[*Value]ival{}, rng: rng, tr: tr}
	for i, a := range f.Body.Args {
		ev.vals[a] = fromArray(inputs[i])
	}
	outs, err := ev.run(f.Body, nil)
	if err != nil {
		return nil, err
	}
	res := make([]*tensor.Array, len(outs))
	for i, v := range outs {
		if res[i], err = v.array(); err != nil {
			return nil, err
		}
	}
	return res, nil
}

// ival is a tensor's elements in a wide form: floats as float64 (already
// rounded to their type), complex as complex128 (parts rounded), signed
// integers as int64, unsigned as uint64, bool as bool — the slice of d's
// kind, row-major in shape.
type ival struct {
	d     tensor.DType
	shape []int
	f     []float64
	// fb, when not nil, are the floats' storage bits: kept through the ops
	// that only move elements, as float64 cannot hold a signaling NaN
	// (widening one quiets it) and bitcast_convert must see its bits.
	fb []uint64
	c  []complex128
	i  []int64
	u  []uint64
	b  []bool
}

func newIval(d tensor.DType, shape []int) ival {
	n := shapeSize(shape)
	v := ival{d: d, shape: shape}
	switch {
	case d.IsFloat():
		v.f = make([]float64, n)
	case d.IsComplex():
		v.c = make([]complex128, n)
	case d.IsSigned():
		v.i = make([]int64, n)
	case d.IsUnsigned():
		v.u = make([]uint64, n)
	default:
		v.b = make([]bool, n)
	}
	return v
}

func (v ival) size() int { return shapeSize(v.shape) }

// put sets element j of v to element k of src (of v's dtype).
func (v ival) put(j int, src ival, k int) {
	switch {
	case v.f != nil:
		v.f[j] = src.f[k]
		if v.fb != nil && src.fb != nil {
			v.fb[j] = src.fb[k]
		} else if v.fb != nil {
			v.fb[j] = floatBits(v.d, src.f[k])
		}
	case v.c != nil:
		v.c[j] = src.c[k]
	case v.i != nil:
		v.i[j] = src.i[k]
	case v.u != nil:
		v.u[j] = src.u[k]
	default:
		v.b[j] = src.b[k]
	}
}

// pick returns the elements of v at flat indices idx, as shape.
func (v ival) pick(idx []int, shape []int) ival {
	r := newIval(v.d, shape)
	if v.fb != nil {
		r.fb = make([]uint64, len(r.f))
	}
	for j, k := range idx {
		r.put(j, v, k)
	}
	return r
}

// scalar is element k of v as a rank-0 value.
func (v ival) scalar(k int) ival { return v.pick([]int{k}, nil) }

func fromArray(a *tensor.Array) ival {
	v := ival{d: a.DType(), shape: a.Shape()}
	switch d := a.DType(); {
	case d.IsFloat():
		v.f, _ = tensor.Data[float64](a.Astype(tensor.F64))
		v.fb = make([]uint64, len(v.f))
		for i := range v.fb {
			v.fb[i] = storageBits(tensor.Index(a.Data(), i))
		}
	case d.IsComplex():
		v.c, _ = tensor.Data[complex128](a.Astype(tensor.C128))
	case d.IsSigned():
		v.i, _ = tensor.Data[int64](a.Astype(tensor.I64))
	case d.IsUnsigned():
		v.u, _ = tensor.Data[uint64](a.Astype(tensor.U64))
	default:
		v.b, _ = tensor.Data[bool](a)
	}
	if v.f == nil && v.c == nil && v.i == nil && v.u == nil && v.b == nil {
		v = newIval(v.d, v.shape) // an empty array
	}
	return v
}

func storageBits(x any) uint64 {
	switch v := x.(type) {
	case tensor.Float16:
		return uint64(v.Bits())
	case tensor.BFloat16:
		return uint64(v.Bits())
	case float32:
		return uint64(math.Float32bits(v))
	}
	return math.Float64bits(x.(float64))
}

// fromBits makes an array of float dtype d from storage bits.
func fromBits(d tensor.DType, shape []int, bits []uint64) (*tensor.Array, error) {
	switch d {
	case tensor.F16:
		return tensor.New(d, shape, convertEach(bits, func(b uint64) tensor.Float16 { return tensor.Float16FromBits(uint16(b)) }))
	case tensor.BF16:
		return tensor.New(d, shape, convertEach(bits, func(b uint64) tensor.BFloat16 { return tensor.BFloat16FromBits(uint16(b)) }))
	case tensor.F32:
		return tensor.New(d, shape, convertEach(bits, func(b uint64) float32 { return math.Float32frombits(uint32(b)) }))
	}
	return tensor.New(d, shape, convertEach(bits, math.Float64frombits))
}

func convertEach[T any](bits []uint64, f func(uint64) T) []T {
	out := make([]T, len(bits))
	for i, b := range bits {
		out[i] = f(b)
	}
	return out
}

func (v ival) array() (*tensor.Array, error) {
	var a *tensor.Array
	var err error
	shape := append([]int{}, v.shape...)
	switch {
	case v.fb != nil:
		return fromBits(v.d, shape, v.fb)
	case v.f != nil:
		a, err = tensor.New(tensor.F64, shape, v.f)
	case v.c != nil:
		a, err = tensor.New(tensor.C128, shape, v.c)
	case v.i != nil:
		a, err = tensor.New(tensor.I64, shape, v.i)
	case v.u != nil:
		a, err = tensor.New(tensor.U64, shape, v.u)
	default:
		a, err = tensor.New(tensor.Bool, shape, v.b)
	}
	if err != nil {
		return nil, err
	}
	return a.Astype(v.d), nil
}

// round rounds float64 values to dtype d once, to nearest even.
func round(d tensor.DType, xs []float64) []float64 {
	a, _ := tensor.FromSlice(xs)
	out, _ := tensor.Data[float64](a.Astype(d).Astype(tensor.F64))
	return out
}

func roundC(d tensor.DType, xs []complex128) []complex128 {
	a, _ := tensor.FromSlice(xs)
	out, _ := tensor.Data[complex128](a.Astype(d).Astype(tensor.C128))
	return out
}

// wrap reduces an integer to d's width (two's complement).
func wrap(d tensor.DType, x int64) int64 { s := 64 - d.Bits(); return x << s >> s }

func wrapU(d tensor.DType, x uint64) uint64 { return x << (64 - d.Bits()) >> (64 - d.Bits()) }

// Poison values: what an undefined case returns.
const (
	poisonInt   = 0x5A5A5A5A5A5A5A5A
	poisonFloat = 12345.678
)

type shloEval struct {
	vals map[*Value]ival
	rng  *rand.Rand
	tr   Transcendental
}

// run binds a block's arguments to args (unless nil), runs its ops and
// returns the values its terminator returns.
func (ev *shloEval) run(blk *Block, args []ival) ([]ival, error) {
	for i, a := range args {
		ev.vals[blk.Args[i]] = a
	}
	for _, o := range blk.Ops {
		if o.Name == "stablehlo.return" || o.Name == "func.return" {
			out := make([]ival, len(o.Operands))
			for i, a := range o.Operands {
				out[i] = ev.vals[a]
			}
			return out, nil
		}
		if err := ev.op(o); err != nil {
			return nil, fmt.Errorf("%s = %s (%s): %w", o.Results[0].Name, o.Name, o.Pos, err)
		}
	}
	return nil, fmt.Errorf("a block without a terminator")
}

func (ev *shloEval) set(o *Op, vs ...ival) error {
	for i, v := range vs {
		v.shape = o.Results[i].Type.Shape
		ev.vals[o.Results[i]] = v
	}
	return nil
}

func (ev *shloEval) op(o *Op) error {
	name := strings.TrimPrefix(strings.TrimPrefix(o.Name, "stablehlo."), "chlo.")
	t := o.Results[0].Type
	n := shapeSize(t.Shape)
	args := make([]ival, len(o.Operands))
	for i, a := range o.Operands {
		args[i] = ev.vals[a]
	}
	if structural, ok := evalOps[name]; ok {
		r, err := structural(ev, o, args)
		if err != nil {
			return err
		}
		return ev.set(o, r...)
	}
	var a, c ival
	if len(args) > 0 {
		a = args[0]
	}
	if len(args) > 1 {
		c = args[1]
	}
	r := newIval(t.DType, t.Shape)
	switch name {
	case "constant":
		d, ok := o.Attr("value").(*DenseAttr)
		if !ok {
			return fmt.Errorf("no dense value")
		}
		return ev.set(o, fromArray(d.Value))
	case "select":
		for i := range n {
			if a.b[i] {
				r.put(i, c, i)
			} else {
				r.put(i, args[2], i)
			}
		}
		return ev.set(o, r)
	case "compare":
		dirAttr, _ := o.Attr("comparison_direction").(*EnumAttr)
		if dirAttr == nil {
			return fmt.Errorf("no comparison_direction")
		}
		dir := dirAttr.Value
		for i := range n {
			var lt, eq bool
			switch {
			case a.f != nil:
				if math.IsNaN(a.f[i]) || math.IsNaN(c.f[i]) {
					r.b[i] = dir == "NE"
					continue
				}
				lt, eq = a.f[i] < c.f[i], a.f[i] == c.f[i]
			case a.c != nil:
				if dir != "EQ" && dir != "NE" {
					return fmt.Errorf("complex %s", dir)
				}
				eq = a.c[i] == c.c[i]
			case a.i != nil:
				lt, eq = a.i[i] < c.i[i], a.i[i] == c.i[i]
			case a.u != nil:
				lt, eq = a.u[i] < c.u[i], a.u[i] == c.u[i]
			default:
				lt, eq = !a.b[i] && c.b[i], a.b[i] == c.b[i]
			}
			r.b[i] = map[string]bool{"EQ": eq, "NE": !eq, "LT": lt, "LE": lt || eq, "GT": !lt && !eq, "GE": !lt}[dir]
		}
		return ev.set(o, r)
	case "convert":
		return ev.set(o, convertIval(a, t.DType))
	case "bitcast_convert":
		return ev.set(o, bitcast(a, t))
	case "next_after":
		for i := range n {
			r.f[i] = nextAfter(t.DType, a.f[i], c.f[i])
		}
		return ev.set(o, r)
	case "real", "imag", "abs":
		if a.c != nil {
			for i, z := range a.c {
				r.f[i] = map[string]float64{"real": real(z), "imag": imag(z), "abs": cmplxAbs(z)}[name]
			}
			r.f = round(t.DType, r.f)
			return ev.set(o, r)
		}
	case "complex":
		for i := range n {
			r.c[i] = complex(a.f[i], c.f[i])
		}
		return ev.set(o, r)
	}
	switch {
	case a.f != nil && ev.tr != nil && transcendentalOps[name] != trace.OpInvalid:
		cd := tensor.F32
		if a.d == tensor.F64 {
			cd = tensor.F64
		}
		for i := range n {
			var y float64
			if c.f != nil {
				y = c.f[i]
			}
			r.f[i] = ev.tr(transcendentalOps[name], cd, a.f[i], y)
		}
		r.f = round(t.DType, round(cd, r.f))
	case a.f != nil:
		for i := range n {
			var y float64
			if c.f != nil {
				y = c.f[i]
			}
			v, ok := floatOp(name, a.f[i], y)
			if !ok {
				return fmt.Errorf("not interpreted on floats")
			}
			if b, isBool := v.(bool); isBool {
				r.b[i] = b
			} else {
				r.f[i] = v.(float64)
			}
		}
		if r.f != nil {
			r.f = round(t.DType, r.f)
		}
	case a.c != nil:
		part := identity
		if a.d == tensor.C64 {
			part = func(x float64) float64 { return float64(float32(x)) }
		}
		for i := range n {
			var y complex128
			if c.c != nil {
				y = c.c[i]
			}
			v, ok := complexOp(name, a.c[i], y, part)
			if !ok {
				return fmt.Errorf("not interpreted on complex numbers")
			}
			r.c[i] = v
		}
		r.c = roundC(t.DType, r.c)
	case a.i != nil:
		for i := range n {
			var y int64
			if c.i != nil {
				y = c.i[i]
			}
			v, ok := intOp(name, t.DType, a.i[i], y)
			if !ok {
				return fmt.Errorf("not interpreted on signed integers")
			}
			r.i[i] = wrap(t.DType, v)
		}
	case a.u != nil:
		for i := range n {
			var y uint64
			if c.u != nil {
				y = c.u[i]
			}
			v, ok := uintOp(name, t.DType, a.u[i], y)
			if !ok {
				return fmt.Errorf("not interpreted on unsigned integers")
			}
			r.u[i] = wrapU(t.DType, v)
		}
	case a.b != nil:
		for i := range n {
			var y bool
			if c.b != nil {
				y = c.b[i]
			}
			switch name {
			case "and":
				r.b[i] = a.b[i] && y
			case "or":
				r.b[i] = a.b[i] || y
			case "xor":
				r.b[i] = a.b[i] != y
			case "not":
				r.b[i] = !a.b[i]
			case "maximum":
				r.b[i] = a.b[i] || y
			case "minimum":
				r.b[i] = a.b[i] && y
			default:
				return fmt.Errorf("not interpreted on bool")
			}
		}
	default:
		return fmt.Errorf("not interpreted")
	}
	return ev.set(o, r)
}

func convertIval(a ival, to tensor.DType) ival {
	r := newIval(to, a.shape)
	for i := range a.size() {
		var f float64
		var isFloat bool
		var s int64
		var u uint64
		switch {
		case a.c != nil:
			if to.IsComplex() {
				r.c[i] = a.c[i]
				continue
			}
			f, isFloat = real(a.c[i]), true
		case a.f != nil:
			f, isFloat = a.f[i], true
		case a.i != nil:
			s, u, f = a.i[i], uint64(a.i[i]), float64(a.i[i])
		case a.u != nil:
			s, u, f = int64(a.u[i]), a.u[i], float64(a.u[i])
		default:
			if a.b[i] {
				s, u, f = 1, 1, 1
			}
		}
		switch {
		case to.IsComplex():
			r.c[i] = complex(f, 0)
		case to.IsFloat():
			r.f[i] = f
			if !isFloat && (a.i != nil && wideInt(s) || a.u != nil && u > 1<<53) {
				// int64 → float rounds once: through big values exactly
				r.f[i] = intToFloat(to, s, u, a.u != nil)
			}
		case isFloat && (math.IsNaN(f) || !fits(to, math.Trunc(f))):
			r.i, r.u = setInt(to, r.i, r.u, i, poisonInt, poisonInt)
		case isFloat && to.IsUnsigned():
			r.u[i] = wrapU(to, uint64(math.Trunc(f)))
		case isFloat && to.IsSigned():
			r.i[i] = int64(math.Trunc(f))
		case to == tensor.Bool:
			r.b[i] = f != 0
		default:
			r.i, r.u = setInt(to, r.i, r.u, i, s, u)
		}
	}
	if r.f != nil {
		r.f = round(to, r.f)
	}
	if r.c != nil {
		r.c = roundC(to, r.c)
	}
	return r
}

func wideInt(s int64) bool { return s > 1<<53 || s < -(1<<53) }

// intToFloat converts a 64-bit integer to float dtype d rounding once, as
// tensor's Astype does.
func intToFloat(d tensor.DType, s int64, u uint64, unsigned bool) float64 {
	var a *tensor.Array
	if unsigned {
		a = tensor.Scalar(u)
	} else {
		a = tensor.Scalar(s)
	}
	out, _ := tensor.Data[float64](a.Astype(d).Astype(tensor.F64))
	return out[0]
}

func setInt(d tensor.DType, is []int64, us []uint64, i int, s int64, u uint64) ([]int64, []uint64) {
	if d.IsUnsigned() {
		us[i] = wrapU(d, u)
	} else {
		is[i] = wrap(d, s)
	}
	return is, us
}

// fits reports whether the integer-valued float x is representable in d.
func fits(d tensor.DType, x float64) bool {
	if d.IsUnsigned() {
		return x >= 0 && x < math.Ldexp(1, d.Bits())
	}
	return x >= -math.Ldexp(1, d.Bits()-1) && x < math.Ldexp(1, d.Bits()-1)
}

func intOp(name string, d tensor.DType, x, y int64) (int64, bool) {
	w := int64(d.Bits())
	lo := int64(-1) << (w - 1)
	switch name {
	case "add":
		return x + y, true
	case "subtract":
		return x - y, true
	case "multiply":
		return x * y, true
	case "divide", "remainder":
		if y == 0 || x == lo && y == -1 {
			return poisonInt, true
		}
		if name == "divide" {
			return x / y, true
		}
		return x % y, true
	case "power":
		if y < 0 {
			return poisonInt, true
		}
		r := int64(1)
		for ; y > 0; y >>= 1 {
			if y&1 == 1 {
				r = wrap(d, r*x)
			}
			x = wrap(d, x*x)
		}
		return r, true
	case "negate":
		return -x, true
	case "abs":
		if x == lo {
			return poisonInt, true
		}
		return max(x, -x), true
	case "sign":
		return int64(min(max(x, -1), 1)), true
	case "maximum":
		return max(x, y), true
	case "minimum":
		return min(x, y), true
	case "and":
		return x & y, true
	case "or":
		return x | y, true
	case "xor":
		return x ^ y, true
	case "not":
		return ^x, true
	case "shift_left", "shift_right_arithmetic", "shift_right_logical":
		if y < 0 || y >= w {
			return poisonInt, true
		}
		switch name {
		case "shift_left":
			return x << y, true
		case "shift_right_arithmetic":
			return x >> y, true
		}
		return int64(uint64(x) << (64 - w) >> (64 - w) >> y), true
	}
	return 0, false
}

func uintOp(name string, d tensor.DType, x, y uint64) (uint64, bool) {
	w := uint64(d.Bits())
	switch name {
	case "divide", "remainder":
		if y == 0 {
			return poisonInt, true
		}
		if name == "divide" {
			return x / y, true
		}
		return x % y, true
	case "shift_left", "shift_right_logical":
		if y >= w {
			return poisonInt, true
		}
		if name == "shift_left" {
			return x << y, true
		}
		return x >> y, true
	case "maximum":
		return max(x, y), true
	case "minimum":
		return min(x, y), true
	case "power":
		r := uint64(1)
		for ; y > 0; y >>= 1 {
			if y&1 == 1 {
				r = wrapU(d, r*x)
			}
			x = wrapU(d, x*x)
		}
		return r, true
	}
	v, ok := intOp(name, tensor.I64, int64(x), int64(y))
	return uint64(v), ok && name != "sign" && name != "abs" && !strings.HasPrefix(name, "shift")
}
