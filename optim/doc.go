// Package optim holds optimizers written with Kiln ops: SGD with momentum
// and Adam (AdamW with weight decay), and dynamic loss scaling for f16
// training. They are functions over kiln.Values, as optax's are over JAX
// arrays, so a training step — forward pass, kiln.ValueAndGrad's backward
// pass and the update — traces into one program that Jit fuses and
// compiles once:
//
//	opt := optim.Adam{LR: 1e-3}
//	step := kiln.Jit(func(a ...kiln.Value) []kiln.Value {
//		params, state, x, y := a[:2], a[2:2+opt.StateSize(2)], a[len(a)-2], a[len(a)-1]
//		vg := kiln.ValueAndGrad(loss, 0, 1)(append(params, x, y)...)
//		newParams, newState := opt.Step(params, vg[1:], state)
//		return append(append(vg[:1], newParams...), newState...)
//	})
//
// The state is arrays the caller keeps between steps (Init gives the first
// ones, as Values to Eval or to return from a jitted function).
//
// Parameters may be a tree (kiln.Leaf; a struct of Values, say) instead
// of a slice: InitTree and StepTree take and return the parameters'
// type, and the state is a State — a tree whose Slots have the
// parameters' structure — that Jit takes and returns like the parameters:
//
//	type Params[T kiln.Leaf] struct{ W1, B1, W2, B2 T }
//	type AdamState = optim.State[Params[kiln.Value], kiln.Value]
//	step := kiln.Jit(func(p Params[kiln.Value], s AdamState, x, y kiln.Value) (kiln.Value, Params[kiln.Value], AdamState) {
//		l, g := kiln.ValueAndGradTree(loss)(p, x, y)
//		p, s = optim.StepTree(opt, p, g, s)
//		return l, p, s
//	})
//
// StepTree is Step over the trees' leaves (fields in declaration order,
// map values by sorted key), so its updates are Step's, bit for bit.
// Trees of different structures (gradients, state slots) are a
// programming error in the step: they panic with a *kiln.TreeError at the
// caller's line, which Jit returns (inside a *kiln.PanicError, which
// errors.As unwraps), as a mismatched Step does.
//
// Choices:
//   - Updates compute in each parameter's dtype (f32 master weights give
//     f32 updates, whatever the forward pass computed in); hyperparameters
//     are weak literals, so they take that dtype.
//   - SGD is PyTorch's: buf = μ·buf + g, p −= lr·buf (Nesterov: p −=
//     lr·(g + μ·buf)); with μ = 0 there is no state.
//   - Adam is Kingma & Ba's as optax's scale_by_adam computes it: m and v
//     are bias-corrected (m/(1 − β₁ᵗ), v/(1 − β₂ᵗ)) and the update is
//     m̂/(√v̂ + ε); WeightDecay is AdamW's decoupled decay, lr·λ·p. The step
//     count t is an f32 scalar in the state; 1 − βᵗ is computed in f64 for
//     f64 parameters, in f32 for the others.
//   - LossScale is dynamic loss scaling (as jmp's DynamicLossScale): the
//     loss is multiplied by the scale, the gradients divided by it; a step
//     whose gradients are not all finite is skipped (parameters and
//     optimizer state kept) and the scale halved; after Period finite
//     steps it doubles. Branch-free: the skip is a select, so the step
//     stays one program.
package optim
