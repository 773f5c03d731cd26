package trace

// Derivative rules of the elementwise ops (the table is rules.go).

// partials builds a JVP from one rule per operand, JAX's defjvp: the
// tangent is the sum of the operands' contributions, each asked for only
// when that operand's tangent is not zero, broadcast to the result.
func partials(fs ...func(c *Call, t Value) Value) func(c *Call) Value {
	return func(c *Call) Value {
		var sum Value
		for i, f := range fs {
			t := c.Tangents[i]
			if isZero(t) {
				continue
			}
			d := f(c, t)
			switch {
			case isZero(d):
			case isZero(sum):
				sum = d
			default:
				sum = sum.Add(d)
			}
		}
		if !isZero(sum) && !ShapeEqual(sum.Shape(), c.Eqn.Out.Shape) {
			sum = sum.BroadcastTo(c.Eqn.Out.Shape...)
		}
		return sum
	}
}

// tangentOf is the contribution of an operand that passes its tangent
// through unchanged (add, the dividend of rem).
func tangentOf(_ *Call, t Value) Value { return t }

// one is 1 of x's type.
func one(x Value) Value { return Scalar(x, 1) }

// replaceZero is x with its zeros replaced by ones (JAX's _replace_zero).
func replaceZero(x Value) Value { return Where(x.Eq(Scalar(x, 0)), one(x), x) }

// unbroadcast sums a cotangent of the result's shape down to operand i's.
func unbroadcast(c *Call, i int, ct Value) Value { return SumTo(ct, c.Eqn.Args[i].Shape) }

// jvpAbs: sign(x)·t for reals with +1 at 0 (JAX's select(x ≥ 0, t, −t));
// for complex, re(t·conj(x)/|x|) with |x| = 0 replaced by 1.
func jvpAbs(c *Call) Value {
	t, x := c.Tangents[0], c.In[0]
	if x.DType().IsComplex() {
		abs := ConvertTo(c.Out, c.Eqn.Args[0].Type, "abs's tangent divides by |x| as a complex")
		return t.Mul(x.Conj().Div(replaceZero(abs))).Real()
	}
	return Where(x.Ge(Scalar(x, 0)), t, t.Neg())
}

// jvpImag: imag is linear for complex operands; of a real operand it is
// zeros, whose tangent is zero.
func jvpImag(c *Call) Value {
	if !c.Eqn.Args[0].Type.DType.IsComplex() {
		return Value{}
	}
	return c.Tangents[0].Imag()
}

// transposeImag: the cotangent of imag(z) is complex(0, −ct).
func transposeImag(c *Call, ct Value) []Value {
	z := ConvertTo(ct, c.Eqn.Args[0].Type, "cotangent of imag: a complex")
	return []Value{z.Mul(Scalar(z, -1i))}
}

// transposeReal: the cotangent of real(z) is complex(ct, 0); real of a
// real operand is the identity.
func transposeReal(c *Call, ct Value) []Value {
	return []Value{ConvertTo(ct, c.Eqn.Args[0].Type, "cotangent of real: a complex")}
}

// transposeConvert converts the cotangent back to the operand's type (dtype
// and weak flag): an f16 value's cotangent is f16 whatever its uses
// computed in.
func transposeConvert(c *Call, ct Value) []Value {
	from, to := c.Eqn.Args[0].Type, c.Eqn.Out.Type
	return []Value{ConvertTo(ct, from, "cotangent of convert "+from.String()+" -> "+to.String()+" goes back to "+from.String())}
}

func transposeAdd(c *Call, ct Value) []Value {
	out := make([]Value, 2)
	for i := range out {
		if c.Linear[i] {
			out[i] = unbroadcast(c, i, ct)
		}
	}
	return out
}

func transposeSub(c *Call, ct Value) []Value {
	out := make([]Value, 2)
	if c.Linear[0] {
		out[0] = unbroadcast(c, 0, ct)
	}
	if c.Linear[1] {
		out[1] = unbroadcast(c, 1, ct.Neg())
	}
	return out
}

// bilinear reports the error of a tangent multiplied by a tangent.
func bilinear(c *Call) []Value {
	if c.Linear[0] && c.Linear[1] {
		c.lin.derivErr(c.Eqn, "cannot transpose a product of two tangents (a bug in a JVP rule)")
		return nil
	}
	return make([]Value, 2)
}

func transposeMul(c *Call, ct Value) []Value {
	out := bilinear(c)
	switch {
	case out == nil:
	case c.Linear[0]:
		out[0] = unbroadcast(c, 0, ct.Mul(c.In[1]))
	case c.Linear[1]:
		out[1] = unbroadcast(c, 1, c.In[0].Mul(ct))
	}
	return out
}

// jvpDivisor: d(x/y)/dy · t = −t·x·y⁻² (JAX: mul(mul(neg(g), x), integer_pow(y, −2))).
func jvpDivisor(c *Call, t Value) Value {
	y := c.In[1]
	return t.Neg().Mul(c.In[0]).Mul(one(y).Div(y.Mul(y)))
}

func transposeDiv(c *Call, ct Value) []Value {
	if c.Linear[1] {
		c.lin.derivErr(c.Eqn, "cannot transpose a division by a tangent (a bug in a JVP rule)")
		return nil
	}
	return []Value{unbroadcast(c, 0, ct.Div(c.In[1])), {}}
}

// jvpRemDivisor: rem(x, y) = x − y·floor(x/y), so d/dy = −floor(x/y),
// computed as jnp.remainder's derivative is in JAX: −trunc(x/y), plus 1
// where the remainder was moved to y's sign.
func jvpRemDivisor(c *Call, t Value) Value {
	x, y, r := c.In[0], c.In[1], c.Out
	zero := Scalar(r, 0)
	q := x.Div(y)
	trunc := q.Sign().Mul(q.Abs().Floor())
	moved := r.Ne(zero).And(x.Lt(zero).Xor(y.Lt(zero)))
	return t.Mul(Where(moved, one(r), zero).Sub(trunc))
}

// jvpPowBase: d(x**y)/dx = y·x**(y−1).
func jvpPowBase(c *Call, t Value) Value {
	x, y := c.In[0], c.In[1]
	return t.Mul(y.Mul(x.Pow(y.Sub(one(y)))))
}

// jvpPowExponent: d(x**y)/dy = log(x)·x**y, with log(0) taken as log(1) = 0.
func jvpPowExponent(c *Call, t Value) Value {
	return t.Mul(replaceZero(c.In[0]).Log().Mul(c.Out))
}

// jvpChosen is maximum's and minimum's derivative in operand i, JAX's
// balanced rule: 1 where operand i is the result, halved where both are.
func jvpChosen(i int) func(c *Call, t Value) Value {
	return func(c *Call, t Value) Value {
		x, y, z := c.In[i], c.In[1-i], c.Out
		w := Where(x.Eq(z), one(z), Scalar(z, 0)).Div(Where(y.Eq(z), Scalar(z, 2), one(z)))
		return t.Mul(w)
	}
}

// jvpSelect selects between the branches' tangents (zeros for a branch
// without one); the predicate has none.
func jvpSelect(c *Call) Value {
	return Where(c.In[0], c.Tangent(1), c.Tangent(2))
}

func transposeSelect(c *Call, ct Value) []Value {
	out := make([]Value, 3)
	zero := Scalar(ct, 0)
	if c.Linear[1] {
		out[1] = unbroadcast(c, 1, Where(c.In[0], ct, zero))
	}
	if c.Linear[2] {
		out[2] = unbroadcast(c, 2, Where(c.In[0], zero, ct))
	}
	return out
}
