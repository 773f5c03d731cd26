package trace

import "fmt"

// Op is a primitive operation of a traced program. Every op is declared once,
// in the ops table below; the tracer, the printers, the lowering passes, the
// kernels and the reference evaluator all read that table.
type Op uint8

// The primitive ops. The order is the table order and carries no meaning.
const (
	OpInvalid Op = iota

	// Leaves.
	OpParam // an input of the program
	OpConst // a literal or constant array, already at its final dtype

	// Elementwise unary.
	OpConvert // astype and every implicit promotion; Params.DType is the target
	OpNeg
	OpAbs
	OpSign
	OpExp
	OpLog
	OpLog1p
	OpExpm1
	OpSqrt
	OpRsqrt
	OpSin
	OpCos
	OpTan
	OpTanh
	OpLogistic
	OpFloor
	OpCeil
	OpRound // half to even, as NumPy
	OpIsNaN
	OpIsFinite
	OpReal
	OpImag
	OpConj
	OpNot // logical not on bool, bitwise not on integers

	// Elementwise unary math of jax.numpy and jax.scipy.special (math.go).
	OpAsin
	OpAcos
	OpAtan
	OpSinh
	OpCosh
	OpAsinh
	OpAcosh
	OpAtanh
	OpExp2
	OpLog2
	OpLog10
	OpCbrt
	OpErf
	OpErfc
	OpErfInv
	OpIsInf
	OpIsPosInf
	OpIsNegInf
	OpStopGradient // identity whose tangent is zero (lax.stop_gradient)

	// Elementwise binary. Operands have one dtype (converts are explicit);
	// shapes broadcast NumPy-style in a traced program and are made equal by
	// explicit broadcast_in_dim when lowered.
	OpAdd
	OpSub
	OpMul
	OpDiv
	OpFloorDiv
	OpRem
	OpPow
	OpMax
	OpMin
	OpAnd
	OpOr
	OpXor
	OpShl
	OpShr
	OpEq
	OpNe
	OpLt
	OpLe
	OpGt
	OpGe

	// Elementwise binary math (math.go).
	OpAtan2 // atan2(x, y) = atan(x/y) in the quadrant of (y, x), as jnp.arctan2(x, y)
	OpHypot
	OpCopysign
	OpNextafter
	OpFmod // C's fmod: the remainder of truncated division (lax.rem)

	// Elementwise ternary.
	OpSelect // select(pred bool, on_true, on_false)

	// Structural.
	OpBroadcastInDim // Params.Shape, Params.Dims: operand dim i → result dim Dims[i]
	OpReshape        // Params.Shape
	OpTranspose      // Params.Perm
	OpSlice          // Params.Start, Limit, Stride (Stride > 0)
	OpConcat         // Params.Axis; variadic

	// Reductions over Params.Axes (sorted, unique); the result drops those
	// axes unless Params.KeepDims.
	OpReduceSum
	OpReduceProd
	OpReduceMax
	OpReduceMin
	OpArgMax // index of the first maximum (first NaN wins), Params.DType
	OpArgMin

	// Contraction.
	OpDot // dot_general with Params.Dot batch and contracting dims

	// Indexing (helper opsindex): lax.rev, gather, the scatters and the
	// dynamic slices. Index operands have any integer dtype and are read at
	// run time; Params.Index holds the static parameters (indexparams.go).
	OpRev                // Params.Axes: the dims reversed (class structural)
	OpGather             // (operand, indices): Params.Index.Gather, SliceSizes, Mode; Params.Value: the fill value
	OpScatter            // (operand, indices, updates): Params.Index.Scatter, Mode; an update replaces
	OpScatterAdd         // as scatter; updates are added
	OpScatterMul         // as scatter; updates multiply
	OpScatterMin         // as scatter; the minimum is kept
	OpScatterMax         // as scatter; the maximum is kept
	OpDynamicSlice       // (operand, one scalar start per dim): Params.Index.SliceSizes; starts clamped
	OpDynamicUpdateSlice // (operand, update, one scalar start per dim); starts clamped

	// jax.random's primitives (prng.go).
	OpIota           // Params.DType, Shape, Axis: element [i…] is i[Axis]
	OpBitcastConvert // Params.DType: the operand's bits as that dtype (one width)
	OpThreefry2x32   // (key, counter) u64 words → u64 words

	// Control flow (control.go): ops carrying sub-programs in
	// Params.Control, and the projection of their further results.
	OpWhile  // (init carries…, cond's captures…, body's captures…): Subs = cond, body
	OpCond   // (i32 index, operands…, each branch's captures…): Subs = the branches
	OpResult // (a while's or cond's result 0): its result Params.Control.Index

	// Sorting (helper sortscan2, sort.go): lax.sort. Operands of one shape
	// are sorted together along Params.Axis by the first Params.Sort.NumKeys
	// of them; the result is operand Params.Sort.Output, permuted.
	OpSort

	// Convolution (helper conv2, conv.go).
	OpConv // conv_general_dilated(lhs, rhs): Params.Conv
	numOps
)

