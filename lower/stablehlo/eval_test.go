package stablehlo

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"github.com/kiln-go/kiln/lower"
	"github.com/kiln-go/kiln/tensor"
)

// EvalStableHLO interprets the export of m on inputs, for the ops the
// compositions use: elementwise ops, constants, converts, bitcasts, and
// 1-D reduces (combined in a random order: a reduce body must not care),
// 1-D sorts (a stable sort by the comparator region).
// Where StableHLO leaves a result undefined (a zero or overflowing integer
// divisor, a shift count outside [0, width), a negative integer exponent,
// an out-of-range float → int convert, abs(MIN)) it returns poison — a
// value no correct composition may let through — so that tests comparing
// it with Kiln's reference evaluator check the compositions. It is
// exported to the lower_test package.
func EvalStableHLO(m *lower.Module, inputs []*tensor.Array, rng *rand.Rand) ([]*tensor.Array, error) {
	f, err := build(m)
	if err != nil {
		return nil, err
	}
	ev := &shloEval{vals: map[*shloVal]ival{}, rng: rng}
	for i, a := range f.body.args {
		ev.vals[a] = fromArray(inputs[i])
	}
	if err := ev.block(f.body); err != nil {
		return nil, err
	}
	out := make([]*tensor.Array, len(f.outs))
	for i, v := range f.outs {
		if out[i], err = ev.vals[v].array(v.typ); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// ival is a tensor's elements in a wide form: floats as float64 (already
// rounded to their type), signed integers as int64, unsigned as uint64,
// bool as bool.
type ival struct {
	d tensor.DType
	f []float64
	i []int64
	u []uint64
	b []bool
}

func fromArray(a *tensor.Array) ival {
	v := ival{d: a.DType()}
	switch d := a.DType(); {
	case d.IsFloat():
		v.f, _ = tensor.Data[float64](a.Astype(tensor.F64))
	case d.IsSigned():
		v.i, _ = tensor.Data[int64](a.Astype(tensor.I64))
	case d.IsUnsigned():
		v.u, _ = tensor.Data[uint64](a.Astype(tensor.U64))
	case d == tensor.Bool:
		v.b, _ = tensor.Data[bool](a)
	}
	return v
}

func (v ival) array(t shloType) (*tensor.Array, error) {
	var a *tensor.Array
	var err error
	switch {
	case v.f != nil:
		a, err = tensor.FromSlice(v.f, t.shape...)
	case v.i != nil:
		a, err = tensor.FromSlice(v.i, t.shape...)
	case v.u != nil:
		a, err = tensor.FromSlice(v.u, t.shape...)
	default:
		a, err = tensor.FromSlice(v.b, t.shape...)
	}
	if err != nil {
		return nil, err
	}
	return a.Astype(t.dt), nil
}

// round rounds float64 values to dtype d once, to nearest even.
func round(d tensor.DType, xs []float64) []float64 {
	a, _ := tensor.FromSlice(xs)
	out, _ := tensor.Data[float64](a.Astype(d).Astype(tensor.F64))
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
	vals map[*shloVal]ival
	rng  *rand.Rand
}

func (ev *shloEval) block(blk *shloBlock) error {
	for _, o := range blk.ops {
		if o.op == "" || o.op == "stablehlo.return" {
			continue
		}
		if err := ev.op(o); err != nil {
			return fmt.Errorf("%s = %s: %w", o.name, o.op, err)
		}
	}
	return nil
}

func (ev *shloEval) op(o *shloOp) error {
	name := strings.TrimPrefix(o.op, "stablehlo.")
	t := o.results[0].typ
	n := shapeSize(t.shape)
	var a, c, p ival
	if len(o.args) > 0 {
		a = ev.vals[o.args[0]]
	}
	if len(o.args) > 1 {
		c = ev.vals[o.args[1]]
	}
	if len(o.args) > 2 {
		p = ev.vals[o.args[2]]
	}
	r := ival{d: t.dt}
	switch name {
	case "constant":
		lit := strings.TrimPrefix(strings.TrimSuffix(o.attr("value"), " : "+t.String()), "dense<")
		lit = strings.TrimSuffix(lit, ">")
		if strings.ContainsAny(lit, "[(") {
			return fmt.Errorf("only splat real constants are interpreted: %s", lit)
		}
		return ev.set(o, splatOf(t.dt, lit, n))
	case "iota":
		if len(t.shape) != 1 {
			return fmt.Errorf("only 1-D iota is interpreted")
		}
		a := tensor.Must(tensor.Arange(tensor.I64, n))
		ev.vals[o.results[0]] = fromArray(a.Astype(t.dt))
		return nil
	case "reduce":
		return ev.reduce(o)
	case "sort":
		return ev.sort(o)
	case "select":
		// select(pred, on_true, on_false): pred is a, the branches c and p.
		r = ival{d: c.d}
		for i := range n {
			src := p
			if a.b[i] {
				src = c
			}
			switch {
			case src.f != nil:
				r.f = append(r.f, src.f[i])
			case src.i != nil:
				r.i = append(r.i, src.i[i])
			case src.u != nil:
				r.u = append(r.u, src.u[i])
			default:
				r.b = append(r.b, src.b[i])
			}
		}
		return ev.set(o, r)
	case "compare":
		dir := strings.TrimSuffix(strings.TrimPrefix(o.attr("comparison_direction"), "#stablehlo<comparison_direction "), ">")
		for i := range n {
			var lt, eq bool
			switch {
			case a.f != nil:
				lt, eq = a.f[i] < c.f[i], a.f[i] == c.f[i]
				if math.IsNaN(a.f[i]) || math.IsNaN(c.f[i]) {
					r.b = append(r.b, dir == "NE")
					continue
				}
			case a.i != nil:
				lt, eq = a.i[i] < c.i[i], a.i[i] == c.i[i]
			case a.u != nil:
				lt, eq = a.u[i] < c.u[i], a.u[i] == c.u[i]
			default:
				lt, eq = !a.b[i] && c.b[i], a.b[i] == c.b[i]
			}
			r.b = append(r.b, map[string]bool{"EQ": eq, "NE": !eq, "LT": lt, "LE": lt || eq, "GT": !lt && !eq, "GE": !lt}[dir])
		}
		return ev.set(o, r)
	case "convert":
		return ev.set(o, convertIval(a, t.dt, n))
	case "bitcast_convert":
		for _, x := range a.f {
			if a.d == tensor.F32 {
				r.i = append(r.i, int64(int32(math.Float32bits(float32(x)))))
			} else {
				r.i = append(r.i, int64(math.Float64bits(x)))
			}
		}
		return ev.set(o, r)
	}
	switch {
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
				r.b = append(r.b, b)
			} else {
				r.f = append(r.f, v.(float64))
			}
		}
		if r.f != nil {
			r.f = round(t.dt, r.f)
		}
	case a.i != nil:
		for i := range n {
			var y int64
			if c.i != nil {
				y = c.i[i]
			}
			v, ok := intOp(name, t.dt, a.i[i], y)
			if !ok {
				return fmt.Errorf("not interpreted on signed integers")
			}
			r.i = append(r.i, wrap(t.dt, v))
		}
	case a.u != nil:
		for i := range n {
			var y uint64
			if c.u != nil {
				y = c.u[i]
			}
			v, ok := uintOp(name, t.dt, a.u[i], y)
			if !ok {
				return fmt.Errorf("not interpreted on unsigned integers")
			}
			r.u = append(r.u, wrapU(t.dt, v))
		}
	default:
		for i := range n {
			var y bool
			if c.b != nil {
				y = c.b[i]
			}
			v, ok := map[string]bool{"and": a.b[i] && y, "or": a.b[i] || y, "xor": a.b[i] != y, "not": !a.b[i]}[name]
			if !ok && name != "and" && name != "or" && name != "xor" && name != "not" {
				return fmt.Errorf("not interpreted on bool")
			}
			r.b = append(r.b, v)
		}
	}
	return ev.set(o, r)
}

