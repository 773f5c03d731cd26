package stablehlo

import (
	"math"
	"strconv"
	"strings"

	"github.com/kiln-go/kiln/tensor"
)

// attribute reads name = value in an attribute dictionary.
func (p *parser) attribute() Attr {
	name := p.ident()
	p.expect("=")
	p.skip()
	start := p.off
	switch {
	case p.accept("array<i64"):
		a := I64Array{}
		if p.accept(":") {
			p.list(">", func() { a = append(a, p.smallInt(math.MinInt32)) })
		} else {
			p.expect(">")
		}
		return Attr{name, a}
	case p.accept("dense<"):
		lit := p.denseTree()
		p.expect(":")
		t := p.tensorType()
		d := &DenseAttr{Type: t, Value: p.denseValue(start, lit, t)}
		if !lit.isList {
			d.Splat = p.denseValue(start, lit, Type{DType: t.DType})
		}
		return Attr{name, d}
	case p.accept("true"):
		return Attr{name, BoolAttr(true)}
	case p.accept("false"):
		return Attr{name, BoolAttr(false)}
	case p.accept("#"):
		dialect := p.ident()
		p.expect("<")
		if !strings.Contains(dialect, ".") {
			kind := p.ident()
			return Attr{name, &EnumAttr{Dialect: dialect, Kind: kind, Value: p.identThen(">")}}
		}
		s := &StructAttr{Name: dialect}
		if p.peek("raw ") {
			p.accept("raw")
			s.Raw = true
		}
		p.list(">", func() {
			f := Field{Name: p.ident()}
			p.expect("=")
			if f.List = p.accept("["); f.List {
				f.Values = []int{}
				p.list("]", func() { f.Values = append(f.Values, p.smallInt(math.MinInt32)) })
			} else {
				f.Values = []int{p.smallInt(math.MinInt32)}
			}
			s.Fields = append(s.Fields, f)
		})
		return Attr{name, s}
	case p.off < len(p.src) && (p.src[p.off] == '-' || '0' <= p.src[p.off] && p.src[p.off] <= '9'):
		v := p.integer()
		p.expect(":")
		typ := p.ident()
		if typ != "i64" && typ != "i32" {
			p.failAt(start, "integer attribute of type %s (want i64 or i32)", typ)
		}
		return Attr{name, &IntAttr{Value: v, Type: typ}}
	}
	p.fail("unsupported attribute value %s", p.near())
	return Attr{}
}

// identThen reads an identifier followed by close.
func (p *parser) identThen(close string) string {
	s := p.ident()
	p.expect(close)
	return s
}

// literal is a dense literal as written: an element (text, or re and im
// of a complex pair) or a nested list.
type literal struct {
	off    int
	text   string
	im     string // a complex element's imaginary part
	list   []literal
	isList bool
}

// denseTree reads the inside of dense<…> up to and including '>'; an empty
// dense<> is a list of no elements.
func (p *parser) denseTree() literal {
	if p.accept(">") {
		return literal{off: p.off, isList: true}
	}
	l := p.denseElem()
	p.expect(">")
	return l
}

func (p *parser) denseElem() literal {
	p.skip()
	l := literal{off: p.off}
	switch {
	case p.accept("["):
		p.nest()
		defer func() { p.depth-- }()
		l.isList = true
		p.list("]", func() { l.list = append(l.list, p.denseElem()) })
	case p.accept("("):
		l.text = p.number()
		p.expect(",")
		l.im = p.number()
		p.expect(")")
	default:
		l.text = p.number()
	}
	return l
}

// number reads a literal token: true, false, an integer, a decimal float,
// or 0x bits.
func (p *parser) number() string {
	p.skip()
	start := p.off
	for p.off < len(p.src) && strings.IndexByte("+-.0123456789abcdefABCDEFxXtrueals", p.src[p.off]) >= 0 {
		p.off++
	}
	if p.off == start {
		p.fail("expected a literal, found %s", p.near())
	}
	return p.src[start:p.off]
}

