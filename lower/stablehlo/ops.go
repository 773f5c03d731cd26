package stablehlo

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// The compositions of Export: each keeps one of Kiln's
// definitions (kernels/doc.go, internal/reference) where the StableHLO op
// differs or leaves a case undefined. Constants are splats of the shape
// they are used at, so no broadcast is needed.

func (b *shloBuilder) zero(t shloType) *shloVal { return b.splat(t, int64(0)) }
func (b *shloBuilder) one(t shloType) *shloVal  { return b.splat(t, int64(1)) }

// cmp compares with the comparison type StableHLO wants for the dtype:
// FLOAT (IEEE: NaN unordered, −0 == +0, as Kiln) for floats and complex,
// SIGNED, or UNSIGNED for unsigned integers and bool (false < true).
func (b *shloBuilder) cmp(dir string, x, y *shloVal) *shloVal {
	kind := "UNSIGNED"
	switch d := x.typ.dt; {
	case d.IsFloat() || d.IsComplex():
		kind = "FLOAT"
	case d.IsSigned():
		kind = "SIGNED"
	}
	return b.opA("compare", x.typ.with(tensor.Bool), []string{
		"comparison_direction = #stablehlo<comparison_direction " + dir + ">",
		"compare_type = #stablehlo<comparison_type " + kind + ">",
	}, x, y)
}

func (b *shloBuilder) sel(p, onTrue, onFalse *shloVal) *shloVal {
	return b.op("select", onTrue.typ, p, onTrue, onFalse)
}

// bin applies a binary op whose result has the operands' type.
func (b *shloBuilder) bin(name string, x, y *shloVal) *shloVal { return b.op(name, x.typ, x, y) }

func (b *shloBuilder) conv(x *shloVal, d tensor.DType) *shloVal {
	return b.op("convert", x.typ.with(d), x)
}

// intLimits are the smallest and largest values of an integer dtype, as
// int64 (signed) or uint64 (unsigned) for splat.
func intLimits(d tensor.DType) (lo, hi any) {
	if d.IsUnsigned() {
		return uint64(0), ^uint64(0) >> (64 - d.Bits())
	}
	m := int64(-1) << (d.Bits() - 1)
	return m, ^m
}

// lowest and highest are the identities of max and min: ∓inf, the integer
// limits, false and true; for a narrow float without infinities its
// extreme values (∓ its largest; f8e8m0fnu's smallest, 2⁻¹²⁷).
func lowest(d tensor.DType) any {
	if f, ok := d.FloatFormat(); ok && !f.HasInf() {
		if !f.Signed() {
			return f.ToFloat64(0)
		}
		return -float64(f.MaxFinite())
	}
	switch {
	case d.IsFloat():
		return math.Inf(-1)
	case d == tensor.Bool:
		return false
	}
	lo, _ := intLimits(d)
	return lo
}

func highest(d tensor.DType) any {
	if f, ok := d.FloatFormat(); ok && !f.HasInf() {
		return float64(f.MaxFinite())
	}
	switch {
	case d.IsFloat():
		return math.Inf(1)
	case d == tensor.Bool:
		return true
	}
	_, hi := intLimits(d)
	return hi
}

// convert is Kiln's convert (tensor.ConvertSlice).
func (x *shloInstr) convert(a *shloVal, to tensor.DType) *shloVal {
	from := a.typ.dt
	if f, ok := from.FloatFormat(); ok && !to.IsFloat() {
		// The limits a saturating convert compares with are not values
		// of a narrow float (2^4 in f4e2m1fn, 0 in f8e8m0fnu): go
		// through its exact f32 value for every non-float target,
		// the sub-byte integers too.
		x.note(f.String() + " widened exactly to f32 first")
		return x.convert(x.conv(a, tensor.F32), to)
	}
	switch {
	case from == to:
		x.note("a convert to the same dtype is the identity")
		return a
	case to == tensor.Bool && from != tensor.Bool:
		x.note("→ bool is x != 0 (NaN is true)")
		return x.cmp("NE", a, x.zero(a.typ))
	case from.IsComplex() && !to.IsComplex():
		x.note("complex → real keeps the real part")
		re := x.op("real", a.typ.with(from.RealPart()), a)
		if re.typ.dt == to {
			return re
		}
		return x.convert(re, to)
	case from.IsFloat() && to.IsInteger():
		return x.floatToInt(a, to)
	}
	return x.conv(a, to)
}

