// Package conformance is the one test suite every Kiln backend passes: the
// same programs (ops × dtypes × shapes, broadcasting, reductions, matmul,
// weak literals) run on the backend and on the reference evaluator, with
// results bit-identical except for transcendental functions, which must be
// within the docs/SPEC.md §3 bounds. The CPU backend is itself held bit-identical
// to the reference, so a backend that passes gives the CPU's answers.
package conformance

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/kiln-go/kiln/promote"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// Case is one program and its inputs.
type Case struct {
	Name   string
	Config promote.Config
	Inputs []*tensor.Array
	Weak   []bool // per input; nil means all strong
	Fn     func(a []trace.Value) []trace.Value
	// Tolerance, when set, compares the outputs that depend on a
	// transcendental op with CompareScaled instead of in ulps: derivative
	// programs amplify the last-bit differences backends may have there.
	Tolerance float64
	// ExactBits compares every output's storage bits, NaN payloads and
	// signaling NaNs included (for cases that only move bits).
	ExactBits bool
	// OpByOp compiles the case unfused (lower.Options.NoFusion): every
	// op its own kernel.
	OpByOp bool
}

// Abstract returns the traced signature of the case's inputs.
func (c Case) Abstract() []trace.Abstract {
	out := make([]trace.Abstract, len(c.Inputs))
	for i, a := range c.Inputs {
		t := promote.Strong(a.DType())
		if c.Weak != nil && c.Weak[i] {
			t = promote.WeakOf(a.DType())
		}
		out[i] = trace.Abstract{Type: t, Shape: a.Shape()}
	}
	return out
}

// specials are values every float input starts with.
var specials = []float64{0, math.Copysign(0, -1), 1, -1, 0.5, -2.5, 3, 1e-3, 65504, 7e4, 1e30, -1e30,
	math.Inf(1), math.Inf(-1), math.NaN(), 5e-324, 1e-40, 0.1, 1.0 / 3, 100, -7, 2}

// Input returns a deterministic array of dtype d and the given shape: the
// special values first (converted to d as docs/SPEC.md §3 says), then random ones.
func Input(d tensor.DType, seed uint64, shape ...int) *tensor.Array {
	n := trace.ShapeSize(shape)
	r := rand.New(rand.NewPCG(seed, uint64(d)))
	switch {
	case d.IsInteger() || d == tensor.Bool:
		vals := make([]int64, n)
		edge := []int64{0, 1, -1, 2, -2, 7, -7, 127, -128, 255, 32767, -32768, math.MaxInt32, math.MinInt32, math.MaxInt64, math.MinInt64}
		for i := range vals {
			if i < len(edge) && i%2 == 0 {
				vals[i] = edge[i]
			} else {
				vals[i] = int64(r.IntN(41)) - 20
			}
		}
		a, _ := tensor.FromSlice(vals, shape...)
		return a.Astype(d)
	case d.IsComplex():
		vals := make([]complex128, n)
		for i := range vals {
			re, im := pick(r, i), pick(r, i+7)
			vals[i] = complex(re, im)
		}
		a, _ := tensor.FromSlice(vals, shape...)
		return a.Astype(d)
	}
	vals := make([]float64, n)
	for i := range vals {
		vals[i] = pick(r, i)
	}
	a, _ := tensor.FromSlice(vals, shape...)
	return a.Astype(d)
}

func pick(r *rand.Rand, i int) float64 {
	if i < len(specials) && i%3 != 2 {
		return specials[i]
	}
	return (r.Float64()*2 - 1) * math.Pow(10, float64(r.IntN(5)-2))
}

type unaryOp struct {
	name string
	f    func(trace.Value) trace.Value
}

type binaryOp struct {
	name string
	f    func(x, y trace.Value) trace.Value
}

