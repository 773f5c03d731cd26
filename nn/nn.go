// Package nn holds jax.nn's activation functions, each written as JAX
// writes it — the same composition of Kiln ops, so the same roundings and
// the same derivatives: relu's slope is 0 at 0, softmax and log_softmax
// subtract a stop_gradient of the maximum.
package nn

import "github.com/kiln-go/kiln/trace"

// Relu is max(x, 0) (jax.nn.relu), with JAX's derivative: 0 at 0 and below.
// A NaN stays NaN, as maximum keeps it.
func Relu(x trace.Value) trace.Value {
	return trace.Where(x.Gt(trace.Int(0)).Or(x.IsNaN()), x, trace.Int(0))
}

// Gelu is the Gaussian error linear unit (jax.nn.gelu). With approximate
// (JAX's default) it is x·½(1 + tanh(√(2/π)(x + 0.044715x³))); else the
// exact ½x·erfc(−x/√2). Integer and bool inputs compute in their inexact
// dtype.
func Gelu(x trace.Value, approximate bool) trace.Value {
	x = trace.Inexact(x)
	if approximate {
		c := trace.Scalar(x, 0.7978845608028654) // √(2/π) at x's dtype, as JAX's .astype
		inner := c.Mul(x.Add(trace.Float(0.044715).Mul(x.Pow(trace.Int(3)))))
		cdf := trace.Float(0.5).Mul(trace.Float(1).Add(inner.Tanh()))
		return x.Mul(cdf)
	}
	half := trace.Scalar(x, 0.7071067811865476) // √½
	return trace.Float(0.5).Mul(x).Mul(x.Neg().Mul(half).Erfc())
}

// Softplus is log(1 + eˣ) without overflow (jax.nn.softplus:
// logaddexp(x, 0)).
func Softplus(x trace.Value) trace.Value { return x.LogAddExp(trace.Int(0)) }

// Silu is x·sigmoid(x) (jax.nn.silu, also called swish).
func Silu(x trace.Value) trace.Value {
	x = trace.Inexact(x)
	return x.Mul(x.Logistic())
}

// Softmax is exp(x − max)/Σ exp(x − max) along axis (jax.nn.softmax;
// axis −1 is the last), with the maximum held constant for derivatives.
func Softmax(x trace.Value, axis int) trace.Value {
	x = trace.Inexact(x)
	m := trace.StopGradient(x.KeepDims().Max(axis))
	u := x.Sub(m).Exp()
	return u.Div(u.KeepDims().Sum(axis))
}

// LogSoftmax is x − max − log Σ exp(x − max) along axis
// (jax.nn.log_softmax), with the maximum held constant for derivatives.
func LogSoftmax(x trace.Value, axis int) trace.Value {
	x = trace.Inexact(x)
	shifted := x.Sub(trace.StopGradient(x.KeepDims().Max(axis)))
	return shifted.Sub(shifted.Exp().KeepDims().Sum(axis).Log())
}
