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
		if len(o.Results) == 0 {
			return nil, fmt.Errorf("%s (%s) has no result", o.Name, o.Pos)
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
