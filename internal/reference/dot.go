package reference

import (
	"fmt"
	"math"

	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// dot evaluates dot_general. Each result element is a sum over the
// contracting index tuple in row-major order (first contracting pair
// slowest), accumulated left to right from +0; a float step is one fused
// multiply-add (docs/SPEC.md §3), computed exactly here: math.FMA for f64,
// fma32 for f32. bf16 takes that k order in pairs instead (bf16Dot).
func dot(dims trace.DotDims, lhs, rhs *tensor.Array) (*tensor.Array, error) {
	return dotTo(dims, lhs, rhs, lhs.DType())
}

// dotTo is dot with result dtype rd: the operands' own, or f32 for bf16
// operands (preferred_element_type=f32: the bf16 rule's accumulator).
func dotTo(dims trace.DotDims, lhs, rhs *tensor.Array, rd tensor.DType) (*tensor.Array, error) {
	if lhs.DType() != rhs.DType() {
		return nil, fmt.Errorf("operands are %s and %s; dot_general operands share one dtype", lhs.DType(), rhs.DType())
	}
	ls, rs := lhs.Shape(), rhs.Shape()
	if err := checkDotDims(dims, ls, rs); err != nil {
		return nil, err
	}
	lst, rst := strides(ls), strides(rs)
	lfree, rfree := freeDims(len(ls), dims.LhsBatch, dims.LhsContract), freeDims(len(rs), dims.RhsBatch, dims.RhsContract)

	// A flat index is linear in the multi-index, so each operand index
	// splits into a part fixed by the result element and a part fixed by
	// the contracting tuple: lhs index = lbase[o] + lk[k].
	var shape []int
	for _, a := range dims.LhsBatch {
		shape = append(shape, ls[a])
	}
	for _, a := range lfree {
		shape = append(shape, ls[a])
	}
	for _, a := range rfree {
		shape = append(shape, rs[a])
	}
	nb, nl := len(dims.LhsBatch), len(lfree)
	var lbase, rbase []int
	forEach(shape, func(o []int) {
		l, r := 0, 0
		for i := range dims.LhsBatch {
			l += o[i] * lst[dims.LhsBatch[i]]
			r += o[i] * rst[dims.RhsBatch[i]]
		}
		for i, a := range lfree {
			l += o[nb+i] * lst[a]
		}
		for i, a := range rfree {
			r += o[nb+nl+i] * rst[a]
		}
		lbase, rbase = append(lbase, l), append(rbase, r)
	})
	var kshape []int
	for _, a := range dims.LhsContract {
		kshape = append(kshape, ls[a])
	}
	var lk, rk []int
	forEach(kshape, func(k []int) {
		l, r := 0, 0
		for i := range k {
			l += k[i] * lst[dims.LhsContract[i]]
			r += k[i] * rst[dims.RhsContract[i]]
		}
		lk, rk = append(lk, l), append(rk, r)
	})
	terms := func(o int) (li, ri []int) {
		for k := range lk {
			li, ri = append(li, lbase[o]+lk[k]), append(ri, rbase[o]+rk[k])
		}
		return li, ri
	}
	if lhs.DType() == tensor.BF16 {
		return bf16Dot(lhs.Data().([]tensor.BFloat16), rhs.Data().([]tensor.BFloat16), len(lbase), terms, rd, shape)
	}
	res, err := dotValues(widen(lhs), widen(rhs), len(lbase), terms)
	if err != nil {
		return nil, err
	}
	// f16 and bf16 accumulated in float32; narrow rounds once.
	return narrow(res, lhs.DType(), shape)
}

// preferredDot evaluates dot_general with a preferred_element_type by its
// definition: both operands converted to the preferred dtype, then dot in
// it (the products of narrower operands are exact there, so this is the
// wide accumulation with one rounding at most, in the preferred dtype).
//
// bf16 operands with an f32 preferred type are the exception: the bf16
// rule's f32 accumulator is the result (bf16Dot), not an f32 dot. So are
// narrow float operands exact in bf16 (every narrow float but f8e8m0fnu)
// with an f32 preferred type: by definition (docs/SPEC.md §3) that is the
// bf16 × bf16 → f32 dot of the operands converted to bf16.
func preferredDot(p trace.Params, lhs, rhs *tensor.Array) (*tensor.Array, error) {
	if lhs.DType() == rhs.DType() && exactInBF16(lhs.DType()) && p.Preferred == tensor.F32 {
		lhs, rhs = lhs.Astype(tensor.BF16), rhs.Astype(tensor.BF16)
	}
	if lhs.DType() == tensor.BF16 && rhs.DType() == tensor.BF16 && p.Preferred == tensor.F32 {
		return dotTo(p.Dot, lhs, rhs, tensor.F32)
	}
	l, r, err := preferredOperands(p, lhs, rhs)
	if err != nil {
		return nil, err
	}
	return dot(p.Dot, l, r)
}

// preferredOperands are a dot's or convolution's operands converted to
// its preferred_element_type.
func preferredOperands(p trace.Params, lhs, rhs *tensor.Array) (*tensor.Array, *tensor.Array, error) {
	d := p.Preferred
	if !d.Valid() {
		return nil, nil, fmt.Errorf("preferred_element_type %v is not a dtype", d)
	}
	if lhs.DType() != rhs.DType() {
		return nil, nil, fmt.Errorf("operands are %s and %s; the operands share one dtype", lhs.DType(), rhs.DType())
	}
	return lhs.Astype(d), rhs.Astype(d), nil
}

// checkDotDims checks that the dimension numbers pair up dims of equal
// size, each operand dim used at most once.
func checkDotDims(d trace.DotDims, ls, rs []int) error {
	if len(d.LhsBatch) != len(d.RhsBatch) || len(d.LhsContract) != len(d.RhsContract) {
		return fmt.Errorf("batch and contracting dims do not pair up: %+v", d)
	}
	pairs := [][2][]int{{d.LhsBatch, d.RhsBatch}, {d.LhsContract, d.RhsContract}}
	lused, rused := make([]bool, len(ls)), make([]bool, len(rs))
	for _, p := range pairs {
		for i := range p[0] {
			l, r := p[0][i], p[1][i]
			if l < 0 || l >= len(ls) || r < 0 || r >= len(rs) || lused[l] || rused[r] || ls[l] != rs[r] {
				return fmt.Errorf("dims %d of %v and %d of %v cannot pair (out of range, reused or of different sizes)", l, ls, r, rs)
			}
			lused[l], rused[r] = true, true
		}
	}
	return nil
}

// freeDims lists, in order, the dims of a rank-n operand that are neither
// batch nor contracting.
func freeDims(n int, batch, contract []int) []int {
	var out []int
	for i := range n {
		if !contains(batch, i) && !contains(contract, i) {
			out = append(out, i)
		}
	}
	return out
}

// dotValues computes n result elements; terms(o) lists the lhs and rhs
// indices of result o's products in summation order.
func dotValues(a, b any, n int, terms func(o int) (li, ri []int)) (any, error) {
	switch a := a.(type) {
	case []bool:
		return dotWith(a, b.([]bool), n, terms, false, func(s, x, y bool) bool { return s || (x && y) }), nil
	case []uint8:
		return dotWith(a, b.([]uint8), n, terms, 0, intMulAdd[uint8]), nil
	case []uint16:
		return dotWith(a, b.([]uint16), n, terms, 0, intMulAdd[uint16]), nil
	case []uint32:
		return dotWith(a, b.([]uint32), n, terms, 0, intMulAdd[uint32]), nil
	case []uint64:
		return dotWith(a, b.([]uint64), n, terms, 0, intMulAdd[uint64]), nil
	case []int8:
		return dotWith(a, b.([]int8), n, terms, 0, intMulAdd[int8]), nil
	case []int16:
		return dotWith(a, b.([]int16), n, terms, 0, intMulAdd[int16]), nil
	case []int32:
		return dotWith(a, b.([]int32), n, terms, 0, intMulAdd[int32]), nil
	case []int64:
		return dotWith(a, b.([]int64), n, terms, 0, intMulAdd[int64]), nil
	case []float32:
		return dotWith(a, b.([]float32), n, terms, 0, func(s, x, y float32) float32 { return fma32(x, y, s) }), nil
	case []float64:
		return dotWith(a, b.([]float64), n, terms, 0, func(s, x, y float64) float64 { return math.FMA(x, y, s) }), nil
	case []cpx[float32]:
		return dotWith(a, b.([]cpx[float32]), n, terms, cpx[float32]{}, complexMulAdd[float32]), nil
	case []cpx[float64]:
		return dotWith(a, b.([]cpx[float64]), n, terms, cpx[float64]{}, complexMulAdd[float64]), nil
	}
	return nil, fmt.Errorf("dot_general of %T", a)
}

func dotWith[T any](a, b []T, n int, terms func(o int) (li, ri []int), zero T, step func(s, x, y T) T) []T {
	out := make([]T, n)
	for o := range out {
		li, ri := terms(o)
		s := zero
		for k := range li {
			s = step(s, a[li[k]], b[ri[k]])
		}
		out[o] = s
	}
	return out
}

func intMulAdd[T integer](s, x, y T) T { return s + x*y }

func complexMulAdd[F float](s, x, y cpx[F]) cpx[F] { return cadd(s, cmul(x, y)) }

// fma32 is x·y + z rounded once to float32. This is the reference's own
// derivation, apart from internal/numerics' round-to-odd one on purpose:
// the product is exact in float64 and s = p + z rounds once more, so
// float32(s) is wrong only when s lies exactly halfway between two
// float32s and the error e of s (exact, by TwoSum) breaks the tie the
// other way — then the neighbour on e's side is the answer.
func fma32(x, y, z float32) float32 {
	p, c := float64(x)*float64(y), float64(z)
	s := p + c
	r := float32(s)
	if math.IsInf(s, 0) || s != s || float64(r) == s {
		return r // special, or exact in float32 (an error below half its ulp cannot move it)
	}
	pp := s - c
	e := (p - pp) + (c - (s - pp))
	if e == 0 {
		return r
	}
	// The float32 neighbour of r on s's side, and their midpoint (exact:
	// 25 bits). Past the largest float32, r is ±Inf and the midpoint is
	// MaxFloat32 + half its ulp.
	toward := float32(math.Inf(1))
	if s < float64(r) {
		toward = float32(math.Inf(-1))
	}
	var other float32
	var mid float64
	if math.IsInf(float64(r), 0) {
		other = float32(math.Copysign(math.MaxFloat32, s))
		mid = float64(other) + math.Copysign(math.Ldexp(1, 103), s)
	} else {
		other = math.Nextafter32(r, toward)
		mid = (float64(r) + float64(other)) / 2
	}
	if s != mid {
		return r
	}
	if (e > 0) == (float64(other) > float64(r)) {
		return other
	}
	return r
}

// exactInBF16 reports whether d is a narrow float each value of which
// converts to a bf16 exactly, not to a bf16 subnormal: every value of
// the format (each encoding decoded to float64) rounds to bf16 and back
// unchanged and is zero, at least 2⁻¹²⁶ in magnitude, infinite or NaN.
func exactInBF16(d tensor.DType) bool {
	f, ok := d.FloatFormat()
	if !ok {
		return false
	}
	for code := range 1 << f.Bits() {
		v := f.ToFloat64(uint8(code))
		if v != v || math.IsInf(v, 0) || v == 0 {
			continue
		}
		b := tensor.BFloat16FromFloat32(float32(v))
		if float64(b.Float32()) != v || math.Abs(v) < 0x1p-126 {
			return false
		}
	}
	return true
}
