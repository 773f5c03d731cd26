package promote

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/kiln-go/kiln/tensor"
)

// A rule set is more than its binary table: each framework also decides
// what rank does to promotion, which dtypes untyped values take, what true
// division and float functions do to integers, what reductions accumulate
// in and what an out-of-range integer literal does. A Profile is that whole
// framework; Config's methods (ResultTypeRanked, TrueDivType, FloatFuncType,
// SumType, ProdType, CumsumType, MeanType, IntLiteral) read it.

// RankRule says whether an operand's rank takes part in promotion.
type RankRule uint8

const (
	// RankIgnored: a rank-0 array promotes as any array (JAX; NumPy under
	// NEP 50, where only Python scalars are weak).
	RankIgnored RankRule = iota
	// RankCategory: PyTorch's three categories. Tensors of rank ≥ 1,
	// rank-0 tensors and Python scalars (Kiln's weak values) are each
	// promoted among themselves by the table; then a lower category
	// changes the result only if it is of a higher kind (bool < integer <
	// float < complex), and a complex lower category turns a float result
	// into the complex of the float's width.
	RankCategory
)

// FloatRule says which float dtype an operation that needs one (true
// division, exp, sin, sqrt, mean, …) computes bool and integers in. Floats
// and complex numbers are never changed.
type FloatRule uint8

const (
	// FloatByWidth: bool and integers of up to 32 bits give f32, 64-bit
	// integers give f64; Kiln's rule for jax.numpy (docs/SPEC.md §2).
	FloatByWidth FloatRule = iota
	// FloatTFDivide: bool and 8- and 16-bit integers give f32, 32- and
	// 64-bit integers give f64 (TensorFlow's tf.math.truediv).
	FloatTFDivide
	// FloatDefault: bool and every integer give the default float
	// (PyTorch's torch.get_default_dtype(); NumPy's true division and
	// mean: f64).
	FloatDefault
	// FloatSmallestSafe: the smallest float that holds every value of the
	// integer type, as NumPy's ufunc loop search finds it: bool, i8 and u8
	// give f16, i16 and u16 give f32, wider integers give f64.
	FloatSmallestSafe
	// FloatRefused: bool and integers are an error; the caller converts
	// explicitly (PyTorch's mean, jax.lax, TensorFlow's float functions).
	FloatRefused
)

// AccumRule says which dtype sum, prod and cumsum of bool and integers
// return. Floats and complex numbers keep their dtype (f16 and bf16
// accumulate in f32 and round once).
type AccumRule uint8

const (
	// AccumDefaultWidth: bool and signed integers narrower than the default
	// int give the default int, unsigned integers narrower than the default
	// uint give the default uint (jax.numpy, NumPy).
	AccumDefaultWidth AccumRule = iota
	// AccumDefaultInt: bool and every integer, signed or not, give the
	// default int (PyTorch: u8 sums to i64).
	AccumDefaultInt
	// AccumKeep: the operand's own dtype, integer sums wrapping (jax.lax,
	// TensorFlow); bool, which neither sums, counts in the default int.
	AccumKeep
)

// LiteralRule says what an integer literal (a weak int) does when the dtype
// it is promoted to cannot hold it.
type LiteralRule uint8

const (
	// LiteralError: an *OverflowError (JAX; NumPy under NEP 50 raises
	// OverflowError "Python integer 1000 out of bounds for uint8").
	LiteralError LiteralRule = iota
	// LiteralWrap: the literal wraps modulo 2^bits into the dtype, as a C
	// cast does (PyTorch: a u8 tensor + 1000 adds 232).
	LiteralWrap
	// (No profile widens — u8 + 1000 → u16 is NumPy's legacy value-based
	// casting, which NEP 50 and so the numpy profile replace.)
)

var floatRuleNames = [...]string{"by width (≤32-bit ints → f32, 64-bit → f64)", "by width (≤16-bit ints → f32, wider → f64)", "the default float", "the smallest float holding the int (8-bit → f16, 16-bit → f32, wider → f64)", "refused (convert explicitly)"}
var accumRuleNames = [...]string{"narrow ints → the default int (unsigned → the default uint)", "bool and all ints → the default int", "the operand's dtype (bool → the default int)"}
var literalRuleNames = [...]string{"error", "wrap"}
var rankRuleNames = [...]string{"ignored (a 0-dim array is an array)", "categories (ndim ≥ 1 tensors, 0-dim tensors, Python scalars)"}

func (r FloatRule) String() string   { return floatRuleNames[r] }
func (r AccumRule) String() string   { return accumRuleNames[r] }
func (r LiteralRule) String() string { return literalRuleNames[r] }
func (r RankRule) String() string    { return rankRuleNames[r] }

