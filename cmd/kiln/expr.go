package main

import (
	"fmt"
	"slices"
	"strings"
	"unicode"
)

// The expression language of kiln eval is a small subset of Python's
// expression grammar, with Python's precedence and associativity (lowest
// first):
//
//	expr     = lambda | bitor [compop bitor]     // == != < <= > >=, not chained
//	lambda   = "lambda" [NAME {"," NAME}] ":" expr // a function argument; its body may be a tuple
//	bitor    = bitxor {"|" bitxor}
//	bitxor   = bitand {"^" bitand}
//	bitand   = shift {"&" shift}
//	shift    = arith {("<<" | ">>") arith}
//	arith    = term {("+" | "-") term}
//	term     = factor {("*" | "/" | "//" | "%" | "@") factor}
//	factor   = ("+" | "-" | "~") factor | power
//	power    = primary ["**" factor]         // right-assoc, tighter than a unary op on its left
//	primary  = atom {call | subscript | at}
//	call     = "(" [arg {"," arg} [","]] ")" // arg = expr | NAME "=" expr; a call of a call applies a function: vmap(f)(x)
//	subscript= "[" item {"," item} [","] "]" // item = expr | [expr] ":" [expr] [":" [expr]]
//	at       = "." "at" subscript "." NAME call // x.at[idx].set(v, mode='clip')
//	atom     = NAME ["." NAME] /* random.normal */ | NUMBER | STRING | True | False | None | "..." | "(" [expr {"," expr} [","]] ")"
//	         | "[" [expr {"," expr} [","]] "]"
//
// so -2**2 is -(2**2), 2**3**2 is 2**(3**2), and a < b & c is a < (b & c).

// nodeKind is the syntactic category of a node.
type nodeKind uint8

const (
	nName      nodeKind = iota // text: the name
	nInt                       // text: the literal; neg: a minus sign folded in
	nFloat                     // text, neg
	nImag                      // text (without the j), neg
	nBool                      // text: True or False
	nNone                      // None
	nEllipsis                  // ...
	nUnary                     // text: the operator; kids[0]
	nBinary                    // text: the operator; kids[0], kids[1]
	nCall                      // text: the function name; kids: positional args; kws
	nSubscript                 // kids[0]: the array; items
	nTuple                     // kids: the elements (a tuple or a list)
	nSlice                     // in a subscript: kids[0..2] = start, stop, step (nil when absent)
	nString                    // text: the contents ('clip'), for mode= arguments
	nAt                        // x.at[items].text(args): kids[0] the array, kids[1:] the positional args; items; kws
	nLambda                    // lambda params: kids[0] (the loops', branches' and transformations' functions, or applied)
	nApply                     // a function applied: kids[0] the function (a transformation's call or a lambda), kids[1:] the arguments
)

// node is one node of the syntax tree. col is the 1-based column of the
// token that names the node: an operator, a function name, a literal, the
// '[' of a subscript. Errors point there.
type node struct {
	kind  nodeKind
	col   int
	text  string
	neg   bool
	kids  []*node
	items []*node // subscript items
	kws   []keyword
	call  *bound   // a call's arguments, bound by check
	names []string // a lambda's parameters
	xf    *xform   // a transformation's call (vmap(f, in_axes=0)), bound by check
	out   *tree    // an application's results, found by check
}

// keyword is a name=value call argument.
type keyword struct {
	name string
	col  int
	val  *node
}

// exprError is an error in the expression itself — syntax, an unknown
// name, a bad call — found before anything is traced. Kind is the --json
// error kind.
type exprError struct {
	Kind string // "syntax", "argument" or "overflow"
	Col  int
	Msg  string
}

func (e *exprError) Error() string { return fmt.Sprintf("eval: %s: %s", exprPos(e.Col), e.Msg) }

func syntaxErr(col int, format string, args ...any) *exprError {
	return &exprError{Kind: "syntax", Col: col, Msg: fmt.Sprintf(format, args...)}
}

// token is one lexeme: a name, a number or an operator/punctuation.
type token struct {
	kind byte // 'n' name, '0' number, 'o' operator, 0 end
	text string
	col  int
}

func (t token) String() string {
	if t.kind == 0 {
		return "end of expression"
	}
	return fmt.Sprintf("%q", t.text)
}

