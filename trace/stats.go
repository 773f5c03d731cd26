package trace

import (
	"fmt"
	"math"

	"github.com/kiln-go/kiln/tensor"
)

// jax.numpy's statistics and the NaN-ignoring reductions, written as JAX
// writes them with the primitive reductions:
//
//   - var and std center on the mean and divide the sum of squares by
//     n − ddof, computing in the inexact dtype (integers and bool: the
//     default float; f16 and bf16: f32, rounded once at the end; complex:
//     |x − mean|², a real result).
//   - logsumexp is jax.scipy.special.logsumexp: the maximum (0 where it is
//     not finite, held constant for derivatives) is subtracted before exp
//     and added back after log; complex inputs are refused.
//   - any and all are the or and and reductions of x != 0 (as counts, so
//     over nothing any is false and all is true).
//   - nansum, nanprod, nanmean, nanvar, nanstd, nanmax and nanmin skip
//     NaNs; nanmax and nanmin of all NaNs are NaN, nanmean and nanvar of
//     all NaNs are NaN (0/0).

// Var is the variance over axes (none: all) with delta degrees of freedom
// ddof (jnp.var).
func (x Value) Var(ddof int, axes ...int) Value { return variance("var", x, axes, ddof, false, false) }

// Std is the standard deviation, √Var (jnp.std).
func (x Value) Std(ddof int, axes ...int) Value { return variance("std", x, axes, ddof, false, true) }

// LogSumExp is log Σ exp(x) over axes without overflow
// (jax.nn.logsumexp).
func (x Value) LogSumExp(axes ...int) Value { return logSumExp(x, axes, false) }

// Any is true where some element over axes is nonzero (jnp.any).
func (x Value) Any(axes ...int) Value { return anyAll("any", x, axes, false) }

// All is true where every element over axes is nonzero (jnp.all).
func (x Value) All(axes ...int) Value { return anyAll("all", x, axes, false) }

// NanSum is Sum treating NaN as 0 (jnp.nansum).
func (x Value) NanSum(axes ...int) Value { return nanReduce("nansum", x, axes, false) }

// NanMean is the mean of the elements that are not NaN (jnp.nanmean).
func (x Value) NanMean(axes ...int) Value { return nanReduce("nanmean", x, axes, false) }

// NanProd is Prod treating NaN as 1 (jnp.nanprod).
func (x Value) NanProd(axes ...int) Value { return nanReduce("nanprod", x, axes, false) }

// NanVar is Var over the elements that are not NaN (jnp.nanvar).
func (x Value) NanVar(ddof int, axes ...int) Value { return nanVariance(x, axes, ddof, false, false) }

// NanStd is √NanVar (jnp.nanstd).
func (x Value) NanStd(ddof int, axes ...int) Value { return nanVariance(x, axes, ddof, false, true) }

// NanMax is Max ignoring NaNs (jnp.nanmax); NaN where all are NaN.
func (x Value) NanMax(axes ...int) Value { return nanReduce("nanmax", x, axes, false) }

// NanMin is Min ignoring NaNs (jnp.nanmin); NaN where all are NaN.
func (x Value) NanMin(axes ...int) Value { return nanReduce("nanmin", x, axes, false) }

// Var is Value.Var keeping the reduced axes.
func (k KeptDims) Var(ddof int, axes ...int) Value {
	return variance("var", k.x, axes, ddof, true, false)
}

// Std is Value.Std keeping the reduced axes.
func (k KeptDims) Std(ddof int, axes ...int) Value {
	return variance("std", k.x, axes, ddof, true, true)
}

// LogSumExp is Value.LogSumExp keeping the reduced axes.
func (k KeptDims) LogSumExp(axes ...int) Value { return logSumExp(k.x, axes, true) }

// Any is Value.Any keeping the reduced axes.
func (k KeptDims) Any(axes ...int) Value { return anyAll("any", k.x, axes, true) }

// All is Value.All keeping the reduced axes.
func (k KeptDims) All(axes ...int) Value { return anyAll("all", k.x, axes, true) }

