package kiln

import (
	"math"
	"reflect"
	"strconv"

	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// programKey identifies a program up to its input data, for Eval's cache:
// every input's and equation's type and shape, every equation's op,
// operands and parameters (rank-0 constants by their bits, so 0.0 and
// -0.0 and NaN payloads stay apart), the outputs. Positions, notes and
// region marks (trace.Params.Mark: which Checkpoint or custom function an
// equation was traced in) are left out: they do not change what runs. The
// key is appended to b.
//
// Parameters are encoded by reflection over every field of trace.Params,
// so a field added to it later is part of the key without anyone
// remembering this function. A field this encoder cannot encode by value
// (a pointer to anything but an array, a map, a func, …) makes the program
// uncacheable (ok false): Eval then compiles it afresh, as it did before it
// had a cache, rather than risk two programs sharing one key.
func programKey(b []byte, p *trace.Program) (_ []byte, ok bool) {
	for _, v := range p.Inputs {
		b = appendVar(b, v)
	}
	b = append(b, '\n')
	for _, e := range p.Eqns {
		b = strconv.AppendInt(b, int64(e.Op), 10)
		b = append(b, ' ')
		b = appendVar(b, e.Out)
		for _, a := range e.Args {
			b = strconv.AppendInt(b, int64(a.ID), 10)
			b = append(b, ',')
		}
		b = append(b, '{')
		params := e.Params
		params.Mark = trace.Mark{} // like a position: what runs is the same
		if b, ok = appendValue(b, reflect.ValueOf(&params).Elem()); !ok {
			return b, false
		}
		b = append(b, "}\n"...)
	}
	for _, o := range p.Outputs {
		b = strconv.AppendInt(b, int64(o.ID), 10)
		b = append(b, ',')
	}
	return b, true
}

// appendVar appends a variable's ID, dtype, weak flag and shape.
func appendVar(b []byte, v *trace.Var) []byte {
	b = strconv.AppendInt(b, int64(v.ID), 10)
	b = append(b, ':')
	b = strconv.AppendInt(b, int64(v.Type.DType), 10)
	if v.Type.Weak {
		b = append(b, '*')
	}
	for _, d := range v.Shape {
		b = append(b, ',')
		b = strconv.AppendInt(b, int64(d), 10)
	}
	return append(b, ' ')
}

var (
	arrayPtrType   = reflect.TypeFor[*tensor.Array]()
	programPtrType = reflect.TypeFor[*trace.Program]()
)

// maxKeyedElems bounds the array data a key spells out: a parameter array
// larger than this makes the program uncacheable. (Constant arrays of rank
// > 0 never get here: Eval passes them as inputs.)
const maxKeyedElems = 64

// appendValue appends an unambiguous encoding of v: every element is
// followed by a separator, slices by their length, floats by their bits.
func appendValue(b []byte, v reflect.Value) ([]byte, bool) {
	switch v.Kind() {
	case reflect.Bool:
		if v.Bool() {
			return append(b, "t;"...), true
		}
		return append(b, "f;"...), true
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return append(strconv.AppendInt(b, v.Int(), 10), ';'), true
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return append(strconv.AppendUint(b, v.Uint(), 10), ';'), true
	case reflect.Float32:
		return append(strconv.AppendUint(b, uint64(math.Float32bits(float32(v.Float()))), 16), ';'), true
	case reflect.Float64:
		return append(strconv.AppendUint(b, math.Float64bits(v.Float()), 16), ';'), true
	case reflect.Complex64:
		c := complex64(v.Complex())
		b = strconv.AppendUint(b, uint64(math.Float32bits(real(c))), 16)
		b = append(b, ',')
		return append(strconv.AppendUint(b, uint64(math.Float32bits(imag(c))), 16), ';'), true
	case reflect.Complex128:
		c := v.Complex()
		b = strconv.AppendUint(b, math.Float64bits(real(c)), 16)
		b = append(b, ',')
		return append(strconv.AppendUint(b, math.Float64bits(imag(c)), 16), ';'), true
	case reflect.String:
		b = strconv.AppendInt(b, int64(v.Len()), 10)
		b = append(b, '"')
		return append(append(b, v.String()...), ';'), true
	case reflect.Slice, reflect.Array:
		if v.Kind() == reflect.Slice && v.IsNil() {
			return append(b, "nil;"...), true
		}
		if v.Len() > maxKeyedElems {
			return b, false
		}
		b = strconv.AppendInt(b, int64(v.Len()), 10)
		b = append(b, '[')
		for i := range v.Len() {
			var ok bool
			if b, ok = appendValue(b, v.Index(i)); !ok {
				return b, false
			}
		}
		return append(b, "];"...), true
	case reflect.Struct:
		b = append(b, '{')
		for i := range v.NumField() {
			var ok bool
			if b, ok = appendValue(b, v.Field(i)); !ok {
				return b, false
			}
		}
		return append(b, "};"...), true
	case reflect.Pointer:
		if v.IsNil() {
			return append(b, "nil;"...), true
		}
		if v.Type() == programPtrType && v.CanInterface() { // a while's or cond's sub-program
			b = append(b, '<')
			b, ok := programKey(b, v.Interface().(*trace.Program))
			return append(b, ">;"...), ok
		}
		if v.Type() != arrayPtrType || !v.CanInterface() {
			return b, false
		}
		a := v.Interface().(*tensor.Array)
		b = strconv.AppendInt(b, int64(a.DType()), 10)
		b = append(b, '#')
		for _, d := range a.Shape() {
			b = strconv.AppendInt(b, int64(d), 10)
			b = append(b, ',')
		}
		return appendValue(b, reflect.ValueOf(a.Data()))
	case reflect.Map, reflect.Func, reflect.Chan, reflect.Interface:
		if v.IsNil() {
			return append(b, "nil;"...), true
		}
	}
	return b, false // not encoded by value
}