// floatToInt truncates toward zero and saturates, NaN → 0. The bounds are
// powers of two, exact in every float type or ±inf where they overflow it
// (2^16 in f16), which still compares right; the plain convert is only
// selected where it is in range.
func (x *shloInstr) floatToInt(a *shloVal, to tensor.DType) *shloVal {
	x.note("float → int truncates and saturates, NaN → 0 (StableHLO leaves out-of-range converts undefined)")
	t := a.typ.with(to)
	lo, hi := intLimits(to)
	conv := x.conv(a, to)
	bits := to.Bits()
	if to.IsUnsigned() {
		r := x.sel(x.cmp("GE", a, x.splat(a.typ, math.Ldexp(1, bits))), x.splat(t, hi), conv)
		return x.sel(x.cmp("GT", a, x.zero(a.typ)), r, x.zero(t)) // also NaN → 0
	}
	r := x.sel(x.cmp("GE", a, x.splat(a.typ, math.Ldexp(1, bits-1))), x.splat(t, hi), conv)
	r = x.sel(x.cmp("LE", a, x.splat(a.typ, -math.Ldexp(1, bits-1))), x.splat(t, lo), r)
	return x.sel(x.cmp("NE", a, a), x.zero(t), r)
}

func (x *shloInstr) maxMin(op trace.Op, a, c *shloVal) (*shloVal, error) {
	d := a.typ.dt
	switch {
	case d.IsComplex():
		return nil, errNoOrder
	case d == tensor.Bool && op == trace.OpMax:
		x.note("max of bools is or")
		return x.bin("or", a, c), nil
	case d == tensor.Bool:
		x.note("min of bools is and")
		return x.bin("and", a, c), nil
	case op == trace.OpMax:
		// IEEE 754-2019 maximum for floats by the StableHLO spec: Kiln's.
		return x.bin("maximum", a, c), nil
	}
	return x.bin("minimum", a, c), nil
}

func (x *shloInstr) unary(op trace.Op, a *shloVal) (*shloVal, error) {
	d := a.typ.dt
	switch op {
	case trace.OpAbs:
		switch {
		case d.IsFloat() || d.IsComplex():
			return x.op("abs", x.t, a), nil
		case d.IsSigned():
			x.note("abs(MIN) wraps to MIN (StableHLO may saturate it)")
			lo, _ := intLimits(d)
			return x.sel(x.cmp("EQ", a, x.splat(a.typ, lo)), a, x.op("abs", x.t, a)), nil
		}
		x.note("abs of an unsigned integer or bool is the identity")
		return a, nil
	case trace.OpSign:
		switch {
		case d.IsFloat():
			x.note("sign(±0) is +0 (stablehlo.sign keeps −0)")
			z := x.zero(a.typ)
			return x.sel(x.cmp("EQ", a, z), z, x.op("sign", x.t, a)), nil
		case d.IsSigned() || d.IsComplex():
			return x.op("sign", x.t, a), nil
		case d.IsUnsigned():
			x.note("sign of an unsigned integer is min(x, 1) (stablehlo.sign takes signed types)")
			return x.bin("minimum", a, x.one(a.typ)), nil
		}
	case trace.OpIsNaN:
		if d.IsFloat() || d.IsComplex() {
			x.note("isnan(x) is x != x")
			return x.cmp("NE", a, a), nil
		}
		x.note("integers and bools are never NaN")
		return x.splat(x.t, false), nil
	case trace.OpIsFinite:
		switch {
		case d.IsFloat():
			return x.op("is_finite", x.t, a), nil
		case d.IsComplex():
			x.note("finite when both parts are")
			pt := a.typ.with(d.RealPart())
			re, im := x.op("real", pt, a), x.op("imag", pt, a)
			return x.bin("and", x.op("is_finite", x.t, re), x.op("is_finite", x.t, im)), nil
		}
		x.note("integers and bools are always finite")
		return x.splat(x.t, true), nil
	case trace.OpReal:
		if d.IsComplex() {
			return x.op("real", x.t, a), nil
		}
		x.note("real of a real number is the identity")
		return a, nil
	case trace.OpImag:
		if d.IsComplex() {
			return x.op("imag", x.t, a), nil
		}
		x.note("imag of a real number is 0")
		return x.zero(x.t), nil
	case trace.OpConj:
		if d.IsComplex() {
			x.note("conj as complex(real(x), -imag(x)): StableHLO has no conj")
			pt := a.typ.with(d.RealPart())
			re, im := x.op("real", pt, a), x.op("imag", pt, a)
			return x.op("complex", x.t, re, x.op("negate", pt, im)), nil
		}
		x.note("conj of a real number is the identity")
		return a, nil
	}
	return nil, unsupported("no StableHLO lowering for %s on %s", op, d)
}