// operators, longest first so that "**" wins over "*".
var operators = []string{"...", ".", "**", "//", "<<", ">>", "<=", ">=", "==", "!=",
	"+", "-", "*", "/", "%", "@", "&", "|", "^", "~", "<", ">", "(", ")", "[", "]", ",", ":", "="}

// lex splits src into tokens; columns count runes from 1.
func lex(src string) ([]token, error) {
	rs := []rune(src)
	var toks []token
	for i := 0; i < len(rs); {
		r := rs[i]
		col := i + 1
		switch {
		case unicode.IsSpace(r):
			i++
		case r == '_' || unicode.IsLetter(r):
			j := i
			for j < len(rs) && (rs[j] == '_' || unicode.IsLetter(rs[j]) || unicode.IsDigit(rs[j])) {
				j++
			}
			toks = append(toks, token{'n', string(rs[i:j]), col})
			i = j
		case r == '\'' || r == '"':
			j := i + 1
			for j < len(rs) && rs[j] != r {
				j++
			}
			if j == len(rs) {
				return nil, syntaxErr(col, "unterminated string %s", string(rs[i:]))
			}
			toks = append(toks, token{'s', string(rs[i+1 : j]), col})
			i = j + 1
		case unicode.IsDigit(r) || r == '.' && i+1 < len(rs) && unicode.IsDigit(rs[i+1]):
			j, err := lexNumber(rs, i)
			if err != nil {
				return nil, err
			}
			toks = append(toks, token{'0', string(rs[i:j]), col})
			i = j
		default:
			op := ""
			for _, o := range operators {
				if strings.HasPrefix(string(rs[i:min(i+3, len(rs))]), o) {
					op = o
					break
				}
			}
			if op == "" {
				return nil, syntaxErr(col, "unexpected character %q", r)
			}
			toks = append(toks, token{'o', op, col})
			i += len([]rune(op))
		}
	}
	return append(toks, token{0, "", len(rs) + 1}), nil
}

// lexNumber scans a Python number literal starting at rs[i]: 12, 1_000,
// 0x1f, 0b101, 0o17, 1.5, .5, 1., 1e-3, 2j, 1.5e3J.
func lexNumber(rs []rune, i int) (int, error) {
	j := i
	isDigit := func(r rune) bool { return r >= '0' && r <= '9' || r == '_' }
	if rs[j] == '0' && j+1 < len(rs) && strings.ContainsRune("xXoObB", rs[j+1]) {
		j += 2
		for j < len(rs) && (isDigit(rs[j]) || strings.ContainsRune("abcdefABCDEF", rs[j])) {
			j++
		}
	} else {
		for j < len(rs) && isDigit(rs[j]) {
			j++
		}
		if j < len(rs) && rs[j] == '.' && !(j+1 < len(rs) && rs[j+1] == '.') {
			j++
			for j < len(rs) && isDigit(rs[j]) {
				j++
			}
		}
		if j < len(rs) && (rs[j] == 'e' || rs[j] == 'E') {
			k := j + 1
			if k < len(rs) && (rs[k] == '+' || rs[k] == '-') {
				k++
			}
			if k < len(rs) && isDigit(rs[k]) {
				j = k
				for j < len(rs) && isDigit(rs[j]) {
					j++
				}
			}
		}
		if j < len(rs) && (rs[j] == 'j' || rs[j] == 'J') {
			j++
		}
	}
	if j < len(rs) && (rs[j] == '_' || unicode.IsLetter(rs[j]) || unicode.IsDigit(rs[j])) {
		return 0, syntaxErr(i+1, "invalid number literal %q", string(rs[i:j+1]))
	}
	return j, nil
}

// parser is a recursive-descent parser over the tokens.
type parser struct {
	toks []token
	pos  int
}

// parseExpr parses a whole expression.
func parseExpr(src string) (*node, error) {
	toks, err := lex(src)
	if err != nil {
		return nil, err
	}
	if toks[0].kind == 0 {
		return nil, syntaxErr(1, "empty expression")
	}
	p := &parser{toks: toks}
	n, err := p.expr()
	if err != nil {
		return nil, err
	}
	if t := p.peek(); t.kind != 0 {
		if t.kind == 'n' && (t.text == "and" || t.text == "or") {
			return nil, syntaxErr(t.col, "%q is not supported for arrays; use & | ~ (with parentheses around comparisons)", t.text)
		}
		return nil, syntaxErr(t.col, "expected an operator or the end of the expression, found %s", t)
	}
	return n, nil
}

