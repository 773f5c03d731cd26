package stablehlo

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/kiln-go/kiln/tensor"
)

// Parse reads MLIR text of the form Export writes: a module of func.func
// functions whose ops are in MLIR's generic form ("stablehlo.add"(%0, %1)
// : (…) -> …), with regions, attribute dictionaries, ranked static tensor
// types and func.return. It resolves every operand to the value that
// defines it (in the block, or an enclosing one) and checks the types
// written at each use against the definition, result counts, and dense
// literals against their types, element by element. StableHLO's per-op
// pretty syntax ("stablehlo.add %0, %1 : tensor<f32>"), dynamic shapes,
// multi-block regions and attribute kinds the exporter does not write are
// errors. Every error is a *ParseError with the line and column.
//
// A splat literal (dense<0.0> : tensor<…>) is expanded to its type's
// elements only up to MaxSplatElements; the other literals hold their
// elements in the text, so nothing the text merely claims is allocated.
func Parse(text string) (*Module, error) {
	p := &parser{src: text}
	for i := range len(text) {
		if text[i] == '\n' {
			p.lines = append(p.lines, i+1)
		}
	}
	m, err := p.module()
	if err != nil {
		return nil, err
	}
	return m, nil
}

// MaxSplatElements bounds the elements Parse expands a splat literal to.
const MaxSplatElements = 1 << 24

// maxDepth bounds the nesting of regions and of dense literal lists, so
// that no input can exhaust the stack.
const maxDepth = 256

type parser struct {
	src    string
	off    int
	depth  int
	lines  []int                 // offsets where lines 2, 3, … start
	scopes []map[string][]*Value // visible names, innermost last
}

// bail carries a *ParseError up through the recursive descent; module
// recovers it (the only panic the parser raises).
type bail struct{ err *ParseError }

func (p *parser) pos(off int) Pos {
	line := sort.SearchInts(p.lines, off+1) // lines starting at or before off
	start := 0
	if line > 0 {
		start = p.lines[line-1]
	}
	return Pos{Line: line + 1, Col: off - start + 1}
}

func (p *parser) failAt(off int, format string, args ...any) {
	panic(bail{&ParseError{Pos: p.pos(off), Msg: fmt.Sprintf(format, args...)}})
}

func (p *parser) fail(format string, args ...any) { p.failAt(p.off, format, args...) }

// skip passes spaces and // comments.
func (p *parser) skip() {
	for p.off < len(p.src) {
		switch c := p.src[p.off]; {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			p.off++
		case strings.HasPrefix(p.src[p.off:], "//"):
			if i := strings.IndexByte(p.src[p.off:], '\n'); i >= 0 {
				p.off += i + 1
			} else {
				p.off = len(p.src)
			}
		default:
			return
		}
	}
}

// accept consumes s (after spaces) if it is next.
func (p *parser) accept(s string) bool {
	p.skip()
	if strings.HasPrefix(p.src[p.off:], s) {
		p.off += len(s)
		return true
	}
	return false
}

func (p *parser) expect(s string) {
	if !p.accept(s) {
		p.fail("expected %q, found %s", s, p.near())
	}
}

// near quotes the text at the current offset for an error message.
func (p *parser) near() string {
	if p.off >= len(p.src) {
		return "end of input"
	}
	s := p.src[p.off:]
	if i := strings.IndexAny(s, "\n"); i >= 0 {
		s = s[:i]
	}
	if len(s) > 24 {
		s = s[:24] + "…"
	}
	return strconv.Quote(s)
}

func (p *parser) peek(s string) bool { p.skip(); return strings.HasPrefix(p.src[p.off:], s) }

func isIdent(c byte, first bool) bool {
	return c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || !first && ('0' <= c && c <= '9' || c == '.' || c == '$')
}

// ident reads a bare identifier (letters, digits, _ . $).
func (p *parser) ident() string {
	p.skip()
	start := p.off
	for p.off < len(p.src) && isIdent(p.src[p.off], p.off == start) {
		p.off++
	}
	if p.off == start {
		p.fail("expected an identifier, found %s", p.near())
	}
	return p.src[start:p.off]
}

