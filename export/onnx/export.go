package onnx

import (
	"errors"
	"fmt"
	"unsafe"

	"github.com/kiln-go/kiln/lower"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// Opset is the ai.onnx opset the exported models import.
const Opset = 21

// irVersion is the ONNX IR version of opset 21 (ONNX 1.16).
const irVersion = 10

// Options name a model's inputs and outputs.
type Options struct {
	// InputNames are the graph inputs' names, one per module parameter;
	// nil names them arg0, arg1, ….
	InputNames []string
	// OutputNames are the graph outputs' names; nil names a single output
	// result and several result0, result1, ….
	OutputNames []string
	// GraphName is the graph's name; "" is "kiln".
	GraphName string
}

// UnsupportedError reports an instruction the exporter refuses: ONNX (at
// Opset, as ONNX Runtime's CPU kernels implement it) cannot express it
// with Kiln's semantics, or the exporter has no translation for it yet.
// Export never writes a model that computes something else instead.
type UnsupportedError struct {
	Op    trace.Op     // the refused op
	DType tensor.DType // its first operand's dtype (or its result's, for leaves)
	Instr string       // the instruction as printed: "%7 = f32[3] atan2"
	Pos   trace.Pos    // the user's call site, when known
	Msg   string       // why
}

func (e *UnsupportedError) Error() string {
	at := ""
	if s := e.Pos.String(); s != "" {
		at = " (at " + s + ")"
	}
	return "onnx: " + e.Instr + at + ": " + e.Msg
}

// refuse makes the *UnsupportedError of the instruction being exported;
// export fills in the instruction.
func refuse(format string, args ...any) error {
	return &UnsupportedError{Msg: fmt.Sprintf(format, args...)}
}

// Export writes m (a lowered module: lower.Lower's or lower.Compile's;
// fusions are ignored) as a serialized ONNX ModelProto of opset Opset.
// An instruction it cannot translate exactly is an *UnsupportedError
// naming it. See the package doc for what the model computes.
func Export(m *lower.Module, opts Options) ([]byte, error) {
	if m == nil {
		return nil, errors.New("onnx: Export of a nil module")
	}
	inNames := opts.InputNames
	if inNames == nil {
		for i := range m.Params {
			inNames = append(inNames, fmt.Sprintf("arg%d", i))
		}
	}
	if len(inNames) != len(m.Params) {
		return nil, fmt.Errorf("onnx: %d input names for a module of %d parameters", len(inNames), len(m.Params))
	}
	outNames := opts.OutputNames
	if outNames == nil {
		if len(m.Outputs) == 1 {
			outNames = []string{"result"}
		} else {
			for i := range m.Outputs {
				outNames = append(outNames, fmt.Sprintf("result%d", i))
			}
		}
	}
	if len(outNames) != len(m.Outputs) {
		return nil, fmt.Errorf("onnx: %d output names for a module of %d outputs", len(outNames), len(m.Outputs))
	}
	seen := map[string]bool{}
	for _, n := range append(append([]string{}, inNames...), outNames...) {
		if n == "" || seen[n] || isInternalName(n) {
			return nil, fmt.Errorf("onnx: input and output names must be distinct, non-empty and not of the form v<N>, t<N> or s<N>_…: %q", n)
		}
		seen[n] = true
	}
	name := opts.GraphName
	if name == "" {
		name = "kiln"
	}
	g := &graph{name: name}
	for i, p := range m.Params {
		et, err := elemType(p.DType)
		if err != nil {
			return nil, &UnsupportedError{Op: trace.OpParam, DType: p.DType, Instr: fmt.Sprintf("input %d (%s) %s", i, inNames[i], p.TypeString()), Msg: err.(*UnsupportedError).Msg}
		}
		g.inputs = append(g.inputs, valueInfo{name: inNames[i], elemType: et, shape: p.Shape})
	}
	b := &builder{g: g, n: new(int)}
	outs, err := b.module(m, inNames)
	if err != nil {
		return nil, err
	}
	for i, o := range m.Outputs {
		et, err := elemType(o.DType)
		if err != nil {
			return nil, &UnsupportedError{Op: o.Op, DType: o.DType, Instr: fmt.Sprintf("output %d %s", i, o.TypeString()), Pos: o.Pos, Msg: err.(*UnsupportedError).Msg}
		}
		b.emit("Identity", []string{outs[i]}, []string{outNames[i]})
		g.outputs = append(g.outputs, valueInfo{name: outNames[i], elemType: et, shape: o.Shape})
	}
	md := &model{irVersion: irVersion, opset: Opset, producer: "kiln", version: "1", graph: g}
	return md.marshal(), nil
}

// ExportProgram lowers a traced program (lower.Lower) and exports it.
func ExportProgram(p *trace.Program, opts Options) ([]byte, error) {
	m, err := lower.Lower(p)
	if err != nil {
		return nil, err
	}
	return Export(m, opts)
}

func isInternalName(n string) bool {
	if len(n) < 2 || (n[0] != 'v' && n[0] != 't' && n[0] != 's') {
		return false
	}
	return n[1] >= '0' && n[1] <= '9'
}

// narrowRefusal is why the narrow dtypes are not exported: ONNX has the
// element types FLOAT8E4M3FN, FLOAT8E5M2, their FNUZ forms, INT4 and UINT4,
// but ONNX Runtime runs them only in Cast, QuantizeLinear/DequantizeLinear
// and its contrib quantized matmuls — no arithmetic, reduction or
// comparison kernel takes them — and the others (f8e4m3b11fnuz, f8e3m4,
// f8e4m3, f8e8m0fnu, the 6- and 4-bit floats, int2, uint2) have no ONNX
// type at opset 21.
const narrowRefusal = "%s is a narrow dtype: ONNX Runtime has no arithmetic kernels for ONNX's float8/int4 types (only Cast and quantize/dequantize) and ONNX no type for the others; convert with astype to f32, bf16 or i8 before exporting"

// elemType maps a Kiln dtype to ONNX's; complex has no ONNX Runtime
// kernels and is refused.
func elemType(d tensor.DType) (int, error) {
	switch d {
	case tensor.Bool:
		return tBool, nil
	case tensor.U8:
		return tUint8, nil
	case tensor.U16:
		return tUint16, nil
	case tensor.U32:
		return tUint32, nil
	case tensor.U64:
		return tUint64, nil
	case tensor.I8:
		return tInt8, nil
	case tensor.I16:
		return tInt16, nil
	case tensor.I32:
		return tInt32, nil
	case tensor.I64:
		return tInt64, nil
	case tensor.BF16:
		return tBFloat16, nil
	case tensor.F16:
		return tFloat16, nil
	case tensor.F32:
		return tFloat, nil
	case tensor.F64:
		return tDouble, nil
	}
	if d.IsNarrow() {
		return 0, refuse(narrowRefusal, d)
	}
	return 0, refuse("%s has no ONNX Runtime kernels (ONNX's complex types are storage only)", d)
}

// RawBytes returns the little-endian bytes of a's elements (bool: one
// byte, 0 or 1), sharing a's memory.
func RawBytes(a *tensor.Array) []byte {
	n := a.Size() * a.DType().Size()
	if n == 0 {
		return nil
	}
	var p unsafe.Pointer
	switch s := a.Data().(type) {
	case []bool:
		p = unsafe.Pointer(&s[0])
	case []uint8:
		p = unsafe.Pointer(&s[0])
	case []uint16:
		p = unsafe.Pointer(&s[0])
	case []uint32:
		p = unsafe.Pointer(&s[0])
	case []uint64:
		p = unsafe.Pointer(&s[0])
	case []int8:
		p = unsafe.Pointer(&s[0])
	case []int16:
		p = unsafe.Pointer(&s[0])
	case []int32:
		p = unsafe.Pointer(&s[0])
	case []int64:
		p = unsafe.Pointer(&s[0])
	case []tensor.BFloat16:
		p = unsafe.Pointer(&s[0])
	case []tensor.Float16:
		p = unsafe.Pointer(&s[0])
	case []float32:
		p = unsafe.Pointer(&s[0])
	case []float64:
		p = unsafe.Pointer(&s[0])
	case []complex64:
		p = unsafe.Pointer(&s[0])
	case []complex128:
		p = unsafe.Pointer(&s[0])
	default:
		return nil
	}
	return unsafe.Slice((*byte)(p), n)
}

// builder appends nodes to a graph; values it makes are named t<N>,
// unique model-wide (ONNX forbids a sub-graph name shadowing an outer one).
type builder struct {
	g *graph
	n *int // shared with sub-graph builders
}

func (b *builder) fresh() string {
	if b.n == nil {
		b.n = new(int)
	}
	*b.n++
	return fmt.Sprintf("t%d", *b.n)
}

func (b *builder) emit(op string, ins, outs []string, attrs ...attr) {
	b.g.nodes = append(b.g.nodes, &node{op: op, inputs: ins, outputs: outs, attrs: attrs})
}

// add emits a one-output node and returns its output's name.
func (b *builder) add(op string, ins []string, attrs ...attr) string {
	out := b.fresh()
	b.emit(op, ins, []string{out}, attrs...)
	return out
}

func (b *builder) op1(op, x string, attrs ...attr) string { return b.add(op, []string{x}, attrs...) }
func (b *builder) op2(op, x, y string, attrs ...attr) string {
	return b.add(op, []string{x, y}, attrs...)
}

func aInt(name string, v int64) attr     { return attr{name: name, typ: attrInt, i: v} }
func aStr(name, v string) attr           { return attr{name: name, typ: attrString, s: v} }
func aInts(name string, vs []int64) attr { return attr{name: name, typ: attrInts, ints: vs} }
func aGraph(name string, g *graph) attr  { return attr{name: name, typ: attrGraph, g: g} }

func i64s(xs []int) []int64 {
	out := make([]int64, len(xs))
	for i, x := range xs {
		out[i] = int64(x)
	}
	return out
}

// constant emits a Constant node holding a.
func (b *builder) constant(a *tensor.Array) (string, error) {
	et, err := elemType(a.DType())
	if err != nil {
		return "", err
	}
	raw := append([]byte{}, RawBytes(a)...)
	t := &tensorProto{dims: i64s(a.Shape()), dataType: et, raw: raw}
	return b.add("Constant", nil, attr{name: "value", typ: attrTensor, t: t}), nil
}

// must is constant for values the exporter makes itself, whose dtypes
// are never complex.
func (b *builder) must(a *tensor.Array) string {
	s, err := b.constant(a)
	if err != nil {
		panic("onnx: internal error: " + err.Error())
	}
	return s
}

// scalarF is a rank-0 constant of float dtype d (or any dtype: the value
// converted as Kiln converts).
func (b *builder) scalarF(d tensor.DType, v float64) string {
	return b.must(tensor.Scalar(v).Astype(d))
}

// scalarI is a rank-0 integer (or bool) constant.
func (b *builder) scalarI(d tensor.DType, v int64) string { return b.must(tensor.Scalar(v).Astype(d)) }

// scalarU is a rank-0 constant from an unsigned value.
func (b *builder) scalarU(d tensor.DType, v uint64) string { return b.must(tensor.Scalar(v).Astype(d)) }

// ints is a 1-D int64 constant (shapes, axes, Slice's bounds).
func (b *builder) ints(xs ...int64) string {
	a, _ := tensor.FromSlice(append([]int64{}, xs...), len(xs))
	return b.must(a)
}

func (b *builder) cast(x string, to tensor.DType) string {
	et, err := elemType(to)
	if err != nil {
		panic("onnx: internal error: cast to " + to.String())
	}
	return b.op1("Cast", x, aInt("to", int64(et)))
}

// castIf casts x from dtype from to dtype to when they differ.
func (b *builder) castIf(x string, from, to tensor.DType) string {
	if from == to {
		return x
	}
	return b.cast(x, to)
}