// Profile is a rule set's whole framework: its table (the RuleSet) and the
// rules around it. Profiles are values; get one with Config.Profile.
type Profile struct {
	Rules *RuleSet
	X32   bool
	// Source cites where the rules come from.
	Source string
	// The dtypes of Python ints, floats and complex numbers (weak values)
	// and of default-width results such as integer sums.
	DefaultInt, DefaultUint, DefaultFloat, DefaultComplex tensor.DType
	Rank                                                  RankRule
	TrueDiv, FloatFunc, Mean                              FloatRule
	Sum, Prod, Cumsum                                     AccumRule
	Literal                                               LiteralRule
	// WhereStrongScalars: where's branches take Python scalars as strong
	// arrays of the default dtype of their kind (NumPy's np.where calls
	// np.asarray: np.where(c, u8, 1) is i64), not as weak values.
	WhereStrongScalars bool
	// IntRefusingFuncs are float functions that refuse bool and integer
	// operands instead of following FloatFunc (PyTorch's hypot and
	// logaddexp have no integer kernels and no promotion to float).
	IntRefusingFuncs []string
	// Notes says what Kiln chose where the source is silent.
	Notes []string
}

// Profile returns the profile of the configured rule set. X32 narrows each
// 64-bit default (i64, u64, f64, c128) to 32 bits in every profile, as
// JAX's x64 flag does; PyTorch's f32 and c64 defaults are already 32-bit.
func (c Config) Profile() Profile {
	p := *c.profile()
	p.IntRefusingFuncs, p.Notes = slices.Clone(p.IntRefusingFuncs), slices.Clone(p.Notes)
	return p
}

// UsesRank reports whether the profile's promotion depends on operand
// ranks (RankCategory: torch), so that callers with shapes should use
// ResultTypeRanked.
func (c Config) UsesRank() bool { return c.profile().Rank != RankIgnored }

// WhereStrongScalars reports whether where's branches take Python scalars
// as strong arrays (numpy: np.where calls np.asarray).
func (c Config) WhereStrongScalars() bool { return c.profile().WhereStrongScalars }

// profile is the cached profile of c's rule set and width.
func (c Config) profile() *Profile {
	profilesOnce.Do(func() {
		for _, r := range ruleSets {
			p := baseProfile(r)
			q := p
			q.X32 = true
			for _, d := range []*tensor.DType{&q.DefaultInt, &q.DefaultUint, &q.DefaultFloat, &q.DefaultComplex} {
				switch *d {
				case tensor.I64:
					*d = tensor.I32
				case tensor.U64:
					*d = tensor.U32
				case tensor.F64:
					*d = tensor.F32
				case tensor.C128:
					*d = tensor.C64
				}
			}
			profiles[r] = [2]*Profile{&p, &q}
		}
	})
	ps, ok := profiles[c.RuleSet()]
	if !ok { // not a registered rule set: JAX's per-op rules
		p := baseProfile(c.RuleSet())
		return &p
	}
	if c.X32 {
		return ps[1]
	}
	return ps[0]
}

var (
	profilesOnce sync.Once
	profiles     = map[*RuleSet][2]*Profile{}
)