var unaryOps = []unaryOp{
	{"neg", trace.Value.Neg}, {"abs", trace.Value.Abs}, {"sign", trace.Value.Sign},
	{"exp", trace.Value.Exp}, {"log", trace.Value.Log}, {"log1p", trace.Value.Log1p}, {"expm1", trace.Value.Expm1},
	{"sqrt", trace.Value.Sqrt}, {"rsqrt", trace.Value.Rsqrt}, {"sin", trace.Value.Sin}, {"cos", trace.Value.Cos},
	{"tan", trace.Value.Tan}, {"tanh", trace.Value.Tanh}, {"logistic", trace.Value.Logistic},
	{"floor", trace.Value.Floor}, {"ceil", trace.Value.Ceil}, {"round", trace.Value.Round},
	{"isnan", trace.Value.IsNaN}, {"isfinite", trace.Value.IsFinite},
	{"real", trace.Value.Real}, {"imag", trace.Value.Imag}, {"conj", trace.Value.Conj}, {"not", trace.Value.Not},
	{"asin", trace.Value.Asin}, {"acos", trace.Value.Acos}, {"atan", trace.Value.Atan},
	{"sinh", trace.Value.Sinh}, {"cosh", trace.Value.Cosh}, {"asinh", trace.Value.Asinh},
	{"acosh", trace.Value.Acosh}, {"atanh", trace.Value.Atanh}, {"exp2", trace.Value.Exp2},
	{"log2", trace.Value.Log2}, {"log10", trace.Value.Log10}, {"cbrt", trace.Value.Cbrt},
	{"erf", trace.Value.Erf}, {"erfc", trace.Value.Erfc}, {"erf_inv", trace.Value.ErfInv},
	{"isinf", trace.Value.IsInf}, {"isposinf", trace.Value.IsPosInf}, {"isneginf", trace.Value.IsNegInf},
	{"stop_gradient", trace.StopGradient},
}

var binaryOps = []binaryOp{
	{"add", trace.Value.Add}, {"sub", trace.Value.Sub}, {"mul", trace.Value.Mul}, {"div", trace.Value.Div},
	{"floordiv", trace.Value.FloorDiv}, {"rem", trace.Value.Rem}, {"pow", trace.Value.Pow},
	{"max", trace.Value.Maximum}, {"min", trace.Value.Minimum},
	{"and", trace.Value.And}, {"or", trace.Value.Or}, {"xor", trace.Value.Xor},
	{"shl", trace.Value.Shl}, {"shr", trace.Value.Shr},
	{"eq", trace.Value.Eq}, {"ne", trace.Value.Ne}, {"lt", trace.Value.Lt}, {"le", trace.Value.Le},
	{"gt", trace.Value.Gt}, {"ge", trace.Value.Ge},
	{"atan2", trace.Value.Atan2}, {"hypot", trace.Value.Hypot}, {"copysign", trace.Value.Copysign},
	{"nextafter", trace.Value.Nextafter}, {"fmod", trace.Value.Fmod},
}

func one(f func(a []trace.Value) trace.Value) func(a []trace.Value) []trace.Value {
	return func(a []trace.Value) []trace.Value { return []trace.Value{f(a)} }
}

// Cases returns the whole suite. Cases whose program a dtype rules out
// (bitwise ops on floats, …) are not included.
func Cases() []Case {
	var cs []Case
	add := func(c Case) {
		if _, err := trace.Trace(c.Config, c.Abstract(), c.Fn); err == nil {
			cs = append(cs, c)
		}
	}
	for _, d := range tensor.AllDTypes() {
		for _, op := range unaryOps {
			add(Case{Name: fmt.Sprintf("%s/%s", op.name, d), Inputs: []*tensor.Array{Input(d, 1, 4, 6)},
				Fn: one(func(a []trace.Value) trace.Value { return op.f(a[0]) })})
		}
		for _, op := range binaryOps {
			add(Case{Name: fmt.Sprintf("%s/%s", op.name, d), Inputs: []*tensor.Array{Input(d, 2, 4, 6), Input(d, 3, 6)},
				Fn: one(func(a []trace.Value) trace.Value { return op.f(a[0], a[1]) })})
			add(Case{Name: fmt.Sprintf("%s/%s/rank0", op.name, d), Inputs: []*tensor.Array{Input(d, 4), Input(d, 5, 3, 1, 2)},
				Fn: one(func(a []trace.Value) trace.Value { return op.f(a[0], a[1]) })})
		}
		for _, lit := range []struct {
			name string
			v    trace.Value
		}{{"int", trace.Int(3)}, {"float", trace.Float(0.1)}, {"complex", trace.Complex(1 - 2i)}, {"bool", trace.Bool(true)}} {
			add(Case{Name: fmt.Sprintf("mul-weak-%s/%s", lit.name, d), Inputs: []*tensor.Array{Input(d, 6, 5)},
				Fn: one(func(a []trace.Value) trace.Value { return a[0].Mul(lit.v) })})
		}
		add(Case{Name: fmt.Sprintf("where/%s", d), Inputs: []*tensor.Array{Input(tensor.Bool, 7, 2, 5), Input(d, 8, 2, 5), Input(d, 9, 5)},
			Fn: one(func(a []trace.Value) trace.Value { return trace.Where(a[0], a[1], a[2]) })})
		for _, to := range tensor.AllDTypes() {
			add(Case{Name: fmt.Sprintf("convert/%s/%s", d, to), Inputs: []*tensor.Array{Input(d, 10, 40)},
				Fn: one(func(a []trace.Value) trace.Value { return a[0].Astype(to) })})
		}
		reductionCases(d, add)
	}
	for _, c := range structuralCases() {
		add(c)
	}
	for _, c := range mixedCases() {
		add(c)
	}
	for _, c := range prngCases() {
		add(c)
	}
	for _, c := range indexCases() {
		add(c)
	}
	for _, c := range preferredCases() {
		add(c)
	}
	for _, c := range bf16RuleCases() {
		add(c)
	}
	for _, c := range f16DotCases() {
		add(c)
	}
	for _, c := range sortCases() {
		add(c)
	}
	for _, c := range controlCases() {
		add(c)
	}
	for _, c := range snanMovementCases() {
		add(c)
	}
	for _, c := range movementCases() {
		add(c)
	}
	for _, c := range convCases() {
		add(c)
	}
	for _, c := range epilogueCases() {
		add(c)
	}
	for _, c := range vmapCases() {
		add(c)
	}
	for _, c := range narrowCases() {
		add(c)
	}
	return append(cs, gradCases()...) // never filtered: a derivative that fails to trace fails its case
}