func (ev *shloEval) set(o *shloOp, v ival) error {
	ev.vals[o.results[0]] = v
	return nil
}

func splatOf(d tensor.DType, lit string, n int) ival {
	v := ival{d: d}
	for range n {
		switch {
		case d.IsFloat():
			var x float64
			if bits, err := strconv.ParseUint(strings.TrimPrefix(lit, "0x"), 16, 64); strings.HasPrefix(lit, "0x") && err == nil {
				switch d {
				case tensor.F16:
					x = float64(tensor.Float16FromBits(uint16(bits)).Float32())
				case tensor.BF16:
					x = float64(tensor.BFloat16FromBits(uint16(bits)).Float32())
				case tensor.F32:
					x = float64(math.Float32frombits(uint32(bits)))
				default:
					x = math.Float64frombits(bits)
				}
			} else {
				x, _ = strconv.ParseFloat(lit, 64)
			}
			v.f = append(v.f, x)
		case d.IsSigned():
			x, _ := strconv.ParseInt(lit, 10, 64)
			v.i = append(v.i, x)
		case d.IsUnsigned():
			x, _ := strconv.ParseUint(lit, 10, 64)
			v.u = append(v.u, x)
		default:
			v.b = append(v.b, lit == "true")
		}
	}
	if v.f != nil {
		v.f = round(d, v.f)
	}
	return v
}

func convertIval(a ival, to tensor.DType, n int) ival {
	r := ival{d: to}
	for i := range n {
		var f float64
		var isFloat bool
		var s int64
		var u uint64
		switch {
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
		case to.IsFloat():
			r.f = append(r.f, f)
		case isFloat && (math.IsNaN(f) || !fits(to, math.Trunc(f))):
			r.i, r.u = appendInt(to, r.i, r.u, poisonInt, poisonInt)
		case isFloat && to.IsUnsigned():
			r.u = append(r.u, wrapU(to, uint64(math.Trunc(f))))
		case isFloat && to.IsSigned():
			r.i = append(r.i, int64(math.Trunc(f)))
		case to == tensor.Bool:
			r.b = append(r.b, f != 0)
		default:
			r.i, r.u = appendInt(to, r.i, r.u, s, u)
		}
	}
	if r.f != nil {
		r.f = round(to, r.f)
	}
	return r
}

