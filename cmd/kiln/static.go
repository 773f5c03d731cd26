package main

import (
	"fmt"
	"math/big"
)

// staticInt reads a static int — an axis, a dimension, an index — given
// as an int literal or an expression of int literals (2**40, -1, 3*4,
// 10//3), folded with Python's int semantics (// and % floor); every step
// must fit int64, as the result must.
func staticInt(n *node) (int, error) {
	v, err := foldInt(n)
	if err != nil {
		return 0, err
	}
	return int(v.Int64()), nil
}

func foldInt(n *node) (*big.Int, error) {
	switch n.kind {
	case nInt:
		v, err := intLiteral(n)
		if err != nil {
			return nil, err
		}
		return big.NewInt(v), nil
	case nUnary:
		x, err := foldInt(n.kids[0])
		if err != nil {
			return nil, err
		}
		switch n.text {
		case "-":
			return fits(n, new(big.Int).Neg(x))
		case "+":
			return x, nil
		case "~":
			return fits(n, new(big.Int).Not(x))
		}
	case nBinary:
		if op, ok := intOps[n.text]; ok {
			x, err := foldInt(n.kids[0])
			if err != nil {
				return nil, err
			}
			y, err := foldInt(n.kids[1])
			if err != nil {
				return nil, err
			}
			r, msg := op(x, y)
			if msg != "" {
				return nil, &exprError{Kind: "syntax", Col: n.col, Msg: msg}
			}
			return fits(n, r)
		}
	}
	return nil, syntaxErr(n.col, "expected an int literal (axes, shapes and indices are static), found %s", describe(n))
}

// intOps fold Python's int operators; a message says why one cannot.
var intOps = map[string]func(x, y *big.Int) (*big.Int, string){
	"+": func(x, y *big.Int) (*big.Int, string) { return new(big.Int).Add(x, y), "" },
	"-": func(x, y *big.Int) (*big.Int, string) { return new(big.Int).Sub(x, y), "" },
	"*": func(x, y *big.Int) (*big.Int, string) { return new(big.Int).Mul(x, y), "" },
	"//": func(x, y *big.Int) (*big.Int, string) {
		q, _, msg := floorDivMod(x, y)
		return q, msg
	},
	"%": func(x, y *big.Int) (*big.Int, string) {
		_, m, msg := floorDivMod(x, y)
		return m, msg
	},
	"**": func(x, y *big.Int) (*big.Int, string) {
		switch {
		case y.Sign() < 0:
			return nil, fmt.Sprintf("%s ** %s is not an int (a negative power)", x, y)
		case x.CmpAbs(big.NewInt(1)) <= 0 || y.Cmp(big.NewInt(64)) <= 0:
			return new(big.Int).Exp(x, y, nil), ""
		}
		return nil, fmt.Sprintf("%s ** %s does not fit in int64", x, y)
	},
}

// floorDivMod is Python's divmod: the quotient rounds toward −∞ and the
// remainder takes the divisor's sign.
func floorDivMod(x, y *big.Int) (*big.Int, *big.Int, string) {
	if y.Sign() == 0 {
		return nil, nil, "integer division or modulo by zero"
	}
	q, m := new(big.Int).QuoRem(x, y, new(big.Int))
	if m.Sign() != 0 && m.Sign() != y.Sign() {
		q.Sub(q, big.NewInt(1))
		m.Add(m, y)
	}
	return q, m, ""
}

func fits(n *node, v *big.Int) (*big.Int, error) {
	if !v.IsInt64() {
		return nil, &exprError{Kind: "overflow", Col: n.col, Msg: fmt.Sprintf("the static int %s does not fit in int64", v)}
	}
	return v, nil
}
