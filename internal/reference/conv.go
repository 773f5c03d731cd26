package reference

import (
	"fmt"
	"math"
	"math/big"

	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// conv evaluates conv_general_dilated by its definition. Output element
// (n, o, y…) of group g = o / (O/G) is
//
//	Σ over kernel positions k… (row-major, spatial dim 0 slowest), then
//	input features c of the group:  x[n, g·I + c, y·s + k·rd − lo] · w[o, c, k…]
//
// where x is the lhs with lhs_dilation−1 zeros between neighbours and
// padding (zeros, or cropping when negative) around it: positions that
// fall in a hole or the padding read a zero, which still takes part in
// the product (0·∞ is NaN). The sum starts from +0 and each step is one
// fused multiply-add for f32 and f64 (rounded once), in f32 for f16
// (rounded to the dtype once at the end), wrapping for integers. bf16
// takes that order in pairs instead: dot_general's bf16 rule (bf16Dot)
// over the conv's K order.
func conv(p trace.ConvParams, lhs, rhs *tensor.Array) (*tensor.Array, error) {
	return convTo(p, lhs, rhs, lhs.DType())
}

// preferredConv evaluates conv_general_dilated with a
// preferred_element_type as dot_general's (preferredDot): bf16 operands
// with an f32 preferred type give the bf16 rule's f32 accumulator, and so
// do narrow float operands exact in bf16, converted to bf16 first; any
// other preferred type converts the operands and runs its own rule.
func preferredConv(p trace.Params, lhs, rhs *tensor.Array) (*tensor.Array, error) {
	if lhs.DType() == rhs.DType() && exactInBF16(lhs.DType()) && p.Preferred == tensor.F32 {
		lhs, rhs = lhs.Astype(tensor.BF16), rhs.Astype(tensor.BF16)
	}
	if lhs.DType() == tensor.BF16 && rhs.DType() == tensor.BF16 && p.Preferred == tensor.F32 {
		return convTo(p.Conv, lhs, rhs, tensor.F32)
	}
	l, r, err := preferredOperands(p, lhs, rhs)
	if err != nil {
		return nil, err
	}
	return conv(p.Conv, l, r)
}

// convTo is conv with result dtype rd: the operands' own, or f32 for bf16
// operands (preferred_element_type=f32: the bf16 rule's accumulator).
func convTo(p trace.ConvParams, lhs, rhs *tensor.Array, rd tensor.DType) (*tensor.Array, error) {
	if lhs.DType() != rhs.DType() {
		return nil, fmt.Errorf("operands are %s and %s; conv_general_dilated operands share one dtype", lhs.DType(), rhs.DType())
	}
	ls, rs := lhs.Shape(), rhs.Shape()
	shape, msg := trace.ConvShape(ls, rs, p)
	if msg != "" {
		return nil, fmt.Errorf("%s", msg)
	}
	ns := len(ls) - 2
	lst, rst, ost := strides(ls), strides(rs), strides(shape)
	g := p.FeatureGroupCount
	cin, cout := rs[p.RhsSpec[1]], rs[p.RhsSpec[0]]
	kshape := make([]int, ns)
	for i := range ns {
		kshape[i] = rs[p.RhsSpec[2+i]]
	}
	n := trace.ShapeSize(shape)
	// terms(o) lists, in summation order, the lhs flat index (−1 for a
	// zero from padding or dilation) and the rhs flat index of each
	// product of output element o.
	terms := func(o int) (li, ri []int) {
		idx := make([]int, len(shape))
		rem := o
		for d := range shape {
			idx[d], rem = rem/ost[d], rem%ost[d]
		}
		b, f := idx[p.OutSpec[0]], idx[p.OutSpec[1]]
		grp := f / (cout / g)
		forEach(kshape, func(k []int) {
			for c := range cin {
				l := b*lst[p.LhsSpec[0]] + (grp*cin+c)*lst[p.LhsSpec[1]]
				r := f*rst[p.RhsSpec[0]] + c*rst[p.RhsSpec[1]]
				for i := range ns {
					r += k[i] * rst[p.RhsSpec[2+i]]
					pos := idx[p.OutSpec[2+i]]*p.Strides[i] + k[i]*p.RhsDilation[i] - p.PadLo[i]
					in := ls[p.LhsSpec[2+i]]
					if l < 0 || pos < 0 || pos%p.LhsDilation[i] != 0 || pos/p.LhsDilation[i] >= in {
						l = -1
						continue
					}
					l += pos / p.LhsDilation[i] * lst[p.LhsSpec[2+i]]
				}
				li, ri = append(li, l), append(ri, r)
			}
		})
		return li, ri
	}
	if lhs.DType() == tensor.BF16 {
		return bf16Dot(lhs.Data().([]tensor.BFloat16), rhs.Data().([]tensor.BFloat16), n, terms, rd, shape)
	}
	var res any
	switch a := widen(lhs).(type) {
	case []uint8:
		res = convWith(a, widen(rhs).([]uint8), n, terms, intMulAdd[uint8])
	case []uint16:
		res = convWith(a, widen(rhs).([]uint16), n, terms, intMulAdd[uint16])
	case []uint32:
		res = convWith(a, widen(rhs).([]uint32), n, terms, intMulAdd[uint32])
	case []uint64:
		res = convWith(a, widen(rhs).([]uint64), n, terms, intMulAdd[uint64])
	case []int8:
		res = convWith(a, widen(rhs).([]int8), n, terms, intMulAdd[int8])
	case []int16:
		res = convWith(a, widen(rhs).([]int16), n, terms, intMulAdd[int16])
	case []int32:
		res = convWith(a, widen(rhs).([]int32), n, terms, intMulAdd[int32])
	case []int64:
		res = convWith(a, widen(rhs).([]int64), n, terms, intMulAdd[int64])
	case []float32:
		res = convWith(a, widen(rhs).([]float32), n, terms, fmaF32)
	case []float64:
		res = convWith(a, widen(rhs).([]float64), n, terms, func(s, x, y float64) float64 { return math.FMA(x, y, s) })
	default:
		return nil, fmt.Errorf("conv_general_dilated of %s", lhs.DType())
	}
	return narrow(res, lhs.DType(), shape)
}

func convWith[T any](a, b []T, n int, terms func(o int) (li, ri []int), step func(s, x, y T) T) []T {
	out := make([]T, n)
	var zero T
	for o := range out {
		li, ri := terms(o)
		s := zero
		for k := range li {
			x := zero
			if li[k] >= 0 {
				x = a[li[k]]
			}
			s = step(s, x, b[ri[k]])
		}
		out[o] = s
	}
	return out
}

// fmaF32 is s + x·y rounded once to float32. The float64 FMA is exact
// for the product; its one rounding of the sum can only differ from the
// float32 rounding of the exact sum when the float64 result is a float32
// tie or float32 itself (its 28 low mantissa bits zero), or in float32's
// subnormal range (fewer bits), and those rare cases are computed exactly
// with math/big.
func fmaF32(s, x, y float32) float32 {
	r := math.FMA(float64(x), float64(y), float64(s))
	if r == 0 || math.IsInf(r, 0) || r != r || math.Float64bits(r)&(1<<28-1) != 0 && math.Abs(r) > 0x1p-125 {
		return float32(r)
	}
	bx, by, bs := new(big.Float).SetFloat64(float64(x)), new(big.Float).SetFloat64(float64(y)), new(big.Float).SetFloat64(float64(s))
	prod := new(big.Float).SetPrec(64).Mul(bx, by) // 48 bits: exact
	sum := new(big.Float).SetPrec(1200).Add(prod, bs)
	f, _ := sum.Float32()
	return f
}
