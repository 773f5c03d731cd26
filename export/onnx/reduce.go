package onnx

import (
	"math"
	"slices"

	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// reduce translates reduce_sum, _prod, _max and _min.
func (x *instr) reduce(op trace.Op, a string, d tensor.DType) (string, error) {
	p := x.in.Params
	if len(p.Axes) == 0 {
		return x.op1("Identity", a), nil
	}
	keep := int64(0)
	if p.KeepDims {
		keep = 1
	}
	axes := x.ints(i64s(p.Axes)...)
	red := func(name, v string) string { return x.op2(name, v, axes, aInt("keepdims", keep)) }
	if d == tensor.Bool { // sum and max are any, prod and min all
		name := "ReduceMax"
		if op == trace.OpReduceProd || op == trace.OpReduceMin {
			name = "ReduceMin"
		}
		return x.cast(red(name, x.cast(a, tensor.I32)), tensor.Bool), nil
	}
	c := arith(d)
	switch op {
	case trace.OpReduceSum, trace.OpReduceProd:
		// Kiln's fixed summation tree, built from elementwise Add or Mul:
		// the same bits as Kiln for floats, and integers wrap (ONNX
		// Runtime's integer ReduceSum and ReduceProd saturate).
		name := "Add"
		if op == trace.OpReduceProd {
			name = "Mul"
		}
		w := x.widen(a, d)
		rows, n, R := x.toRows(w, x.in.Args[0].Shape, p.Axes)
		comb := func(u, v string) string { return x.op2(name, u, v) }
		var r string
		if n == 0 {
			id := 0.0
			if op == trace.OpReduceProd {
				id = 1
			}
			r = x.expand(x.scalarF(c, id), c, []int{R, 1})
		} else {
			r = x.kilnTree(rows, R, n, comb)
		}
		if d.IsFloat() && op == trace.OpReduceSum {
			r = x.op2("Add", r, x.scalarF(c, 0)) // a sum starts from +0: −0 only sums to +0
		}
		return x.castIf(x.reshape(r, x.in.Shape), c, d), nil
	}
	name := "ReduceMax"
	if op == trace.OpReduceMin {
		name = "ReduceMin"
	}
	if !d.IsFloat() {
		// A halving tree of elementwise selects on the order keys (ONNX
		// Runtime's integer ReduceMax and ReduceMin were wrong for u32).
		cmp := "Greater"
		if op == trace.OpReduceMin {
			cmp = "Less"
		}
		rows, n, R := x.toRows(a, x.in.Args[0].Shape, p.Axes)
		if n == 0 {
			return "", refuse("a max or min over no elements")
		}
		r := x.halving(rows, R, n, func(u, v string) string {
			return x.where(x.op2(cmp, x.orderKey(u, d), x.orderKey(v, d)), u, v, d)
		})
		return x.reshape(r, x.in.Shape), nil
	}
	// IEEE maximum/minimum: any NaN gives NaN; a zero result is −0 or +0
	// by the zeros present (ONNX leaves both to the implementation).
	w := x.widen(a, d)
	any := func(b string) string {
		return x.op2("Greater", red("ReduceMax", x.cast(b, tensor.I32)), x.scalarI(tensor.I32, 0))
	}
	r := red(name, w)
	zero := x.scalarF(c, 0)
	isZero := x.op2("Equal", w, zero)
	recip := x.op2("Div", x.scalarF(c, 1), w) // ±inf for ±0
	if op == trace.OpReduceMax {
		anyPos := any(x.op2("And", isZero, x.op2("Greater", recip, zero)))
		r = x.where(x.op2("Equal", r, zero), x.where(anyPos, zero, x.scalarF(c, math.Copysign(0, -1)), c), r, c)
	} else {
		anyNeg := any(x.op2("And", isZero, x.op2("Less", recip, zero)))
		r = x.where(x.op2("Equal", r, zero), x.where(anyNeg, x.scalarF(c, math.Copysign(0, -1)), zero, c), r, c)
	}
	r = x.where(any(x.op1("IsNaN", w)), x.scalarF(c, math.NaN()), r, c)
	return x.castIf(r, c, d), nil
}

// argReduce is argmax/argmin over one axis: the first extreme wins (ONNX
// select_last_index = 0) and, for floats, the first NaN wins.
func (x *instr) argReduce(op trace.Op, a string, d tensor.DType) (string, error) {
	p := x.in.Params
	if len(p.Axes) != 1 {
		return "", refuse("ONNX's ArgMax and ArgMin take one axis, this reduces %d", len(p.Axes))
	}
	keep := int64(0)
	if p.KeepDims {
		keep = 1
	}
	name := "ArgMax"
	if op == trace.OpArgMin {
		name = "ArgMin"
	}
	arg := func(name, v string) string {
		return x.op1(name, v, aInt("axis", int64(p.Axes[0])), aInt("keepdims", keep), aInt("select_last_index", 0))
	}
	var r string
	switch {
	case d == tensor.Bool:
		r = arg(name, x.cast(a, tensor.I32))
	case d.IsFloat():
		w := x.widen(a, d)
		nan := x.cast(x.op1("IsNaN", w), tensor.I32)
		k := x.ints(int64(p.Axes[0]))
		anyNaN := x.op2("Greater", x.op2("ReduceMax", nan, k, aInt("keepdims", keep)), x.scalarI(tensor.I32, 0))
		r = x.where(anyNaN, arg("ArgMax", nan), arg(name, w), tensor.I64)
	default:
		r = arg(name, x.orderKey(a, d))
	}
	return x.castIf(r, tensor.I64, x.in.DType), nil
}

// dot is dot_general as one batched MatMul: each operand transposed to
// (batch, free, contracting) or (batch, contracting, free) and reshaped
// to rank 3; the product reshaped to (batch…, lhs free…, rhs free…).
// f16 and bf16 multiply in f32 and round once (Kiln accumulates them in
// f32); bool is an f32 product compared with 0.
func (x *instr) dot(a, c string) (string, error) {
	in := x.in
	dd := in.Params.Dot
	ls, rs := in.Args[0].Shape, in.Args[1].Shape
	ld, rd := in.Args[0].DType, in.Args[1].DType
	free := func(rank int, batch, contract []int) []int {
		var f []int
		for i := range rank {
			if !slices.Contains(batch, i) && !slices.Contains(contract, i) {
				f = append(f, i)
			}
		}
		return f
	}
	prod := func(shape, dims []int) int {
		n := 1
		for _, i := range dims {
			n *= shape[i]
		}
		return n
	}
	lf, rf := free(len(ls), dd.LhsBatch, dd.LhsContract), free(len(rs), dd.RhsBatch, dd.RhsContract)
	B, M, K, N := prod(ls, dd.LhsBatch), prod(ls, lf), prod(ls, dd.LhsContract), prod(rs, rf)
	cd := arith(ld)
	switch {
	case ld == tensor.Bool:
		cd = tensor.F32
	case in.DType.IsFloat() && ld.IsFloat():
		cd = arith(in.DType)
	}
	prep := func(v string, d tensor.DType, perm []int, shape []int) string {
		v = x.castIf(v, d, cd)
		if !isIdentity(perm) {
			v = x.op1("Transpose", v, aInts("perm", i64s(perm)))
		}
		return x.reshape(v, shape)
	}
	bf16 := ld == tensor.BF16 && rd == tensor.BF16
	if bf16 { // the bf16 rule reads subnormal inputs as zeros of their sign (DAZ)
		a, c = x.ftz(x.cast(a, cd)), x.ftz(x.cast(c, cd))
		ld, rd = cd, cd
	}
	lv := prep(a, ld, concat(dd.LhsBatch, lf, dd.LhsContract), []int{B, M, K})
	rv := prep(c, rd, concat(dd.RhsBatch, dd.RhsContract, rf), []int{B, K, N})
	r := x.reshape(x.op2("MatMul", lv, rv), in.Shape)
	if bf16 { // … and flushes subnormal results (FTZ)
		r = x.ftz(r)
	}
	if in.DType == tensor.Bool {
		return x.op2("Greater", r, x.scalarF(cd, 0)), nil
	}
	return x.castIf(r, cd, in.DType), nil
}

func concat(xs ...[]int) []int {
	var out []int
	for _, x := range xs {
		out = append(out, x...)
	}
	return out
}

func isIdentity(p []int) bool {
	for i, v := range p {
		if v != i {
			return false
		}
	}
	return true
}

// lowerMore is the rest: ops with no translation yet are refused.
func (x *instr) lowerMore(args []string) (string, error) {
	switch op := x.in.Op; {
	case op == trace.OpGather:
		return x.gather(args)
	case op.IsScatter():
		return x.scatter(args)
	case op == trace.OpDynamicSlice:
		return x.dynamicSlice(args), nil
	case op == trace.OpDynamicUpdateSlice:
		return x.dynamicUpdateSlice(args), nil
	case op == trace.OpConv:
		return x.conv(args)
	case op == trace.OpSort:
		return x.sort(args)
	}
	return "", refuse("%s is not translated by this exporter", x.in.Op)
}

// toRows transposes the reduced axes of v (of shape) to the end and
// reshapes it to (R, n): R kept elements by n reduced ones, in row-major
// order of the reduced axes.
func (x *instr) toRows(v string, shape, axes []int) (string, int, int) {
	var kept []int
	R, n := 1, 1
	for i, s := range shape {
		if slices.Contains(axes, i) {
			n *= s
		} else {
			kept = append(kept, i)
			R *= s
		}
	}
	perm := append(kept, axes...)
	if !isIdentity(perm) {
		v = x.op1("Transpose", v, aInts("perm", i64s(perm)))
	}
	return x.reshape(v, []int{R, n}), n, R
}

// slice is v[..., lo:hi, ...] along axis.
func (b *builder) slice(v string, axis, lo, hi int) string {
	return b.add("Slice", []string{v, b.ints(int64(lo)), b.ints(int64(hi)), b.ints(int64(axis))})
}

// halving reduces v (R, n) to (R, 1) by combining its halves until one
// column is left: for associative, commutative combiners.
func (x *instr) halving(v string, R, n int, comb func(a, b string) string) string {
	for n > 1 {
		h := n / 2
		c := comb(x.slice(v, 1, 0, h), x.slice(v, 1, h, 2*h))
		if n%2 == 1 {
			c = x.add("Concat", []string{c, x.slice(v, 1, 2*h, n)}, aInt("axis", 1))
		}
		v, n = c, h+n%2
	}
	return v
}

// kilnTree reduces v (R, n ≥ 1) to (R, 1) with kernels/doc.go's fixed
// tree: leaves of 128 (eight lanes over full groups of eight, combined
// pairwise, the rest folded left to right; fewer than eight folded left
// to right), the leaves combined by T(lo, n) = T(lo, p) ⊕ T(lo+p, n−p),
// p the largest power of two below n.
func (x *instr) kilnTree(v string, R, n int, comb func(a, b string) string) string {
	const leaf = 128
	full, rest := n/leaf, n%leaf
	var leaves []string // each (R, k): k consecutive leaf results
	if full > 0 {
		fv := v
		if rest > 0 {
			fv = x.slice(v, 1, 0, full*leaf)
		}
		// (R, full, 16, 8): lanes over 16 groups of eight.
		g := x.reshape(fv, []int{R, full, leaf / 8, 8})
		leaves = append(leaves, x.reshape(x.lanes(g, leaf/8, 2, comb), []int{R, full}))
	}
	if rest > 0 {
		leaves = append(leaves, x.partialLeaf(x.slice(v, 1, full*leaf, n), R, rest, comb))
	}
	all := leaves[0]
	if len(leaves) > 1 {
		all = x.add("Concat", leaves, aInt("axis", 1))
	}
	L := full
	if rest > 0 {
		L++
	}
	return x.leafTree(all, R, 0, L, comb)
}

// lanes folds the groups axis (of size groups) of g, whose last axis is
// eight lanes, lane by lane, then combines the lanes
// ((r0⊕r1)⊕(r2⊕r3))⊕((r4⊕r5)⊕(r6⊕r7)); the two axes are left as size 1.
func (x *instr) lanes(g string, groups, axis int, comb func(a, b string) string) string {
	r := x.slice(g, axis, 0, 1)
	for i := 1; i < groups; i++ {
		r = comb(r, x.slice(g, axis, i, i+1))
	}
	la := axis + 1
	l := func(j int) string { return x.slice(r, la, j, j+1) }
	return comb(comb(comb(l(0), l(1)), comb(l(2), l(3))), comb(comb(l(4), l(5)), comb(l(6), l(7))))
}

// partialLeaf is the leaf of m < 128 values v (R, m), as (R, 1).
func (x *instr) partialLeaf(v string, R, m int, comb func(a, b string) string) string {
	col := func(i int) string { return x.slice(v, 1, i, i+1) }
	if m < 8 {
		r := col(0)
		for i := 1; i < m; i++ {
			r = comb(r, col(i))
		}
		return r
	}
	groups := m / 8
	g := x.reshape(x.slice(v, 1, 0, groups*8), []int{R, groups, 8})
	r := x.reshape(x.lanes(g, groups, 1, comb), []int{R, 1})
	for i := groups * 8; i < m; i++ {
		r = comb(r, col(i))
	}
	return r
}

// leafTree is T(lo, n) over the leaf results (R, L), as (R, 1). An
// aligned block of 2^k leaves is combined pairwise, level by level, all
// its pairs in one op.
func (x *instr) leafTree(all string, R, lo, n int, comb func(a, b string) string) string {
	if n&(n-1) == 0 { // a power of two
		v := x.slice(all, 1, lo, lo+n)
		for n > 1 {
			h := n / 2
			pairs := x.reshape(v, []int{R, h, 2})
			v = x.reshape(comb(x.slice(pairs, 2, 0, 1), x.slice(pairs, 2, 1, 2)), []int{R, h})
			n = h
		}
		return v
	}
	p := 1
	for p*2 < n {
		p *= 2
	}
	return comb(x.leafTree(all, R, lo, p, comb), x.leafTree(all, R, lo+p, n-p, comb))
}

// ftz flushes f32 subnormals of v to zeros of their sign.
func (x *instr) ftz(v string) string {
	tiny := x.op2("Less", x.op1("Abs", v), x.scalarF(tensor.F32, math.Ldexp(1, -126)))
	return x.where(tiny, x.op2("Mul", v, x.scalarF(tensor.F32, 0)), v, tensor.F32)
}
