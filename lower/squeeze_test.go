package lower_test

import (
	"strings"
	"testing"

	"github.com/kiln-go/kiln/lower"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// vmap's batched vector-matrix product, reshape(dot(reshape(x), w)) with a
// unit free dimension in between, becomes one dot of x and w, which the
// relu reading it then takes as an epilogue: one kernel, not two.
func TestSqueezeDotUnitDims(t *testing.T) {
	in := []trace.Abstract{abs(tensor.F32, 256, 64), abs(tensor.F32, 64, 128), abs(tensor.F32, 128), abs(tensor.F32, 10, 128)}
	m := compile(t, in, lower.Options{}, func(a []trace.Value) []trace.Value {
		x, w, b, v := a[0], a[1], a[2], a[3]
		p := trace.DotGeneral(x.Reshape(256, 1, 64), w, trace.DotDims{LhsContract: []int{2}, RhsContract: []int{0}}).Reshape(256, 128)
		pre := p.Add(b)
		h := trace.Where(pre.Gt(trace.Int(0)), pre, trace.Int(0))
		// The unit dimension on the rhs's side too, and batch dimensions.
		q := trace.DotGeneral(h.Reshape(256, 1, 128), v.Reshape(1, 10, 128),
			trace.DotDims{LhsContract: []int{2}, RhsContract: []int{2}}).Reshape(256, 10)
		return []trace.Value{h, q.Tanh()}
	})
	text := m.String()
	if strings.Contains(text, "reshape(") {
		t.Errorf("the unit dimensions should be gone:\n%s", text)
	}
	if len(m.Fusions) != 2 || !m.Fusions[0].Epilogue() || !m.Fusions[1].Epilogue() {
		t.Errorf("want two dots with their epilogues:\n%s", m.FusedString())
	}
}

// The rewrite leaves a product alone when something else reads it, when
// the reshape moves elements other than unit dimensions, and when an
// operand is not a reshape adding exactly the dropped dimensions.
func TestSqueezeDotKept(t *testing.T) {
	for _, c := range []struct {
		name string
		fn   func(x, w trace.Value) []trace.Value
	}{
		{"shared product", func(x, w trace.Value) []trace.Value {
			p := trace.DotGeneral(x.Reshape(4, 1, 6), w, trace.DotDims{LhsContract: []int{2}, RhsContract: []int{0}})
			return []trace.Value{p.Reshape(4, 8), p.Sum()}
		}},
		{"not unit dims", func(x, w trace.Value) []trace.Value {
			p := trace.DotGeneral(x.Reshape(4, 1, 6), w, trace.DotDims{LhsContract: []int{2}, RhsContract: []int{0}})
			return []trace.Value{p.Reshape(32)}
		}},
		{"operand not a reshape", func(x, w trace.Value) []trace.Value {
			p := trace.DotGeneral(x.Reshape(4, 1, 6).Exp(), w, trace.DotDims{LhsContract: []int{2}, RhsContract: []int{0}})
			return []trace.Value{p.Reshape(4, 8)}
		}},
		{"batch dim", func(x, w trace.Value) []trace.Value {
			p := trace.DotGeneral(x.Reshape(1, 4, 6), w.Reshape(1, 6, 8), trace.DotDims{LhsBatch: []int{0}, RhsBatch: []int{0}, LhsContract: []int{2}, RhsContract: []int{1}})
			return []trace.Value{p.Reshape(4, 8)}
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := compile(t, []trace.Abstract{abs(tensor.F32, 4, 6), abs(tensor.F32, 6, 8)}, lower.Options{}, func(a []trace.Value) []trace.Value {
				return c.fn(a[0], a[1])
			})
			for _, in := range m.Instrs {
				if in.Op == trace.OpDot && len(in.Args[0].Shape) != 3 {
					t.Errorf("the product was rewritten:\n%s", m)
				}
			}
		})
	}
}