// NanSum is Value.NanSum keeping the reduced axes.
func (k KeptDims) NanSum(axes ...int) Value { return nanReduce("nansum", k.x, axes, true) }

// NanMean is Value.NanMean keeping the reduced axes.
func (k KeptDims) NanMean(axes ...int) Value { return nanReduce("nanmean", k.x, axes, true) }

// NanProd is Value.NanProd keeping the reduced axes.
func (k KeptDims) NanProd(axes ...int) Value { return nanReduce("nanprod", k.x, axes, true) }

// NanVar is Value.NanVar keeping the reduced axes.
func (k KeptDims) NanVar(ddof int, axes ...int) Value {
	return nanVariance(k.x, axes, ddof, true, false)
}

// NanStd is Value.NanStd keeping the reduced axes.
func (k KeptDims) NanStd(ddof int, axes ...int) Value {
	return nanVariance(k.x, axes, ddof, true, true)
}

// NanMax is Value.NanMax keeping the reduced axes.
func (k KeptDims) NanMax(axes ...int) Value { return nanReduce("nanmax", k.x, axes, true) }

// NanMin is Value.NanMin keeping the reduced axes.
func (k KeptDims) NanMin(axes ...int) Value { return nanReduce("nanmin", k.x, axes, true) }

// realOf is the real dtype of a complex one.
func realOf(d tensor.DType) tensor.DType {
	switch d {
	case tensor.C64:
		return tensor.F32
	case tensor.C128:
		return tensor.F64
	}
	return d
}

func variance(op string, x Value, axes []int, ddof int, keep, std bool) Value {
	return unary(op, x, func(b *builder, v *Var) Value {
		ax, msg := normAxes(axes, v.Rank())
		if msg != "" {
			return b.shapeErr(op, msg, v.Shape)
		}
		d := v.Type.DType
		comp, out := d, realOf(d)
		if !d.IsInexact() {
			comp, out = b.cfg.DefaultFloat(), b.cfg.DefaultFloat()
		}
		if comp == tensor.F16 || comp == tensor.BF16 {
			comp = tensor.F32
		}
		n := 1
		for _, a := range ax {
			n *= v.Shape[a]
		}
		a := Value{b: b, v: v}
		if comp != d {
			a = a.Astype(comp)
		}
		c := a.Sub(ReduceMean(a, ax, true))
		var sq Value
		if comp.IsComplex() {
			sq = c.Mul(c.Conj()).Real()
		} else {
			sq = c.Mul(c)
		}
		norm := Const(tensor.Scalar(float64(n - ddof)).Astype(realOf(comp)))
		r := Reduce(OpReduceSum, sq, ax, keep).Div(norm)
		if std {
			r = r.Sqrt()
		}
		if r.DType() != out {
			r = r.Astype(out)
		}
		return r
	})
}

func logSumExp(x Value, axes []int, keep bool) Value {
	return unary("logsumexp", Inexact(x), func(b *builder, v *Var) Value {
		if v.Type.DType.IsComplex() {
			return b.dtypeErr("logsumexp", fmt.Sprintf("logsumexp of complex %s is not supported", v.Type), v.Type)
		}
		ax, msg := normAxes(axes, v.Rank())
		if msg != "" {
			return b.shapeErr("logsumexp", msg, v.Shape)
		}
		a := Value{b: b, v: v}
		finiteMax := func(keep bool) Value {
			m := Reduce(OpReduceMax, a, ax, keep)
			return StopGradient(Where(m.IsFinite(), m, ZerosLike(m)))
		}
		s := Reduce(OpReduceSum, a.Sub(finiteMax(true)).Exp(), ax, keep)
		return s.Abs().Log().Add(finiteMax(keep))
	})
}

func anyAll(op string, x Value, axes []int, keep bool) Value {
	return unary(op, x, func(b *builder, v *Var) Value {
		a := Value{b: b, v: v}
		if v.Type.DType != tensor.Bool {
			a = a.Ne(ZerosLike(a))
		}
		// Counts, so an empty reduction has its identity (any: false,
		// all: true) where max and min of bool have none.
		if op == "any" {
			return Reduce(OpReduceSum, a, axes, keep).Gt(Int(0))
		}
		return Reduce(OpReduceSum, a.Not(), axes, keep).Eq(Int(0))
	})
}

