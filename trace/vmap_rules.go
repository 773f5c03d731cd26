package trace

// The batching rules of the elementwise, structural, reduction,
// contraction, sorting and random ops (vmap.go explains the contract).
// They are JAX's (jax/_src/lax/lax.py, slicing.py, batching.py), with the
// batch axis always first: each op computes what it computed per example,
// on one more leading axis, so the results are every example's bit for bit.

func init() {
	for op := OpInvalid + 1; op < numOps; op++ {
		switch op.Info().Class {
		case ClassUnary, ClassBinary, ClassTernary:
			batchRules[op] = batchElementwise // Convert, BitcastConvert (one width), Select, Threefry2x32 too
		case ClassReduce:
			batchRules[op] = batchReduce // ArgMax and ArgMin too
		}
	}
	batchRules[OpParam] = batchLeaf
	batchRules[OpConst] = batchLeaf
	batchRules[OpIota] = batchLeaf
	batchRules[OpBroadcastInDim] = batchBroadcastInDim
	batchRules[OpReshape] = batchReshape
	batchRules[OpTranspose] = batchTranspose
	batchRules[OpSlice] = batchSlice
	batchRules[OpConcat] = batchAlongAxis
	batchRules[OpRev] = batchRev
	batchRules[OpDot] = batchDot
	batchRules[OpSort] = batchAlongAxis
}

// shifted is axes, each one more (the batch axis comes first), after
// head.
func shifted(head []int, axes []int) []int {
	out := append([]int{}, head...)
	for _, a := range axes {
		out = append(out, a+1)
	}
	return out
}

// batchLeaf is the rule of the ops without operands, which are never
// batched: the equation unchanged.
func batchLeaf(c *batchCall) ([]Value, []bool) { return single(c.Unbatched(), false) }

// batchElementwise: operands broadcast NumPy-style in a traced program,
// so an unbatched operand stays as it is (its dims align with the
// trailing dims of the batched result) and a batched one of lower rank
// than the result gets size-1 dims after its batch axis.
func batchElementwise(c *batchCall) ([]Value, []bool) {
	e := c.Eqn
	rank := e.Out.Rank()
	args := make([]Value, len(c.In))
	for i, x := range c.In {
		if a := e.Args[i]; c.Batched[i] && a.Rank() < rank {
			shape := []int{c.Size}
			for range rank - a.Rank() {
				shape = append(shape, 1)
			}
			shape = append(shape, a.Shape...)
			x = c.Emit(OpReshape, a.Type, shape, Params{Shape: shape}, x)
		}
		args[i] = x
	}
	return single(c.Emit(e.Op, e.Out.Type, c.BatchShape(e.Out.Shape), e.Params, args...), true)
}

// batchReduce: the reduced axes (and argmax's axis) move past the batch
// axis.
func batchReduce(c *batchCall) ([]Value, []bool) {
	e := c.Eqn
	p := e.Params
	p.Axes = shifted(nil, p.Axes)
	return single(c.Emit(e.Op, e.Out.Type, c.BatchShape(e.Out.Shape), p, c.In[0]), true)
}

func batchBroadcastInDim(c *batchCall) ([]Value, []bool) {
	e := c.Eqn
	p := e.Params
	p.Shape = c.BatchShape(p.Shape)
	p.Dims = shifted([]int{0}, p.Dims)
	return single(c.Emit(e.Op, e.Out.Type, p.Shape, p, c.In[0]), true)
}

func batchReshape(c *batchCall) ([]Value, []bool) {
	e := c.Eqn
	p := e.Params
	p.Shape = c.BatchShape(p.Shape)
	return single(c.Emit(e.Op, e.Out.Type, p.Shape, p, c.In[0]), true)
}

func batchTranspose(c *batchCall) ([]Value, []bool) {
	e := c.Eqn
	p := e.Params
	p.Perm = shifted([]int{0}, p.Perm)
	return single(c.Emit(e.Op, e.Out.Type, c.BatchShape(e.Out.Shape), p, c.In[0]), true)
}

// batchSlice takes the whole batch axis.
func batchSlice(c *batchCall) ([]Value, []bool) {
	e := c.Eqn
	p := e.Params
	p.Start = append([]int{0}, p.Start...)
	p.Limit = append([]int{c.Size}, p.Limit...)
	p.Stride = append([]int{1}, p.Stride...)
	return single(c.Emit(e.Op, e.Out.Type, c.BatchShape(e.Out.Shape), p, c.In[0]), true)
}

// batchAlongAxis is the rule of the ops over one axis of all their
// operands (concatenate, sort): every operand is batched — an unbatched
// one broadcast along the batch axis (a sort permutes its operands
// together) — and the axis moves past the batch axis.
func batchAlongAxis(c *batchCall) ([]Value, []bool) {
	e := c.Eqn
	p := e.Params
	p.Axis++
	args := make([]Value, len(c.In))
	for i := range args {
		args[i] = c.Batch(i)
	}
	return single(c.Emit(e.Op, e.Out.Type, c.BatchShape(e.Out.Shape), p, args...), true)
}

func batchRev(c *batchCall) ([]Value, []bool) {
	e := c.Eqn
	p := e.Params
	p.Axes = shifted(nil, p.Axes)
	return single(c.Emit(e.Op, e.Out.Type, c.BatchShape(e.Out.Shape), p, c.In[0]), true)
}

// batchDot is JAX's _dot_general_batch_rule: with both operands batched
// the batch axis is a batch dimension of the dot_general (leading in its
// result); with one, it is a free dimension of that operand, which the
// result places after the batch dimensions (lhs) or after the lhs free
// dimensions (rhs) and a transpose then moves first. Never a loop.
func batchDot(c *batchCall) ([]Value, []bool) {
	e := c.Eqn
	p := e.Params
	d := p.Dot
	lhs, rhs := e.Args[0], e.Args[1]
	lb, rb := c.Batched[0], c.Batched[1]
	nd := DotDims{LhsBatch: d.LhsBatch, RhsBatch: d.RhsBatch, LhsContract: d.LhsContract, RhsContract: d.RhsContract}
	lshape, rshape := lhs.Shape, rhs.Shape
	at := 0 // where the batch axis lands in the dot's result
	switch {
	case lb && rb:
		nd.LhsBatch, nd.RhsBatch = shifted([]int{0}, d.LhsBatch), shifted([]int{0}, d.RhsBatch)
		nd.LhsContract, nd.RhsContract = shifted(nil, d.LhsContract), shifted(nil, d.RhsContract)
		lshape, rshape = c.BatchShape(lshape), c.BatchShape(rshape)
	case lb:
		nd.LhsBatch, nd.LhsContract = shifted(nil, d.LhsBatch), shifted(nil, d.LhsContract)
		lshape = c.BatchShape(lshape)
		at = len(d.LhsBatch)
	default:
		nd.RhsBatch, nd.RhsContract = shifted(nil, d.RhsBatch), shifted(nil, d.RhsContract)
		rshape = c.BatchShape(rshape)
		at = len(d.LhsBatch) + lhs.Rank() - len(d.LhsBatch) - len(d.LhsContract)
	}
	shape, msg := dotShape(lshape, rshape, nd)
	if msg != "" {
		c.vm.ruleErr(e, "%s", msg)
		return nil, nil
	}
	p.Dot = nd
	out := c.Emit(OpDot, e.Out.Type, shape, p, c.In[0], c.In[1])
	return single(moveAxis(out, at, 0), true)
}
