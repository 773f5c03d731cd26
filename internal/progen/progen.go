package progen

import (
	"errors"
	"fmt"
	"math/rand"
	"slices"
	"strings"

	"github.com/kiln-go/kiln/promote"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// Options restrict what Generate draws. The zero value draws everything.
type Options struct {
	// DTypes are the dtypes of inputs and astype targets; nil means all 15.
	DTypes []tensor.DType
	// Ops are the ops steps may use; nil means every op of the table. A
	// step is drawn only when its main op is listed (expand_dims and
	// squeeze need OpReshape, matmul OpDot, mean OpReduceSum and OpDiv, a
	// ** integer literal OpMul); the converts and broadcasts that promotion
	// inserts are not restricted by it.
	Ops []trace.Op
	// Allow, when set, vets every equation of the traced program; a step
	// that produces an equation it refuses is drawn again.
	Allow func(e *trace.Eqn) bool
	// Smooth draws programs for checking derivatives against central
	// differences in float64: every equation also passes smoothEqn (no
	// staircases, no float narrower than f64, no cancellation constants,
	// no extreme literals) and the data are ordinary values (floats and
	// complex parts in (−2, 2), small ints). Allow still applies.
	Smooth bool
	// Control also draws control-flow steps (a fori_loop, a cond:
	// control.go). Off, the draws are those of the generator before it
	// had them, seed for seed, so the seeds other tests pin keep their
	// programs.
	Control bool
	// AllControl draws every control-flow step: Control's, and
	// while_loop (a counted while: JAX refuses its reverse-mode
	// derivative), scan (over a value's leading axis, or a given number of
	// steps, zero included) and switch. It implies Control; Control alone
	// keeps the draws it had before AllControl, seed for seed.
	AllControl bool
	// SafeConverts makes float → integer astype clamp into a small range
	// and map NaN to 0 first, and never converts complex to integers, so
	// no convert is out of range (NumPy leaves those undefined).
	SafeConverts bool

	MinOps, MaxOps int     // chain length; default 1 and 12
	MaxInputs      int     // default 4
	MaxOutputs     int     // default 3
	MaxDim         int     // largest dimension of a small shape; default 5
	LargeProb      float64 // probability of a large base shape; default 0.03
	LargeMax       int     // elements of a large base shape at most; default 8192
	MaxElems       int     // no value may have more elements; default 4 × LargeMax
	WeakProb       float64 // probability that an input is weak; default 0.2
	X32Prob        float64 // probability of 32-bit defaults; default 0.15
	StrictProb     float64 // probability of strict promotion; default 0.05
}

func (o Options) withDefaults() Options {
	if o.DTypes == nil {
		o.DTypes = tensor.AllDTypes()
	}
	if o.Ops == nil {
		o.Ops = trace.AllOps()
	}
	def := func(p *int, v int) {
		if *p <= 0 {
			*p = v
		}
	}
	def(&o.MinOps, 1)
	def(&o.MaxOps, 12)
	o.MaxOps = max(o.MaxOps, o.MinOps)
	def(&o.MaxInputs, 4)
	def(&o.MaxOutputs, 3)
	def(&o.MaxDim, 5)
	def(&o.LargeMax, 8192)
	def(&o.MaxElems, 4*o.LargeMax)
	deff := func(p *float64, v float64) {
		if *p == 0 {
			*p = v
		}
	}
	deff(&o.LargeProb, 0.03)
	deff(&o.WeakProb, 0.2)
	deff(&o.X32Prob, 0.15)
	deff(&o.StrictProb, 0.05)
	return o
}

// Case is one generated program with concrete inputs.
type Case struct {
	Config promote.Config   // promotion rules and defaults to trace with
	Inputs []trace.Abstract // the inputs' dtype, weak flag and shape
	Arrays []*tensor.Array  // concrete inputs, one per Inputs entry
	steps  []step           // the recipe
	outs   []int            // the values returned
	Fn     func([]trace.Value) []trace.Value
	smooth bool // drawn with Options.Smooth: DrawArrays draws smooth data
}

// DrawArrays draws new concrete inputs for the case's Inputs, of the kind
// Generate draws for Arrays (smooth data for a Smooth case): the inputs of
// another example of the same program, for tests that run one program on
// several (vmap's property test stacks them into a batch). The case's
// own Arrays are left as they are.
func (c *Case) DrawArrays(r *rand.Rand) []*tensor.Array {
	out := make([]*tensor.Array, len(c.Inputs))
	for i, in := range c.Inputs {
		if c.smooth {
			out[i] = smoothArray(r, in.Type.DType, in.Shape)
		} else {
			out[i] = randomArray(r, in.Type.DType, in.Shape)
		}
	}
	return out
}

// X32 reports whether the case uses 32-bit defaults.
func (c *Case) X32() bool { return c.Config.X32 }

// Strict reports whether the case uses strict promotion.
func (c *Case) Strict() bool { return c.Config.Rules == promote.Strict }

// Trace traces the case's function with its config and verifies the
// program (trace's Program.Check), always: an ill-formed program is a
// *trace.CheckError.
func (c *Case) Trace() (*trace.Program, error) {
	p, err := trace.Trace(c.Config, c.Inputs, c.Fn)
	if err == nil {
		err = p.CheckAfter("trace")
	}
	if err != nil {
		return nil, err
	}
	return p, nil
}

// String describes the case: config, inputs and the builder calls.
func (c *Case) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "x32=%v strict=%v\n", c.X32(), c.Strict())
	for i, in := range c.Inputs {
		fmt.Fprintf(&b, "  v%d: %s%v\n", i, in.Type, in.Shape)
	}
	for i, s := range c.steps {
		fmt.Fprintf(&b, "  v%d = %s\n", len(c.Inputs)+i, s.String())
	}
	outs := make([]string, len(c.outs))
	for i, o := range c.outs {
		outs[i] = fmt.Sprintf("v%d", o)
	}
	fmt.Fprintf(&b, "  return %s", strings.Join(outs, ", "))
	return b.String()
}