// intDivMod is Python's // and % on integers (floor semantics), with a
// zero divisor giving 0 and MIN // −1 wrapping to MIN: the divisor is
// replaced by 1 where stablehlo.divide would be undefined, then the
// truncated quotient and remainder are moved to floor semantics where the
// remainder is non-zero and its sign differs from the divisor's.
func (x *shloInstr) intDivMod(op trace.Op, a, c *shloVal) *shloVal {
	t := a.typ
	signed := t.dt.IsSigned()
	if op == trace.OpFloorDiv {
		x.note("floor division, x // 0 = 0, MIN // -1 = MIN (stablehlo.divide truncates and leaves those undefined)")
	} else {
		x.note("remainder with the divisor's sign, x % 0 = 0 (stablehlo.remainder truncates and leaves x % 0 undefined)")
	}
	zero, one := x.zero(t), x.one(t)
	byZero := x.cmp("EQ", c, zero)
	bad := byZero
	if signed {
		lo, _ := intLimits(t.dt)
		overflow := x.bin("and", x.cmp("EQ", a, x.splat(t, lo)), x.cmp("EQ", c, x.splat(t, int64(-1))))
		bad = x.bin("or", byZero, overflow)
	}
	div := x.sel(bad, one, c)
	var r *shloVal
	if op == trace.OpFloorDiv {
		r = x.bin("divide", a, div)
	} else {
		r = x.bin("remainder", a, div)
	}
	if signed {
		rem := r
		if op == trace.OpFloorDiv {
			rem = x.bin("remainder", a, div)
		}
		signsDiffer := x.bin("xor", x.cmp("LT", rem, zero), x.cmp("LT", div, zero))
		adjust := x.bin("and", x.cmp("NE", rem, zero), signsDiffer)
		if op == trace.OpFloorDiv {
			r = x.sel(adjust, x.bin("subtract", r, one), r)
		} else {
			r = x.sel(adjust, x.bin("add", r, div), r)
		}
	}
	return x.sel(byZero, zero, r)
}

// floatDivMod is NumPy's npy_divmod op for op, from stablehlo.remainder
// (C's fmod: exact, with the dividend's sign); f16 and bf16 compute in f32
// and round once at the end, as Kiln does.
func (x *shloInstr) floatDivMod(op trace.Op, a, c *shloVal) *shloVal {
	narrow := halfLike(a.typ.dt)
	if op == trace.OpFloorDiv {
		x.note("NumPy's floor division (npy_divmod) from fmod (stablehlo.remainder)")
	} else {
		x.note("NumPy's remainder (npy_divmod): fmod moved to the divisor's sign, a zero remainder signed as the divisor")
	}
	if narrow {
		x.note("computed in f32, rounded once")
		a, c = x.conv(a, tensor.F32), x.conv(c, tensor.F32)
	}
	t := a.typ
	zero, one := x.zero(t), x.one(t)
	mod := x.bin("remainder", a, c)
	modNonZero := x.cmp("NE", mod, zero) // true for NaN, as C's if (mod)
	divisorNeg := x.cmp("LT", c, zero)
	adjust := x.bin("and", modNonZero, x.bin("xor", divisorNeg, x.cmp("LT", mod, zero)))
	var r *shloVal
	if op == trace.OpRem {
		moved := x.sel(adjust, x.bin("add", mod, c), mod)
		signedZero := x.sel(divisorNeg, x.splat(t, math.Copysign(0, -1)), zero)
		r = x.sel(modNonZero, moved, signedZero)
		r = x.sel(x.cmp("EQ", c, zero), x.splat(t, math.NaN()), r) // fmod(x, 0)
	} else {
		div := x.bin("divide", x.bin("subtract", a, mod), c)
		div = x.sel(adjust, x.bin("subtract", div, one), div)
		floor := x.op("floor", t, div)
		floor = x.sel(x.cmp("GT", x.bin("subtract", div, floor), x.splat(t, 0.5)), x.bin("add", floor, one), floor)
		q := x.bin("divide", a, c)
		// A zero quotient takes the sign of a / b, read from its sign bit
		// (a compare cannot tell −0 from +0).
		bits := x.op("bitcast_convert", t.with(map[tensor.DType]tensor.DType{tensor.F32: tensor.I32, tensor.F64: tensor.I64}[t.dt]), q)
		signedZero := x.sel(x.cmp("LT", bits, x.zero(bits.typ)), x.splat(t, math.Copysign(0, -1)), zero)
		r = x.sel(x.cmp("NE", div, zero), floor, signedZero)
		r = x.sel(x.cmp("EQ", c, zero), q, r)
	}
	if narrow {
		r = x.conv(r, x.t.dt)
	}
	return r
}

