package kiln_test

import (
	"github.com/kiln-go/kiln"
	"github.com/kiln-go/kiln/nn"
	"github.com/kiln-go/kiln/random"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// Index constants of the indexing cases: a repeated row, a negative and an
// out-of-bounds one.
var (
	gradRows    = kiln.Const(tensor.Must(tensor.FromSlice([]int32{2, 0, 2, -1, 7})))
	gradCols    = kiln.Const(tensor.Must(tensor.Must(tensor.FromSlice([]int64{3, 0, 0, 1, 2, 2})).Reshape(3, 2)))
	gradStart   = kiln.Const(tensor.Must(tensor.Must(tensor.FromSlice([]int8{1})).Reshape()))
	gradFactors = tensor.Must(tensor.Must(tensor.FromSlice([]float64{1.5, -2, 0.5})).Reshape(1, 3))
)

// gradCases are the gradient checks of gradcheck_test.go: every op of the
// table, through its builder call, at every dtype it takes. Inputs stay
// off kinks (abs at 0, ties of maximum, integers of floor) — ties have
// tests of their own.
var gradCases = []gradCase{
	// Elementwise unary.
	{name: "neg", in: []spec{std(3, 4)}, fn: one(kiln.Value.Neg), dtypes: allInexact},
	{name: "abs", in: []spec{away(3, 4)}, fn: one(kiln.Value.Abs), dtypes: allInexact},
	{name: "sign", in: []spec{away(5)}, fn: one(func(x kiln.Value) kiln.Value { return x.Sign().Mul(x.Mul(x)) })},
	{name: "exp", in: []spec{std(3, 4)}, fn: one(kiln.Value.Exp), dtypes: allInexact},
	{name: "log", in: []spec{pos(3, 4)}, fn: one(kiln.Value.Log), dtypes: allInexact},
	{name: "log1p", in: []spec{in(-0.5, 3, 3, 4)}, fn: one(kiln.Value.Log1p), dtypes: allInexact},
	{name: "expm1", in: []spec{std(3, 4)}, fn: one(kiln.Value.Expm1), dtypes: allInexact},
	{name: "sqrt", in: []spec{pos(3, 4)}, fn: one(kiln.Value.Sqrt), dtypes: allInexact},
	{name: "rsqrt", in: []spec{pos(3, 4)}, fn: one(kiln.Value.Rsqrt), dtypes: allInexact},
	{name: "sin", in: []spec{std(3, 4)}, fn: one(kiln.Value.Sin), dtypes: allInexact},
	{name: "cos", in: []spec{std(3, 4)}, fn: one(kiln.Value.Cos), dtypes: allInexact},
	{name: "tan", in: []spec{in(-1.2, 1.2, 3, 4)}, fn: one(kiln.Value.Tan), dtypes: allInexact},
	{name: "tanh", in: []spec{std(3, 4)}, fn: one(kiln.Value.Tanh), dtypes: allInexact},
	{name: "logistic", in: []spec{std(3, 4)}, fn: one(kiln.Value.Logistic), dtypes: allInexact},
	{name: "floor", in: []spec{offInt(-3, 3, 6)}, fn: one(func(x kiln.Value) kiln.Value { return x.Floor().Add(x.Mul(x)) })},
	{name: "ceil", in: []spec{offInt(-3, 3, 6)}, fn: one(func(x kiln.Value) kiln.Value { return x.Ceil().Mul(x) })},
	{name: "round", in: []spec{offInt(-3, 3, 6)}, fn: one(func(x kiln.Value) kiln.Value { return x.Round().Mul(x.Sin()) })},
	{name: "isnan", in: []spec{std(6)}, fn: one(func(x kiln.Value) kiln.Value { return kiln.Where(x.IsNaN(), kiln.Float(0), x.Exp()) })},
	{name: "isfinite", in: []spec{std(6)}, fn: one(func(x kiln.Value) kiln.Value { return kiln.Where(x.IsFinite(), x.Sin(), kiln.Float(0)) })},
	{name: "real", in: []spec{std(3, 4)}, fn: one(func(x kiln.Value) kiln.Value { return x.Real().Mul(x) }), dtypes: allInexact},
	{name: "imag", in: []spec{std(3, 4)}, fn: one(func(x kiln.Value) kiln.Value { return x.Imag().Add(x.Mul(x)) }), dtypes: allInexact},
	{name: "conj", in: []spec{std(3, 4)}, fn: one(func(x kiln.Value) kiln.Value { return x.Conj().Mul(x.Exp()) }), dtypes: allInexact},
	{name: "not", in: []spec{away(6)}, fn: one(func(x kiln.Value) kiln.Value { return kiln.Where(x.Gt(kiln.Int(0)).Not(), x.Exp(), x.Sin()) })},

	// Elementwise math (trace/math.go).
	{name: "asin", in: []spec{in(-0.8, 0.8, 3, 4)}, fn: one(kiln.Value.Asin)},
	{name: "acos", in: []spec{in(-0.8, 0.8, 3, 4)}, fn: one(kiln.Value.Acos)},
	{name: "atan", in: []spec{std(3, 4)}, fn: one(kiln.Value.Atan)},
	{name: "sinh", in: []spec{std(3, 4)}, fn: one(kiln.Value.Sinh), dtypes: allInexact},
	{name: "cosh", in: []spec{std(3, 4)}, fn: one(kiln.Value.Cosh), dtypes: allInexact},
	{name: "asinh", in: []spec{std(3, 4)}, fn: one(kiln.Value.Asinh)},
	{name: "acosh", in: []spec{in(1.2, 3, 3, 4)}, fn: one(kiln.Value.Acosh)},
	{name: "atanh", in: []spec{in(-0.8, 0.8, 3, 4)}, fn: one(kiln.Value.Atanh)},
	{name: "exp2", in: []spec{std(3, 4)}, fn: one(kiln.Value.Exp2), dtypes: allInexact},
	{name: "log2", in: []spec{pos(3, 4)}, fn: one(kiln.Value.Log2), dtypes: allInexact},
	{name: "log10", in: []spec{pos(3, 4)}, fn: one(kiln.Value.Log10), dtypes: allInexact},
	{name: "cbrt", in: []spec{away(3, 4)}, fn: one(kiln.Value.Cbrt)},
	{name: "erf", in: []spec{std(3, 4)}, fn: one(kiln.Value.Erf)},
	{name: "erfc", in: []spec{std(3, 4)}, fn: one(kiln.Value.Erfc)},
	{name: "erf_inv", in: []spec{in(-0.8, 0.8, 3, 4)}, fn: one(kiln.Value.ErfInv)},
	{name: "isinf", in: []spec{std(6)}, fn: one(func(x kiln.Value) kiln.Value {
		return kiln.Where(x.IsInf().Or(x.IsPosInf()).Or(x.IsNegInf()), kiln.Float(0), x.Exp())
	})},
	// Random numbers are constants to the derivative: d/dx Σ x·z = z
	// (threefry, iota and bitcast_convert_type inside the program).
	{name: "random", in: []spec{std(6)}, fn: one(func(x kiln.Value) kiln.Value { return x.Mul(random.Normal(random.Key(3), []int{6})) })},
	// jax.numpy compositions: their derivatives are their ops'.
	{name: "logsumexp", in: []spec{std(2, 3)}, fn: one(func(x kiln.Value) kiln.Value { return x.LogSumExp(1) })},
	{name: "var", in: []spec{std(2, 3)}, fn: one(func(x kiln.Value) kiln.Value { return x.Var(1, 0) })},
	{name: "std", in: []spec{std(4)}, fn: one(func(x kiln.Value) kiln.Value { return x.Std(0) })},
	{name: "tril", in: []spec{std(3, 3)}, fn: one(func(x kiln.Value) kiln.Value { return kiln.Tril(x, 0).Mul(x) })},
	{name: "pad reflect", in: []spec{std(2, 3)}, fn: one(func(x kiln.Value) kiln.Value {
		return trace.Pad(x, [][2]int{{1, 2}}, trace.PadReflect, kiln.Value{}).Mul(kiln.Float(1.5))
	})},
	{name: "roll tile repeat", in: []spec{std(2, 3)}, fn: one(func(x kiln.Value) kiln.Value {
		return trace.Repeat(trace.Tile(trace.Roll(x, 1, 1), 2), []int{1, 2}, 0).Square()
	})},
	{name: "cumsum cumprod", in: []spec{std(2, 5)}, fn: one(func(x kiln.Value) kiln.Value { return x.Cumsum(1).Mul(x.Cumprod(0)) })},
	{name: "einsum", in: []spec{std(2, 3), std(3, 4), std(4, 2)}, fn: func(xs []kiln.Value) kiln.Value { return trace.Einsum("ij,jk,kl->li", xs[0], xs[1], xs[2]) }},
	{name: "nanmean", in: []spec{std(2, 3)}, fn: one(func(x kiln.Value) kiln.Value { return x.NanMean(0) })},
	{name: "stop_gradient", in: []spec{std(6)}, fn: one(func(x kiln.Value) kiln.Value { return x.Sin().Add(kiln.StopGradient(x).Mul(kiln.Float(0))) })},
	{name: "atan2", in: []spec{std(3, 4), away(4)}, fn: two(kiln.Value.Atan2)},
	{name: "hypot", in: []spec{away(3, 4), away(4)}, fn: two(kiln.Value.Hypot)},
	{name: "copysign", in: []spec{away(3, 4), away(4)}, fn: two(kiln.Value.Copysign)},
	{name: "fmod", in: []spec{in(-3, 3, 6), away(6)}, fn: two(kiln.Value.Fmod)},

	// Elementwise binary, with NumPy broadcasting.
	{name: "add", in: []spec{std(3, 4), std(4)}, fn: two(kiln.Value.Add), dtypes: allInexact},
	{name: "sub", in: []spec{std(3, 1), std(3, 4)}, fn: two(kiln.Value.Sub), dtypes: allInexact},
	{name: "mul", in: []spec{std(3, 4), std(3, 1)}, fn: two(kiln.Value.Mul), dtypes: allInexact},
	{name: "div", in: []spec{std(3, 4), away(4)}, fn: two(kiln.Value.Div), dtypes: allInexact},
	{name: "floordiv", in: []spec{offInt(-3, 3, 6), offInt(1, 3, 6)}, fn: two(func(x, y kiln.Value) kiln.Value { return x.FloorDiv(y).Add(x.Mul(y)) })},
	{name: "rem", in: []spec{in(-3, 3, 6), away(6)}, fn: two(kiln.Value.Rem)},
	{name: "pow", in: []spec{in(0.5, 2, 3, 4), in(-1.5, 1.5, 4)}, fn: two(kiln.Value.Pow), dtypes: allInexact},
	{name: "integer_pow", in: []spec{away(5)}, fn: one(func(x kiln.Value) kiln.Value {
		return x.Pow(kiln.Int(3)).Add(x.Pow(kiln.Int(-2))).Add(x.Pow(kiln.Int(0)))
	}), dtypes: allInexact},
	{name: "maximum", in: []spec{std(3, 4), std(4)}, fn: two(kiln.Value.Maximum)},
	{name: "minimum", in: []spec{std(3, 4), std(3, 4)}, fn: two(kiln.Value.Minimum)},
	{name: "bitwise", in: []spec{offInt(0, 40, 8)}, fn: one(func(x kiln.Value) kiln.Value {
		i := x.Astype(tensor.I32)
		k := i.Shl(kiln.Int(1)).And(kiln.Int(6)).Or(i.Shr(kiln.Int(2))).Xor(kiln.Int(5)).Add(i.Not())
		return x.Mul(k.Astype(x.DType()))
	})},
	{name: "compare", in: []spec{std(8), std(8)}, fn: two(func(x, y kiln.Value) kiln.Value {
		a := kiln.Where(x.Lt(y), x.Mul(y), x.Sin())
		b := kiln.Where(x.Le(y).And(x.Ne(y)), a, y.Exp())
		return kiln.Where(x.Ge(y).Or(x.Eq(y)), b.Mul(x), b).Add(kiln.Where(x.Gt(y), x, y))
	})},
	{name: "select", in: []spec{std(3, 4), std(3, 4), std(4)}, fn: func(x []kiln.Value) kiln.Value { return kiln.Where(x[0].Gt(kiln.Int(0)), x[1], x[2]) }, dtypes: allInexact[:4]},
	{name: "select complex", in: []spec{std(3, 4), std(4)}, fn: two(func(x, y kiln.Value) kiln.Value { return kiln.Where(x.Real().Gt(kiln.Int(0)), x, y) }), dtypes: complexDTypes},

	// Structural.
	{name: "broadcast_to", in: []spec{std(3, 1)}, fn: one(func(x kiln.Value) kiln.Value { return x.BroadcastTo(2, 3, 4) }), dtypes: allInexact},
	{name: "reshape", in: []spec{std(3, 4)}, fn: one(func(x kiln.Value) kiln.Value { return x.Reshape(2, 6).Mul(x.Reshape(2, -1)) }), dtypes: allInexact},
	{name: "transpose", in: []spec{std(2, 3, 4)}, fn: one(func(x kiln.Value) kiln.Value { return x.Transpose(2, 0, 1).Sin() }), dtypes: allInexact},
	{name: "expand_squeeze", in: []spec{std(3, 1, 4)}, fn: one(func(x kiln.Value) kiln.Value { return x.Squeeze().ExpandDims(0).Mul(x.Squeeze(1)) })},
	{name: "slice", in: []spec{std(7, 5)}, fn: one(func(x kiln.Value) kiln.Value { return x.Slice(0, 1, 7, 2).Slice(1, 2, 5, 1).Exp() }), dtypes: allInexact},
	{name: "slice strided", in: []spec{std(9)}, fn: one(func(x kiln.Value) kiln.Value { return x.Slice(0, 0, 9, 3).Mul(x.Slice(0, 2, 8, 2).Slice(0, 0, 3, 1)) })},
	{name: "concatenate", in: []spec{std(2, 3), std(4, 3)}, fn: two(func(x, y kiln.Value) kiln.Value { return kiln.Concatenate(0, x, y.Sin(), x) }), dtypes: allInexact},

	// Indexing (repeated and out-of-bounds indices; updates drop).
	{name: "flip", in: []spec{std(2, 3, 4)}, fn: one(func(x kiln.Value) kiln.Value { return x.Flip(0, 2).Sin().Mul(x) }), dtypes: allInexact},
	{name: "negative step", in: []spec{std(8)}, fn: one(func(x kiln.Value) kiln.Value { return x.Index(kiln.RangeStep(7, 0, -3)).Exp() })},
	{name: "gather", in: []spec{std(4, 3)}, fn: one(func(x kiln.Value) kiln.Value { return x.Index(gradRows, kiln.Step(-1)).Sin() }), dtypes: allInexact},
	{name: "take", in: []spec{std(4, 3)}, fn: one(func(x kiln.Value) kiln.Value { return kiln.Take(x, gradRows, 0, kiln.WithMode(kiln.ModeClip)).Exp() })},
	{name: "take_along_axis", in: []spec{std(3, 4)}, fn: one(func(x kiln.Value) kiln.Value {
		return kiln.TakeAlongAxis(x, gradCols, 1).Mul(x.Sum(1, 0))
	})},
	{name: "dynamic_slice", in: []spec{std(4, 3)}, fn: one(func(x kiln.Value) kiln.Value {
		return kiln.DynamicSlice(x, []kiln.Value{kiln.Int(3), gradStart}, []int{2, 2}).Sin()
	}), dtypes: allInexact},
	{name: "scatter", in: []spec{std(4, 3), std(5, 3)}, fn: two(func(x, y kiln.Value) kiln.Value { return x.At(gradRows).Set(y.Sin()).Mul(x) }), dtypes: allInexact},
	{name: "scatter_add", in: []spec{std(4, 3), std(5, 3)}, fn: two(func(x, y kiln.Value) kiln.Value { return x.At(gradRows).Add(y.Mul(y)).Sin() }), dtypes: allInexact},
	{name: "scatter_mul", in: []spec{std(4, 3)}, fn: one(func(x kiln.Value) kiln.Value {
		return x.Sin().At(gradRows, kiln.All).Mul(kiln.Const(gradFactors))
	}), dtypes: allInexact},
	{name: "scatter_min", in: []spec{std(4, 3), std(5, 3)}, fn: two(func(x, y kiln.Value) kiln.Value { return x.At(gradRows).Min(y).Exp() })},
	{name: "scatter_max", in: []spec{std(4, 3), std(5, 3)}, fn: two(func(x, y kiln.Value) kiln.Value { return x.At(gradRows).Max(y, kiln.WithMode(kiln.ModeClip)) })},
	{name: "dynamic_update_slice", in: []spec{std(4, 3), std(2, 2)}, fn: two(func(x, y kiln.Value) kiln.Value {
		return kiln.DynamicUpdateSlice(x.Sin(), y.Exp(), []kiln.Value{gradStart, kiln.Int(-2)})
	}), dtypes: allInexact},

	// Sorting: the tangent follows the permutation (inputs are distinct).
	{name: "sort", in: []spec{std(3, 5)}, fn: one(func(x kiln.Value) kiln.Value { return kiln.Sort(x, 0).Mul(x) }), dtypes: allInexact},
	{name: "sort descending", in: []spec{std(3, 5)}, fn: one(func(x kiln.Value) kiln.Value { return kiln.Sort(x, -1, kiln.Descending()).Sin().Mul(x) })},
	{name: "argsort", in: []spec{std(3, 5)}, fn: one(func(x kiln.Value) kiln.Value { return kiln.Argsort(x, 1).Astype(x.DType()).Mul(x) })},
	{name: "top_k", in: []spec{std(3, 6)}, fn: one(func(x kiln.Value) kiln.Value {
		v, i := kiln.TopK(x, 4)
		return v.Exp().Mul(i.Astype(x.DType()))
	}), dtypes: realDTypes},
	{name: "lax.sort by a key", in: []spec{std(4, 3), std(4, 3)}, fn: two(func(x, y kiln.Value) kiln.Value {
		s := kiln.SortMany([]kiln.Value{y, x}, 0, 1, true)
		return s[1].Mul(s[0].Exp())
	}), dtypes: allInexact},
	// Reductions.
	{name: "sum", in: []spec{std(3, 4, 2)}, fn: one(func(x kiln.Value) kiln.Value { return x.Sum(0, 2).Mul(x.Sum(1).Sum()) }), dtypes: allInexact},
	{name: "sum keepdims", in: []spec{std(3, 4)}, fn: one(func(x kiln.Value) kiln.Value { return trace.Reduce(trace.OpReduceSum, x, []int{1}, true).Mul(x) })},
	{name: "mean", in: []spec{std(3, 4)}, fn: one(func(x kiln.Value) kiln.Value { return x.Mean(0).Mul(x.Mean()) }), dtypes: allInexact},
	{name: "prod", in: []spec{in(0.5, 1.5, 3, 5)}, fn: one(func(x kiln.Value) kiln.Value { return x.Prod(1) }), dtypes: allInexact},
	{name: "prod with a zero", in: []spec{std(2, 3, 2)}, fn: one(func(x kiln.Value) kiln.Value {
		return trace.Reduce(trace.OpReduceProd, x.Mul(kiln.Where(x.Gt(kiln.Float(1.5)), kiln.Float(0), kiln.Float(1))), []int{0, 2}, true)
	})},
	{name: "max", in: []spec{std(3, 4)}, fn: one(func(x kiln.Value) kiln.Value { return x.Max(1).Add(x.Max()) })},
	{name: "min", in: []spec{std(3, 4)}, fn: one(func(x kiln.Value) kiln.Value { return trace.Reduce(trace.OpReduceMin, x, []int{0}, true).Mul(x) })},
	{name: "argmax", in: []spec{std(3, 4)}, fn: one(func(x kiln.Value) kiln.Value {
		return x.ArgMax(1).Astype(x.DType()).Add(x.ArgMin(0).Astype(x.DType()).Sum()).Mul(x.Sum(1))
	})},

	// Contraction.
	{name: "matmul", in: []spec{std(3, 4), std(4, 2)}, fn: two(kiln.Value.MatMul), dtypes: allInexact},
	{name: "matmul batched", in: []spec{std(2, 3, 4), std(4, 5)}, fn: two(kiln.Value.MatMul), dtypes: allInexact},
	{name: "matmul vector", in: []spec{std(4), std(2, 4, 3)}, fn: two(kiln.Value.MatMul)},
	{name: "dot_general", in: []spec{std(4, 2, 3), std(3, 5, 2)}, fn: two(func(x, y kiln.Value) kiln.Value {
		return trace.DotGeneral(x, y, trace.DotDims{LhsBatch: []int{1}, RhsBatch: []int{2}, LhsContract: []int{2}, RhsContract: []int{0}})
	}), dtypes: allInexact},
	{name: "dot_general two contractions", in: []spec{std(2, 3, 4), std(4, 2, 5)}, fn: two(func(x, y kiln.Value) kiln.Value {
		return trace.DotGeneral(x, y, trace.DotDims{LhsContract: []int{2, 0}, RhsContract: []int{0, 1}})
	})},
	// preferred_element_type: the cotangent comes back in the operand's
	// dtype (JAX's _dot_general_transpose_lhs converts it).
	// (The central differences run the case on float64 operands, which
	// accumulate in float64.)
	{name: "matmul preferred f32", in: []spec{std(3, 4), std(4, 2)}, fn: two(func(x, y kiln.Value) kiln.Value {
		acc := tensor.F32
		if x.Type().DType == tensor.F64 {
			acc = tensor.F64
		}
		return trace.MatMul(x, y, trace.PreferredElementType(acc))
	}), dtypes: []tensor.DType{tensor.F32, tensor.F16, tensor.BF16}},
	{name: "dot_general preferred wide", in: []spec{std(4, 2, 3), std(3, 5, 2)}, fn: two(func(x, y kiln.Value) kiln.Value {
		wide := tensor.F64
		if x.Type().DType.Kind() == tensor.KindComplex {
			wide = tensor.C128
		}
		return trace.DotGeneral(x, y, trace.DotDims{LhsBatch: []int{1}, RhsBatch: []int{2}, LhsContract: []int{2}, RhsContract: []int{0}},
			trace.PreferredElementType(wide))
	}), dtypes: allInexact},
	{name: "einsum preferred", in: []spec{std(2, 3), std(3, 4), std(4, 2)}, fn: func(xs []kiln.Value) kiln.Value {
		wide := tensor.F64
		if xs[0].Type().DType.Kind() == tensor.KindComplex {
			wide = tensor.C128
		}
		return trace.EinsumPreferred("ij,jk,kl->li", wide, xs[0], xs[1], xs[2])
	}, dtypes: allInexact},

	// Convolution (helper conv2): both operands, strides, padding, both
	// dilations, groups, layouts.
	{name: "conv nchw", in: []spec{std(2, 3, 5, 4), std(4, 3, 3, 2)}, fn: two(func(x, y kiln.Value) kiln.Value {
		return kiln.ConvGeneralDilated(x, y, kiln.ConvOptions{PaddingMode: "SAME", WindowStrides: []int{2, 1}})
	})},
	{name: "conv nhwc dilated groups", in: []spec{std(1, 6, 5, 4), std(2, 2, 2, 6)}, fn: two(func(x, y kiln.Value) kiln.Value {
		return kiln.ConvGeneralDilated(x, y, kiln.ConvOptions{Padding: [][2]int{{1, 2}, {0, -1}}, LhsDilation: []int{2, 1}, RhsDilation: []int{1, 2},
			WindowStrides: []int{1, 2}, FeatureGroupCount: 2, DimensionNumbers: [3]string{"NHWC", "HWIO", "NHWC"}})
	})},
	{name: "conv 1d strided", in: []spec{std(2, 3, 9), std(2, 3, 3)}, fn: two(func(x, y kiln.Value) kiln.Value {
		return kiln.ConvGeneralDilated(x, y, kiln.ConvOptions{WindowStrides: []int{3}, Padding: [][2]int{{0, 1}}})
	})},
	{name: "conv preferred f32", in: []spec{std(1, 6, 5, 4), std(2, 2, 2, 6)}, fn: two(func(x, y kiln.Value) kiln.Value {
		acc := tensor.F32 // the central differences' float64 operands accumulate in float64
		if x.Type().DType == tensor.F64 {
			acc = tensor.F64
		}
		return kiln.ConvGeneralDilated(x, y, kiln.ConvOptions{Padding: [][2]int{{1, 0}, {0, 1}}, RhsDilation: []int{1, 2},
			WindowStrides: []int{1, 2}, FeatureGroupCount: 2, DimensionNumbers: [3]string{"NHWC", "HWIO", "NHWC"}}, kiln.PreferredElementType(acc))
	}), dtypes: []tensor.DType{tensor.F32, tensor.F16, tensor.BF16}},

	// Pooling (reduce_window compositions; inputs distinct, so no ties).
	{name: "max_pool", in: []spec{std(2, 5, 4, 3)}, fn: one(func(x kiln.Value) kiln.Value { return nn.MaxPool(x, []int{2, 2}, []int{1, 2}, "SAME") })},
	{name: "avg_pool", in: []spec{std(1, 5, 4, 2)}, fn: one(func(x kiln.Value) kiln.Value { return nn.AvgPool(x, []int{3, 2}, nil, "SAME", false) })},

	// Converts.
	// Converts up only: a convert that rounds makes the float64 loss a
	// staircase that central differences cannot see through.
	{name: "convert float", in: []spec{std(6)}, fn: one(func(x kiln.Value) kiln.Value { return x.Astype(tensor.F64).Exp().Mul(x.Astype(tensor.F64)) }), dtypes: realDTypes[1:]},
	{name: "convert complex", in: []spec{std(6)}, fn: one(func(x kiln.Value) kiln.Value { return x.Astype(tensor.C128).Mul(kiln.Complex(1 + 2i)).Exp().Abs() })},
	{name: "convert to real", in: []spec{std(6)}, fn: one(func(x kiln.Value) kiln.Value { return x.Exp().Astype(tensor.F64) }), dtypes: complexDTypes},
	{name: "convert int", in: []spec{offInt(-3, 3, 6)}, fn: one(func(x kiln.Value) kiln.Value { return x.Astype(tensor.I32).Astype(x.DType()).Mul(x) })},

	// Control flow (while through fori_loop and scan, cond through cond and switch; result for their further results).
	{name: "fori_loop", in: []spec{std(3), std(3)}, fn: two(func(x, y kiln.Value) kiln.Value {
		r := kiln.ForiLoop(kiln.Int(0), kiln.Int(4), func(i kiln.Value, c []kiln.Value) []kiln.Value {
			return []kiln.Value{c[0].Mul(y).Sin(), c[1].Add(c[0].Sum())}
		}, x, kiln.Float(0))
		return r[0].Mul(r[1])
	})},
	{name: "scan", in: []spec{std(5, 2), std(2)}, fn: two(func(x, y kiln.Value) kiln.Value {
		c, ys := kiln.Scan(func(c, e []kiln.Value) ([]kiln.Value, []kiln.Value) {
			n := c[0].Mul(e[0]).Add(y).Tanh()
			return []kiln.Value{n}, []kiln.Value{n.Mul(e[0])}
		}, []kiln.Value{y}, []kiln.Value{x})
		return c[0].Add(ys[0].Sum(0))
	})},
	{name: "cond", in: []spec{std(3), std(3)}, fn: two(func(x, y kiln.Value) kiln.Value {
		r := kiln.Cond(x.Sum().Gt(y.Sum()), func(o []kiln.Value) []kiln.Value { return []kiln.Value{o[0].Exp(), o[1].Mul(o[0])} },
			func(o []kiln.Value) []kiln.Value { return []kiln.Value{o[1].Sin(), o[0]} }, x, y)
		return r[0].Add(r[1])
	})},
	{name: "switch", in: []spec{std(3)}, fn: one(func(x kiln.Value) kiln.Value {
		return kiln.Switch(kiln.Int(2), []func([]kiln.Value) []kiln.Value{
			func(o []kiln.Value) []kiln.Value { return o },
			func(o []kiln.Value) []kiln.Value { return []kiln.Value{o[0].Neg()} },
			func(o []kiln.Value) []kiln.Value { return []kiln.Value{o[0].Mul(x).Cos()} },
		}, x)[0]
	})},
}