// denseValue checks a literal against t — a splat, or a nested list whose
// lengths are t's dimensions — and decodes its elements bit for bit.
func (p *parser) denseValue(off int, l literal, t Type) *tensor.Array {
	n, _ := tensor.ShapeSize(t.Shape) // checked by tensorType
	var flat []literal
	if !l.isList {
		if n > MaxSplatElements {
			p.failAt(off, "splat of %d elements (more than MaxSplatElements)", n)
		}
		flat = make([]literal, n)
		for i := range flat {
			flat[i] = l
		}
	} else if n == 0 && len(l.list) == 0 {
		// dense<> of an empty tensor
	} else {
		var walk func(l literal, dim int)
		walk = func(l literal, dim int) {
			if dim == len(t.Shape) {
				if l.isList {
					p.failAt(l.off, "a list where %s has an element", t)
				}
				flat = append(flat, l)
				return
			}
			if !l.isList || len(l.list) != t.Shape[dim] {
				p.failAt(l.off, "dimension %d of %s has %d elements, the literal %d", dim, t, t.Shape[dim], len(l.list))
			}
			for _, k := range l.list {
				walk(k, dim+1)
			}
		}
		walk(l, 0)
	}
	a, err := decode(t, flat)
	if err != nil {
		p.failAt(err.off, "%s", err.msg)
	}
	return a
}

type litError struct {
	off int
	msg string
}

// decode converts elements to t's dtype.
func decode(t Type, flat []literal) (*tensor.Array, *litError) {
	if t.DType.IsNarrow() {
		return decodeNarrow(t, flat)
	}
	switch t.DType {
	case tensor.Bool:
		return decodeAs(t, flat, func(s string) (bool, bool) {
			return s == "true", s == "true" || s == "false"
		})
	case tensor.I8:
		return decodeAs(t, flat, signed[int8](8))
	case tensor.I16:
		return decodeAs(t, flat, signed[int16](16))
	case tensor.I32:
		return decodeAs(t, flat, signed[int32](32))
	case tensor.I64:
		return decodeAs(t, flat, signed[int64](64))
	case tensor.U8:
		return decodeAs(t, flat, unsigned[uint8](8))
	case tensor.U16:
		return decodeAs(t, flat, unsigned[uint16](16))
	case tensor.U32:
		return decodeAs(t, flat, unsigned[uint32](32))
	case tensor.U64:
		return decodeAs(t, flat, unsigned[uint64](64))
	case tensor.F16:
		return decodeAs(t, flat, floating(16, func(b uint64) tensor.Float16 { return tensor.Float16FromBits(uint16(b)) }, tensor.Float64ToF16))
	case tensor.BF16:
		return decodeAs(t, flat, floating(16, func(b uint64) tensor.BFloat16 { return tensor.BFloat16FromBits(uint16(b)) }, tensor.Float64ToBF16))
	case tensor.F32:
		return decodeAs(t, flat, floating(32, func(b uint64) float32 { return math.Float32frombits(uint32(b)) }, func(x float64) float32 { return float32(x) }))
	case tensor.F64:
		return decodeAs(t, flat, floating(64, math.Float64frombits, func(x float64) float64 { return x }))
	case tensor.C64:
		f := floating(32, func(b uint64) float32 { return math.Float32frombits(uint32(b)) }, func(x float64) float32 { return float32(x) })
		return decodeComplex(t, flat, func(re, im string) (complex64, bool) {
			r, ok1 := f(re)
			i, ok2 := f(im)
			return complex(r, i), ok1 && ok2
		})
	case tensor.C128:
		f := floating(64, math.Float64frombits, func(x float64) float64 { return x })
		return decodeComplex(t, flat, func(re, im string) (complex128, bool) {
			r, ok1 := f(re)
			i, ok2 := f(im)
			return complex(r, i), ok1 && ok2
		})
	}
	return nil, &litError{msg: "no literal for " + t.String()}
}

