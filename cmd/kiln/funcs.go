package main

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// argKind is what a function parameter accepts. Only kArray and kArrays
// parameters are traced; the others are static, read from literals when
// the expression is checked, as JAX requires of axes and shapes.
type argKind uint8

const (
	kArray    argKind = iota // an array expression
	kOptArray                // an array expression, or None (absent)
	kArrays                  // a tuple or list of array expressions
	kAxes                    // None, an int or a tuple of ints
	kAxis                    // None or one int
	kInts                    // an int or a tuple of ints; extra positional ints join it: reshape(x, 2, 3)
	kBool                    // True or False
	kDType                   // a dtype name: f16, float32, bf16, …
	kMode                    // an out-of-bounds mode string: 'clip', 'fill', …
	kLit                     // a number or bool literal (a static scalar such as fill_value)
	kStr                     // a string literal: pad's mode='reflect'
	kRest                    // the remaining positional arrays (last): einsum's operands
	kFunc                    // a lambda (param.arity parameters; -1: one per operand of the kRest parameter)
	kCarry                   // a loop's initial carry: an array, or a tuple of arrays (then b.list, b.carryTuple)
	kFuncs                   // a tuple or list of lambdas (switch's branches), arity as kFunc
	kPadding                 // 'SAME', 'VALID', 'SAME_LOWER' or a tuple of (lo, hi) int pairs: conv's padding
	kStrs                    // None or a tuple of string literals: conv's dimension_numbers
	kNum                     // None or a static int or float (arange's bounds): ints also in b.ints
	kPadWidth                // jnp.pad's pad_width: an int, a tuple of ints, or a tuple of int tuples (funcs_pad.go)
	kPadVals                 // jnp.pad's constant_values: an array, or a tuple (of tuples) of arrays (funcs_pad.go)
)

// param is one parameter of a function, positional or keyword.
type param struct {
	name string
	kind argKind
	def  string // the default shown in help; "" when the parameter is required
}

// lambdaSpec is what a kFunc or kFuncs parameter's lambdas must be.
type lambdaSpec struct {
	arity int  // parameters; -1: one per operand of the kRest parameter
	pair  bool // the body is a pair (scan's (carry, y))
	// carry ≥ 0 is the parameter that is the loop's carry: a tuple when
	// the kCarry argument is one, and the body then returns a tuple of as
	// many (carry is 1 more than the parameter index, 0 for none).
	carry int
}

// function is one entry of the call table: its parameters and how to
// build it from bound arguments.
type function struct {
	params  []param
	summary string
	apply   func(a *bound) trace.Value
	// tuple, for a function returning several values (scan's (carry,
	// ys)), replaces apply: the call is then indexed, scan(…)[1].
	tuple func(a *bound) []trace.Value
	// size, when set, is the tuple's length from the bound arguments
	// (split's sections); otherwise a pair, or one per carry.
	size func(a *bound) int
	// lambdas are the kFunc and kFuncs parameters' requirements.
	lambdas map[string]lambdaSpec
}

// bound is a call's arguments matched to its function's parameters by
// check; build fills vals with the traced array arguments.
type bound struct {
	fn      *function
	name    string
	arrays  map[string]*node    // kArray parameters
	list    []*node             // the kArrays parameter
	ints    map[string][]int    // kAxes, kAxis, kInts; absent when None or not given
	tupled  map[string]bool     // kInts given as a tuple (split: indices, not a count)
	floats  map[string]float64  // kNum given as a float literal
	flags   map[string]bool     // kBool
	dtype   tensor.DType        // kDType
	dtSet   bool                // a kDType argument was given
	strs    map[string]string   // kStr, and kPadding given as a string
	pairs   map[string][][2]int // kPadding given as pairs
	strList map[string][]string // kStrs
	nested  map[string][]int    // kPadWidth, kPadVals given as a tuple: the nesting's shape (ints or list hold the leaves)
	opts    []trace.IndexOption // kMode and kLit (as mode= and fill_value=)

	vals     map[string]trace.Value
	listVals []trace.Value

	carryTuple bool             // the kCarry argument is a tuple (its arrays in list)
	funcs      map[string]*node // kFunc and kFuncs parameters (lambdas)
	fns        []*node          // the kFuncs parameter's lambdas
	ev         *evaluator       // calls the lambdas (set by build)
}