func (p *parser) peek() token { return p.toks[p.pos] }

func (p *parser) next() token {
	t := p.toks[p.pos]
	if t.kind != 0 {
		p.pos++
	}
	return t
}

// isOp reports whether the next token is one of the operators ops.
func (p *parser) isOp(ops ...string) bool {
	t := p.peek()
	if t.kind != 'o' {
		return false
	}
	for _, o := range ops {
		if t.text == o {
			return true
		}
	}
	return false
}

func (p *parser) expect(op, what string) (token, error) {
	if !p.isOp(op) {
		return token{}, syntaxErr(p.peek().col, "expected %q %s, found %s", op, what, p.peek())
	}
	return p.next(), nil
}

var compareOps = []string{"==", "!=", "<", "<=", ">", ">="}

func (p *parser) expr() (*node, error) {
	if t := p.peek(); t.kind == 'n' && t.text == "lambda" {
		return p.lambda()
	}
	left, err := p.binary(0)
	if err != nil {
		return nil, err
	}
	if !p.isOp(compareOps...) {
		return left, nil
	}
	op := p.next()
	right, err := p.binary(0)
	if err != nil {
		return nil, err
	}
	if p.isOp(compareOps...) {
		return nil, syntaxErr(p.peek().col, "chained comparisons (a < b < c) are not supported for arrays; write (a < b) & (b < c)")
	}
	return &node{kind: nBinary, col: op.col, text: op.text, kids: []*node{left, right}}, nil
}

// binaryLevels are the left-associative binary operators, loosest first.
var binaryLevels = [][]string{{"|"}, {"^"}, {"&"}, {"<<", ">>"}, {"+", "-"}, {"*", "/", "//", "%", "@"}}

func (p *parser) binary(level int) (*node, error) {
	if level == len(binaryLevels) {
		return p.factor()
	}
	left, err := p.binary(level + 1)
	if err != nil {
		return nil, err
	}
	for p.isOp(binaryLevels[level]...) {
		op := p.next()
		right, err := p.binary(level + 1)
		if err != nil {
			return nil, err
		}
		left = &node{kind: nBinary, col: op.col, text: op.text, kids: []*node{left, right}}
	}
	return left, nil
}

func (p *parser) factor() (*node, error) {
	if !p.isOp("+", "-", "~") {
		return p.power()
	}
	op := p.next()
	x, err := p.factor()
	if err != nil {
		return nil, err
	}
	// A minus sign directly on a number is part of the literal, as Python
	// folds it: x + -129 with x: i8 is an overflow, not a wrapped convert.
	if op.text == "-" && (x.kind == nInt || x.kind == nFloat || x.kind == nImag) {
		x.neg, x.col = !x.neg, op.col
		return x, nil
	}
	return &node{kind: nUnary, col: op.col, text: op.text, kids: []*node{x}}, nil
}

func (p *parser) power() (*node, error) {
	base, err := p.primary()
	if err != nil {
		return nil, err
	}
	if !p.isOp("**") {
		return base, nil
	}
	op := p.next()
	exp, err := p.factor()
	if err != nil {
		return nil, err
	}
	return &node{kind: nBinary, col: op.col, text: "**", kids: []*node{base, exp}}, nil
}

func (p *parser) primary() (*node, error) {
	x, err := p.atom()
	if err != nil {
		return nil, err
	}
	for {
		switch {
		case p.isOp("(") && (x.kind == nLambda || x.kind == nCall && transforms[x.text] != nil):
			p.next()
			app := &node{kind: nApply, col: x.col, text: x.text}
			if x.kind == nLambda {
				app.text = "lambda"
			}
			if err := p.callArgs(app); err != nil {
				return nil, err
			}
			app.kids = append([]*node{x}, app.kids...)
			x = app
		case p.isOp("("):
			if x.kind != nName {
				return nil, syntaxErr(p.peek().col, "%s is not a function: only functions, lambdas and what vmap(…), grad(…), value_and_grad(…) and jit(…) return can be called", describe(x))
			}
			p.next()
			call := &node{kind: nCall, col: x.col, text: x.text}
			if err := p.callArgs(call); err != nil {
				return nil, err
			}
			x = call
		case p.isOp("["):
			open := p.peek()
			sub := &node{kind: nSubscript, col: open.col, kids: []*node{x}}
			items, err := p.subscript()
			if err != nil {
				return nil, err
			}
			sub.items = items
			x = sub
		case p.isOp(".") && x.kind == nName && qualifiers[x.text]:
			p.next()
			name := p.next()
			if name.kind != 'n' {
				return nil, syntaxErr(name.col, "expected a function name after %s.", x.text)
			}
			x = &node{kind: nName, col: x.col, text: x.text + "." + name.text}
			if x.text[0] != 'r' { // jnp.ones, np.int8, jnp.float8_e4m3fn: jax.numpy's own names
				x.text = name.text
			}
		case p.isOp("."):
			at, err := p.at(x)
			if err != nil {
				return nil, err
			}
			x = at
		default:
			return x, nil
		}
	}
}

