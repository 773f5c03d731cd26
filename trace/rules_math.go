package trace

import "math"

// Derivative rules of the math ops (math.go), JAX's (jax/_src/lax/lax.py
// and special.py) term for term: asin's tangent is t·rsqrt(1 − x²), erf's
// (2/√π)·(t·exp(−x²)), and so on.

// noTangent is the contribution of an operand the result does not depend
// on smoothly (copysign's sign source).
func noTangent(*Call, Value) Value { return Value{} }

// mathRules are the rows of the rules table for the math ops.
func mathRules() map[Op]Rule {
	sq := func(x Value) Value { return x.Mul(x) }
	return map[Op]Rule{
		OpAsin: {JVP: partials(func(c *Call, t Value) Value { return t.Mul(one(c.In[0]).Sub(sq(c.In[0])).Rsqrt()) })},
		OpAcos: {JVP: partials(func(c *Call, t Value) Value { return t.Mul(one(c.In[0]).Sub(sq(c.In[0])).Rsqrt().Neg()) })},
		OpAtan: {JVP: partials(func(c *Call, t Value) Value { return t.Div(one(c.In[0]).Add(sq(c.In[0]))) })},
		OpSinh: {JVP: partials(func(c *Call, t Value) Value { return t.Mul(c.In[0].Cosh()) })},
		OpCosh: {JVP: partials(func(c *Call, t Value) Value { return t.Mul(c.In[0].Sinh()) })},
		OpAsinh: {JVP: partials(func(c *Call, t Value) Value {
			return t.Mul(sq(c.In[0]).Add(one(c.In[0])).Rsqrt())
		})},
		// acosh: 1/(√(x−1)·√(x+1)). JAX writes rsqrt((x−1)(x+1)), the same
		// for real x but, for complex x with a negative real part, the
		// wrong branch: its cut is not acosh's (−∞, 1].
		OpAcosh: {JVP: partials(func(c *Call, t Value) Value {
			x := c.In[0]
			return t.Mul(x.Sub(one(x)).Rsqrt()).Mul(x.Add(one(x)).Rsqrt())
		})},
		OpAtanh: {JVP: partials(func(c *Call, t Value) Value {
			x := c.In[0]
			return one(x).Add(x).Reciprocal().Mul(t.Div(one(x).Sub(x)))
		})},
		OpExp2: {JVP: partials(func(c *Call, t Value) Value { return t.Mul(Scalar(c.Out, math.Ln2).Mul(c.Out)) })},
		OpLog2: {JVP: partials(func(c *Call, t Value) Value { return t.Div(c.In[0].Mul(Scalar(c.In[0], math.Ln2))) })},
		OpLog10: {JVP: partials(func(c *Call, t Value) Value {
			return t.Div(c.In[0].Mul(Scalar(c.In[0], math.Ln10)))
		})},
		OpCbrt: {JVP: partials(func(c *Call, t Value) Value {
			return t.Mul(Scalar(c.Out, 1.0/3).Mul(sq(c.Out).Reciprocal()))
		})},
		OpErf: {JVP: partials(func(c *Call, t Value) Value {
			return Scalar(c.In[0], complex(2/math.Sqrt(math.Pi), 0)).Mul(t.Mul(sq(c.In[0]).Neg().Exp()))
		})},
		OpErfc: {JVP: partials(func(c *Call, t Value) Value {
			return Scalar(c.In[0], complex(-2/math.Sqrt(math.Pi), 0)).Mul(t.Mul(sq(c.In[0]).Neg().Exp()))
		})},
		OpErfInv: {JVP: partials(func(c *Call, t Value) Value {
			return Scalar(c.Out, complex(math.Sqrt(math.Pi)/2, 0)).Mul(t.Mul(sq(c.Out).Exp()))
		})},
		OpIsInf:        {Zero: true},
		OpIsPosInf:     {Zero: true},
		OpIsNegInf:     {Zero: true},
		OpStopGradient: {Zero: true},

		// atan2(x, y) = atan(x/y): ∂x = y/(x² + y²), ∂y = −x/(x² + y²).
		OpAtan2: {JVP: partials(
			func(c *Call, t Value) Value { return t.Mul(c.In[1].Div(sq(c.In[0]).Add(sq(c.In[1])))) },
			func(c *Call, t Value) Value { return t.Mul(c.In[0].Neg()).Div(sq(c.In[0]).Add(sq(c.In[1]))) })},
		// hypot: ∂x = x/h, ∂y = y/h, with h = 0 read as 1 (a zero
		// derivative at the origin, where the function has a cone).
		OpHypot: {JVP: partials(
			func(c *Call, t Value) Value { return t.Mul(c.In[0].Div(replaceZero(c.Out))) },
			func(c *Call, t Value) Value { return t.Mul(c.In[1].Div(replaceZero(c.Out))) })},
		// copysign(x, y) is ±|x|: ∂x = ±sign(x) (JAX's abs rule: +1 at
		// ±0), the sign flipped where y's sign bit is set; ∂y = 0.
		OpCopysign: {JVP: partials(func(c *Call, t Value) Value {
			x, y := c.In[0], c.In[1]
			st := Where(x.Ge(Scalar(x, 0)), t, t.Neg())
			return Where(one(y).Copysign(y).Lt(Scalar(y, 0)), st.Neg(), st)
		}, noTangent)},
		// jax.random's primitives: integer results (a zero tangent), and
		// bitcast_convert_type, which JAX does not differentiate (from
		// integer bits its input tangent is zero, so random numbers still
		// flow through derivatives as constants).
		OpIota:           {Zero: true},
		OpThreefry2x32:   {Zero: true},
		OpBitcastConvert: {NotDifferentiable: "bitcast_convert_type reinterprets bits and has no derivative in JAX"},

		OpNextafter: {NotDifferentiable: "nextafter has no derivative in JAX (lax.nextafter defines none)"},
		// fmod (lax.rem): ∂x = t, ∂y = −t·trunc(x/y), JAX's
		// sign(x/y)·floor(|x/y|).
		OpFmod: {JVP: partials(tangentOf, func(c *Call, t Value) Value {
			q := c.In[0].Div(c.In[1])
			return t.Neg().Mul(q.Sign().Mul(q.Abs().Floor()))
		})},
	}
}