func baseProfile(r *RuleSet) Profile {
	p := Profile{Rules: r, DefaultInt: tensor.I64, DefaultUint: tensor.U64, DefaultFloat: tensor.F64, DefaultComplex: tensor.C128}
	switch r {
	case JAX, Strict:
		p.Source = "jax/_src/dtypes.py and jax/_src/numpy (promote_args_inexact, reductions); seeds 000, 004; docs/SPEC.md §2"
		p.Notes = []string{"true division and float functions of ints ≤ 32 bits give f32 where jax.numpy with x64 gives f64 (docs/SPEC.md §2)"}
	case NumPy:
		p.Source = "NumPy 1.24 with np._set_promotion_state('weak') (NEP 50; NumPy 2's default): numpy/core/code_generators/generate_umath.py loops, np.add.reduce, np.mean"
		p.TrueDiv, p.FloatFunc, p.Mean = FloatDefault, FloatSmallestSafe, FloatDefault
		p.WhereStrongScalars = true
		p.Notes = []string{"rank is ignored: under NEP 50 only Python scalars are weak; a 0-dim array is strong like any array",
			"np.where is no ufunc: it converts a Python scalar with np.asarray, so the scalar is strong there (np.where(c, u8, 1) → i64), and so it is in Kiln's where under this profile"}
	case Torch:
		p.Source = "PyTorch 1.13: aten/src/ATen/native/TypeProperties.cpp (ResultTypeState, combine_categories), torch.get_default_dtype() = f32, sum/prod/cumsum of integral types → int64, mean refuses integers"
		p.DefaultFloat, p.DefaultComplex = tensor.F32, tensor.C64
		p.Rank = RankCategory
		p.TrueDiv, p.FloatFunc, p.Mean = FloatDefault, FloatDefault, FloatRefused
		p.Sum, p.Prod, p.Cumsum = AccumDefaultInt, AccumDefaultInt, AccumDefaultInt
		p.Literal = LiteralWrap
		p.IntRefusingFuncs = []string{"hypot", "logaddexp"}
		p.Notes = []string{"a float16 with a complex operand of a lower category gives PyTorch's complex32, which Kiln has no dtype for: a *PromotionError",
			"PyTorch has no u16, u32 or u64 (1.13): those operands are errors, as in the table",
			"Python scalar × Python scalar is torch.result_type's (1.0, 2.0 → f32, weak); the seed table's f* × f* = f64 and c* × c* = c128 disagree with PyTorch 1.13 and are kept only as the table (kiln table, kiln check)"}
	case TensorFlow:
		p.Source = "the seed table (jax-type-promotion-design.md, appendix); the rest is TensorFlow 2's documented ops, chosen by Kiln: tf.math.truediv, tf.reduce_sum, tf.convert_to_tensor"
		p.DefaultInt, p.DefaultFloat = tensor.I32, tensor.F32
		p.TrueDiv, p.FloatFunc, p.Mean = FloatTFDivide, FloatRefused, FloatRefused
		p.Sum, p.Prod, p.Cumsum = AccumKeep, AccumKeep, AccumKeep
		p.Notes = []string{"defaults are tf.constant's: 1 → int32, 1.0 → float32, 1j → complex128",
			"true division is tf.math.truediv: 8- and 16-bit ints → f32, 32- and 64-bit ints → f64",
			"float functions (tf.exp, …) have no integer kernels: refused",
			"tf.reduce_mean of ints divides in the integer type (truncating); Kiln refuses rather than truncate silently",
			"reduce_sum, reduce_prod and cumsum keep the dtype (and wrap); an out-of-range literal is an error, as tf.convert_to_tensor(1000, tf.uint8) is"}
	case Lax:
		p.Source = "jax.lax (jax/_src/lax/lax.py): no implicit promotion, no implicit int → float"
		p.TrueDiv, p.FloatFunc, p.Mean = FloatRefused, FloatRefused, FloatRefused
		p.Sum, p.Prod, p.Cumsum = AccumKeep, AccumKeep, AccumKeep
		p.Notes = []string{"lax.div of integers rounds toward zero in the integer type and lax.exp refuses integers; Kiln's true division and float functions refuse them: convert explicitly",
			"lax.reduce_sum and lax.cumsum keep the dtype"}
	case Anvil:
		p.Source = "anvil's type-casting vignette (seed 001): the tables and the literal defaults (double → f32, integer → i32, logical → i1); the rest chosen by Kiln"
		p.DefaultInt, p.DefaultUint, p.DefaultFloat, p.DefaultComplex = tensor.I32, tensor.U32, tensor.F32, tensor.C64
		p.TrueDiv, p.FloatFunc, p.Mean = FloatDefault, FloatDefault, FloatDefault
		p.Notes = []string{"anvil is 'inspired by JAX' and prefers speed to precision (i64 with f32 gives f32): ints go to its default float f32 in division, float functions and mean",
			"sums accumulate as jax.numpy's at anvil's default widths (i32, u32); an out-of-range literal is an error, as in JAX",
			"anvil has no complex dtypes: DefaultComplex is unused"}
	}
	return p
}

// Ops lists the per-op part of the profile as name/rule rows, for
// `kiln table --ops`.
func (p Profile) Ops() [][2]string {
	d := func(ts ...tensor.DType) string {
		s := make([]string, len(ts))
		for i, t := range ts {
			s[i] = t.String()
		}
		return strings.Join(s, " ")
	}
	return [][2]string{
		{"defaults (int uint float complex)", d(p.DefaultInt, p.DefaultUint, p.DefaultFloat, p.DefaultComplex)},
		{"rank", p.Rank.String()},
		{"true division of ints", p.TrueDiv.String()},
		{"float functions of ints", p.FloatFunc.String()},
		{"sum of ints", p.Sum.String()},
		{"prod of ints", p.Prod.String()},
		{"cumsum of ints", p.Cumsum.String()},
		{"mean of ints", p.Mean.String()},
		{"out-of-range int literal", p.Literal.String()},
		{"float functions refusing ints", strings.Join(p.IntRefusingFuncs, " ")},
		{"where's scalar branches", map[bool]string{false: "weak, as in the binary ops", true: "strong arrays of the default dtypes"}[p.WhereStrongScalars]},
	}
}