// subscript parses "[" item, … "]".
func (p *parser) subscript() ([]*node, error) {
	open := p.next()
	var items []*node
	for !p.isOp("]") {
		it, err := p.item()
		if err != nil {
			return nil, err
		}
		items = append(items, it)
		if !p.isOp(",") {
			break
		}
		p.next()
	}
	if _, err := p.expect("]", "to close the subscript"); err != nil {
		return nil, err
	}
	if len(items) == 0 {
		return nil, syntaxErr(open.col, "empty subscript")
	}
	return items, nil
}

// qualifiers are the module names that prefix a function name:
// random.normal(…); jnp. and np. are dropped (jnp.sum, jnp.int4).
var qualifiers = map[string]bool{"random": true, "jnp": true, "np": true}

// atMethods are the methods of x.at[idx], jax.numpy's names.
var atMethods = []string{"get", "set", "add", "multiply", "min", "max"}

// at parses ".at[items].method(args)" after the array x: the one
// attribute of the language.
func (p *parser) at(x *node) (*node, error) {
	dot := p.next()
	name := p.next()
	if name.kind == 'n' && name.text == "astype" && p.isOp("(") { // x.astype(dtype): astype(x, dtype)
		p.next()
		call := &node{kind: nCall, col: name.col, text: "astype", kids: []*node{x}}
		if err := p.callArgs(call); err != nil {
			return nil, err
		}
		return call, nil
	}
	if name.kind != 'n' || name.text != "at" || !p.isOp("[") {
		return nil, syntaxErr(dot.col, "attribute access is not supported but for x.astype(dtype) and x.at[idx].get/set/add/multiply/min/max(…)")
	}
	items, err := p.subscript()
	if err != nil {
		return nil, err
	}
	if _, err := p.expect(".", "after x.at[…]: .get(), .set(v), .add(v), .multiply(v), .min(v) or .max(v)"); err != nil {
		return nil, err
	}
	m := p.next()
	if m.kind != 'n' || !slices.Contains(atMethods, m.text) {
		return nil, syntaxErr(m.col, "x.at[…] has no method %s: %s", m, strings.Join(atMethods, ", "))
	}
	if !p.isOp("(") {
		return nil, syntaxErr(p.peek().col, "call x.at[…].%s(…)", m.text)
	}
	p.next()
	call := &node{kind: nAt, col: m.col, text: m.text, items: items}
	if err := p.callArgs(call); err != nil {
		return nil, err
	}
	call.kids = append([]*node{x}, call.kids...)
	return call, nil
}

// callArgs parses the arguments of a call after its "(".
func (p *parser) callArgs(call *node) error {
	for !p.isOp(")") {
		if t := p.peek(); t.kind == 'n' && p.toks[p.pos+1].kind == 'o' && p.toks[p.pos+1].text == "=" {
			p.next()
			p.next()
			v, err := p.expr()
			if err != nil {
				return err
			}
			call.kws = append(call.kws, keyword{name: t.text, col: t.col, val: v})
		} else {
			v, err := p.expr()
			if err != nil {
				return err
			}
			if len(call.kws) > 0 {
				return syntaxErr(v.col, "a positional argument cannot follow a keyword argument")
			}
			call.kids = append(call.kids, v)
		}
		if !p.isOp(",") {
			break
		}
		p.next()
	}
	_, err := p.expect(")", "to close the call of "+call.text)
	return err
}