// sigil reads a name introduced by c: %7, %t5_1, @main, ^bb0.
func (p *parser) sigil(c byte) string {
	p.skip()
	start := p.off
	if p.off >= len(p.src) || p.src[p.off] != c {
		p.fail("expected a %c name, found %s", c, p.near())
	}
	p.off++
	for p.off < len(p.src) && (isIdent(p.src[p.off], false) || p.src[p.off] == '-') {
		p.off++
	}
	if p.off == start+1 {
		p.fail("empty %c name", c)
	}
	return p.src[start:p.off]
}

// integer reads a decimal integer, optionally negative.
func (p *parser) integer() int64 {
	p.skip()
	start := p.off
	if p.off < len(p.src) && p.src[p.off] == '-' {
		p.off++
	}
	for p.off < len(p.src) && '0' <= p.src[p.off] && p.src[p.off] <= '9' {
		p.off++
	}
	v, err := strconv.ParseInt(p.src[start:p.off], 10, 64)
	if err != nil {
		p.failAt(start, "expected an integer, found %s", strconv.Quote(p.src[start:min(p.off+1, len(p.src))]))
	}
	return v
}

// smallInt reads an integer that must fit an int and be ≥ lo.
func (p *parser) smallInt(lo int64) int {
	start := p.off
	v := p.integer()
	if v < lo || v > 1<<31 {
		p.failAt(start, "integer %d out of range", v)
	}
	return int(v)
}

// list reads items separated by commas up to close (the opener already
// consumed).
func (p *parser) list(close string, item func()) {
	if p.accept(close) {
		return
	}
	for {
		item()
		if p.accept(close) {
			return
		}
		p.expect(",")
	}
}

func (p *parser) module() (m *Module, err error) {
	defer func() {
		if r := recover(); r != nil {
			b, ok := r.(bail)
			if !ok {
				panic(r)
			}
			m, err = nil, b.err
		}
	}()
	m = &Module{}
	braced := p.accept("module")
	if braced {
		if p.peek("@") {
			m.Name = p.sigil('@')
		}
		p.expect("{")
	}
	for {
		p.skip()
		if braced && p.accept("}") || !braced && p.off == len(p.src) {
			break
		}
		if !p.accept("func.func") {
			p.fail("expected func.func, found %s", p.near())
		}
		m.Funcs = append(m.Funcs, p.function())
	}
	if p.skip(); p.off != len(p.src) {
		p.fail("unexpected %s after the module", p.near())
	}
	return m, nil
}

func (p *parser) function() *Func {
	f := &Func{Pos: p.pos(p.off)}
	if p.skip(); !p.peek("@") {
		f.Visibility = p.ident()
	}
	f.Name = p.sigil('@')
	p.scopes = []map[string][]*Value{{}} // a function is isolated from above
	body := &Block{}
	p.expect("(")
	p.list(")", func() { body.Args = append(body.Args, p.argument()) })
	if p.accept("->") {
		if p.accept("(") {
			p.list(")", func() { f.Results = append(f.Results, p.tensorType()) })
		} else {
			f.Results = []Type{p.tensorType()}
		}
	}
	p.expect("{")
	p.ops(body, "}")
	f.Body = body
	var last *Op
	if len(body.Ops) > 0 {
		last = body.Ops[len(body.Ops)-1]
	}
	if last == nil || last.Name != "func.return" {
		p.fail("%s does not end with func.return", f.Name)
	}
	for _, o := range body.Ops[:len(body.Ops)-1] {
		if o.Name == "func.return" || o.Name == "stablehlo.return" {
			p.failAt(p.offOf(o.Pos), "%s before the end of %s", o.Name, f.Name)
		}
	}
	if len(last.Operands) != len(f.Results) {
		p.failAt(p.offOf(last.Pos), "func.return of %d values in %s, which returns %d", len(last.Operands), f.Name, len(f.Results))
	}
	for i, v := range last.Operands {
		if !v.Type.Equal(f.Results[i]) {
			p.failAt(p.offOf(last.Pos), "func.return's value %d is %s, %s returns %s", i, v.Type, f.Name, f.Results[i])
		}
	}
	return f
}