// String prints the profile: the rule set, its source, the per-op rules
// with an example dtype for each, and the notes.
func (p Profile) String() string {
	var b strings.Builder
	x := ""
	if p.X32 {
		x = " (x32)"
	}
	fmt.Fprintf(&b, "%s%s: %s\nsource: %s\n", p.Rules.Name(), x, p.Rules.Summary(), p.Source)
	c := Config{Rules: p.Rules, X32: p.X32}
	examples := map[string]string{
		"true division of ints":   c.exampleRow(c.TrueDivType),
		"float functions of ints": c.exampleRow(c.FloatFuncType),
		"sum of ints":             c.exampleRow(func(t Type) (Type, error) { return c.SumType(t), nil }),
		"prod of ints":            c.exampleRow(func(t Type) (Type, error) { return c.ProdType(t), nil }),
		"cumsum of ints":          c.exampleRow(func(t Type) (Type, error) { return c.CumsumType(t), nil }),
		"mean of ints":            c.exampleRow(c.MeanType),
	}
	for _, row := range p.Ops() {
		fmt.Fprintf(&b, "%-34s %s\n", row[0]+":", row[1])
		if e := examples[row[0]]; e != "" {
			fmt.Fprintf(&b, "%-34s %s\n", "", e)
		}
	}
	for _, n := range p.Notes {
		fmt.Fprintf(&b, "note: %s\n", n)
	}
	return b.String()
}

// exampleRow applies an op's rule to bool and each integer dtype the rule
// set has: "bool→f32 u8→f32 …".
func (c Config) exampleRow(rule func(Type) (Type, error)) string {
	var parts []string
	for _, d := range []tensor.DType{tensor.Bool, tensor.U8, tensor.U16, tensor.U32, tensor.U64, tensor.I8, tensor.I16, tensor.I32, tensor.I64} {
		if !c.RuleSet().Has(d) {
			continue
		}
		out := "error"
		if t, err := rule(Strong(d)); err == nil {
			out = t.DType.String()
		}
		parts = append(parts, d.String()+"→"+out)
	}
	return strings.Join(parts, " ")
}

// Has reports whether the rule set's framework has dtype d at all: NumPy
// has no bf16, PyTorch 1.13 no u16/u32/u64, anvil no f16, bf16 or complex.
func (r *RuleSet) Has(d tensor.DType) bool {
	switch {
	case r.anvil != nil:
		return r.anvil.supports(d)
	case r == NumPy:
		return d != tensor.BF16
	case r == Torch:
		return d != tensor.U16 && d != tensor.U32 && d != tensor.U64
	}
	return true
}

// floatFor applies a FloatRule to t; op names the operation in errors.
func (c Config) floatFor(rule FloatRule, t Type, op string) (Type, error) {
	d := t.DType
	if d.IsInexact() {
		return t, nil
	}
	p := c.profile()
	var out tensor.DType
	switch rule {
	case FloatByWidth:
		out = tensor.F32
		if d.Bits() == 64 {
			out = tensor.F64
		}
	case FloatTFDivide:
		out = tensor.F32
		if d.Bits() >= 32 {
			out = tensor.F64
		}
	case FloatDefault:
		out = p.DefaultFloat
	case FloatSmallestSafe:
		switch {
		case d.Bits() <= 8:
			out = tensor.F16
		case d.Bits() <= 16:
			out = tensor.F32
		default:
			out = tensor.F64
		}
	default:
		return Type{}, &PromotionError{Rules: c.RuleSet().name, Operands: []Type{t},
			Msg: fmt.Sprintf("%s rules do not convert %s to a float for %s", c.RuleSet().name, d, op),
			Fix: fmt.Sprintf("convert explicitly, e.g. astype(x, %s)", p.DefaultFloat)}
	}
	return Type{DType: out, Weak: t.Weak}, nil
}

// TrueDivType is the type true division computes in, given its operands'
// promoted type t: floats and complex stay; bool and integers follow the
// profile (jax: f32 up to 32 bits, f64 for 64; torch: the default float
// f32; numpy: f64). An error where the profile refuses (lax).
func (c Config) TrueDivType(t Type) (Type, error) {
	return c.floatFor(c.profile().TrueDiv, t, "true division")
}

