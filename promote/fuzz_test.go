package promote

import (
	"testing"

	"github.com/kiln-go/kiln/tensor"
)

// FuzzLatticeLaws checks the join laws on the declared lattices: commutative,
// associative, idempotent, and a ≤ a∨b. Where a partial lattice (strict) has
// no join, neither grouping may have one.
func FuzzLatticeLaws(f *testing.F) {
	f.Add(uint8(i1), uint8(u1), uint8(f2))
	f.Add(uint8(iw), uint8(fw), uint8(cw))
	f.Add(uint8(u8), uint8(i1), uint8(bf))
	f.Fuzz(func(t *testing.T, x, y, z uint8) {
		a, b, c := Node(x%NumNodes), Node(y%NumNodes), Node(z%NumNodes)
		for _, l := range []*Lattice{jaxLattice, jaxX32Lattice, strictLattice} {
			ab, okAB := l.Join(a, b)
			ba, okBA := l.Join(b, a)
			if okAB != okBA || ab != ba {
				t.Fatalf("%s: %s∨%s = %s but %s∨%s = %s", l.Name(), a, b, ab, b, a, ba)
			}
			if aa, _ := l.Join(a, a); aa != a {
				t.Fatalf("%s: %s∨%s = %s", l.Name(), a, a, aa)
			}
			if okAB && (!l.Leq(a, ab) || !l.Leq(b, ab)) {
				t.Fatalf("%s: %s∨%s = %s is not above both", l.Name(), a, b, ab)
			}
			bc, okBC := l.Join(b, c)
			var left, right Node
			okL, okR := false, false
			if okAB {
				left, okL = l.Join(ab, c)
			}
			if okBC {
				right, okR = l.Join(a, bc)
			}
			if okL != okR || (okL && left != right) {
				t.Fatalf("%s: (%s∨%s)∨%s = %s, %s∨(%s∨%s) = %s", l.Name(), a, b, c, left, a, b, c, right)
			}
		}
	})
}

// FuzzResultTypeOrder checks that on JAX's lattice n-ary promotion does not
// depend on operand order, and that the result is never a weak bool.
func FuzzResultTypeOrder(f *testing.F) {
	f.Add(uint8(tensor.I8), false, uint8(tensor.U8), false, uint8(tensor.F16), true, false)
	f.Fuzz(func(t *testing.T, x uint8, xw bool, y uint8, yw bool, z uint8, zw bool, x32 bool) {
		ts := []Type{
			{DType: tensor.DType(x % tensor.NumDTypes), Weak: xw},
			{DType: tensor.DType(y % tensor.NumDTypes), Weak: yw},
			{DType: tensor.DType(z % tensor.NumDTypes), Weak: zw},
		}
		cfg := Config{X32: x32}
		want, err := cfg.ResultType(ts...)
		if err != nil {
			t.Fatal(err)
		}
		if want.Weak && want.DType == tensor.Bool {
			t.Fatalf("weak bool from %v", ts)
		}
		for _, p := range [][3]int{{0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}} {
			got, err := cfg.ResultType(ts[p[0]], ts[p[1]], ts[p[2]])
			if err != nil || got != want {
				t.Fatalf("ResultType%v = %v, %v; order %v gives %v", ts, want, err, p, got)
			}
		}
	})
}
