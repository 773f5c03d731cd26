package trace

// rules is the derivative of every op, keyed by Op beside the op table
// (op.go): the JVP rule (or Zero, Linear, NotDifferentiable) and, for the
// ops that can be linear in a tangent, the transpose rule (see ad.go).
// TestEveryOpHasARule fails for an op without an entry.
//
// The rules are JAX's (jax/_src/lax/lax.py and friends), term for term, so
// gradients agree with JAX's to the rounding of the same operations:
// e.g. tanh's tangent is (t + t·y)·(1 − y), maximum splits ties in half,
// reduce_max divides the tangent among all the maxima.
//
// The table is filled in init because the rules call the builder, which
// reads the op table: a package-level initializer would be a cycle.
var rules [numOps]Rule

func init() {
	rules = [numOps]Rule{
		OpInvalid: {NotDifferentiable: "invalid op"},
		OpParam:   {Zero: true}, // an input's tangent is given, never derived
		OpConst:   {Zero: true},

		OpConvert:  {Linear: true, Transpose: transposeConvert},
		OpNeg:      {Linear: true, Transpose: func(c *Call, ct Value) []Value { return []Value{ct.Neg()} }},
		OpAbs:      {JVP: jvpAbs},
		OpSign:     {Zero: true},
		OpExp:      {JVP: partials(func(c *Call, t Value) Value { return t.Mul(c.Out) })},
		OpLog:      {JVP: partials(func(c *Call, t Value) Value { return t.Div(c.In[0]) })},
		OpLog1p:    {JVP: partials(func(c *Call, t Value) Value { return t.Div(c.In[0].Add(one(c.In[0]))) })},
		OpExpm1:    {JVP: partials(func(c *Call, t Value) Value { return t.Mul(c.Out.Add(one(c.Out))) })},
		OpSqrt:     {JVP: partials(func(c *Call, t Value) Value { return t.Mul(Scalar(c.Out, 0.5).Div(c.Out)) })},
		OpRsqrt:    {JVP: partials(func(c *Call, t Value) Value { return t.Mul(Scalar(c.Out, -0.5).Mul(c.Out.Div(c.In[0]))) })},
		OpSin:      {JVP: partials(func(c *Call, t Value) Value { return t.Mul(c.In[0].Cos()) })},
		OpCos:      {JVP: partials(func(c *Call, t Value) Value { return t.Mul(c.In[0].Sin()).Neg() })},
		OpTan:      {JVP: partials(func(c *Call, t Value) Value { return t.Mul(one(c.Out).Add(c.Out.Mul(c.Out))) })},
		OpTanh:     {JVP: partials(func(c *Call, t Value) Value { return t.Add(t.Mul(c.Out)).Mul(one(c.Out).Sub(c.Out)) })},
		OpLogistic: {JVP: partials(func(c *Call, t Value) Value { return t.Mul(c.Out.Mul(one(c.Out).Sub(c.Out))) })},
		OpFloor:    {Zero: true},
		OpCeil:     {Zero: true},
		OpRound:    {Zero: true},
		OpIsNaN:    {Zero: true},
		OpIsFinite: {Zero: true},
		OpReal:     {Linear: true, Transpose: transposeReal},
		OpImag:     {JVP: jvpImag, Transpose: transposeImag},
		OpConj:     {Linear: true, Transpose: func(c *Call, ct Value) []Value { return []Value{ct.Conj()} }},
		OpNot:      {Zero: true},

		OpAdd:      {JVP: partials(tangentOf, tangentOf), Transpose: transposeAdd},
		OpSub:      {JVP: partials(tangentOf, func(c *Call, t Value) Value { return t.Neg() }), Transpose: transposeSub},
		OpMul:      {JVP: partials(func(c *Call, t Value) Value { return t.Mul(c.In[1]) }, func(c *Call, t Value) Value { return c.In[0].Mul(t) }), Transpose: transposeMul},
		OpDiv:      {JVP: partials(func(c *Call, t Value) Value { return t.Div(c.In[1]) }, jvpDivisor), Transpose: transposeDiv},
		OpFloorDiv: {Zero: true},
		OpRem:      {JVP: partials(tangentOf, jvpRemDivisor)},
		OpPow:      {JVP: partials(jvpPowBase, jvpPowExponent)},
		OpMax:      {JVP: partials(jvpChosen(0), jvpChosen(1))},
		OpMin:      {JVP: partials(jvpChosen(0), jvpChosen(1))},
		OpAnd:      {Zero: true},
		OpOr:       {Zero: true},
		OpXor:      {Zero: true},
		OpShl:      {Zero: true},
		OpShr:      {Zero: true},
		OpEq:       {Zero: true},
		OpNe:       {Zero: true},
		OpLt:       {Zero: true},
		OpLe:       {Zero: true},
		OpGt:       {Zero: true},
		OpGe:       {Zero: true},

		OpSelect: {JVP: jvpSelect, Transpose: transposeSelect},

		OpBroadcastInDim: {Linear: true, Transpose: transposeBroadcast},
		OpReshape:        {Linear: true, Transpose: func(c *Call, ct Value) []Value { return []Value{ct.Reshape(c.Eqn.Args[0].Shape...)} }},
		OpTranspose:      {Linear: true, Transpose: func(c *Call, ct Value) []Value { return []Value{ct.Transpose(inversePerm(c.Eqn.Params.Perm)...)} }},
		OpSlice:          {Linear: true, Transpose: transposeSlice},
		OpConcat:         {Linear: true, Transpose: transposeConcat},

		OpReduceSum:  {Linear: true, Transpose: transposeReduceSum},
		OpReduceProd: {JVP: jvpReduceProd},
		OpReduceMax:  {JVP: jvpReduceChooser},
		OpReduceMin:  {JVP: jvpReduceChooser},
		OpArgMax:     {Zero: true},
		OpArgMin:     {Zero: true},

		OpDot: {JVP: partials(jvpDotLHS, jvpDotRHS), Transpose: transposeDot},

		// Indexing (helper opsindex; rules_index.go).
		OpRev:                {Linear: true, Transpose: transposeRev},
		OpGather:             {JVP: jvpGather, Transpose: transposeGather},
		OpScatter:            {JVP: jvpScatter},
		OpScatterAdd:         {JVP: jvpScatterAdd, Transpose: transposeScatterAdd},
		OpScatterMul:         {JVP: jvpScatterMul, Transpose: transposeScatterMul},
		OpScatterMin:         {JVP: jvpScatterExtremal},
		OpScatterMax:         {JVP: jvpScatterExtremal},
		OpDynamicSlice:       {JVP: jvpDynamicSlice, Transpose: transposeDynamicSlice},
		OpDynamicUpdateSlice: {JVP: jvpDynamicUpdateSlice, Transpose: transposeDynamicUpdateSlice},

		// Control flow (rules_control.go).
		OpWhile:  {JVP: jvpControlFirst, Transpose: transposeControlFirst},
		OpCond:   {JVP: jvpControlFirst, Transpose: transposeControlFirst},
		OpResult: {JVP: jvpResult},
		// Sorting (helper sortscan2; rules_sort.go).
		OpSort: {JVP: jvpSort},
		// Convolution (helper conv2; rules_conv.go).
		OpConv: {JVP: partials(jvpConvLHS, jvpConvRHS), Transpose: transposeConv},
	}
	for op, r := range mathRules() {
		rules[op] = r
	}
}
