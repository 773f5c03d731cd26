package onnx

import (
	"encoding/binary"
	"math"
)

// A hand-rolled encoder for the few messages of onnx/onnx.proto (proto2)
// a model needs, so the exporter pulls in no protobuf library. Field
// numbers are onnx.proto's; repeated scalars are written unpacked, which
// every proto2 parser reads.

// ONNX TensorProto.DataType values.
const (
	tFloat    = 1
	tUint8    = 2
	tInt8     = 3
	tUint16   = 4
	tInt16    = 5
	tInt32    = 6
	tInt64    = 7
	tBool     = 9
	tFloat16  = 10
	tDouble   = 11
	tUint32   = 12
	tUint64   = 13
	tBFloat16 = 16
)

// AttributeProto.AttributeType values.
const (
	attrFloat  = 1
	attrInt    = 2
	attrString = 3
	attrTensor = 4
	attrGraph  = 5
	attrInts   = 7
)

// pbuf is a protobuf message being written.
type pbuf []byte

func (b *pbuf) varint(v uint64) { *b = binary.AppendUvarint(*b, v) }

func (b *pbuf) tag(field, wire int) { b.varint(uint64(field)<<3 | uint64(wire)) }

// int writes a varint field (int32, int64, enum); negative values are
// ten bytes, as protobuf's int64 encoding says.
func (b *pbuf) int(field int, v int64) {
	b.tag(field, 0)
	b.varint(uint64(v))
}

func (b *pbuf) bytes(field int, v []byte) {
	b.tag(field, 2)
	b.varint(uint64(len(v)))
	*b = append(*b, v...)
}

func (b *pbuf) str(field int, s string) { b.bytes(field, []byte(s)) }

func (b *pbuf) float(field int, f float32) {
	b.tag(field, 5)
	*b = binary.LittleEndian.AppendUint32(*b, math.Float32bits(f))
}

// The messages, as Go values encoded by their marshal methods.

type model struct {
	irVersion int64
	opset     int64
	producer  string
	version   string
	graph     *graph
}

type graph struct {
	name    string
	nodes   []*node
	inputs  []valueInfo
	outputs []valueInfo
}

type node struct {
	op      string
	inputs  []string
	outputs []string
	attrs   []attr
}

type attr struct {
	name string
	typ  int
	i    int64
	f    float32
	s    string
	ints []int64
	t    *tensorProto
	g    *graph
}

type tensorProto struct {
	dims     []int64
	dataType int
	raw      []byte
}

// valueInfo is a graph input or output; shape nil with unranked set means
// no shape is declared.
type valueInfo struct {
	name     string
	elemType int
	shape    []int
}

func (m *model) marshal() []byte {
	var b pbuf
	b.int(1, m.irVersion) // ir_version
	b.str(2, m.producer)  // producer_name
	b.str(3, m.version)   // producer_version
	b.bytes(7, m.graph.marshal())
	var op pbuf
	op.str(1, "")      // domain: the default ai.onnx
	op.int(2, m.opset) // version
	b.bytes(8, op)     // opset_import
	return b
}

func (g *graph) marshal() []byte {
	var b pbuf
	for _, n := range g.nodes {
		b.bytes(1, n.marshal())
	}
	b.str(2, g.name)
	for _, v := range g.inputs {
		b.bytes(11, v.marshal())
	}
	for _, v := range g.outputs {
		b.bytes(12, v.marshal())
	}
	return b
}

func (n *node) marshal() []byte {
	var b pbuf
	for _, s := range n.inputs {
		b.str(1, s)
	}
	for _, s := range n.outputs {
		b.str(2, s)
	}
	b.str(4, n.op)
	for _, a := range n.attrs {
		b.bytes(5, a.marshal())
	}
	return b
}

func (a *attr) marshal() []byte {
	var b pbuf
	b.str(1, a.name)
	switch a.typ {
	case attrFloat:
		b.float(2, a.f)
	case attrInt:
		b.int(3, a.i)
	case attrString:
		b.str(4, a.s)
	case attrTensor:
		b.bytes(5, a.t.marshal())
	case attrGraph:
		b.bytes(6, a.g.marshal())
	case attrInts:
		for _, v := range a.ints {
			b.int(8, v)
		}
	}
	b.int(20, int64(a.typ))
	return b
}

func (t *tensorProto) marshal() []byte {
	var b pbuf
	for _, d := range t.dims {
		b.int(1, d)
	}
	b.int(2, int64(t.dataType))
	b.bytes(9, t.raw) // raw_data, little-endian
	return b
}

func (v *valueInfo) marshal() []byte {
	var shape pbuf
	for _, d := range v.shape {
		var dim pbuf
		dim.int(1, int64(d)) // dim_value
		shape.bytes(1, dim)
	}
	var tt pbuf
	tt.int(1, int64(v.elemType)) // elem_type
	tt.bytes(2, shape)
	var typ pbuf
	typ.bytes(1, tt) // tensor_type
	var b pbuf
	b.str(1, v.name)
	b.bytes(2, typ)
	return b
}