// NumOps is the number of ops, including OpInvalid.
const NumOps = int(numOps)

// Class groups ops that share structure: arity, shape rule and how they fuse.
type Class uint8

// The op classes.
const (
	ClassLeaf Class = iota
	ClassUnary
	ClassBinary
	ClassTernary
	ClassStructural
	ClassReduce
	ClassDot
	ClassIndex   // gather, scatters, dynamic slices: data-dependent addresses
	ClassControl // while, cond and their results: sub-programs run by the backend
)

var classNames = [...]string{"leaf", "unary", "binary", "ternary", "structural", "reduce", "dot", "index", "control"}

func (c Class) String() string { return classNames[c] }

// Domain is the set of operand dtypes an op accepts once its operands have
// been promoted; a violation is a *DTypeError at trace time.
type Domain uint8

// The operand domains.
const (
	DomainAny               Domain = iota // every dtype
	DomainNoBool                          // every dtype but bool (neg, sub, sign)
	DomainIntegral                        // bool and integers (bitwise, shifts: ints only — see OpInfo.NoBool)
	DomainOrdered                         // not complex (ordering comparisons, floor, ceil, round)
	DomainNonComplexNumeric               // not complex, bool promoted to the default int first (floordiv, rem)
	DomainReal                            // not complex (erf, atan2, hypot, …: no complex definition)
)

// OpInfo is one row of the op table.
type OpInfo struct {
	Name    string // as printed: "add", "convert", "reduce_sum"
	Symbol  string // infix form for the expression printer ("+"), or ""
	Class   Class
	Arity   int // operand count; -1 for variadic
	Domain  Domain
	NoBool  bool // bool operands rejected even where the domain allows integers
	Compare bool // result is bool
	// Inexact ops map integer and bool operands to floats (docs/SPEC.md §2: bool and
	// ints up to 32 bits → f32, 64-bit ints → f64) before computing.
	Inexact bool
	// Fusible ops can run inside an elementwise loop fusion.
	Fusible bool
	// Transcendental ops are only required to be within the docs/SPEC.md §3 ulp
	// bounds, not bit-exact, across backends.
	Transcendental bool
	// RealResult elementwise ops give the real-part dtype of their operand
	// (abs, real and imag of complex).
	RealResult bool
	// Check is the op's typing rule for the verifiers (Program.Check,
	// lower's Module.Verify); nil for the elementwise and reduce ops, which
	// get their class's rule from the flags above. See CheckRule.
	Check CheckRule
}