// FloatFuncType is the type a float function (exp, log, sin, sqrt, tanh,
// …) computes in, given its operands' promoted type t: numpy gives f16 for
// 8-bit ints, torch its default float. An error where the profile refuses
// (lax, tensorflow).
func (c Config) FloatFuncType(t Type) (Type, error) {
	return c.floatFor(c.profile().FloatFunc, t, "a float function")
}

// FloatFuncTypeOf is FloatFuncType for the float function op (exp, atan2,
// hypot, …) whose operands promoted to common. Ops the profile lists in
// IntRefusingFuncs refuse bool and integers. Under FloatSmallestSafe (numpy) an all-integer op picks, as
// NumPy's ufunc loop search does, the smallest float every strong operand
// casts to safely — arctan2(u8, i8) is f16 although u8 ∨ i8 is i16; every
// other rule looks at common alone.
func (c Config) FloatFuncTypeOf(op string, common Type, operands ...Type) (Type, error) {
	if slices.Contains(c.profile().IntRefusingFuncs, op) {
		return c.floatFor(FloatRefused, common, op)
	}
	if c.profile().FloatFunc != FloatSmallestSafe || common.DType.IsInexact() || len(operands) < 2 {
		return c.FloatFuncType(common)
	}
	var floats []Type
	for _, o := range operands {
		if o.Weak && !common.Weak {
			continue // a Python int yields to the arrays
		}
		f, err := c.FloatFuncType(Type{DType: o.DType, Weak: common.Weak})
		if err != nil {
			return Type{}, err
		}
		floats = append(floats, f)
	}
	return c.ResultType(floats...)
}

// MeanType is the result type of mean: floats and complex keep their dtype
// (f16 and bf16 means accumulate in f32 and round once; the tracer inserts
// the converts); bool and integers follow the profile. PyTorch refuses
// integers ("mean(): could not infer output dtype"): a *PromotionError.
func (c Config) MeanType(t Type) (Type, error) {
	return c.floatFor(c.profile().Mean, t, "mean")
}

func (c Config) accum(rule AccumRule, t Type) Type {
	d := t.DType
	p := c.profile()
	switch rule {
	case AccumDefaultWidth:
		switch {
		case d == tensor.Bool || (d.IsSigned() && d.Bits() < p.DefaultInt.Bits()):
			return Type{DType: p.DefaultInt, Weak: t.Weak && d != tensor.Bool}
		case d.IsUnsigned() && d.Bits() < p.DefaultUint.Bits():
			return Type{DType: p.DefaultUint, Weak: t.Weak}
		}
	case AccumDefaultInt:
		if d == tensor.Bool || d.IsInteger() {
			return Type{DType: p.DefaultInt, Weak: t.Weak && d != tensor.Bool}
		}
	case AccumKeep:
		if d == tensor.Bool {
			return Strong(p.DefaultInt)
		}
	}
	return t
}

// SumType is the result type of sum: floats and complex keep their dtype
// (f16 and bf16 sums accumulate in f32 but return f16/bf16 — the tracer
// inserts the converts); bool and integers follow the profile's Sum rule
// (jax, numpy: narrow ints widen to the default int, unsigned to the
// default uint; torch: every int to i64; lax, tensorflow: kept). The weak
// flag is kept.
func (c Config) SumType(t Type) Type { return c.accum(c.profile().Sum, t) }

// ProdType is the result type of prod, by the profile's Prod rule (the same
// as Sum's in every profile).
func (c Config) ProdType(t Type) Type { return c.accum(c.profile().Prod, t) }

// CumsumType is the result type of cumsum and cumprod, by the profile's
// Cumsum rule (the same as Sum's in every profile).
func (c Config) CumsumType(t Type) Type { return c.accum(c.profile().Cumsum, t) }

// IntLiteral is the value the integer literal v takes at dtype target: v
// itself when it fits; when it does not, an *OverflowError (LiteralError)
// or v wrapped modulo 2^bits (LiteralWrap, PyTorch). Float and complex
// targets take every int64 (CheckIntLiteral).
func (c Config) IntLiteral(v int64, target tensor.DType) (int64, error) {
	err := CheckIntLiteral(v, target)
	if err == nil || c.profile().Literal != LiteralWrap || target == tensor.Bool {
		return v, err
	}
	bits := target.Bits()
	u := uint64(v) & (uint64(1)<<bits - 1)
	if target.IsSigned() && u>>(bits-1) != 0 {
		return int64(u) - int64(1)<<bits, nil
	}
	return int64(u), nil
}
