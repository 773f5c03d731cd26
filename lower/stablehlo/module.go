package stablehlo

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/kiln-go/kiln/tensor"
)

// Module is a parsed MLIR module (Parse): its functions, each a block of
// ops whose operands point at the values that define them.
type Module struct {
	Name  string // "@kiln", or "" for an unnamed module
	Funcs []*Func
}

// Func is a func.func: its signature and body. The body's arguments are
// the parameters; its last op is func.return.
type Func struct {
	Name       string // "@main"
	Visibility string // "public", "private" or ""
	Results    []Type
	Body       *Block
	Pos        Pos
}

// Block is a region's single block: its arguments and ops. A region of an
// op (a reduce body, a while's cond) ends with stablehlo.return.
type Block struct {
	Args []*Value
	Ops  []*Op
}

// Op is one operation, in generic form: "stablehlo.add"(%a, %b) : (…) -> …,
// or func.return. Operands are the values they name (an op's result or a
// block argument of this or an enclosing block).
type Op struct {
	Name     string // "stablehlo.add", "chlo.erf", "func.return"
	Results  []*Value
	Operands []*Value
	Regions  []*Block
	Attrs    []Attr // in the order written
	Pos      Pos
}

// Attr returns the value of the attribute named name, or nil.
func (o *Op) Attr(name string) AttrValue {
	for _, a := range o.Attrs {
		if a.Name == name {
			return a.Value
		}
	}
	return nil
}

// Value is an SSA value: result Index of Def, or (Def nil) a block
// argument. Name is the name it was defined with: "%7" for every result of
// "%7:2 = …" (Ref tells them apart), "%arg0" for an argument.
type Value struct {
	Name  string
	Index int
	Def   *Op
	Type  Type
}

// Ref prints the value as a use names it: "%7", "%7#1", "%arg0".
func (v *Value) Ref() string {
	if v.Def != nil && len(v.Def.Results) > 1 {
		return fmt.Sprintf("%s#%d", v.Name, v.Index)
	}
	return v.Name
}

// Type is a ranked tensor type with a static shape: tensor<2x3xf32>
// (tensor<f32> has rank 0).
type Type struct {
	DType tensor.DType
	Shape []int
}

// String prints the type as MLIR does.
func (t Type) String() string { return shloType{t.DType, t.Shape}.String() }

// Equal reports whether two types have the same element type and shape.
func (t Type) Equal(u Type) bool {
	return sameType(shloType{t.DType, t.Shape}, shloType{u.DType, u.Shape})
}

// Attr is one named attribute of an op.
type Attr struct {
	Name  string
	Value AttrValue
}

// AttrValue is one of the attribute kinds the exporter writes: *IntAttr,
// BoolAttr, I64Array, *DenseAttr, *EnumAttr, *StructAttr. String prints it
// back as the exporter writes it.
type AttrValue interface {
	String() string
}

// IntAttr is a typed integer: 3 : i64.
type IntAttr struct {
	Value int64
	Type  string // "i64", "i32", "i1", …
}

func (a *IntAttr) String() string { return strconv.FormatInt(a.Value, 10) + " : " + a.Type }

// BoolAttr is true or false.
type BoolAttr bool

func (a BoolAttr) String() string { return strconv.FormatBool(bool(a)) }

// I64Array is a dense i64 array: array<i64: 0, 1> (array<i64> when empty).
type I64Array []int

func (a I64Array) String() string { return i64s(a) }

// DenseAttr is a dense elements literal with its type: dense<[1, 2]> :
// tensor<2xi32>. Value holds the elements at the type's dtype, bit for bit
// as written (a NaN's payload and sign, −0). Splat is the element of a
// literal written as a splat (dense<0.0>), as a rank-0 array — also for a
// splat of an empty tensor, which has no elements in Value.
type DenseAttr struct {
	Type  Type
	Value *tensor.Array
	Splat *tensor.Array
}

func (a *DenseAttr) String() string {
	if a.Splat != nil {
		return "dense<" + shloLiteral(tensor.Index(a.Splat.Data(), 0)) + "> : " + a.Type.String()
	}
	if a.Value.Size() == 0 {
		return "dense<> : " + a.Type.String()
	}
	lits := make([]string, a.Value.Size())
	for i := range lits {
		lits[i] = shloLiteral(tensor.Index(a.Value.Data(), i))
	}
	return denseList(lits, a.Type.Shape) + " : " + a.Type.String()
}

// EnumAttr is a dialect enum: #stablehlo<comparison_direction LT>.
type EnumAttr struct {
	Dialect string // "stablehlo"
	Kind    string // "comparison_direction"
	Value   string // "LT"
}

func (a *EnumAttr) String() string { return "#" + a.Dialect + "<" + a.Kind + " " + a.Value + ">" }

// StructAttr is a dialect struct of named integer fields:
// #stablehlo.dot<lhs_contracting_dimensions = [1], …>,
// #stablehlo.gather<…, index_vector_dim = 1>, and the convolution's
// #stablehlo.conv<raw …>.
type StructAttr struct {
	Name   string // "stablehlo.dot"
	Raw    bool   // the "raw" keyword before the fields (#stablehlo.conv<raw …>)
	Fields []Field
}

// Field is one field of a StructAttr: a list [1, 2] or (List false) one
// integer.
type Field struct {
	Name   string
	Values []int
	List   bool
}

// Field returns the field named name and whether it is present.
func (a *StructAttr) Field(name string) (Field, bool) {
	for _, f := range a.Fields {
		if f.Name == name {
			return f, true
		}
	}
	return Field{}, false
}

func (a *StructAttr) String() string {
	fs := make([]string, len(a.Fields))
	for i, f := range a.Fields {
		if f.List {
			fs[i] = f.Name + " = " + i64list(f.Values)
		} else {
			fs[i] = f.Name + " = " + joinSep(f.Values, "")
		}
	}
	raw := ""
	if a.Raw {
		raw = "raw "
	}
	return "#" + a.Name + "<" + raw + strings.Join(fs, ", ") + ">"
}

// Pos is a 1-based line and column in the parsed text (columns count
// bytes).
type Pos struct {
	Line, Col int
}

func (p Pos) String() string { return fmt.Sprintf("%d:%d", p.Line, p.Col) }

// ParseError is a syntax or typing error in the text Parse reads, at the
// position where it was found.
type ParseError struct {
	Pos Pos
	Msg string
}

func (e *ParseError) Error() string { return "stablehlo: parse: " + e.Pos.String() + ": " + e.Msg }