var ops = [numOps]OpInfo{
	OpInvalid: {Name: "invalid"},
	OpParam:   {Name: "param", Class: ClassLeaf, Check: checkLeaf},
	OpConst:   {Name: "const", Class: ClassLeaf, Fusible: true, Check: checkConst},

	OpConvert:  {Name: "convert", Class: ClassUnary, Arity: 1, Fusible: true, Check: checkConvert},
	OpNeg:      {Name: "neg", Symbol: "-", Class: ClassUnary, Arity: 1, Domain: DomainNoBool, Fusible: true},
	OpAbs:      {Name: "abs", Class: ClassUnary, Arity: 1, Fusible: true, RealResult: true},
	OpSign:     {Name: "sign", Class: ClassUnary, Arity: 1, Domain: DomainNoBool, Fusible: true},
	OpExp:      {Name: "exp", Class: ClassUnary, Arity: 1, Inexact: true, Fusible: true, Transcendental: true},
	OpLog:      {Name: "log", Class: ClassUnary, Arity: 1, Inexact: true, Fusible: true, Transcendental: true},
	OpLog1p:    {Name: "log1p", Class: ClassUnary, Arity: 1, Inexact: true, Fusible: true, Transcendental: true},
	OpExpm1:    {Name: "expm1", Class: ClassUnary, Arity: 1, Inexact: true, Fusible: true, Transcendental: true},
	OpSqrt:     {Name: "sqrt", Class: ClassUnary, Arity: 1, Inexact: true, Fusible: true},
	OpRsqrt:    {Name: "rsqrt", Class: ClassUnary, Arity: 1, Inexact: true, Fusible: true, Transcendental: true},
	OpSin:      {Name: "sin", Class: ClassUnary, Arity: 1, Inexact: true, Fusible: true, Transcendental: true},
	OpCos:      {Name: "cos", Class: ClassUnary, Arity: 1, Inexact: true, Fusible: true, Transcendental: true},
	OpTan:      {Name: "tan", Class: ClassUnary, Arity: 1, Inexact: true, Fusible: true, Transcendental: true},
	OpTanh:     {Name: "tanh", Class: ClassUnary, Arity: 1, Inexact: true, Fusible: true, Transcendental: true},
	OpLogistic: {Name: "logistic", Class: ClassUnary, Arity: 1, Inexact: true, Fusible: true, Transcendental: true},
	OpFloor:    {Name: "floor", Class: ClassUnary, Arity: 1, Domain: DomainOrdered, Fusible: true},
	OpCeil:     {Name: "ceil", Class: ClassUnary, Arity: 1, Domain: DomainOrdered, Fusible: true},
	OpRound:    {Name: "round", Class: ClassUnary, Arity: 1, Domain: DomainOrdered, Fusible: true},
	OpIsNaN:    {Name: "isnan", Class: ClassUnary, Arity: 1, Compare: true, Fusible: true},
	OpIsFinite: {Name: "isfinite", Class: ClassUnary, Arity: 1, Compare: true, Fusible: true},
	OpReal:     {Name: "real", Class: ClassUnary, Arity: 1, Fusible: true, RealResult: true},
	OpImag:     {Name: "imag", Class: ClassUnary, Arity: 1, Fusible: true, RealResult: true},
	OpConj:     {Name: "conj", Class: ClassUnary, Arity: 1, Fusible: true},
	OpNot:      {Name: "not", Symbol: "~", Class: ClassUnary, Arity: 1, Domain: DomainIntegral, Fusible: true},

	OpAsin:         {Name: "asin", Class: ClassUnary, Arity: 1, Inexact: true, Fusible: true, Transcendental: true},
	OpAcos:         {Name: "acos", Class: ClassUnary, Arity: 1, Inexact: true, Fusible: true, Transcendental: true},
	OpAtan:         {Name: "atan", Class: ClassUnary, Arity: 1, Inexact: true, Fusible: true, Transcendental: true},
	OpSinh:         {Name: "sinh", Class: ClassUnary, Arity: 1, Inexact: true, Fusible: true, Transcendental: true},
	OpCosh:         {Name: "cosh", Class: ClassUnary, Arity: 1, Inexact: true, Fusible: true, Transcendental: true},
	OpAsinh:        {Name: "asinh", Class: ClassUnary, Arity: 1, Inexact: true, Fusible: true, Transcendental: true},
	OpAcosh:        {Name: "acosh", Class: ClassUnary, Arity: 1, Inexact: true, Fusible: true, Transcendental: true},
	OpAtanh:        {Name: "atanh", Class: ClassUnary, Arity: 1, Inexact: true, Fusible: true, Transcendental: true},
	OpExp2:         {Name: "exp2", Class: ClassUnary, Arity: 1, Inexact: true, Fusible: true, Transcendental: true},
	OpLog2:         {Name: "log2", Class: ClassUnary, Arity: 1, Inexact: true, Fusible: true, Transcendental: true},
	OpLog10:        {Name: "log10", Class: ClassUnary, Arity: 1, Inexact: true, Fusible: true, Transcendental: true},
	OpCbrt:         {Name: "cbrt", Class: ClassUnary, Arity: 1, Domain: DomainReal, Inexact: true, Fusible: true, Transcendental: true},
	OpErf:          {Name: "erf", Class: ClassUnary, Arity: 1, Domain: DomainReal, Inexact: true, Fusible: true, Transcendental: true},
	OpErfc:         {Name: "erfc", Class: ClassUnary, Arity: 1, Domain: DomainReal, Inexact: true, Fusible: true, Transcendental: true},
	OpErfInv:       {Name: "erf_inv", Class: ClassUnary, Arity: 1, Domain: DomainReal, Inexact: true, Fusible: true, Transcendental: true},
	OpIsInf:        {Name: "isinf", Class: ClassUnary, Arity: 1, Compare: true, Fusible: true},
	OpIsPosInf:     {Name: "isposinf", Class: ClassUnary, Arity: 1, Domain: DomainReal, Compare: true, Fusible: true},
	OpIsNegInf:     {Name: "isneginf", Class: ClassUnary, Arity: 1, Domain: DomainReal, Compare: true, Fusible: true},
	OpStopGradient: {Name: "stop_gradient", Class: ClassUnary, Arity: 1, Fusible: true},

	OpAdd:      {Name: "add", Symbol: "+", Class: ClassBinary, Arity: 2, Fusible: true},
	OpSub:      {Name: "sub", Symbol: "-", Class: ClassBinary, Arity: 2, Domain: DomainNoBool, Fusible: true},
	OpMul:      {Name: "mul", Symbol: "*", Class: ClassBinary, Arity: 2, Fusible: true},
	OpDiv:      {Name: "div", Symbol: "/", Class: ClassBinary, Arity: 2, Inexact: true, Fusible: true},
	OpFloorDiv: {Name: "floordiv", Symbol: "//", Class: ClassBinary, Arity: 2, Domain: DomainNonComplexNumeric, Fusible: true},
	OpRem:      {Name: "rem", Symbol: "%", Class: ClassBinary, Arity: 2, Domain: DomainNonComplexNumeric, Fusible: true},
	OpPow:      {Name: "pow", Symbol: "**", Class: ClassBinary, Arity: 2, Domain: DomainNoBool, Fusible: true, Transcendental: true},
	OpMax:      {Name: "max", Class: ClassBinary, Arity: 2, Fusible: true},
	OpMin:      {Name: "min", Class: ClassBinary, Arity: 2, Fusible: true},
	OpAnd:      {Name: "and", Symbol: "&", Class: ClassBinary, Arity: 2, Domain: DomainIntegral, Fusible: true},
	OpOr:       {Name: "or", Symbol: "|", Class: ClassBinary, Arity: 2, Domain: DomainIntegral, Fusible: true},
	OpXor:      {Name: "xor", Symbol: "^", Class: ClassBinary, Arity: 2, Domain: DomainIntegral, Fusible: true},
	OpShl:      {Name: "shl", Symbol: "<<", Class: ClassBinary, Arity: 2, Domain: DomainIntegral, NoBool: true, Fusible: true},
	OpShr:      {Name: "shr", Symbol: ">>", Class: ClassBinary, Arity: 2, Domain: DomainIntegral, NoBool: true, Fusible: true},
	OpEq:       {Name: "eq", Symbol: "==", Class: ClassBinary, Arity: 2, Compare: true, Fusible: true},
	OpNe:       {Name: "ne", Symbol: "!=", Class: ClassBinary, Arity: 2, Compare: true, Fusible: true},
	OpLt:       {Name: "lt", Symbol: "<", Class: ClassBinary, Arity: 2, Domain: DomainOrdered, Compare: true, Fusible: true},
	OpLe:       {Name: "le", Symbol: "<=", Class: ClassBinary, Arity: 2, Domain: DomainOrdered, Compare: true, Fusible: true},
	OpGt:       {Name: "gt", Symbol: ">", Class: ClassBinary, Arity: 2, Domain: DomainOrdered, Compare: true, Fusible: true},
	OpGe:       {Name: "ge", Symbol: ">=", Class: ClassBinary, Arity: 2, Domain: DomainOrdered, Compare: true, Fusible: true},

	OpAtan2:     {Name: "atan2", Class: ClassBinary, Arity: 2, Domain: DomainReal, Inexact: true, Fusible: true, Transcendental: true},
	OpHypot:     {Name: "hypot", Class: ClassBinary, Arity: 2, Domain: DomainReal, Inexact: true, Fusible: true, Transcendental: true},
	OpCopysign:  {Name: "copysign", Class: ClassBinary, Arity: 2, Domain: DomainReal, Inexact: true, Fusible: true},
	OpNextafter: {Name: "nextafter", Class: ClassBinary, Arity: 2, Domain: DomainReal, Inexact: true, Fusible: true},
	OpFmod:      {Name: "fmod", Class: ClassBinary, Arity: 2, Domain: DomainNonComplexNumeric, Fusible: true},

	OpSelect: {Name: "select", Class: ClassTernary, Arity: 3, Fusible: true},

	OpBroadcastInDim: {Name: "broadcast_in_dim", Class: ClassStructural, Arity: 1, Fusible: true, Check: checkBroadcast},
	OpReshape:        {Name: "reshape", Class: ClassStructural, Arity: 1, Check: checkReshape},
	OpTranspose:      {Name: "transpose", Class: ClassStructural, Arity: 1, Check: checkTranspose},
	OpSlice:          {Name: "slice", Class: ClassStructural, Arity: 1, Check: checkSlice},
	OpConcat:         {Name: "concatenate", Class: ClassStructural, Arity: -1, Check: checkConcat},

	OpReduceSum:  {Name: "reduce_sum", Class: ClassReduce, Arity: 1},
	OpReduceProd: {Name: "reduce_prod", Class: ClassReduce, Arity: 1},
	OpReduceMax:  {Name: "reduce_max", Class: ClassReduce, Arity: 1},
	OpReduceMin:  {Name: "reduce_min", Class: ClassReduce, Arity: 1},
	OpArgMax:     {Name: "argmax", Class: ClassReduce, Arity: 1, Check: checkArgReduce},
	OpArgMin:     {Name: "argmin", Class: ClassReduce, Arity: 1, Check: checkArgReduce},

	OpDot: {Name: "dot_general", Class: ClassDot, Arity: 2, Check: checkDot},

	// Indexing (helper opsindex).
	OpRev:                {Name: "rev", Class: ClassStructural, Arity: 1, Check: checkRev},
	OpGather:             {Name: "gather", Class: ClassIndex, Arity: 2, Check: checkGather},
	OpScatter:            {Name: "scatter", Class: ClassIndex, Arity: 3, Check: checkScatter},
	OpScatterAdd:         {Name: "scatter_add", Class: ClassIndex, Arity: 3, Check: checkScatter},
	OpScatterMul:         {Name: "scatter_mul", Class: ClassIndex, Arity: 3, Check: checkScatter},
	OpScatterMin:         {Name: "scatter_min", Class: ClassIndex, Arity: 3, Check: checkScatter},
	OpScatterMax:         {Name: "scatter_max", Class: ClassIndex, Arity: 3, Check: checkScatter},
	OpDynamicSlice:       {Name: "dynamic_slice", Class: ClassIndex, Arity: -1, Check: checkDynamicSlice},
	OpDynamicUpdateSlice: {Name: "dynamic_update_slice", Class: ClassIndex, Arity: -1, Check: checkDynamicUpdateSlice},

	OpIota:           {Name: "iota", Class: ClassIndex, Arity: 0, Check: checkIota},
	OpBitcastConvert: {Name: "bitcast_convert_type", Class: ClassUnary, Arity: 1, Fusible: true, Check: checkBitcast},
	OpThreefry2x32:   {Name: "threefry2x32", Class: ClassBinary, Arity: 2, Domain: DomainIntegral, NoBool: true, Fusible: true},

	// Control flow (control.go).
	OpWhile:  {Name: "while", Class: ClassControl, Arity: -1}, // Check set in init: it checks sub-programs
	OpCond:   {Name: "cond", Class: ClassControl, Arity: -1},
	OpResult: {Name: "result", Class: ClassControl, Arity: 1, Check: checkResult},

	// Sorting (helper sortscan2).
	OpSort: {Name: "sort", Class: ClassIndex, Arity: -1, Check: checkSort},

	// Convolution (helper conv2): a contraction like dot_general, so it
	// fuses with nothing and runs as its own kernel (lower.FusionDot).
	OpConv: {Name: "conv_general_dilated", Class: ClassDot, Arity: 2, Check: checkConv},
}

