package xmath

import (
	"math/big"
	"testing"

	"github.com/kiln-go/kiln/internal/bigmath"
)

// split is x as a double-double: its nearest double and the nearest double
// to the rest.
func split(x *big.Float) dd {
	hi, _ := x.Float64()
	lo, _ := new(big.Float).SetPrec(x.Prec()).Sub(x, new(big.Float).SetFloat64(hi)).Float64()
	return dd{hi, lo}
}

// The double-double constants are π, π/2, ln 2, 1/ln 2, ln 10 and
// atan(k/64), each to the nearest double-double.
func TestDoubleDoubleConstants(t *testing.T) {
	const p = 400
	pi := bigmath.Pi(p)
	l2 := bigmath.LogBig(big.NewFloat(2), p)
	for _, c := range []struct {
		name string
		got  dd
		want *big.Float
	}{
		{"pi", piDD, pi},
		{"pi/2", halfPiDD, new(big.Float).SetPrec(p).SetMantExp(pi, -1)},
		{"ln2", ln2dd, l2},
		{"1/ln2", invLn2dd, new(big.Float).SetPrec(p).Quo(big.NewFloat(1), l2)},
		{"ln10", ln10dd, bigmath.LogBig(big.NewFloat(10), p)},
	} {
		if w := split(c.want); c.got != w {
			t.Errorf("%s = %v, want %v", c.name, c.got, w)
		}
	}
	for k := range atanTable {
		x := new(big.Float).SetPrec(p).Quo(big.NewFloat(float64(k)), big.NewFloat(64))
		if w := split(bigmath.AtanBig(x, p)); atanTable[k] != w {
			t.Errorf("atanTable[%d] = %v, want %v", k, atanTable[k], w)
		}
	}
}
