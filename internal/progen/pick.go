package progen

import (
	"math"
	"slices"

	"github.com/kiln-go/kiln/promote"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// kindWeights is how often each step kind is drawn, out of their sum.
var kindWeights = [numKinds]int{
	kUnary: 20, kBinary: 36, kIntPow: 3, kWhere: 5, kAstype: 7,
	kReshape: 3, kExpand: 2, kSqueeze: 2, kTranspose: 3, kBroadcast: 2, kSlice: 3, kConcat: 3,
	kReduce: 7, kMean: 2, kArg: 2, kMatMul: 4,
	kFlip: 2, kIndex: 3, kTake: 2, kScatter: 4, kDynSlice: 2, kDynUpdate: 2, kIota: 1, kSort: 2,
	kConv: 2, kFori: 2, kCond: 2, kWhile: 2, kScan: 2, kSwitch: 2,
}

// kindOps are the ops a step kind needs to be allowed (all of them).
func kindOps(k kind) []trace.Op {
	switch k {
	case kIntPow:
		return []trace.Op{trace.OpMul}
	case kWhere:
		return []trace.Op{trace.OpSelect}
	case kAstype, kSafeAstype:
		return []trace.Op{trace.OpConvert}
	case kReshape, kExpand, kSqueeze:
		return []trace.Op{trace.OpReshape}
	case kTranspose:
		return []trace.Op{trace.OpTranspose}
	case kBroadcast:
		return []trace.Op{trace.OpBroadcastInDim}
	case kSlice:
		return []trace.Op{trace.OpSlice}
	case kConcat:
		return []trace.Op{trace.OpConcat}
	case kMean:
		return []trace.Op{trace.OpReduceSum, trace.OpDiv}
	case kMatMul:
		return []trace.Op{trace.OpDot}
	case kFlip:
		return []trace.Op{trace.OpRev}
	case kIndex, kTake:
		return []trace.Op{trace.OpGather, trace.OpDynamicSlice}
	case kDynSlice:
		return []trace.Op{trace.OpDynamicSlice}
	case kDynUpdate:
		return []trace.Op{trace.OpDynamicSlice, trace.OpDynamicUpdateSlice}
	case kIota:
		return []trace.Op{trace.OpIota, trace.OpAdd}
	case kSort:
		return []trace.Op{trace.OpSort}
	case kConv:
		return []trace.Op{trace.OpConv}
	case kFori:
		return []trace.Op{trace.OpWhile, trace.OpResult}
	case kCond, kSwitch:
		return []trace.Op{trace.OpCond}
	case kWhile:
		return []trace.Op{trace.OpWhile, trace.OpResult}
	case kScan:
		return []trace.Op{trace.OpWhile, trace.OpResult, trace.OpDynamicSlice, trace.OpDynamicUpdateSlice}
	}
	return nil
}

// opsOf lists the allowed ops of a class.
func (g *gen) opsOf(class trace.Class, extra func(trace.Op) bool) []trace.Op {
	var out []trace.Op
	for _, op := range g.o.Ops {
		if op.Info().Class == class && (extra == nil || extra(op)) {
			out = append(out, op)
		}
	}
	return out
}

func (g *gen) kindAllowed(k kind) bool {
	switch k {
	case kUnary:
		return len(g.opsOf(trace.ClassUnary, func(op trace.Op) bool { return op != trace.OpConvert })) > 0
	case kBinary:
		return len(g.opsOf(trace.ClassBinary, nil)) > 0
	case kReduce:
		return len(g.opsOf(trace.ClassReduce, func(op trace.Op) bool { return op != trace.OpArgMax && op != trace.OpArgMin })) > 0
	case kArg:
		return g.ops[trace.OpArgMax] || g.ops[trace.OpArgMin]
	case kScatter:
		return g.ops[trace.OpGather] && len(g.opsOf(trace.ClassIndex, trace.Op.IsScatter)) > 0
	case kFori, kCond:
		if !g.o.Control && !g.o.AllControl {
			return false
		}
	case kWhile, kScan, kSwitch:
		if !g.o.AllControl {
			return false
		}
	}
	for _, op := range kindOps(k) {
		if !g.ops[op] {
			return false
		}
	}
	return true
}

// pick draws the next step; ok is false when the draw found nothing to do.
func (g *gen) pick() (step, bool) {
	total := 0
	for k := range numKinds {
		if g.kindAllowed(k) {
			total += kindWeights[k]
		}
	}
	if total == 0 {
		return step{}, false
	}
	n := g.r.Intn(total)
	var k kind
	for k = range numKinds {
		if g.kindAllowed(k) {
			if n -= kindWeights[k]; n < 0 {
				break
			}
		}
	}
	a := g.pickValue()
	s := step{kind: k, args: []operand{{ref: a}}}
	t, shape := g.types[a], g.shapes[a]
	r := g.r
	switch k {
	case kUnary:
		ops := g.opsOf(trace.ClassUnary, func(op trace.Op) bool { return op != trace.OpConvert && domainOK(op, t.DType) })
		if len(ops) == 0 {
			return s, false
		}
		s.op = ops[r.Intn(len(ops))]
	case kBinary:
		return g.pickBinary(s)
	case kIntPow:
		if t.DType == tensor.Bool {
			return s, false
		}
		s.n = int64(r.Intn(6))
		if t.DType.IsInexact() && r.Intn(3) == 0 {
			s.n = -1 - int64(r.Intn(3))
		}
	case kWhere:
		if bools := g.valuesOf(tensor.Bool); len(bools) > 0 && r.Intn(3) > 0 {
			s.args[0].ref = bools[r.Intn(len(bools))]
		}
		for range 2 {
			s.args = append(s.args, g.pickOperand(g.shapes[s.args[0].ref], t, 3))
		}
	case kAstype:
		s.dtype = g.o.DTypes[r.Intn(len(g.o.DTypes))]
		if g.o.SafeConverts && !t.DType.IsBool() && !t.DType.IsInteger() && (s.dtype.IsInteger()) {
			if t.DType.IsComplex() {
				return s, false
			}
			s.kind, s.lo, s.hi = kSafeAstype, -100, 100
			if s.dtype.IsUnsigned() {
				s.lo, s.hi = 0, 200
			}
		}
	case kReshape:
		s.ints = g.reshapeTarget(shape)
	case kExpand:
		s.ints = []int{r.Intn(2*len(shape)+2) - len(shape) - 1}
	case kSqueeze:
		var ones []int
		for i, d := range shape {
			if d == 1 {
				ones = append(ones, i)
			}
		}
		if len(ones) > 0 && r.Intn(2) == 0 {
			s.ints = []int{ones[r.Intn(len(ones))]}
		}
	case kTranspose:
		if len(shape) < 2 {
			return s, false
		}
		if r.Intn(4) > 0 {
			s.ints = r.Perm(len(shape))
		}
	case kBroadcast:
		s.ints = g.broadcastTarget(shape)
	case kSlice:
		if len(shape) == 0 {
			return s, false
		}
		s.axis = r.Intn(len(shape))
		n := shape[s.axis]
		s.start, s.stop, s.stride = r.Intn(n+3)-n/2-1, r.Intn(n+3)-1, 1+r.Intn(3)
		if r.Intn(3) == 0 {
			s.start = 0
		}
		if r.Intn(4) == 0 {
			s.stop = -1 - r.Intn(2)
		}
		if r.Intn(4) == 0 {
			s.stride = -s.stride // a negative step: slice and rev
		}
	case kConcat:
		return g.pickConcat(s)
	case kReduce:
		ops := g.opsOf(trace.ClassReduce, func(op trace.Op) bool {
			return op != trace.OpArgMax && op != trace.OpArgMin &&
				!(t.DType.IsComplex() && (op == trace.OpReduceMax || op == trace.OpReduceMin))
		})
		if len(ops) == 0 {
			return s, false
		}
		s.op = ops[r.Intn(len(ops))]
		s.ints, s.keep = g.randomAxes(len(shape)), r.Intn(3) == 0
	case kMean:
		s.ints, s.keep = g.randomAxes(len(shape)), r.Intn(3) == 0
	case kArg:
		if len(shape) == 0 || t.DType.IsComplex() {
			return s, false
		}
		s.op = trace.OpArgMax
		if !g.ops[s.op] || g.ops[trace.OpArgMin] && r.Intn(2) == 0 {
			s.op = trace.OpArgMin
		}
		s.axis = r.Intn(len(shape))
		if r.Intn(3) == 0 {
			s.axis -= len(shape)
		}
	case kMatMul:
		return g.pickMatMul(s)
	case kConv:
		return g.pickConv(s)
	case kFori, kCond, kWhile, kScan, kSwitch:
		return g.pickControl(s)
	case kFlip, kIndex, kTake, kScatter, kDynSlice, kDynUpdate:
		return g.pickIndexStep(s)
	case kSort:
		return g.pickSort(s)
	case kIota:
		if len(shape) == 0 || t.DType == tensor.Bool {
			return s, false
		}
		s.dtype, s.ints, s.axis = t.DType, slices.Clone(shape), r.Intn(len(shape))
		return s, true
	}
	return s, true
}

// pickValue prefers the most recent value, so chains grow deep.
func (g *gen) pickValue() int {
	n := len(g.types)
	if g.r.Intn(2) == 0 {
		return n - 1
	}
	return g.r.Intn(n)
}

func (g *gen) valuesOf(d tensor.DType) []int {
	var out []int
	for i, t := range g.types {
		if t.DType == d {
			out = append(out, i)
		}
	}
	return out
}

// pickOperand draws a second operand for a value of type t and the given
// shape: a literal about one time in litOdds, else a value whose shape
// broadcasts with it.
func (g *gen) pickOperand(shape []int, t promote.Type, litOdds int) operand {
	if cands := g.broadcastsWith(shape); len(cands) > 0 && g.r.Intn(litOdds) > 0 {
		return operand{ref: cands[g.r.Intn(len(cands))]}
	}
	return operand{ref: -1, lit: g.literal(t.DType)}
}

func (g *gen) pickBinary(s step) (step, bool) {
	r := g.r
	a := s.args[0].ref
	b := g.pickOperand(g.shapes[a], g.types[a], 3)
	tb := g.operandType(b)
	common, err := g.c.Config.ResultType(g.types[a], tb)
	if err != nil {
		return s, false
	}
	ops := g.opsOf(trace.ClassBinary, func(op trace.Op) bool { return domainOK(op, common.DType) })
	if len(ops) == 0 {
		return s, false
	}
	s.op = ops[r.Intn(len(ops))]
	s.args = append(s.args, b)
	if r.Intn(3) == 0 {
		s.args[0], s.args[1] = s.args[1], s.args[0]
	}
	if s.op == trace.OpCopysign {
		// copysign turns its second operand's sign bit into a number,
		// and the sign of a NaN an op computes is not part of the
		// contract (see pickSort): a computed float's NaNs are made one
		// NaN first. Inputs keep theirs, signs included.
		if y := s.args[1].ref; y >= len(g.c.Inputs) && g.types[y].DType.IsFloat() {
			if !g.ops[trace.OpIsNaN] || !g.ops[trace.OpSelect] {
				return s, false
			}
			s.oneNaN = true
		}
	}
	return s, true
}

// operandType is a value's type, a constant's (strong) or a literal's
// weak type.
func (g *gen) operandType(o operand) promote.Type {
	if o.ref >= 0 {
		return g.types[o.ref]
	}
	if o.konst != nil {
		return promote.Strong(o.konst.DType())
	}
	cfg := g.c.Config
	switch o.lit.kind {
	case tensor.KindBool:
		return promote.Strong(tensor.Bool)
	case tensor.KindInt:
		return promote.WeakOf(cfg.DefaultInt())
	case tensor.KindFloat:
		return promote.WeakOf(cfg.DefaultFloat())
	}
	return promote.WeakOf(cfg.DefaultComplex())
}

// domainOK says whether op accepts operands of dtype d (after promotion).
func domainOK(op trace.Op, d tensor.DType) bool {
	info := op.Info()
	if info.NoBool && d == tensor.Bool {
		return false
	}
	switch op {
	case trace.OpThreefry2x32:
		return d == tensor.U64
	case trace.OpBitcastConvert:
		// From integers only: a computed float may differ between
		// backends in its last bits or NaN payload (within their
		// contract), which reinterpreted bits would compare exactly.
		return d.IsInteger()
	}
	switch info.Domain {
	case trace.DomainReal:
		return !d.IsComplex()
	case trace.DomainNoBool:
		return d != tensor.Bool
	case trace.DomainIntegral:
		return d == tensor.Bool || d.IsInteger()
	case trace.DomainOrdered, trace.DomainNonComplexNumeric:
		return !d.IsComplex()
	}
	if op == trace.OpPow {
		return d != tensor.Bool
	}
	return true
}

var (
	intLits     = []int64{0, 1, 2, -1, 3, 5, 7, -3, 10, 100, -100, 127, 255, 1000, -70000, 1 << 31}
	floatLits   = []float64{0.5, 2, -1.5, 0, math.Copysign(0, -1), 3, 1e-3, 0.1, 1e10, 65504, 1e30, 1e-40, math.Inf(1), math.Inf(-1), math.NaN(), 2.5, -7}
	complexLits = []complex128{1i, 1 + 2i, -0.5 + 0.25i, 0, 3 - 1i, complex(math.Inf(1), 0), 2}
)

// literal draws a literal to meet a value of dtype d: usually of d's kind
// and, for integers, one that fits d (an overflowing literal is an error).
func (g *gen) literal(d tensor.DType) lit {
	r := g.r
	k := d.Kind()
	if k == tensor.KindUint || r.Intn(4) == 0 {
		k = tensor.KindInt
	}
	if r.Intn(4) == 0 {
		k = []tensor.Kind{tensor.KindBool, tensor.KindInt, tensor.KindFloat, tensor.KindComplex}[r.Intn(4)]
	}
	switch k {
	case tensor.KindBool:
		return lit{kind: k, b: r.Intn(2) == 0}
	case tensor.KindInt:
		for {
			v := intLits[r.Intn(len(intLits))]
			if fitsInt(v, d) || r.Intn(30) == 0 {
				return lit{kind: k, i: v}
			}
		}
	case tensor.KindFloat:
		return lit{kind: k, f: floatLits[r.Intn(len(floatLits))]}
	}
	return lit{kind: tensor.KindComplex, c: complexLits[r.Intn(len(complexLits))]}
}

// fitsInt reports whether v fits an integer dtype d (any non-integer d).
func fitsInt(v int64, d tensor.DType) bool {
	if !d.IsInteger() {
		return true
	}
	bits := d.Bits()
	if d.IsUnsigned() {
		return v >= 0 && (bits == 64 || v < 1<<bits)
	}
	return bits == 64 || v >= -(1<<(bits-1)) && v < 1<<(bits-1)
}

// broadcastTarget grows shape: a new leading dimension and/or size-1
// dimensions stretched.
func (g *gen) broadcastTarget(shape []int) []int {
	r := g.r
	out := slices.Clone(shape)
	for i, d := range out {
		if d == 1 && r.Intn(2) == 0 {
			out[i] = 2 + r.Intn(3)
		}
	}
	if len(out) < 4 && (r.Intn(2) == 0 || slices.Equal(out, shape)) {
		out = slices.Insert(out, 0, 1+r.Intn(3))
	}
	return out
}

func (g *gen) pickConcat(s step) (step, bool) {
	r := g.r
	shape := g.shapes[s.args[0].ref]
	if len(shape) == 0 {
		return s, false
	}
	s.axis = r.Intn(len(shape))
	var cands []int
	for i, sh := range g.shapes {
		if len(sh) == len(shape) && i != s.args[0].ref {
			same := true
			for j := range sh {
				same = same && (j == s.axis || sh[j] == shape[j])
			}
			if same {
				cands = append(cands, i)
			}
		}
	}
	for range 1 + r.Intn(2) {
		o := operand{ref: s.args[0].ref}
		if len(cands) > 0 && r.Intn(4) > 0 {
			o.ref = cands[r.Intn(len(cands))]
		}
		s.args = append(s.args, o)
	}
	if r.Intn(3) == 0 {
		s.axis -= len(shape)
	}
	return s, true
}

// pickMatMul finds a right operand for the value a: a vector or matrix
// whose contracting dimension matches, possibly after swapping its last
// two axes.
func (g *gen) pickMatMul(s step) (step, bool) {
	r := g.r
	sa := g.shapes[s.args[0].ref]
	if len(sa) == 0 {
		return s, false
	}
	k := sa[len(sa)-1]
	type cand struct {
		ref  int
		swap bool
	}
	var cands []cand
	for i, sb := range g.shapes {
		switch n := len(sb); {
		case n == 1 && sb[0] == k:
			cands = append(cands, cand{i, false})
		case n >= 2 && sb[n-2] == k:
			cands = append(cands, cand{i, false})
		}
		if n := len(sb); n >= 2 && sb[n-1] == k {
			cands = append(cands, cand{i, true})
		}
	}
	if len(cands) == 0 {
		return s, false
	}
	c := cands[r.Intn(len(cands))]
	s.args = append(s.args, operand{ref: c.ref})
	s.swap = c.swap
	g.maybePreferred(&s)
	return s, true
}

// maybePreferred gives a quarter of the matmuls and convolutions a
// preferred_element_type other than their operands' common dtype, among
// those JAX allows.
func (g *gen) maybePreferred(s *step) {
	common, err := g.c.Config.ResultType(g.operandType(s.args[0]), g.operandType(s.args[1]))
	if err != nil || g.r.Intn(4) != 0 {
		return
	}
	var prefs []tensor.DType
	for _, d := range g.o.DTypes {
		if d != common.DType && trace.PreferredRefusal(common.DType, d) == "" {
			prefs = append(prefs, d)
		}
	}
	if len(prefs) > 0 {
		s.dtype, s.pref = prefs[g.r.Intn(len(prefs))], true
	}
}