func reductionCases(d tensor.DType, add func(Case)) {
	type red struct {
		name string
		f    func(x trace.Value, axes []int, keep bool) trace.Value
	}
	reds := []red{
		{"sum", func(x trace.Value, ax []int, k bool) trace.Value { return trace.Reduce(trace.OpReduceSum, x, ax, k) }},
		{"prod", func(x trace.Value, ax []int, k bool) trace.Value { return trace.Reduce(trace.OpReduceProd, x, ax, k) }},
		{"max", func(x trace.Value, ax []int, k bool) trace.Value { return trace.Reduce(trace.OpReduceMax, x, ax, k) }},
		{"min", func(x trace.Value, ax []int, k bool) trace.Value { return trace.Reduce(trace.OpReduceMin, x, ax, k) }},
		{"mean", func(x trace.Value, ax []int, k bool) trace.Value { return trace.ReduceMean(x, ax, k) }},
		{"argmax", func(x trace.Value, ax []int, _ bool) trace.Value { return x.ArgMax(ax[0]) }},
		{"argmin", func(x trace.Value, ax []int, _ bool) trace.Value { return x.ArgMin(ax[0]) }},
	}
	for _, r := range reds {
		for _, sh := range []struct {
			shape []int
			axes  []int
			keep  bool
		}{
			{[]int{3, 4, 5}, []int{1}, false}, {[]int{3, 4, 5}, []int{0, 2}, true}, {[]int{6, 7}, []int{0}, false},
			{[]int{300}, []int{0}, false}, {[]int{2, 9000}, []int{1}, false}, {[]int{9000, 3}, []int{0}, true},
			// Sums over leading axes of rows of 8 or more run down the
			// columns (kernels' colSumKernel): leaves with and without
			// leftover rows, several groups, two leading axes.
			{[]int{300, 10}, []int{0}, false}, {[]int{2500, 24}, []int{0}, true}, {[]int{4, 5, 16}, []int{0, 1}, false},
			// No columns: nothing to sum (the narrow column sum must not
			// divide by the row width).
			{[]int{7, 0}, []int{0}, false},
		} {
			add(Case{Name: fmt.Sprintf("%s/%s/%v/axes%v", r.name, d, sh.shape, sh.axes), Inputs: []*tensor.Array{Input(d, 11, sh.shape...)},
				Fn: one(func(a []trace.Value) trace.Value { return r.f(a[0], sh.axes, sh.keep) })})
		}
	}
}