func decodeAs[T tensor.Elem](t Type, flat []literal, conv func(string) (T, bool)) (*tensor.Array, *litError) {
	out := make([]T, len(flat))
	for i, l := range flat {
		var ok bool
		if l.im == "" {
			out[i], ok = conv(l.text)
		}
		if !ok {
			return nil, &litError{l.off, "literal " + strconv.Quote(l.text) + " is not a " + shloElem[t.DType]}
		}
	}
	a, err := tensor.New(t.DType, t.Shape, out)
	if err != nil {
		return nil, &litError{msg: err.Error()}
	}
	return a, nil
}

func decodeComplex[T complex64 | complex128](t Type, flat []literal, conv func(re, im string) (T, bool)) (*tensor.Array, *litError) {
	out := make([]T, len(flat))
	for i, l := range flat {
		var ok bool
		if l.im != "" {
			out[i], ok = conv(l.text, l.im)
		}
		if !ok {
			return nil, &litError{l.off, "literal " + strconv.Quote(l.text) + " is not a (re, im) pair of " + shloElem[t.DType]}
		}
	}
	a, err := tensor.New(t.DType, t.Shape, out)
	if err != nil {
		return nil, &litError{msg: err.Error()}
	}
	return a, nil
}

func signed[T int8 | int16 | int32 | int64](bits int) func(string) (T, bool) {
	return func(s string) (T, bool) {
		v, err := strconv.ParseInt(s, 10, bits)
		return T(v), err == nil
	}
}

func unsigned[T uint8 | uint16 | uint32 | uint64](bits int) func(string) (T, bool) {
	return func(s string) (T, bool) {
		v, err := strconv.ParseUint(s, 10, bits)
		return T(v), err == nil
	}
}

// floating reads a float element: 0x and exactly the type's width in hex
// digits is the bit pattern (as MLIR prints NaN and ±inf); a decimal, which
// must contain '.', is read as a float64 and rounded once to the type.
func floating[T any](bits int, fromBits func(uint64) T, fromFloat func(float64) T) func(string) (T, bool) {
	return func(s string) (T, bool) {
		var zero T
		if h, ok := strings.CutPrefix(s, "0x"); ok {
			if len(h) != bits/4 {
				return zero, false
			}
			b, err := strconv.ParseUint(h, 16, bits)
			return fromBits(b), err == nil
		}
		if !strings.Contains(s, ".") || strings.ContainsAny(s, "xXabcdfABCDF") {
			return zero, false
		}
		x, err := strconv.ParseFloat(s, 64)
		if err != nil || math.IsInf(x, 0) {
			return zero, false
		}
		return fromFloat(x), true
	}
}

// decodeNarrow reads the elements of a narrow dtype: a narrow float as its
// bits in hex (0x and ⌈bits/4⌉ digits) or a decimal with a '.', rounded to
// the format; a sub-byte integer as a decimal in its range.
func decodeNarrow(t Type, flat []literal) (*tensor.Array, *litError) {
	b := make([]byte, len(flat))
	f, isFloat := t.DType.FloatFormat()
	fi, _ := t.DType.IntFormat()
	for i, l := range flat {
		ok := l.im == ""
		switch {
		case !ok:
		case isFloat:
			var v uint8
			v, ok = floating((f.Bits()+3)/4*4, func(u uint64) uint8 { return uint8(u) }, f.FromFloat64)(l.text)
			ok = ok && int(v) < 1<<f.Bits()
			b[i] = v
		default:
			v, err := strconv.ParseInt(l.text, 10, 8)
			ok = err == nil && v >= fi.Min() && v <= fi.Max()
			b[i] = byte(v)
		}
		if !ok {
			return nil, &litError{l.off, "literal " + strconv.Quote(l.text) + " is not a " + shloElem[t.DType]}
		}
	}
	data, err := tensor.NarrowSlice(t.DType, b)
	if err == nil {
		var a *tensor.Array
		if a, err = tensor.New(t.DType, t.Shape, data); err == nil {
			return a, nil
		}
	}
	return nil, &litError{msg: err.Error()}
}