func nanReduce(op string, x Value, axes []int, keep bool) Value {
	return unary(op, x, func(b *builder, v *Var) Value {
		a := Value{b: b, v: v}
		inexact := v.Type.DType.IsInexact()
		switch op {
		case "nansum":
			if inexact {
				a = Where(a.IsNaN(), ZerosLike(a), a)
			}
			return Reduce(OpReduceSum, a, axes, keep)
		case "nanprod":
			if inexact {
				a = Where(a.IsNaN(), OnesLike(a), a)
			}
			return Reduce(OpReduceProd, a, axes, keep)
		case "nanmean":
			if !inexact {
				return ReduceMean(a, axes, keep)
			}
			ok := a.IsNaN().Not()
			sum := Reduce(OpReduceSum, Where(ok, a, ZerosLike(a)), axes, keep)
			count := Reduce(OpReduceSum, ok, axes, keep).Astype(sum.DType())
			return sum.Div(count)
		}
		if !inexact {
			return Reduce(map[string]Op{"nanmax": OpReduceMax, "nanmin": OpReduceMin}[op], a, axes, keep)
		}
		if v.Type.DType.IsComplex() {
			return b.dtypeErr(op, fmt.Sprintf("%s of complex %s: complex numbers are not ordered", op, v.Type), v.Type)
		}
		fill, red := math.Inf(-1), OpReduceMax
		if op == "nanmin" {
			fill, red = math.Inf(1), OpReduceMin
		}
		nan := a.IsNaN()
		r := Reduce(red, Where(nan, FullLike(a, Float(fill)), a), axes, keep)
		allNaN := Reduce(OpReduceMin, nan, axes, keep)
		return Where(allNaN, FullLike(r, Float(math.NaN())), r)
	})
}

// nanVariance is jnp.nanvar: the mean and the count of the elements that
// are not NaN, the squares of the others' deviations summed, divided by
// count − ddof; computed as variance is (default float for integers, f32
// for f16 and bf16).
func nanVariance(x Value, axes []int, ddof int, keep, std bool) Value {
	op := "nanvar"
	if std {
		op = "nanstd"
	}
	return unary(op, x, func(b *builder, v *Var) Value {
		if !v.Type.DType.IsInexact() {
			return variance(op, Value{b: b, v: v}, axes, ddof, keep, std)
		}
		ax, msg := normAxes(axes, v.Rank())
		if msg != "" {
			return b.shapeErr(op, msg, v.Shape)
		}
		d := v.Type.DType
		comp, out := d, realOf(d)
		if comp == tensor.F16 || comp == tensor.BF16 {
			comp = tensor.F32
		}
		a := Value{b: b, v: v}
		if comp != d {
			a = a.Astype(comp)
		}
		ok := a.IsNaN().Not()
		count := Reduce(OpReduceSum, ok, ax, true).Astype(realOf(comp))
		mean := Reduce(OpReduceSum, Where(ok, a, ZerosLike(a)), ax, true).Div(count.Astype(comp))
		c := Where(ok, a.Sub(mean), ZerosLike(a))
		var sq Value
		if comp.IsComplex() {
			sq = c.Mul(c.Conj()).Real()
		} else {
			sq = c.Mul(c)
		}
		n := Reduce(OpReduceSum, ok, ax, keep).Astype(realOf(comp)).Sub(Const(tensor.Scalar(float64(ddof)).Astype(realOf(comp))))
		// JAX's: NaN where no more than ddof elements are left.
		empty := n.Le(ZerosLike(n))
		r := Reduce(OpReduceSum, sq, ax, keep).Div(Where(empty, OnesLike(n), n))
		r = Where(empty, FullLike(r, Float(math.NaN())), r)
		if std {
			r = r.Sqrt()
		}
		if r.DType() != out {
			r = r.Astype(out)
		}
		return r
	})
}