// intPow is x**y with wraparound; a negative exponent gives 0 except for
// x = 1 (1) and x = −1 (±1 by parity), where stablehlo.power is undefined.
func (x *shloInstr) intPow(a, c *shloVal) *shloVal {
	x.note("a negative exponent gives 0, or ±1 for bases ±1 (stablehlo.power leaves it undefined)")
	t := a.typ
	zero, one, minusOne := x.zero(t), x.one(t), x.splat(t, int64(-1))
	pow := x.bin("power", a, c)
	odd := x.cmp("NE", x.bin("and", c, one), zero)
	ofMinusOne := x.sel(odd, minusOne, one)
	negative := x.sel(x.cmp("EQ", a, one), one, x.sel(x.cmp("EQ", a, minusOne), ofMinusOne, zero))
	return x.sel(x.cmp("LT", c, zero), negative, pow)
}

// shift is << and >>: counts outside [0, width), which StableHLO does not
// define, give 0 for shl and the sign fill for shr.
func (x *shloInstr) shift(op trace.Op, a, c *shloVal) *shloVal {
	t := a.typ
	width := int64(t.dt.Bits())
	zero := x.zero(t)
	inRange := x.cmp("LT", c, x.splat(t, width))
	if t.dt == tensor.I2 {
		inRange = x.cmp("LE", c, x.splat(t, width-1)) // 2 is no i2
	}
	if t.dt.IsSigned() {
		inRange = x.bin("and", x.cmp("GE", c, zero), inRange)
	}
	switch {
	case op == trace.OpShl:
		x.note("a shift count outside [0, width) gives 0")
		return x.sel(inRange, x.bin("shift_left", a, c), zero)
	case t.dt.IsSigned():
		x.note("arithmetic; a shift count outside [0, width) fills with the sign bit")
		return x.sel(inRange, x.bin("shift_right_arithmetic", a, c), x.bin("shift_right_arithmetic", a, x.splat(t, width-1)))
	}
	x.note("logical; a shift count outside [0, width) gives 0")
	return x.sel(inRange, x.bin("shift_right_logical", a, c), zero)
}

// dropAxes is shape without the given axes.
func dropAxes(shape, axes []int) []int {
	var out []int
	for i, n := range shape {
		if !slices.Contains(axes, i) {
			out = append(out, n)
		}
	}
	return out
}

