package stablehlo

import (
	"fmt"

	"github.com/kiln-go/kiln/tensor"
)

// sort is stablehlo.sort of every operand, is_stable, with a comparator
// region that is JAX's order (trace/sort.go): the keys lexicographically,
// floats with −0 = +0 (a FLOAT compare) and every NaN equal and last,
// complex numbers by (real, imag). The instruction's result is one of the
// sort's results (Params.Sort.Output).
func (x *shloInstr) sort(args []*shloVal) (*shloVal, error) {
	p := x.in.Params
	s := p.Sort
	if s.NumKeys < 1 || s.NumKeys > len(args) || s.Output < 0 || s.Output >= len(args) {
		return nil, unsupported("sort with num_keys %d, output %d of %d operands", s.NumKeys, s.Output, len(args))
	}
	x.note("a stable sort whose comparator puts NaN last and treats -0 as +0 (JAX's order)")
	var types, scalars []shloType
	for _, a := range args {
		types = append(types, a.typ)
		scalars = append(scalars, a.typ.scalar(), a.typ.scalar())
	}
	region := x.region(x.prefix+"_r", scalars, func(r *shloBuilder, in []*shloVal) {
		var less *shloVal
		for k := s.NumKeys - 1; k >= 0; k-- {
			lt, eq := sortLess(r, in[2*k], in[2*k+1], less != nil)
			if less == nil {
				less = lt
			} else {
				less = r.bin("or", lt, r.bin("and", eq, less))
			}
		}
		r.ret(less)
	})
	res := x.opN("sort", types, []string{fmt.Sprintf("dimension = %d : i64", p.Axis), "is_stable = true"}, region, args...)
	return res[s.Output], nil
}

// sortLess compares scalars a and b in sort order: a before b, and (when
// wantEq) a equal to b.
func sortLess(r *shloBuilder, a, b *shloVal, wantEq bool) (lt, eq *shloVal) {
	d := a.typ.dt
	switch {
	case d.IsComplex():
		part := tensor.F32
		if d == tensor.C128 {
			part = tensor.F64
		}
		pt := a.typ.with(part)
		ltRe, eqRe := sortLess(r, r.op("real", pt, a), r.op("real", pt, b), true)
		ltIm, eqIm := sortLess(r, r.op("imag", pt, a), r.op("imag", pt, b), wantEq)
		lt = r.bin("or", ltRe, r.bin("and", eqRe, ltIm))
		if wantEq {
			eq = r.bin("and", eqRe, eqIm)
		}
		return lt, eq
	case d.IsFloat():
		aNaN, bNaN := r.cmp("NE", a, a), r.cmp("NE", b, b)
		lt = r.bin("or", r.cmp("LT", a, b), r.bin("and", bNaN, r.op("not", aNaN.typ, aNaN)))
		if wantEq {
			eq = r.bin("or", r.cmp("EQ", a, b), r.bin("and", aNaN, bNaN))
		}
		return lt, eq
	}
	if wantEq {
		eq = r.cmp("EQ", a, b)
	}
	return r.cmp("LT", a, b), eq
}