func (a *bound) x(name string) trace.Value { return a.vals[name] }

// optDType is the kDType argument as an optional dtype: none when absent.
func (a *bound) optDType() []tensor.DType {
	if a.dtSet {
		return []tensor.DType{a.dtype}
	}
	return nil
}

// dotOptions is the kDType argument as a preferred_element_type: none
// when absent.
func (a *bound) dotOptions() []trace.DotOption {
	if a.dtSet {
		return []trace.DotOption{trace.PreferredElementType(a.dtype)}
	}
	return nil
}

// axes returns an axes argument and whether it was given (and not None).
func (a *bound) axes(name string) ([]int, bool) {
	v, ok := a.ints[name]
	return v, ok
}

var x1 = []param{{"x", kArray, ""}}
var x2 = []param{{"a", kArray, ""}, {"b", kArray, ""}}
var reduceParams = []param{{"x", kArray, ""}, {"axis", kAxes, "None"}, {"keepdims", kBool, "False"}}

// functions is the call table of the expression language.
var functions = map[string]*function{
	"where": {params: []param{{"condition", kArray, ""}, {"x", kArray, ""}, {"y", kArray, ""}},
		summary: "x where condition is true, else y (a non-bool condition means != 0)",
		apply:   func(a *bound) trace.Value { return trace.Where(a.x("condition"), a.x("x"), a.x("y")) }},
	"maximum": {params: x2, summary: "elementwise maximum; NaN propagates",
		apply: func(a *bound) trace.Value { return a.x("a").Maximum(a.x("b")) }},
	"minimum": {params: x2, summary: "elementwise minimum; NaN propagates",
		apply: func(a *bound) trace.Value { return a.x("a").Minimum(a.x("b")) }},
	"matmul": {params: []param{{"a", kArray, ""}, {"b", kArray, ""}, {"preferred_element_type", kDType, "None"}},
		summary: "numpy.matmul, as a @ b; preferred_element_type=f32 computes in that dtype (jax.numpy's)",
		apply:   func(a *bound) trace.Value { return trace.MatMul(a.x("a"), a.x("b"), a.dotOptions()...) }},
	"dot": {params: []param{{"a", kArray, ""}, {"b", kArray, ""}, {"preferred_element_type", kDType, "None"}},
		summary: "numpy.dot: a's last axis with b's second-to-last (b a vector: its only axis); scalars multiply",
		apply:   func(a *bound) trace.Value { return trace.Dot(a.x("a"), a.x("b"), a.dotOptions()...) }},
	"tensordot": {params: []param{{"a", kArray, ""}, {"b", kArray, ""}, {"axes", kAxes, "2"}, {"preferred_element_type", kDType, "None"}},
		summary: "numpy.tensordot: axes=n contracts a's last n axes with b's first n; axes=(i, j) a's axis i with b's j",
		apply: func(a *bound) trace.Value {
			switch ax, _ := a.axes("axes"); len(ax) {
			case 1:
				return trace.TensordotN(a.x("a"), a.x("b"), ax[0], a.dotOptions()...)
			case 2:
				return trace.Tensordot(a.x("a"), a.x("b"), ax[:1], ax[1:], a.dotOptions()...)
			default:
				return trace.Failure(&trace.ShapeError{Op: "tensordot", Msg: fmt.Sprintf("axes must be an int n or a pair (i, j) of axes, got %v", ax)})
			}
		}},
	"astype": {params: []param{{"x", kArray, ""}, {"dtype", kDType, ""}}, summary: "explicit, strong convert",
		apply: func(a *bound) trace.Value { return a.x("x").Astype(a.dtype) }},
	"sum":  reduction(trace.OpReduceSum, "sum over axes (narrow ints and bool accumulate in the default int)"),
	"prod": reduction(trace.OpReduceProd, "product over axes"),
	"max":  reduction(trace.OpReduceMax, "maximum over axes"),
	"min":  reduction(trace.OpReduceMin, "minimum over axes"),
	"mean": {params: reduceParams, summary: "mean over axes, in the inexact dtype",
		apply: func(a *bound) trace.Value {
			ax, _ := a.axes("axis")
			return trace.ReduceMean(a.x("x"), ax, a.flags["keepdims"])
		}},
	"argmax": argReduction(trace.Value.ArgMax, "index of the first maximum (axis=None: of the flattened array)"),
	"argmin": argReduction(trace.Value.ArgMin, "index of the first minimum (axis=None: of the flattened array)"),
	"reshape": {params: []param{{"x", kArray, ""}, {"shape", kInts, ""}}, summary: "reshape(x, (2, 3)) or reshape(x, 2, 3); one dimension may be -1",
		apply: func(a *bound) trace.Value { return a.x("x").Reshape(a.ints["shape"]...) }},
	"transpose": {params: []param{{"x", kArray, ""}, {"axes", kInts, "None"}}, summary: "permute axes (default: reverse them)",
		apply: func(a *bound) trace.Value { return a.x("x").Transpose(a.ints["axes"]...) }},
	"expand_dims": {params: []param{{"x", kArray, ""}, {"axis", kInts, ""}}, summary: "insert size-1 axes at these result positions",
		apply: func(a *bound) trace.Value { return a.x("x").ExpandDims(a.ints["axis"]...) }},
	"squeeze": {params: []param{{"x", kArray, ""}, {"axis", kAxes, "None"}}, summary: "remove size-1 axes (default: all of them)",
		apply: func(a *bound) trace.Value { return a.x("x").Squeeze(a.ints["axis"]...) }},
	"broadcast_to": {params: []param{{"x", kArray, ""}, {"shape", kInts, ""}}, summary: "NumPy broadcast to a shape",
		apply: func(a *bound) trace.Value { return a.x("x").BroadcastTo(a.ints["shape"]...) }},
	"concatenate": {params: []param{{"arrays", kArrays, ""}, {"axis", kAxis, "0"}}, summary: "concatenate((a, b), axis=0)",
		apply: func(a *bound) trace.Value {
			ax, ok := a.axes("axis")
			if !ok {
				return flattenConcat(a.listVals)
			}
			return trace.Concatenate(ax[0], a.listVals...)
		}},
}