// nest enters a nested region or list whose opener was just read, failing
// there past maxDepth.
func (p *parser) nest() {
	if p.depth++; p.depth > maxDepth {
		p.failAt(p.off-1, "nested more than %d deep", maxDepth)
	}
}

// offOf turns a position back into an offset (for errors found after the
// op was read).
func (p *parser) offOf(pos Pos) int {
	start := 0
	if pos.Line > 1 {
		start = p.lines[pos.Line-2]
	}
	return start + pos.Col - 1
}

// argument reads a block argument, "%name: type", and defines it.
func (p *parser) argument() *Value {
	p.skip()
	start := p.off
	name := p.sigil('%')
	p.expect(":")
	v := &Value{Name: name, Type: p.tensorType()}
	p.define(start, name, []*Value{v})
	return v
}

func (p *parser) define(off int, name string, vs []*Value) {
	for _, s := range p.scopes {
		if _, dup := s[name]; dup {
			p.failAt(off, "%s is defined twice", name)
		}
	}
	p.scopes[len(p.scopes)-1][name] = vs
}

// ops reads a block's ops up to close.
func (p *parser) ops(b *Block, close string) {
	for !p.accept(close) {
		if p.skip(); p.off == len(p.src) {
			p.fail("expected %q, found end of input", close)
		}
		b.Ops = append(b.Ops, p.op())
	}
}

// operand reads a use, %7 or %7#1, and resolves it.
func (p *parser) operand() *Value {
	p.skip()
	start := p.off
	name := p.sigil('%')
	idx := 0
	if p.src[p.off:] != "" && p.src[p.off] == '#' {
		p.off++
		idx = p.smallInt(0)
	}
	for i := len(p.scopes) - 1; i >= 0; i-- {
		if vs, ok := p.scopes[i][name]; ok {
			if idx >= len(vs) {
				p.failAt(start, "%s#%d: %s has %d results", name, idx, name, len(vs))
			}
			return vs[idx]
		}
	}
	p.failAt(start, "%s is not defined", name)
	return nil
}

func (p *parser) op() *Op {
	p.skip()
	start := p.off
	o := &Op{Pos: p.pos(start)}
	var name string
	n := 0
	if p.peek("%") {
		name = p.sigil('%')
		n = 1
		if p.accept(":") {
			n = p.smallInt(1)
		}
		p.expect("=")
	}
	if p.accept("func.return") {
		if n > 0 {
			p.failAt(start, "func.return has no results")
		}
		for p.peek("%") {
			o.Operands = append(o.Operands, p.operand())
			if !p.accept(",") {
				break
			}
		}
		o.Name = "func.return"
		if len(o.Operands) > 0 {
			p.expect(":")
			for i, v := range o.Operands {
				if i > 0 {
					p.expect(",")
				}
				p.useType(v)
			}
		}
		return o
	}
	p.skip()
	if !p.peek("\"") {
		p.fail("expected an op in MLIR's generic form (\"dialect.op\"(…)), found %s", p.near())
	}
	var err error
	nameStart := p.off
	end := strings.IndexByte(p.src[p.off+1:], '"')
	if end < 0 {
		p.fail("unterminated op name")
	}
	if o.Name, err = strconv.Unquote(p.src[p.off : p.off+end+2]); err != nil || !strings.Contains(o.Name, ".") {
		p.failAt(nameStart, "bad op name %s", p.src[p.off:p.off+end+2])
	}
	p.off += end + 2
	p.expect("(")
	p.list(")", func() { o.Operands = append(o.Operands, p.operand()) })
	if p.accept("(") {
		p.list(")", func() { o.Regions = append(o.Regions, p.region()) })
	}
	if p.accept("{") {
		p.list("}", func() { o.Attrs = append(o.Attrs, p.attribute()) })
	}
	p.expect(":")
	p.expect("(")
	i := 0
	p.list(")", func() {
		if i >= len(o.Operands) {
			p.fail("%s has %d operands, its type lists more", o.Name, len(o.Operands))
		}
		p.useType(o.Operands[i])
		i++
	})
	if i != len(o.Operands) {
		p.fail("%s has %d operands, its type lists %d", o.Name, len(o.Operands), i)
	}
	p.expect("->")
	var results []Type
	if p.accept("(") {
		p.list(")", func() { results = append(results, p.tensorType()) })
	} else {
		results = []Type{p.tensorType()}
	}
	if len(results) != n {
		p.failAt(start, "%s defines %d results, its type lists %d", o.Name, n, len(results))
	}
	for i, t := range results {
		o.Results = append(o.Results, &Value{Name: name, Index: i, Def: o, Type: t})
	}
	if n > 0 {
		p.define(start, name, o.Results)
	}
	return o
}

