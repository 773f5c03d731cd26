package stablehlo

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/kiln-go/kiln/lower"
	"github.com/kiln-go/kiln/tensor"
)

// This file holds the small SSA builder behind Export and its
// printer: values, ops with optional regions, MLIR types and dense
// literals. Ops print in MLIR's generic form ("stablehlo.add"(%a, %b) :
// (…) -> …), which every StableHLO parser reads and which stays valid
// across StableHLO releases, unlike the per-op pretty syntax; upstream
// mlir-opt parses it too with --allow-unregistered-dialect.

// shloType is a tensor type: element dtype and static shape.
type shloType struct {
	dt    tensor.DType
	shape []int
}

// shloElem names a dtype as an MLIR element type. StableHLO uses signless
// integers for signed ones and ui for unsigned.
var shloElem = [tensor.NumDTypes]string{
	tensor.Bool: "i1",
	tensor.U8:   "ui8", tensor.U16: "ui16", tensor.U32: "ui32", tensor.U64: "ui64",
	tensor.I8: "i8", tensor.I16: "i16", tensor.I32: "i32", tensor.I64: "i64",
	tensor.BF16: "bf16", tensor.F16: "f16", tensor.F32: "f32", tensor.F64: "f64",
	tensor.C64: "complex<f32>", tensor.C128: "complex<f64>",
	// The narrow dtypes by StableHLO's (MLIR's builtin) names. MLIR 19's
	// mlir-opt parses the f8 types but f8E3M4, f8E8M0FNU and the 6- and
	// 4-bit floats, which came with LLVM 20 (docs/SPEC.md).
	tensor.F8E4M3FN: "f8E4M3FN", tensor.F8E5M2: "f8E5M2", tensor.F8E4M3FNUZ: "f8E4M3FNUZ",
	tensor.F8E5M2FNUZ: "f8E5M2FNUZ", tensor.F8E4M3B11FNUZ: "f8E4M3B11FNUZ", tensor.F8E3M4: "f8E3M4",
	tensor.F8E4M3: "f8E4M3", tensor.F8E8M0FNU: "f8E8M0FNU", tensor.F6E2M3FN: "f6E2M3FN",
	tensor.F6E3M2FN: "f6E3M2FN", tensor.F4E2M1FN: "f4E2M1FN",
	tensor.I4: "i4", tensor.U4: "ui4", tensor.I2: "i2", tensor.U2: "ui2",
}

// ElemTypeName is the MLIR element type the export writes for dtype d:
// f32, ui8, complex<f64>, f8E4M3FN, i4, ….
func ElemTypeName(d tensor.DType) string { return shloElem[d] }

func (t shloType) String() string {
	var b strings.Builder
	b.WriteString("tensor<")
	for _, d := range t.shape {
		fmt.Fprintf(&b, "%dx", d)
	}
	b.WriteString(shloElem[t.dt] + ">")
	return b.String()
}

func (t shloType) with(d tensor.DType) shloType { return shloType{d, t.shape} }

func (t shloType) scalar() shloType { return shloType{t.dt, nil} }

// shloVal is an SSA value: a result of an op, or a block argument.
type shloVal struct {
	def   *shloOp // nil for a block argument
	index int     // which result of def
	name  string  // block arguments only
	typ   shloType
}

func (v *shloVal) ref() string {
	switch {
	case v.def == nil:
		return v.name
	case len(v.def.results) > 1:
		return fmt.Sprintf("%s#%d", v.def.name, v.index)
	}
	return v.def.name
}

// shloOp is one operation. A nil results list is a terminator
// (stablehlo.return).
type shloOp struct {
	name    string // SSA name of the results, "%7"
	op      string
	args    []*shloVal
	results []*shloVal
	attrs   []string
	region  *shloBlock
	extra   []*shloBlock // further regions (a while's body, a case's other branches)
	comment string       // printed as a // line above the op
}

// shloBlock is a list of ops with block arguments: the function body or a
// reduce body.
type shloBlock struct {
	args []*shloVal
	ops  []*shloOp
	// instrs is the value of each instruction of the module lowered into
	// the block (lowerModule), for the tests that check the export
	// against the module instruction by instruction.
	instrs map[*lower.Instr]*shloVal
}

// shloBuilder appends ops to a block, naming results %<prefix>_<n>.
type shloBuilder struct {
	blk    *shloBlock
	prefix string
	n      int
}