// flattenConcat is concatenate with axis=None: every array flattened.
func flattenConcat(xs []trace.Value) trace.Value {
	flat := make([]trace.Value, len(xs))
	for i, x := range xs {
		flat[i] = x.Reshape(-1)
	}
	return trace.Concatenate(0, flat...)
}

// unaryFunctions are the elementwise functions of one array.
var unaryFunctions = map[string]func(trace.Value) trace.Value{
	"exp": trace.Value.Exp, "log": trace.Value.Log, "log1p": trace.Value.Log1p, "expm1": trace.Value.Expm1,
	"sqrt": trace.Value.Sqrt, "rsqrt": trace.Value.Rsqrt, "sin": trace.Value.Sin, "cos": trace.Value.Cos,
	"tan": trace.Value.Tan, "tanh": trace.Value.Tanh, "logistic": trace.Value.Logistic, "sigmoid": trace.Value.Logistic,
	"floor": trace.Value.Floor, "ceil": trace.Value.Ceil, "round": trace.Value.Round,
	"isnan": trace.Value.IsNaN, "isfinite": trace.Value.IsFinite,
	"real": trace.Value.Real, "imag": trace.Value.Imag, "conj": trace.Value.Conj,
	"abs": trace.Value.Abs, "sign": trace.Value.Sign,
}