// reduce is reduce_sum, _prod, _max or _min: a stablehlo.reduce with its
// identity as the initial value, then a reshape for keepdims.
func (x *shloInstr) reduce(op trace.Op, a *shloVal) (*shloVal, error) {
	d := a.typ.dt
	axes := x.in.Params.Axes
	if d.IsComplex() && (op == trace.OpReduceMax || op == trace.OpReduceMin) {
		return nil, errNoOrder
	}
	src := a
	narrow := halfLike(d) && (op == trace.OpReduceSum || op == trace.OpReduceProd)
	if narrow {
		x.note("accumulates in f32, rounds once")
		src = x.conv(a, tensor.F32)
	}
	st := src.typ.scalar()
	var init any
	var body string
	switch op {
	case trace.OpReduceSum:
		// +0, as Kiln's float sums are +0 + the tree of the elements:
		// a sum of −0s is +0, as is the sum of nothing.
		init, body = int64(0), "add"
	case trace.OpReduceProd:
		init, body = int64(1), "multiply"
	case trace.OpReduceMax:
		init, body = lowest(st.dt), "maximum"
	default:
		init, body = highest(st.dt), "minimum"
	}
	if st.dt == tensor.Bool {
		body = map[string]string{"add": "or", "maximum": "or", "multiply": "and", "minimum": "and"}[body]
	}
	region := x.region(x.prefix+"_r", []shloType{st, st}, func(r *shloBuilder, args []*shloVal) {
		r.ret(r.bin(body, args[0], args[1]))
	})
	rt := shloType{st.dt, dropAxes(a.typ.shape, axes)}
	res := x.opN("reduce", []shloType{rt}, []string{"dimensions = " + i64s(axes)}, region, src, x.splat(st, init))[0]
	if narrow {
		res = x.conv(res, d)
	}
	if x.in.Params.KeepDims {
		res = x.op("reshape", x.t, res)
	}
	return res, nil
}

// argReduce is argmax or argmin over one axis: a two-operand reduce of
// (value, index) pairs over an iota, as XLA lowers them. The comparator
// picks the better pair under a total order — a greater (lesser) value,
// NaN above everything, the smaller index between equal values or two NaNs
// — so the first maximum wins whatever order the reduction runs in.
func (x *shloInstr) argReduce(op trace.Op, a *shloVal) (*shloVal, error) {
	axes := x.in.Params.Axes
	if len(axes) != 1 {
		return nil, unsupported("%s over %d axes (want one)", op, len(axes))
	}
	d := a.typ.dt
	if d.IsComplex() {
		return nil, errNoOrder
	}
	x.note("a (value, index) reduce over an iota: the first extreme wins, NaN counts as the extreme, the first NaN wins")
	dir, init := "GT", lowest(d)
	if op == trace.OpArgMin {
		dir, init = "LT", highest(d)
	}
	it := a.typ.with(x.t.dt)
	iota := x.opA("iota", it, []string{fmt.Sprintf("iota_dimension = %d : i64", axes[0])})
	vs, is := a.typ.scalar(), it.scalar()
	region := x.region(x.prefix+"_r", []shloType{vs, is, vs, is}, func(r *shloBuilder, args []*shloVal) {
		av, ai, bv, bi := args[0], args[1], args[2], args[3]
		lessIndex := r.cmp("LT", bi, ai)
		pick := r.bin("or", r.cmp(dir, bv, av), r.bin("and", r.cmp("EQ", bv, av), lessIndex))
		if d.IsFloat() {
			aNaN, bNaN := r.cmp("NE", av, av), r.cmp("NE", bv, bv)
			pick = r.bin("or", pick, r.bin("and", bNaN, r.bin("or", r.op("not", aNaN.typ, aNaN), lessIndex)))
		}
		r.ret(r.sel(pick, bv, av), r.sel(pick, bi, ai))
	})
	shape := dropAxes(a.typ.shape, axes)
	res := x.opN("reduce", []shloType{{d, shape}, {x.t.dt, shape}}, []string{"dimensions = " + i64s(axes)}, region,
		a, iota, x.splat(vs, init), x.zero(is))
	return res[1], nil
}

