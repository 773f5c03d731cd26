package conformance

import (
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// gradCases are derivative programs: the gradients of every unary and
// binary op, the reductions (ties included: the inputs repeat values), the
// structural ops and matmul, at every inexact dtype, and a small MLP's
// softmax cross-entropy loss. A derivative program is an ordinary program,
// so it must run bit-identically (transcendentals within their bounds) on
// every backend.
func gradCases() []Case {
	var cs []Case
	// One program per dtype and kind holds the gradients of every op the
	// dtype takes (an op whose forward does not trace is left out): a
	// backend compiles each program once.
	grads := func(name string, d tensor.DType, inputs []*tensor.Array, fs []func([]trace.Value) trace.Value, argnums ...int) {
		var keep []func([]trace.Value) trace.Value
		probe := Case{Inputs: inputs}
		for _, f := range fs {
			if _, err := trace.Trace(probe.Config, probe.Abstract(), one(f)); err == nil {
				keep = append(keep, f)
			}
		}
		cs = append(cs, Case{Name: name + "/" + d.String(), Inputs: inputs, Fn: func(a []trace.Value) []trace.Value {
			var out []trace.Value
			for _, f := range keep {
				loss := func(x []trace.Value) []trace.Value { return []trace.Value{f(x).Real().Sum()} }
				out = append(out, trace.Grad(loss, trace.GradOptions{Argnums: argnums})(a...)...)
			}
			return out
		}})
	}
	for _, d := range []tensor.DType{tensor.F64, tensor.F32, tensor.F16, tensor.BF16, tensor.C64, tensor.C128} {
		var unary, binary, reduce []func([]trace.Value) trace.Value
		for _, op := range unaryOps {
			if differentiable(op.name) {
				unary = append(unary, func(x []trace.Value) trace.Value { return op.f(x[0]).Astype(d) })
			}
		}
		for _, op := range binaryOps {
			if differentiable(op.name) {
				binary = append(binary, func(x []trace.Value) trace.Value { return op.f(x[0], x[1]).Astype(d) })
			}
		}
		for _, r := range []trace.Op{trace.OpReduceSum, trace.OpReduceProd, trace.OpReduceMax, trace.OpReduceMin} {
			reduce = append(reduce, func(x []trace.Value) trace.Value {
				return trace.Reduce(r, x[0], []int{0, 2}, false).Mul(x[0].Sum(0, 2))
			})
		}
		grads("grad-unary", d, []*tensor.Array{Input(d, 50, 4, 6)}, unary)
		grads("grad-binary", d, []*tensor.Array{Input(d, 51, 4, 6), Input(d, 52, 6)}, binary, 0, 1)
		grads("grad-reduce", d, []*tensor.Array{Input(d, 53, 3, 4, 5)}, reduce)
		grad := func(f func(x []trace.Value) trace.Value, argnums ...int) func([]trace.Value) []trace.Value {
			loss := func(x []trace.Value) []trace.Value { return []trace.Value{f(x).Real().Sum()} }
			return func(a []trace.Value) []trace.Value {
				return trace.Grad(loss, trace.GradOptions{Argnums: argnums})(a...)
			}
		}
		cs = append(cs,
			Case{Name: "grad-structural/" + d.String(), Inputs: []*tensor.Array{Input(d, 54, 2, 3, 4)},
				Fn: grad(func(x []trace.Value) trace.Value {
					y := x[0].Transpose(2, 0, 1).Slice(0, 1, 4, 2).Reshape(2, -1)
					return trace.Concatenate(0, y, y.Exp()).BroadcastTo(3, 4, 6).Mean(0)
				})},
			Case{Name: "grad-matmul/" + d.String(), Inputs: []*tensor.Array{Input(d, 55, 2, 5, 7), Input(d, 56, 7, 3)},
				Fn: grad(func(x []trace.Value) trace.Value { return x[0].MatMul(x[1]).Tanh() }, 0, 1)})
	}
	mlp := func(x []trace.Value) trace.Value {
		h := x[0].MatMul(x[1]).Add(x[2]).Maximum(trace.Float(0))
		logits := h.MatMul(x[3])
		m := trace.Reduce(trace.OpReduceMax, logits, []int{1}, true)
		lse := logits.Sub(m).Exp().Sum(1).Log().Add(m.Squeeze(1))
		return lse.Sub(logits.Slice(1, 0, 1, 1).Squeeze(1)).Mean()
	}
	for _, d := range []tensor.DType{tensor.F32, tensor.BF16} {
		cs = append(cs, Case{Name: "grad-mlp/" + d.String(),
			Inputs: []*tensor.Array{Input(d, 57, 16, 8), Input(d, 58, 8, 32), Input(d, 59, 32), Input(d, 60, 32, 10)},
			Fn: func(a []trace.Value) []trace.Value {
				return trace.ValueAndGrad(func(x []trace.Value) []trace.Value { return []trace.Value{mlp(x)} },
					trace.GradOptions{Argnums: []int{1, 2, 3}})(a...)
			}})
	}
	for i := range cs {
		cs[i].Tolerance = gradTolerance[cs[i].Inputs[0].DType()]
	}
	return cs
}

// gradTolerance is what a derivative's amplified transcendental
// differences are held to, per dtype: a few hundred ulps of the output's
// scale.
var gradTolerance = map[tensor.DType]float64{
	tensor.F64: 1e-13, tensor.C128: 1e-13, tensor.F32: 2e-5, tensor.C64: 2e-5, tensor.F16: 2e-2, tensor.BF16: 1e-1,
}

// differentiable reports whether the op named name has a derivative (JAX
// defines none for nextafter).
func differentiable(name string) bool {
	op, ok := trace.LookupOp(name)
	return !ok || trace.RuleOf(op).NotDifferentiable == ""
}