func init() {
	for name, f := range unaryFunctions {
		functions[name] = &function{params: x1, summary: "elementwise", apply: func(a *bound) trace.Value { return f(a.x("x")) }}
	}
	functions["sigmoid"].summary = "alias of logistic"
}

func reduction(op trace.Op, summary string) *function {
	return &function{params: reduceParams, summary: summary, apply: func(a *bound) trace.Value {
		ax, _ := a.axes("axis")
		return trace.Reduce(op, a.x("x"), ax, a.flags["keepdims"])
	}}
}

// argReduction is argmax/argmin with NumPy's axis=None (flatten first) and
// keepdims.
func argReduction(f func(trace.Value, int) trace.Value, summary string) *function {
	return &function{params: []param{{"x", kArray, ""}, {"axis", kAxis, "None"}, {"keepdims", kBool, "False"}}, summary: summary,
		apply: func(a *bound) trace.Value {
			x, keep := a.x("x"), a.flags["keepdims"]
			ax, ok := a.axes("axis")
			if !ok {
				r := f(x.Reshape(-1), 0)
				if keep {
					ones := make([]int, len(x.Shape()))
					for i := range ones {
						ones[i] = 1
					}
					r = r.Reshape(ones...)
				}
				return r
			}
			r := f(x, ax[0])
			if keep {
				r = r.ExpandDims(ax[0])
			}
			return r
		}}
}

// signature prints a function's call form: sum(x, axis=None, keepdims=False).
func (f *function) signature(name string) string {
	parts := make([]string, len(f.params))
	for i, p := range f.params {
		parts[i] = p.name
		if p.kind == kRest {
			parts[i] = "*" + p.name
		}
		if p.def != "" {
			parts[i] += "=" + p.def
		}
	}
	return name + "(" + strings.Join(parts, ", ") + ")"
}