func (b *shloBuilder) fresh() string {
	b.n++
	return fmt.Sprintf("%%%s_%d", b.prefix, b.n)
}

// opN appends an op with several results.
func (b *shloBuilder) opN(name string, types []shloType, attrs []string, region *shloBlock, args ...*shloVal) []*shloVal {
	o := &shloOp{name: b.fresh(), op: "stablehlo." + name, args: args, attrs: attrs, region: region}
	for i, t := range types {
		o.results = append(o.results, &shloVal{def: o, index: i, typ: t})
	}
	b.blk.ops = append(b.blk.ops, o)
	return o.results
}

// op appends an op with one result of type t.
func (b *shloBuilder) op(name string, t shloType, args ...*shloVal) *shloVal {
	return b.opN(name, []shloType{t}, nil, nil, args...)[0]
}

// opA is op with attributes.
func (b *shloBuilder) opA(name string, t shloType, attrs []string, args ...*shloVal) *shloVal {
	return b.opN(name, []shloType{t}, attrs, nil, args...)[0]
}

// ret appends the terminator of a region.
func (b *shloBuilder) ret(args ...*shloVal) {
	b.blk.ops = append(b.blk.ops, &shloOp{op: "stablehlo.return", args: args})
}

func (b *shloBuilder) mark() int { return len(b.blk.ops) }

// region builds a nested block with arguments of the given types.
func (b *shloBuilder) region(prefix string, types []shloType, build func(sub *shloBuilder, args []*shloVal)) *shloBlock {
	blk := &shloBlock{}
	for i, t := range types {
		blk.args = append(blk.args, &shloVal{name: fmt.Sprintf("%%%s_arg%d", prefix, i), typ: t})
	}
	sub := &shloBuilder{blk: blk, prefix: prefix}
	build(sub, blk.args)
	return blk
}

// splat is a constant of type t whose every element is x (a bool, int64,
// uint64, float64 or complex128), converted to t's dtype as
// tensor.Array.Astype converts: -inf stays -inf, 2^16 becomes +inf in f16.
func (b *shloBuilder) splat(t shloType, x any) *shloVal {
	var a *tensor.Array
	switch v := x.(type) {
	case bool:
		a = tensor.Scalar(v)
	case int64:
		a = tensor.Scalar(v)
	case uint64:
		a = tensor.Scalar(v)
	case float64:
		a = tensor.Scalar(v)
	case complex128:
		a = tensor.Scalar(v)
	default:
		panic(fmt.Sprintf("lower: splat of %T", x))
	}
	a = a.Astype(t.dt)
	return b.opA("constant", t, []string{"value = dense<" + shloLiteral(tensor.Index(a.Data(), 0)) + "> : " + t.String()})
}

// constant materializes an array constant at type t.
func (b *shloBuilder) constant(t shloType, a *tensor.Array) *shloVal {
	return b.opA("constant", t, []string{"value = " + shloDense(a, t) + " : " + t.String()})
}

// shloDense prints an array as an MLIR dense literal: dense<x> when every
// element has the same bits (a splat), else nested lists in row-major
// order.
func shloDense(a *tensor.Array, t shloType) string {
	n := a.Size()
	if n == 0 {
		return "dense<>"
	}
	data := a.Data()
	lits := make([]string, n)
	splat := true
	for i := range lits {
		lits[i] = shloLiteral(tensor.Index(data, i))
		splat = splat && lits[i] == lits[0]
	}
	if splat {
		return "dense<" + lits[0] + ">"
	}
	return denseList(lits, t.shape)
}

// denseList prints elements as an MLIR dense literal of nested lists in
// row-major order: dense<[[1, 2], [3, 4]]>.
func denseList(lits []string, shape []int) string {
	var b strings.Builder
	b.WriteString("dense<")
	var nest func(dim, off int) int
	nest = func(dim, off int) int {
		if dim == len(shape) {
			b.WriteString(lits[off])
			return off + 1
		}
		b.WriteByte('[')
		for i := range shape[dim] {
			if i > 0 {
				b.WriteString(", ")
			}
			off = nest(dim+1, off)
		}
		b.WriteByte(']')
		return off
	}
	nest(0, 0)
	b.WriteString(">")
	return b.String()
}