// IsScatter reports whether op is one of the scatters.
func (op Op) IsScatter() bool { return op >= OpScatter && op <= OpScatterMax }

// ScatterCombiner is the elementwise op a scatter combines an operand
// element and an update with (OpAdd, OpMul, OpMin, OpMax), or OpInvalid
// for scatter, whose update replaces the element.
func (op Op) ScatterCombiner() Op {
	switch op {
	case OpScatterAdd:
		return OpAdd
	case OpScatterMul:
		return OpMul
	case OpScatterMin:
		return OpMin
	case OpScatterMax:
		return OpMax
	}
	return OpInvalid
}

// Info returns the table row of op.
func (op Op) Info() *OpInfo {
	if op >= numOps {
		return &ops[OpInvalid]
	}
	return &ops[op]
}

// String returns the op's printed name.
func (op Op) String() string {
	if op >= numOps {
		return fmt.Sprintf("Op(%d)", uint8(op))
	}
	return ops[op].Name
}

// Elementwise reports whether op maps equal-shaped operands to a result of
// that shape element by element.
func (op Op) Elementwise() bool {
	switch op.Info().Class {
	case ClassUnary, ClassBinary, ClassTernary:
		return true
	}
	return false
}

// AllOps returns every valid op in table order.
func AllOps() []Op {
	out := make([]Op, 0, NumOps-1)
	for op := OpInvalid + 1; op < numOps; op++ {
		out = append(out, op)
	}
	return out
}

// LookupOp finds an op by its printed name.
func LookupOp(name string) (Op, bool) {
	for op := OpInvalid + 1; op < numOps; op++ {
		if ops[op].Name == name {
			return op, true
		}
	}
	return OpInvalid, false
}