func functionNames() []string {
	names := make([]string, 0, len(functions))
	for n := range functions {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// bind matches a call's arguments to fn's parameters, reads the static
// ones and checks the array ones with c.
func (c *checker) bind(fn *function, n *node) (*bound, error) {
	b := &bound{fn: fn, name: n.text, arrays: map[string]*node{}, ints: map[string][]int{}, tupled: map[string]bool{}, floats: map[string]float64{}, flags: map[string]bool{}, strs: map[string]string{}}
	given := map[string]*node{}
	var extra []*node // variadic ints after a kInts parameter, arrays after a kRest one
	rest := slices.IndexFunc(fn.params, func(p param) bool { return p.kind == kRest })
	for i, arg := range n.kids {
		switch {
		case rest >= 0 && i > rest: // parameters after *operands are keyword-only, as in Python
			extra = append(extra, arg)
		case i < len(fn.params):
			given[fn.params[i].name] = arg
		case fn.params[len(fn.params)-1].kind == kInts, fn.params[len(fn.params)-1].kind == kRest:
			extra = append(extra, arg)
		default:
			return nil, syntaxErr(arg.col, "%s takes at most %s, got %d: %s", n.text, plural(len(fn.params), "positional argument"), len(n.kids), fn.signature(n.text))
		}
	}
	for _, kw := range n.kws {
		p := fn.param(kw.name)
		if p == nil {
			return nil, syntaxErr(kw.col, "%s has no argument %q: %s", n.text, kw.name, fn.signature(n.text))
		}
		if given[kw.name] != nil {
			return nil, syntaxErr(kw.col, "%s got two values for argument %q", n.text, kw.name)
		}
		given[kw.name] = kw.val
	}
	var lambdas []param // checked last: their arity may depend on the operands
	for _, p := range fn.params {
		arg := given[p.name]
		if arg != nil && (p.kind == kFunc || p.kind == kFuncs) {
			lambdas = append(lambdas, p)
			continue
		}
		if arg == nil {
			if p.def == "" {
				return nil, syntaxErr(n.col, "%s is missing argument %q: %s", n.text, p.name, fn.signature(n.text))
			}
			switch d, err := strconv.Atoi(p.def); {
			case p.kind == kBool:
				b.flags[p.name] = p.def == "True"
			case err == nil:
				b.ints[p.name] = []int{d} // an int default: concatenate's axis=0, softmax's axis=-1
			}
			continue
		}
		if err := c.bindParam(b, p, arg, extra); err != nil {
			return nil, err
		}
	}
	for _, p := range lambdas {
		if err := c.bindLambdas(b, p, given[p.name]); err != nil {
			return nil, err
		}
	}
	return b, nil
}

func (f *function) param(name string) *param {
	for i := range f.params {
		if f.params[i].name == name {
			return &f.params[i]
		}
	}
	return nil
}

func (c *checker) bindParam(b *bound, p param, arg *node, extra []*node) error {
	switch p.kind {
	case kPadWidth, kPadVals:
		return c.bindPad(b, p, arg)
	case kOptArray:
		if arg.kind == nNone {
			return nil
		}
		b.arrays[p.name] = arg
		return c.array(arg)
	case kArray:
		b.arrays[p.name] = arg
		return c.array(arg)
	case kArrays:
		if arg.kind != nTuple || len(arg.kids) == 0 {
			return syntaxErr(arg.col, "%s needs a tuple of arrays, as in %s((a, b), axis=0)", b.name, b.name)
		}
		b.list = arg.kids
		for _, k := range arg.kids {
			if err := c.array(k); err != nil {
				return err
			}
		}
		return nil
	case kBool:
		if arg.kind != nBool {
			return syntaxErr(arg.col, "%s: %s must be True or False, found %s", b.name, p.name, describe(arg))
		}
		b.flags[p.name] = arg.text == "True"
		return nil
	case kDType:
		if arg.kind != nName {
			return syntaxErr(arg.col, "%s: expected a dtype name such as f16 or float32, found %s", b.name, describe(arg))
		}
		name, _ := strings.CutPrefix(arg.text, "jnp.") // jnp.float8_e4m3fn, np.int8: the dtype's name
		name, _ = strings.CutPrefix(name, "np.")
		d, err := tensor.ParseDType(name)
		if err != nil {
			return syntaxErr(arg.col, "%s: unknown dtype %q (bool u8 u16 u32 u64 i8 i16 i32 i64 bf16 f16 f32 f64 c64 c128 f8e4m3fn f8e5m2 f8e4m3fnuz f8e5m2fnuz f8e4m3b11fnuz f8e3m4 f8e4m3 f8e8m0fnu f6e2m3fn f6e3m2fn f4e2m1fn i4 u4 i2 u2, or long names such as float16, float8_e4m3fn, int4, with or without jnp.)", b.name, arg.text)
		}
		b.dtype, b.dtSet = d, true
		return nil
	case kMode:
		m, err := modeOf(arg)
		if arg.kind == nNone {
			return nil
		}
		if err != nil {
			return err
		}
		b.opts = append(b.opts, trace.WithMode(m))
		return nil
	case kRest:
		b.list = append([]*node{arg}, extra...)
		for _, k := range b.list {
			if err := c.array(k); err != nil {
				return err
			}
		}
		return nil
	case kPadding:
		if arg.kind == nString {
			b.strs[p.name] = arg.text
			return nil
		}
		if arg.kind != nTuple {
			return syntaxErr(arg.col, "%s: %s must be 'SAME', 'VALID' or a tuple of (lo, hi) pairs, found %s", b.name, p.name, describe(arg))
		}
		var pairs [][2]int
		for _, k := range arg.kids {
			if k.kind != nTuple || len(k.kids) != 2 {
				return syntaxErr(k.col, "%s: each %s entry must be a (lo, hi) pair, found %s", b.name, p.name, describe(k))
			}
			v, err := staticInts(k.kids)
			if err != nil {
				return err
			}
			pairs = append(pairs, [2]int{v[0], v[1]})
		}
		if b.pairs == nil {
			b.pairs = map[string][][2]int{}
		}
		b.pairs[p.name] = pairs
		return nil
	case kStrs:
		if arg.kind == nNone {
			return nil
		}
		if arg.kind != nTuple {
			return syntaxErr(arg.col, "%s: %s must be a tuple of strings such as ('NHWC', 'HWIO', 'NHWC'), found %s", b.name, p.name, describe(arg))
		}
		var list []string
		for _, k := range arg.kids {
			if k.kind != nString {
				return syntaxErr(k.col, "%s: %s must hold strings, found %s", b.name, p.name, describe(k))
			}
			list = append(list, k.text)
		}
		if b.strList == nil {
			b.strList = map[string][]string{}
		}
		b.strList[p.name] = list
		return nil
	case kCarry:
		if arg.kind == nTuple {
			if len(arg.kids) == 0 {
				return syntaxErr(arg.col, "%s: an empty tuple is no carry", b.name)
			}
			b.list, b.carryTuple = arg.kids, true
			for _, k := range arg.kids {
				if err := c.array(k); err != nil {
					return err
				}
			}
			return nil
		}
		b.arrays[p.name] = arg
		return c.array(arg)
	case kStr:
		if arg.kind != nString {
			return syntaxErr(arg.col, "%s: %s must be a string such as 'reflect', found %s", b.name, p.name, describe(arg))
		}
		b.strs[p.name] = arg.text
		return nil
	case kNum:
		switch arg.kind {
		case nNone:
			return nil
		case nFloat:
			f, err := floatLiteral(arg)
			b.floats[p.name] = f
			return err
		}
		v, err := staticInt(arg)
		b.ints[p.name] = []int{v}
		return err
	case kLit:
		if arg.kind == nNone {
			return nil
		}
		v, err := literalOf(arg)
		if err != nil {
			return err
		}
		b.opts = append(b.opts, trace.WithFill(v))
		return nil
	}
	if arg.kind == nNone && p.def != "" {
		return nil // None: the parameter's default meaning (all axes, no permutation, flatten)
	}
	var ints []int
	var err error
	switch {
	case arg.kind == nTuple && len(extra) == 0:
		ints, err = staticInts(arg.kids)
	case arg.kind == nTuple:
		return syntaxErr(extra[0].col, "%s: give %s either as a tuple or as separate ints, not both", b.name, p.name)
	default:
		ints, err = staticInts(append([]*node{arg}, extra...))
	}
	if err != nil {
		return err
	}
	switch {
	case p.kind == kAxis && len(ints) != 1:
		return syntaxErr(arg.col, "%s: %s must be one int or None", b.name, p.name)
	case p.kind == kAxes && len(ints) == 0:
		return syntaxErr(arg.col, "%s: axis=() (no axes) is not supported; use None for all axes", b.name)
	}
	b.ints[p.name] = ints
	b.tupled[p.name] = arg.kind == nTuple
	return nil
}

// staticInts reads static ints (see staticInt).
func staticInts(ns []*node) ([]int, error) {
	out := make([]int, len(ns))
	for i, n := range ns {
		v, err := staticInt(n)
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// describe names a node for an error message.
func describe(n *node) string {
	switch n.kind {
	case nName:
		return fmt.Sprintf("name %q", n.text)
	case nInt, nFloat, nImag:
		return "a number"
	case nBool:
		return n.text
	case nNone:
		return "None"
	case nEllipsis:
		return "..."
	case nTuple:
		return "a tuple"
	case nSlice:
		return "a slice"
	case nCall:
		return "a call of " + n.text
	case nString:
		return fmt.Sprintf("the string %q", n.text)
	}
	return "an expression"
}