// shloLiteral prints one element. Floats print as the shortest decimal
// that reads back as the same float64 — exact for every f16, bf16 and f32
// value, so a parser that reads decimals through double and then narrows
// cannot round twice — always with a '.' (MLIR reads "1" and "1e5" as
// integers); NaN and infinities print as their bits in hex, as MLIR does.
func shloLiteral(v any) string {
	if f, b, ok := tensor.NarrowFloatBits(v); ok {
		return floatLiteral(f.ToFloat64(b), uint64(b), (f.Bits()+3)/4*4)
	}
	switch x := v.(type) {
	case bool:
		return strconv.FormatBool(x)
	case tensor.Float16:
		return floatLiteral(float64(x.Float32()), uint64(x.Bits()), 16)
	case tensor.BFloat16:
		return floatLiteral(float64(x.Float32()), uint64(x.Bits()), 16)
	case float32:
		return floatLiteral(float64(x), uint64(math.Float32bits(x)), 32)
	case float64:
		return floatLiteral(x, math.Float64bits(x), 64)
	case complex64:
		return "(" + shloLiteral(real(x)) + ", " + shloLiteral(imag(x)) + ")"
	case complex128:
		return "(" + shloLiteral(real(x)) + ", " + shloLiteral(imag(x)) + ")"
	}
	return fmt.Sprint(v) // integers
}

func floatLiteral(x float64, bits uint64, width int) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return fmt.Sprintf("0x%0*X", width/4, bits)
	}
	s := strconv.FormatFloat(x, 'g', -1, 64)
	mant, exp, hasExp := strings.Cut(s, "e")
	if !strings.Contains(mant, ".") {
		mant += ".0"
	}
	if hasExp {
		return mant + "e" + exp
	}
	return mant
}

// i64s prints an MLIR dense i64 array attribute: array<i64: 0, 1>.
func i64s(xs []int) string {
	if len(xs) == 0 {
		return "array<i64>"
	}
	return "array<i64: " + joinSep(xs, ", ") + ">"
}

// i64list prints a plain list, as inside #stablehlo.dot<…>: [0, 1].
func i64list(xs []int) string { return "[" + joinSep(xs, ", ") + "]" }

func joinSep(xs []int, sep string) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = strconv.Itoa(x)
	}
	return strings.Join(s, sep)
}

// print writes the ops of a block at the given indentation.
func (blk *shloBlock) print(b *strings.Builder, indent string) {
	for _, o := range blk.ops {
		if o.comment != "" {
			for line := range strings.Lines(o.comment) {
				b.WriteString(indent + "// " + strings.TrimRight(line, "\n") + "\n")
			}
		}
		if o.op == "" {
			continue // a comment line
		}
		b.WriteString(indent)
		switch len(o.results) {
		case 0:
		case 1:
			b.WriteString(o.name + " = ")
		default:
			fmt.Fprintf(b, "%s:%d = ", o.name, len(o.results))
		}
		refs := make([]string, len(o.args))
		types := make([]string, len(o.args))
		for i, a := range o.args {
			refs[i], types[i] = a.ref(), a.typ.String()
		}
		fmt.Fprintf(b, "%q(%s)", o.op, strings.Join(refs, ", "))
		if o.region != nil {
			b.WriteString(" (")
			for i, r := range append([]*shloBlock{o.region}, o.extra...) {
				if i > 0 {
					b.WriteString(", ")
				}
				args := make([]string, len(r.args))
				for i, a := range r.args {
					args[i] = a.name + ": " + a.typ.String()
				}
				b.WriteString("{\n" + indent + "^bb0(" + strings.Join(args, ", ") + "):\n")
				r.print(b, indent+"  ")
				b.WriteString(indent + "}")
			}
			b.WriteString(")")
		}
		if len(o.attrs) > 0 {
			b.WriteString(" {" + strings.Join(o.attrs, ", ") + "}")
		}
		b.WriteString(" : (" + strings.Join(types, ", ") + ") -> ")
		switch len(o.results) {
		case 0:
			b.WriteString("()")
		case 1:
			b.WriteString(o.results[0].typ.String())
		default:
			rt := make([]string, len(o.results))
			for i, r := range o.results {
				rt[i] = r.typ.String()
			}
			b.WriteString("(" + strings.Join(rt, ", ") + ")")
		}
		b.WriteString("\n")
	}
}