// dot is dot_general with Kiln's dimension numbers; f16 and bf16 operands
// are widened to f32 (Kiln accumulates in f32 and rounds once) and bool is
// an f32 dot compared with 0 (a sum of non-negative terms is positive iff
// some term is, in any order and rounding). bf16 × bf16 → f32 (a
// preferred_element_type lowering keeps) is StableHLO's own mixed
// dot_general, as JAX emits it. Kiln's bf16 dot takes k in pairs with
// subnormals flushed (docs/SPEC.md §3); StableHLO leaves the order and
// denormal handling to the implementation.
func (x *shloInstr) dot(a, c *shloVal) *shloVal {
	dims := x.in.Params.Dot
	var fields []string
	for _, f := range []struct {
		name string
		dims []int
	}{{"lhs_batching_dimensions", dims.LhsBatch}, {"rhs_batching_dimensions", dims.RhsBatch},
		{"lhs_contracting_dimensions", dims.LhsContract}, {"rhs_contracting_dimensions", dims.RhsContract}} {
		if len(f.dims) > 0 {
			fields = append(fields, f.name+" = "+i64list(f.dims))
		}
	}
	attrs := []string{"dot_dimension_numbers = #stablehlo.dot<" + strings.Join(fields, ", ") + ">"}
	switch d := x.t.dt; {
	case halfLike(d), d == tensor.Bool:
		switch d {
		case tensor.Bool:
			x.note("or of ands, as an f32 dot_general > 0")
		case tensor.BF16:
			x.note("accumulates in f32 (Kiln: in k pairs, subnormals flushed), rounds once")
		default:
			x.note("accumulates in f32, rounds once")
		}
		r := x.opA("dot_general", x.t.with(tensor.F32), attrs, x.conv(a, tensor.F32), x.conv(c, tensor.F32))
		if d == tensor.Bool {
			return x.cmp("GT", r, x.zero(r.typ))
		}
		return x.conv(r, d)
	}
	if a.typ.dt == tensor.BF16 && x.t.dt == tensor.F32 {
		x.note("bf16 products accumulated in f32 (Kiln: in k pairs, subnormals flushed)")
	}
	return x.opA("dot_general", x.t, attrs, a, c)
}

// convolution is conv_general_dilated, its dimension numbers in
// StableHLO's raw form; f16 and bf16 operands are widened to f32 (Kiln
// accumulates in f32 and rounds once), and bf16 × bf16 → f32 (a
// preferred_element_type lowering keeps) is StableHLO's own mixed
// convolution, as dot. Kiln's bf16 convolution takes its K order in pairs
// with subnormals flushed, as its bf16 dot (docs/SPEC.md §3); StableHLO
// leaves the order and denormal handling to the implementation.
func (x *shloInstr) convolution(a, c *shloVal) *shloVal {
	p := x.in.Params.Conv
	dn := fmt.Sprintf("#stablehlo.conv<raw input_batch_dimension = %d, input_feature_dimension = %d, input_spatial_dimensions = %s, "+
		"kernel_input_feature_dimension = %d, kernel_output_feature_dimension = %d, kernel_spatial_dimensions = %s, "+
		"output_batch_dimension = %d, output_feature_dimension = %d, output_spatial_dimensions = %s>",
		p.LhsSpec[0], p.LhsSpec[1], i64list(p.LhsSpec[2:]), p.RhsSpec[1], p.RhsSpec[0], i64list(p.RhsSpec[2:]),
		p.OutSpec[0], p.OutSpec[1], i64list(p.OutSpec[2:]))
	pads := make([]string, len(p.PadLo))
	for i := range pads {
		pads[i] = fmt.Sprintf("[%d, %d]", p.PadLo[i], p.PadHi[i])
	}
	padding := "dense<[" + strings.Join(pads, ", ") + "]>"
	if len(pads) == 0 {
		padding = "dense<>"
	}
	attrs := []string{
		"batch_group_count = 1 : i64",
		"dimension_numbers = " + dn,
		fmt.Sprintf("feature_group_count = %d : i64", p.FeatureGroupCount),
		"lhs_dilation = " + i64s(p.LhsDilation),
		fmt.Sprintf("padding = %s : tensor<%dx2xi64>", padding, len(pads)),
		"rhs_dilation = " + i64s(p.RhsDilation),
		"window_strides = " + i64s(p.Strides),
	}
	if d := x.t.dt; halfLike(d) {
		if d == tensor.BF16 {
			x.note("accumulates in f32 (Kiln: in k pairs, subnormals flushed), rounds once")
		} else {
			x.note("accumulates in f32, rounds once")
		}
		r := x.opA("convolution", x.t.with(tensor.F32), attrs, x.conv(a, tensor.F32), x.conv(c, tensor.F32))
		return x.conv(r, d)
	}
	if a.typ.dt == tensor.BF16 && x.t.dt == tensor.F32 {
		x.note("bf16 products accumulated in f32 (Kiln: in k pairs, subnormals flushed)")
	}
	return x.opA("convolution", x.t, attrs, a, c)
}

// halfLike reports the float dtypes Kiln computes in f32 and rounds: f16,
// bf16 and the narrow floats.
func halfLike(d tensor.DType) bool {
	return d == tensor.F16 || d == tensor.BF16 || d.IsNarrow() && d.IsFloat()
}