// item parses one subscript item: an expression or a slice.
func (p *parser) item() (*node, error) {
	col := p.peek().col
	var parts [3]*node
	if !p.isOp(":") {
		x, err := p.expr()
		if err != nil {
			return nil, err
		}
		if !p.isOp(":") {
			return x, nil
		}
		parts[0] = x
	}
	for k := 1; k < 3 && p.isOp(":"); k++ {
		p.next()
		if !p.isOp(":", ",", "]") {
			x, err := p.expr()
			if err != nil {
				return nil, err
			}
			parts[k] = x
		}
	}
	return &node{kind: nSlice, col: col, kids: parts[:]}, nil
}

func (p *parser) atom() (*node, error) {
	t := p.next()
	switch {
	case t.kind == 'n':
		switch t.text {
		case "True", "False":
			return &node{kind: nBool, col: t.col, text: t.text}, nil
		case "None":
			return &node{kind: nNone, col: t.col}, nil
		case "and", "or", "not":
			return nil, syntaxErr(t.col, "%q is not supported for arrays; use & | ~ (with parentheses around comparisons)", t.text)
		case "lambda":
			return nil, syntaxErr(t.col, "a lambda is an argument of fori_loop, while_loop, cond, switch, scan, vmap, grad, value_and_grad or jit (in parentheses elsewhere)")
		case "if", "else", "in", "is", "for":
			return nil, syntaxErr(t.col, "%q is not supported in kiln expressions", t.text)
		}
		return &node{kind: nName, col: t.col, text: t.text}, nil
	case t.kind == '0':
		switch text := strings.ReplaceAll(t.text, "_", ""); {
		case strings.HasSuffix(text, "j") || strings.HasSuffix(text, "J"):
			return &node{kind: nImag, col: t.col, text: text[:len(text)-1]}, nil
		case isIntLiteral(text):
			return &node{kind: nInt, col: t.col, text: text}, nil
		default:
			return &node{kind: nFloat, col: t.col, text: text}, nil
		}
	case t.kind == 's':
		return &node{kind: nString, col: t.col, text: t.text}, nil
	case t.kind == 'o' && t.text == "...":
		return &node{kind: nEllipsis, col: t.col}, nil
	case t.kind == 'o' && (t.text == "(" || t.text == "["):
		return p.group(t)
	}
	return nil, syntaxErr(t.col, "expected an operand (a name, a number or a parenthesized expression), found %s", t)
}

// group parses what follows "(" or "[": a parenthesized expression, a
// tuple or a list (lists are tuples here: shapes and axes).
func (p *parser) group(open token) (*node, error) {
	closer := map[string]string{"(": ")", "[": "]"}[open.text]
	var elems []*node
	trailing := false
	for !p.isOp(closer) {
		x, err := p.expr()
		if err != nil {
			return nil, err
		}
		elems, trailing = append(elems, x), false
		if !p.isOp(",") {
			break
		}
		p.next()
		trailing = true
	}
	if _, err := p.expect(closer, "to close the "+open.text+" at column "+fmt.Sprint(open.col)); err != nil {
		return nil, err
	}
	if open.text == "(" && len(elems) == 1 && !trailing {
		return elems[0], nil
	}
	return &node{kind: nTuple, col: open.col, kids: elems}, nil
}

// isIntLiteral reports whether a number literal (underscores removed) is
// an integer: no point, and no exponent unless it is hexadecimal.
func isIntLiteral(s string) bool {
	if len(s) > 1 && s[0] == '0' && strings.ContainsRune("xXoObB", rune(s[1])) {
		return true
	}
	return !strings.ContainsAny(s, ".eE")
}

// lambda parses "lambda a, b: expr", Python's lowest-precedence form; the
// body may be a tuple, (carry, y) as scan's function returns.
func (p *parser) lambda() (*node, error) {
	kw := p.next()
	n := &node{kind: nLambda, col: kw.col}
	for !p.isOp(":") {
		t := p.next()
		if t.kind != 'n' {
			return nil, syntaxErr(t.col, "expected a parameter name or ':' in the lambda, found %s", t)
		}
		if slices.Contains(n.names, t.text) {
			return nil, syntaxErr(t.col, "duplicate argument %q in the lambda", t.text)
		}
		n.names = append(n.names, t.text)
		if !p.isOp(",") {
			break
		}
		p.next()
	}
	if _, err := p.expect(":", "after the lambda's parameters"); err != nil {
		return nil, err
	}
	body, err := p.expr()
	if err != nil {
		return nil, err
	}
	n.kids = []*node{body}
	return n, nil
}