func structuralCases() []Case {
	var cs []Case
	for _, d := range []tensor.DType{tensor.Bool, tensor.I8, tensor.F16, tensor.F32, tensor.F64, tensor.C128} {
		x := Input(d, 12, 2, 3, 4)
		cs = append(cs,
			Case{Name: "transpose/" + d.String(), Inputs: []*tensor.Array{x}, Fn: one(func(a []trace.Value) trace.Value { return a[0].Transpose(2, 0, 1) })},
			Case{Name: "slice/" + d.String(), Inputs: []*tensor.Array{x}, Fn: one(func(a []trace.Value) trace.Value { return a[0].Slice(2, 1, 4, 2).Slice(0, -1, 2, 1) })},
			Case{Name: "concat/" + d.String(), Inputs: []*tensor.Array{x, Input(d, 13, 2, 1, 4)}, Fn: one(func(a []trace.Value) trace.Value { return trace.Concatenate(1, a[0], a[1]) })},
			Case{Name: "broadcast_to/" + d.String(), Inputs: []*tensor.Array{Input(d, 14, 3, 1)}, Fn: one(func(a []trace.Value) trace.Value { return a[0].BroadcastTo(2, 3, 5) })},
			Case{Name: "reshape-expand-squeeze/" + d.String(), Inputs: []*tensor.Array{x}, Fn: one(func(a []trace.Value) trace.Value {
				return a[0].Reshape(4, -1).ExpandDims(0).Transpose(2, 1, 0).Squeeze()
			})},
		)
	}
	for _, d := range []tensor.DType{tensor.F32, tensor.F64, tensor.F16, tensor.BF16, tensor.I32, tensor.U8, tensor.C64, tensor.Bool} {
		cs = append(cs,
			Case{Name: "matmul/" + d.String(), Inputs: []*tensor.Array{Input(d, 15, 5, 7), Input(d, 16, 7, 3)},
				Fn: one(func(a []trace.Value) trace.Value { return a[0].MatMul(a[1]) })},
			Case{Name: "matmul-batch/" + d.String(), Inputs: []*tensor.Array{Input(d, 17, 2, 1, 4, 6), Input(d, 18, 3, 6, 5)},
				Fn: one(func(a []trace.Value) trace.Value { return a[0].MatMul(a[1]) })},
			Case{Name: "matmul-vec/" + d.String(), Inputs: []*tensor.Array{Input(d, 19, 6), Input(d, 20, 6)},
				Fn: one(func(a []trace.Value) trace.Value { return a[0].MatMul(a[1]) })},
			Case{Name: "dot-transposed/" + d.String(), Inputs: []*tensor.Array{Input(d, 21, 6, 4), Input(d, 22, 5, 6)},
				Fn: one(func(a []trace.Value) trace.Value {
					return trace.DotGeneral(a[0], a[1], trace.DotDims{LhsContract: []int{0}, RhsContract: []int{1}})
				})},
		)
	}
	return cs
}