// useType reads the type written for a use of v and fails, at the type,
// unless it is v's type.
func (p *parser) useType(v *Value) {
	p.skip()
	start := p.off
	if t := p.tensorType(); !v.Type.Equal(t) {
		p.failAt(start, "%s is %s, used as %s", v.Ref(), v.Type, t)
	}
}

// region reads { ^bb0(args): ops } (the block label is optional where
// there are no arguments). Its names are scoped to it.
func (p *parser) region() *Block {
	p.expect("{")
	p.nest()
	defer func() { p.depth-- }()
	p.scopes = append(p.scopes, map[string][]*Value{})
	defer func() { p.scopes = p.scopes[:len(p.scopes)-1] }()
	b := &Block{}
	if p.peek("^") {
		p.sigil('^')
		if p.accept("(") {
			p.list(")", func() { b.Args = append(b.Args, p.argument()) })
		}
		p.expect(":")
	}
	p.ops(b, "}")
	if len(b.Ops) == 0 || b.Ops[len(b.Ops)-1].Name != "stablehlo.return" {
		p.failAt(p.off-1, "a region does not end with stablehlo.return")
	}
	for _, o := range b.Ops[:len(b.Ops)-1] {
		if o.Name == "stablehlo.return" || o.Name == "func.return" {
			p.failAt(p.offOf(o.Pos), "%s before the end of a region", o.Name)
		}
	}
	return b
}

// elemTypes are the MLIR element types of Kiln's dtypes, longest first
// where one is a prefix of another.
var elemTypes = func() []string {
	var s []string
	for _, e := range shloElem {
		s = append(s, e)
	}
	sort.Slice(s, func(i, j int) bool { return len(s[i]) > len(s[j]) })
	return s
}()

// elemType reads an element type (f32, ui8, complex<f64>, …).
func (p *parser) elemType() tensor.DType {
	p.skip()
	for _, e := range elemTypes {
		if strings.HasPrefix(p.src[p.off:], e) {
			rest := p.src[p.off+len(e):]
			if rest != "" && isIdent(rest[0], false) {
				continue // i1 of i16
			}
			p.off += len(e)
			for d, name := range shloElem {
				if name == e {
					return tensor.DType(d)
				}
			}
		}
	}
	p.fail("expected an element type (i1, i8…i64, ui8…ui64, f16, bf16, f32, f64, complex<f32|f64>), found %s", p.near())
	return 0
}

// tensorType reads tensor<2x3xf32> with static dimensions.
func (p *parser) tensorType() Type {
	p.expect("tensor<")
	var t Type
	t.Shape = []int{}
	for p.off < len(p.src) && ('0' <= p.src[p.off] && p.src[p.off] <= '9' || p.src[p.off] == '?') {
		if p.src[p.off] == '?' {
			p.fail("dynamic dimensions are not supported")
		}
		start := p.off
		for p.off < len(p.src) && '0' <= p.src[p.off] && p.src[p.off] <= '9' {
			p.off++
		}
		d, err := strconv.Atoi(p.src[start:p.off])
		if err != nil || d > 1<<40 {
			p.failAt(start, "dimension %s out of range", p.src[start:p.off])
		}
		t.Shape = append(t.Shape, d)
		if p.off >= len(p.src) || p.src[p.off] != 'x' {
			p.fail("expected 'x' after a dimension, found %s", p.near())
		}
		p.off++
	}
	if len(t.Shape) == 0 {
		t.Shape = nil
	}
	t.DType = p.elemType()
	if p.off >= len(p.src) || p.src[p.off] != '>' {
		p.fail("expected '>' closing the tensor type, found %s", p.near())
	}
	p.off++
	if _, err := tensor.ShapeSize(t.Shape); err != nil {
		p.fail("%s: %v", t, err)
	}
	return t
}