// Ops lists the builder calls of the case, one per step, for statistics.
func (c *Case) Ops() []string {
	out := make([]string, len(c.steps))
	for i, s := range c.steps {
		out[i] = s.label()
	}
	return out
}

func (s *step) label() string {
	switch s.kind {
	case kUnary, kBinary, kReduce, kArg:
		return s.op.String()
	}
	return [...]string{kIntPow: "integer_pow", kWhere: "where", kAstype: "astype", kSafeAstype: "astype",
		kReshape: "reshape", kExpand: "expand_dims", kSqueeze: "squeeze", kTranspose: "transpose",
		kBroadcast: "broadcast_to", kSlice: "slice", kConcat: "concatenate", kMean: "mean", kMatMul: "matmul",
		kFlip: "flip", kIndex: "index", kTake: "take", kScatter: "at", kDynSlice: "dynamic_slice", kDynUpdate: "dynamic_update_slice", kIota: "iota", kSort: "sort",
		kConv: "conv_general_dilated", kFori: "fori_loop", kCond: "cond", kWhile: "while_loop", kScan: "scan", kSwitch: "switch"}[s.kind]
}

func (c *Case) replay(args []trace.Value, outs []int) []trace.Value {
	vals := slices.Clone(args)
	for i := range c.steps {
		vals = append(vals, c.steps[i].apply(vals))
	}
	res := make([]trace.Value, len(outs))
	for i, o := range outs {
		res[i] = vals[o]
	}
	return res
}

// Generate draws one case that traces without error. Programs that fail
// to trace are drawn again; the op choice follows the operands' dtypes
// and shapes, so few are. Every program drawn is verified (Case.Trace);
// one the tracer built ill-formed is a bug in the tracer, and Generate
// panics with the case rather than draw another.
func Generate(r *rand.Rand, opts Options) *Case {
	o := opts.withDefaults()
	for {
		if c := generate(r, &o); c != nil {
			return c
		}
	}
}

func generate(r *rand.Rand, o *Options) *Case {
	g := newGen(r, o)
	want := o.MinOps + r.Intn(o.MaxOps-o.MinOps+1)
	for tries := 0; len(g.c.steps) < want && tries < 10*want; tries++ {
		s, ok := g.pick()
		if !ok {
			continue
		}
		g.c.steps = append(g.c.steps, s)
		if !g.check() {
			g.c.steps = g.c.steps[:len(g.c.steps)-1]
		}
	}
	if len(g.c.steps) < o.MinOps {
		return nil
	}
	c := g.c
	nv := len(c.Inputs) + len(c.steps)
	c.outs = []int{nv - 1}
	for k := 1 + r.Intn(o.MaxOutputs); len(c.outs) < k; {
		if r.Intn(20) == 0 {
			c.outs = append(c.outs, r.Intn(len(c.Inputs)))
		} else {
			c.outs = append(c.outs, len(c.Inputs)+r.Intn(len(c.steps)))
		}
	}
	outs := c.outs
	c.Fn = func(args []trace.Value) []trace.Value { return c.replay(args, outs) }
	p, err := c.Trace()
	if err != nil {
		if ce := (*trace.CheckError)(nil); errors.As(err, &ce) {
			// Not a program to draw again: the tracer is wrong.
			panic(fmt.Sprintf("progen: the tracer built an ill-formed program: %v\n%s", err, c))
		}
		return nil
	}
	// Each step was checked alone, over distinct inputs; in the whole
	// program an op that returns its operand (a scatter of nothing) can make
	// two of them one value, so Allow and Smooth see the whole program too.
	for _, e := range p.Eqns {
		if o.Allow != nil && !o.Allow(e) || o.Smooth && !smoothEqn(e) {
			return nil
		}
	}
	return c
}