func mixedCases() []Case {
	return []Case{
		// int8 products big enough for the CPU's int8 GEMM (VNNI where
		// present): wrapping int8 results, int32 through a preferred type,
		// and a transposed rhs; k = 1030 crosses a k block and is not a
		// multiple of 4.
		{Name: "matmul-i8-gemm", Inputs: []*tensor.Array{Input(tensor.I8, 40, 37, 1030), Input(tensor.I8, 41, 1030, 53)},
			Fn: func(a []trace.Value) []trace.Value {
				return []trace.Value{a[0].MatMul(a[1]), trace.MatMul(a[0], a[1], trace.PreferredElementType(tensor.I32))}
			}},
		// uint8 by int8 (int16 results, and int32 through a preferred
		// type): VPDPBUSD's own operand types, no offset; and int8 by
		// uint8, which the int8 GEMM does not take.
		{Name: "matmul-u8-i8-gemm", Inputs: []*tensor.Array{Input(tensor.U8, 50, 37, 1030), Input(tensor.I8, 51, 1030, 53)},
			Fn: func(a []trace.Value) []trace.Value {
				return []trace.Value{a[0].MatMul(a[1]), trace.MatMul(a[0], a[1], trace.PreferredElementType(tensor.I32))}
			}},
		{Name: "matmul-i8-u8", Inputs: []*tensor.Array{Input(tensor.I8, 52, 20, 300), Input(tensor.U8, 53, 300, 40)},
			Fn: one(func(a []trace.Value) trace.Value {
				return trace.MatMul(a[0], a[1], trace.PreferredElementType(tensor.I32))
			})},
		// int8 results with operands read transposed: in place on the int8
		// GEMM, gathered for the plain loop of a tier without VNNI (the
		// reviewer's case: contracting the lhs's leading dim).
		{Name: "matmul-i8-transposed-wrapping", Inputs: []*tensor.Array{Input(tensor.I8, 48, 300, 37), Input(tensor.I8, 49, 53, 300)},
			Fn: one(func(a []trace.Value) trace.Value {
				return trace.DotGeneral(a[0], a[1], trace.DotDims{LhsContract: []int{0}, RhsContract: []int{1}})
			})},
		// Multi-output loops (lower.FuseSiblings): a bool mask, an f16
		// result reading it, and an f32 one reading the f16 one, over
		// blocks cut mid-row; the outputs are written in one pass.
		{Name: "siblings-mask-f16-f32", Inputs: []*tensor.Array{Input(tensor.F16, 54, 37, 129), Input(tensor.F16, 55, 129), Input(tensor.F32, 56, 37, 129)},
			Fn: func(a []trace.Value) []trace.Value {
				pre := a[0].Add(a[1])
				mask := pre.Gt(trace.Int(0))
				h := trace.Where(mask, pre, trace.Float(0.5))
				return []trace.Value{mask, h, h.Mul(a[2]).Add(trace.Float(1)), a[2].Exp().Mul(pre)}
			}},
		// ... of one element: an optimizer's step count and its two bias
		// corrections, each later result reading the earlier one (which a
		// body holds as a loop-invariant scalar).
		{Name: "siblings-scalar-f32", Inputs: []*tensor.Array{Input(tensor.F32, 60)},
			Fn: func(a []trace.Value) []trace.Value {
				t := a[0].Add(trace.Float(1))
				return []trace.Value{t, trace.Float(1).Sub(trace.Float(0.9).Pow(t)), trace.Float(1).Sub(trace.Float(0.999).Pow(t)).Mul(t)}
			}},
		// Weight gradients xᵀ·dy with few columns: the CPU runs them
		// swapped (cᵀ = dyᵀ·x, then transposed), batched or not.
		{Name: "dot-narrow-swapped-f32", Inputs: []*tensor.Array{Input(tensor.F32, 50, 200, 70), Input(tensor.F32, 51, 200, 10)},
			Fn: one(func(a []trace.Value) trace.Value {
				return trace.DotGeneral(a[0], a[1], trace.DotDims{LhsContract: []int{0}, RhsContract: []int{0}})
			})},
		// ... with an epilogue (an optimizer's moment update) and the
		// product kept as a second result.
		{Name: "dot-narrow-swapped-epilogue-f32", Inputs: []*tensor.Array{Input(tensor.F32, 57, 200, 70), Input(tensor.F32, 58, 200, 10), Input(tensor.F32, 59, 70, 10)},
			Fn: func(a []trace.Value) []trace.Value {
				g := trace.DotGeneral(a[0], a[1], trace.DotDims{LhsContract: []int{0}, RhsContract: []int{0}})
				return []trace.Value{a[2].Mul(trace.Float(0.9)).Add(g.Mul(trace.Float(0.1))), g.Mul(g)}
			}},
		{Name: "dot-narrow-swapped-batched-f64", Inputs: []*tensor.Array{Input(tensor.F64, 52, 3, 130, 65), Input(tensor.F64, 53, 3, 130, 7)},
			Fn: one(func(a []trace.Value) trace.Value {
				return trace.DotGeneral(a[0], a[1], trace.DotDims{LhsBatch: []int{0}, RhsBatch: []int{0}, LhsContract: []int{1}, RhsContract: []int{1}})
			})},
		// Complex products on the complex GEMM: batched c64 past a 32-column tile, c128 with edge tiles.
		{Name: "matmul-c64-rows", Inputs: []*tensor.Array{Input(tensor.C64, 44, 2, 9, 70), Input(tensor.C64, 45, 2, 70, 37)},
			Fn: one(func(a []trace.Value) trace.Value { return a[0].MatMul(a[1]) })},
		{Name: "matmul-c128-rows", Inputs: []*tensor.Array{Input(tensor.C128, 46, 9, 70), Input(tensor.C128, 47, 70, 21)},
			Fn: one(func(a []trace.Value) trace.Value { return a[0].MatMul(a[1]) })},
		{Name: "matmul-i8-gemm-transposed", Inputs: []*tensor.Array{Input(tensor.I8, 42, 64, 300), Input(tensor.I8, 43, 70, 300)},
			Fn: one(func(a []trace.Value) trace.Value {
				return trace.DotGeneral(a[0], a[1], trace.DotDims{LhsContract: []int{1}, RhsContract: []int{1}}, trace.PreferredElementType(tensor.I16))
			})},
		{Name: "mixed-f16", Inputs: []*tensor.Array{Input(tensor.I8, 30, 1000), Input(tensor.F16, 31, 1000)},
			Fn: one(func(a []trace.Value) trace.Value { return a[0].Mul(trace.Int(2)).Add(a[1]).Mul(trace.Float(0.5)) })},
		{Name: "variance", Inputs: []*tensor.Array{Input(tensor.F64, 32, 20000)},
			Fn: one(func(a []trace.Value) trace.Value { x := a[0]; return x.Sub(x.Mean()).Pow(trace.Int(2)).Sum() })},
		{Name: "softmax", Inputs: []*tensor.Array{Input(tensor.F32, 33, 4, 50)},
			Fn: one(func(a []trace.Value) trace.Value {
				x := a[0].Minimum(trace.Float(80)).Maximum(trace.Float(-80))
				e := x.Sub(trace.Reduce(trace.OpReduceMax, x, []int{1}, true)).Exp()
				return e.Div(trace.Reduce(trace.OpReduceSum, e, []int{1}, true))
			})},
		{Name: "weak-inputs", Inputs: []*tensor.Array{Input(tensor.I64, 34, 5), Input(tensor.U8, 35, 5)}, Weak: []bool{true, false},
			Fn: one(func(a []trace.Value) trace.Value { return a[0].Add(a[1]).Mul(trace.Int(3)) })},
		{Name: "x32", Config: promote.Config{X32: true}, Inputs: []*tensor.Array{Input(tensor.I8, 36, 7)},
			Fn: one(func(a []trace.Value) trace.Value { return a[0].Mul(trace.Float(0.25)).Add(trace.Int(1)) })},
		{Name: "multi-output", Inputs: []*tensor.Array{Input(tensor.F32, 37, 3, 4)},
			Fn: func(a []trace.Value) []trace.Value {
				x := a[0]
				return []trace.Value{x, x.Add(trace.Int(1)), x.Reshape(12), x.Sum(0), x.Add(trace.Int(1))}
			}},
		{Name: "output-feeds-reduction", Inputs: []*tensor.Array{Input(tensor.F32, 41, 3, 5)},
			Fn: func(a []trace.Value) []trace.Value {
				p := a[0].Mul(trace.Float(0.5)).Add(trace.Int(1))
				return []trace.Value{p.Sum(1), p, p.Exp().Max()}
			}},
		{Name: "reshape-only-output", Inputs: []*tensor.Array{Input(tensor.F32, 42, 2, 3)},
			Fn: one(func(a []trace.Value) trace.Value { return a[0].Reshape(3, 2) })},
		{Name: "broadcast-constant-transposed", Inputs: []*tensor.Array{Input(tensor.F32, 43, 2, 3)},
			Fn: func(a []trace.Value) []trace.Value {
				c := trace.Where(a[0].Gt(trace.Int(0)), trace.Float(1), trace.Float(1)) // simplifies to a broadcast constant
				return []trace.Value{c.Transpose(), c.Reshape(6), a[0].MatMul(c.Transpose())}
			}},
		{Name: "int-float-int-converts", Inputs: []*tensor.Array{Input(tensor.U16, 44, 20), Input(tensor.I32, 45, 20)},
			Fn: func(a []trace.Value) []trace.Value {
				return []trace.Value{a[0].Astype(tensor.F32).Astype(tensor.U8), a[1].Astype(tensor.C128).Astype(tensor.I8)}
			}},
		{Name: "complex-pow-specials", Inputs: []*tensor.Array{complexArray(0, 0, complex(math.Inf(1), 0), 2), complexArray(complex(math.NaN(), math.Inf(1)), 0, complex(0.5, math.NaN()), complex(math.NaN(), 0))},
			Fn: one(func(a []trace.Value) trace.Value { return a[0].Pow(a[1]) })},
		{Name: "bf16-chain", Inputs: []*tensor.Array{Input(tensor.BF16, 38, 64)},
			Fn: one(func(a []trace.Value) trace.Value {
				x := a[0]
				return x.Mul(x).Add(trace.Float(1.1)).Div(x.Abs().Add(trace.Int(3)))
			})},
		{Name: "big-loop", Inputs: []*tensor.Array{Input(tensor.F32, 39, 300000), Input(tensor.F32, 40, 300000)},
			Fn: one(func(a []trace.Value) trace.Value { return a[0].Mul(trace.Float(1.5)).Add(a[1]).Sqrt() })},
	}
}

func complexArray(vals ...complex128) *tensor.Array {
	a, _ := tensor.FromSlice(vals)
	return a
}
