package trace

import "slices"

// The batching rule of conv_general_dilated (vmap.go explains the
// contract), JAX's _conv_general_dilated_batch_rule: never a loop.
//
//   - lhs batched: the batch folds into the lhs batch dim (N becomes
//     size·N) and comes back out of the result's batch dim;
//   - rhs batched: the batch folds into the kernel's output features and
//     comes back out of the result's features — with feature groups, the
//     groups are kept outermost (each example's kernels stay in their
//     group) and put back after;
//   - both: the batch folds into the lhs features and the kernel's output
//     features, and feature_group_count is multiplied by the batch size,
//     so each example's input features meet only its own kernel.
//
// Each output element sums the same products in the same order as it did
// per example, so the result is every example's bit for bit. Kiln's
// convolution has no batch_group_count (only 1), so JAX's cases for it do
// not arise.

func init() {
	batchRules[OpConv] = batchConv
}

// reshapeAxisInto merges axis src of x into axis dst (numbered with src
// removed) as its major part (JAX's _reshape_axis_into).
func reshapeAxisInto(x Value, src, dst int) Value {
	shape := x.Shape()
	perm := make([]int, 0, len(shape))
	for i := range shape {
		if i != src {
			perm = append(perm, i)
		}
	}
	perm = slices.Insert(perm, dst, src)
	ns := slices.Delete(slices.Clone(shape), src, src+1)
	ns[dst] *= shape[src]
	return x.Transpose(perm...).Reshape(ns...)
}

// reshapeAxisOutOf splits axis src of x into [n, rest] (JAX's
// _reshape_axis_out_of).
func reshapeAxisOutOf(x Value, src, n int) Value {
	shape := x.Shape()
	ns := slices.Concat(shape[:src], []int{n, shape[src] / n}, shape[src+1:])
	return x.Reshape(ns...)
}

func batchConv(c *batchCall) ([]Value, []bool) {
	e := c.Eqn
	p := e.Params
	cp := p.Conv.clone()
	lhs, rhs := c.In[0], c.In[1]
	n := c.Size
	if n == 0 || ShapeSize(e.Out.Shape) == 0 {
		return single(zerosOf(c.vm.b, e.Out.Type, c.BatchShape(e.Out.Shape)), true)
	}
	var at int // where the batch comes out of the result, before moving it first
	conv := func(l, r Value) Value {
		shape, msg := ConvShape(l.Shape(), r.Shape(), cp)
		if msg != "" {
			c.vm.ruleErr(e, "%s", msg)
			return Value{b: c.vm.b}
		}
		p.Conv = cp
		return c.Emit(OpConv, e.Out.Type, shape, p, l, r)
	}
	var out Value
	switch lb, rb := c.Batched[0], c.Batched[1]; {
	case lb && rb:
		l := reshapeAxisInto(lhs, 0, cp.LhsSpec[1])
		r := reshapeAxisInto(rhs, 0, cp.RhsSpec[0])
		cp.FeatureGroupCount *= n
		at = cp.OutSpec[1]
		out = reshapeAxisOutOf(conv(l, r), at, n)
	case lb:
		at = cp.OutSpec[0]
		out = reshapeAxisOutOf(conv(reshapeAxisInto(lhs, 0, cp.LhsSpec[0]), rhs), at, n)
	case cp.FeatureGroupCount == 1:
		at = cp.OutSpec[1]
		out = reshapeAxisOutOf(conv(lhs, reshapeAxisInto(rhs, 0, cp.RhsSpec[0])), at, n)
	default:
		// The kernel's output features are [groups, per group]: the batch
		// goes inside the group, [groups, n, per group], and out again.
		g, o := cp.FeatureGroupCount, cp.RhsSpec[0]
		r := reshapeAxisOutOf(rhs, o+1, g)
		r = reshapeAxisInto(r, 0, o+1)
		r = reshapeAxisInto(r, o, o)
		at = cp.OutSpec[1]
		out = reshapeAxisOutOf(conv(lhs, r), at, g)
		out = reshapeAxisOutOf(out, at+1, n)
		out = reshapeAxisInto(out, at, at+1)
	}
	return single(moveAxis(out, at, 0), true)
}