func appendInt(d tensor.DType, is []int64, us []uint64, s int64, u uint64) ([]int64, []uint64) {
	if d.IsUnsigned() {
		return is, append(us, wrapU(d, u))
	}
	return append(is, wrap(d, s)), us
}

// fits reports whether the integer-valued float x is representable in d.
func fits(d tensor.DType, x float64) bool {
	if d.IsUnsigned() {
		return x >= 0 && x < math.Ldexp(1, d.Bits())
	}
	return x >= -math.Ldexp(1, d.Bits()-1) && x < math.Ldexp(1, d.Bits()-1)
}

func floatOp(name string, x, y float64) (any, bool) {
	switch name {
	case "add":
		return x + y, true
	case "subtract":
		return x - y, true
	case "multiply":
		return x * y, true
	case "divide":
		return x / y, true
	case "remainder":
		return math.Mod(x, y), true // C's fmod
	case "negate":
		return -x, true
	case "floor":
		return math.Floor(x), true
	case "abs":
		return math.Abs(x), true
	case "sign":
		if x > 0 {
			return 1.0, true
		} else if x < 0 {
			return -1.0, true
		}
		return x, true // ±0 and NaN as they are
	case "maximum", "minimum":
		switch {
		case math.IsNaN(x) || math.IsNaN(y):
			return math.NaN(), true
		case x == y:
			if (name == "maximum") == math.Signbit(x) {
				return y, true
			}
			return x, true
		case (x > y) == (name == "maximum"):
			return x, true
		}
		return y, true
	case "is_finite":
		return !math.IsInf(x, 0) && !math.IsNaN(x), true
	}
	return nil, false
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

// reduce runs a 1-D reduce: the elements and the initial values are
// combined by the body two at a time, picking the pair at random each time.
func (ev *shloEval) reduce(o *shloOp) error {
	n := len(o.results)
	in := o.args[0].typ
	if len(in.shape) != 1 {
		return fmt.Errorf("only 1-D reduces are interpreted")
	}
	var pool [][]ival // each: n scalars
	scalar := func(v ival, i int) ival {
		return ival{d: v.d, f: sub(v.f, i), i: sub(v.i, i), u: sub(v.u, i), b: sub(v.b, i)}
	}
	for i := range in.shape[0] {
		var e []ival
		for k := range n {
			e = append(e, scalar(ev.vals[o.args[k]], i))
		}
		pool = append(pool, e)
	}
	var init []ival
	for k := range n {
		init = append(init, ev.vals[o.args[n+k]])
	}
	pool = append(pool, init)
	ret := o.region.ops[len(o.region.ops)-1]
	for len(pool) > 1 {
		i := ev.rng.IntN(len(pool))
		x := pool[i]
		pool = append(pool[:i], pool[i+1:]...)
		j := ev.rng.IntN(len(pool))
		for k := range n {
			ev.vals[o.region.args[k]] = x[k]
			ev.vals[o.region.args[n+k]] = pool[j][k]
		}
		if err := ev.block(o.region); err != nil {
			return err
		}
		var y []ival
		for _, a := range ret.args {
			y = append(y, ev.vals[a])
		}
		pool[j] = y
	}
	for k := range n {
		ev.vals[o.results[k]] = pool[0][k]
	}
	return nil
}

// sort runs a 1-D sort: stable, in the order the comparator region
// defines (element i before j when it returns true for (i, j)).
func (ev *shloEval) sort(o *shloOp) error {
	in := o.args[0].typ
	if len(in.shape) != 1 {
		return fmt.Errorf("only 1-D sorts are interpreted")
	}
	ret := o.region.ops[len(o.region.ops)-1]
	var err error
	less := func(i, j int) bool {
		for k, a := range o.args {
			v := ev.vals[a]
			ev.vals[o.region.args[2*k]] = ival{d: v.d, f: sub(v.f, i), i: sub(v.i, i), u: sub(v.u, i), b: sub(v.b, i)}
			ev.vals[o.region.args[2*k+1]] = ival{d: v.d, f: sub(v.f, j), i: sub(v.i, j), u: sub(v.u, j), b: sub(v.b, j)}
		}
		if e := ev.block(o.region); e != nil {
			err = e
			return false
		}
		return ev.vals[ret.args[0]].b[0]
	}
	idx := make([]int, in.shape[0])
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(i, j int) int {
		switch {
		case less(i, j):
			return -1
		case less(j, i):
			return 1
		}
		return 0
	})
	if err != nil {
		return err
	}
	for k, a := range o.args {
		v := ev.vals[a]
		r := ival{d: v.d}
		for _, i := range idx {
			switch {
			case v.f != nil:
				r.f = append(r.f, v.f[i])
			case v.i != nil:
				r.i = append(r.i, v.i[i])
			case v.u != nil:
				r.u = append(r.u, v.u[i])
			default:
				r.b = append(r.b, v.b[i])
			}
		}
		ev.vals[o.results[k]] = r
	}
	return nil
}

func sub[T any](xs []T, i int) []T {
	if xs == nil {
		return nil
	}
	return xs[i : i+1]
}
