package kernels

import (
	"fmt"
	"math"
	"slices"
	"unsafe"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"

	"github.com/kiln-go/kiln/internal/numerics"
	"github.com/kiln-go/kiln/lower"
	"github.com/kiln-go/kiln/tensor"
)

// dotKernel runs dot_general as batched matrix products: the operands are
// brought to [B, M, K] and [B, K, N] row-major (a gather when their dims are
// not already in that order) and the result [B, M, N] is the output's
// row-major layout. f32 and f64 go through gonum's BLAS, which accumulates
// each element over k in order from zero exactly as the package doc says —
// except that it skips zero lhs elements, so an Inf or NaN in the rhs falls
// back to the plain loop. f16 and bf16 accumulate in f32 and round once.
type dotKernel struct {
	b, m, kk, n int
	lhs, rhs    operandLayout
	out         int
	dtype       tensor.DType
	slot        int
}

// operandLayout is how one operand is read: directly from its source, or
// gathered into the canonical order first.
type operandLayout struct {
	src    int
	dtype  tensor.DType
	gather *strided // nil: the source is already canonical
}

var gemm = gonum.Implementation{}

func (x *cpuExec) compileDot(f *lower.Fusion) (kernel, error) {
	root := f.Outputs[0]
	d := root.Params.Dot
	lhs, rhs := root.Args[0], root.Args[1]
	free := func(rank int, used ...[]int) []int {
		var out []int
		for i := range rank {
			isUsed := false
			for _, u := range used {
				isUsed = isUsed || slices.Contains(u, i)
			}
			if !isUsed {
				out = append(out, i)
			}
		}
		return out
	}
	lf, rf := free(len(lhs.Shape), d.LhsBatch, d.LhsContract), free(len(rhs.Shape), d.RhsBatch, d.RhsContract)
	prod := func(shape []int, dims []int) int {
		n := 1
		for _, i := range dims {
			n *= shape[i]
		}
		return n
	}
	k := &dotKernel{
		b: prod(lhs.Shape, d.LhsBatch), m: prod(lhs.Shape, lf), kk: prod(lhs.Shape, d.LhsContract), n: prod(rhs.Shape, rf),
		out: x.m.Plan.Of[root], dtype: root.DType, slot: x.newSlot(),
	}
	if lhs.DType != root.DType || rhs.DType != root.DType {
		return nil, fmt.Errorf("kernels: dot_general operands %s, %s for a %s result", lhs.DType, rhs.DType, root.DType)
	}
	k.lhs = x.layout(lhs, concat(d.LhsBatch, lf, d.LhsContract))
	k.rhs = x.layout(rhs, concat(d.RhsBatch, d.RhsContract, rf))
	if dotTable[computeDType(root.DType)] == nil {
		return nil, fmt.Errorf("kernels: cpu has no dot_general for %s", root.DType)
	}
	return k, nil
}

func concat(xs ...[]int) []int {
	var out []int
	for _, x := range xs {
		out = append(out, x...)
	}
	return out
}

func (x *cpuExec) layout(in *lower.Instr, perm []int) operandLayout {
	l := operandLayout{src: x.source(in), dtype: in.DType}
	st := numerics.RowMajorStrides(in.Shape)
	g := &strided{shape: make([]int, len(perm)), strides: make([]int, len(perm))}
	for j, p := range perm {
		g.shape[j], g.strides[j] = in.Shape[p], st[p]
	}
	g.simplify()
	if !g.contiguous() {
		l.gather = g
	}
	return l
}

// load returns the operand in canonical order and compute form, using
// scratch part j of the kernel's slot when a copy is needed.
func (l *operandLayout) load(rs *runState, slot, j, n int) unsafe.Pointer {
	p := rs.srcs[l.src]
	widen := widenFn(l.dtype)
	if l.gather == nil && widen == nil {
		return p
	}
	size := l.dtype.Size()
	buf := rs.slotBytes(slot, j, n*(size+computeDType(l.dtype).Size())+16)
	dst := unsafe.Pointer(unsafe.SliceData(buf))
	if l.gather != nil {
		gatherFn(size)(dst, p, l.gather, 0, n)
		p = dst
	}
	if widen != nil {
		w := unsafe.Add(dst, (n*size+15)&^15)
		widen(w, p, n)
		p = w
	}
	return p
}

func (k *dotKernel) run(x *cpuExec, rs *runState) {
	a := k.lhs.load(rs, k.slot, 0, k.b*k.m*k.kk)
	b := k.rhs.load(rs, k.slot, 1, k.b*k.kk*k.n)
	out := rs.srcs[k.out]
	cd := computeDType(k.dtype)
	c := out
	if cd != k.dtype {
		c = x.worker0(rs).temp(k.b * k.m * k.n * cd.Size())
	}
	dotTable[cd](x, rs, c, a, b, k.b, k.m, k.kk, k.n)
	if cd != k.dtype {
		narrowFn(k.dtype)(out, c, k.b*k.m*k.n)
	}
}

// dotFn computes c[b] = a[b] · bm[b] for each batch b.
type dotFn func(x *cpuExec, rs *runState, c, a, bm unsafe.Pointer, nb, m, k, n int)

var dotTable [tensor.NumDTypes]dotFn

// naiveDot is the plain loop: c[i,j] = Σ_l a[i,l]·b[l,j], l in order from
// zero, each product rounded before it is added.
func naiveDot[T number](x *cpuExec, rs *runState, c, a, bm unsafe.Pointer, nb, m, k, n int) {
	cs, as, bs := view[T](c, nb*m*n), view[T](a, nb*m*k), view[T](bm, nb*k*n)
	x.parallel(rs, nb*m, nb*m*n*max(k, 1), funcJob(func(_ *worker, lo, hi int) {
		for r := lo; r < hi; r++ {
			bi := r / m
			crow := cs[r*n : (r+1)*n]
			clear(crow)
			arow := as[r*k : (r+1)*k]
			for l, av := range arow {
				brow := bs[(bi*k+l)*n : (bi*k+l+1)*n]
				for j, bv := range brow {
					crow[j] = crow[j] + T(av*bv) // the conversion forbids FMA
				}
			}
		}
	}))
}

func boolDot(x *cpuExec, rs *runState, c, a, bm unsafe.Pointer, nb, m, k, n int) {
	cs, as, bs := view[bool](c, nb*m*n), view[bool](a, nb*m*k), view[bool](bm, nb*k*n)
	for r := range nb * m {
		bi := r / m
		crow := cs[r*n : (r+1)*n]
		clear(crow)
		for l, av := range as[r*k : (r+1)*k] {
			if !av {
				continue
			}
			for j, bv := range bs[(bi*k+l)*n : (bi*k+l+1)*n] {
				crow[j] = crow[j] || bv
			}
		}
	}
}

// allFinite reports whether no element of x is ±Inf or NaN: whether its
// exponent field is never all ones. It adds one to the field's lowest bit,
// which carries into the sign bit exactly for such an element, and ORs
// the sums, with no branch per element (a fifth of the time of a loop of
// math.IsInf calls).
func allFinite[T float](x []T) bool {
	switch x := any(x).(type) {
	case []float32:
		return finiteBits(view[uint32](unsafe.Pointer(unsafe.SliceData(x)), len(x)), 0x7f800000, 0x00800000)
	case []float64:
		return finiteBits(view[uint64](unsafe.Pointer(unsafe.SliceData(x)), len(x)), 0x7ff0000000000000, 0x0010000000000000)
	}
	for _, v := range x {
		if math.IsInf(float64(v), 0) || v != v {
			return false
		}
	}
	return true
}

func finiteBits[U uint32 | uint64](bits []U, exp, one U) bool {
	var acc0, acc1, acc2, acc3 U
	i := 0
	for ; i+4 <= len(bits); i += 4 {
		acc0 |= bits[i]&exp + one
		acc1 |= bits[i+1]&exp + one
		acc2 |= bits[i+2]&exp + one
		acc3 |= bits[i+3]&exp + one
	}
	for ; i < len(bits); i++ {
		acc0 |= bits[i]&exp + one
	}
	sign := ^(^U(0) >> 1) // the top bit
	return (acc0|acc1|acc2|acc3)&sign == 0
}

func sgemmDot(x *cpuExec, rs *runState, c, a, bm unsafe.Pointer, nb, m, k, n int) {
	bs := view[float32](bm, nb*k*n)
	if !allFinite(bs) || k == 0 {
		naiveDot[float32](x, rs, c, a, bm, nb, m, k, n)
		return
	}
	cs, as := view[float32](c, nb*m*n), view[float32](a, nb*m*k)
	for b := range nb {
		gemm.Sgemm(blas.NoTrans, blas.NoTrans, m, n, k, 1, as[b*m*k:(b+1)*m*k], max(k, 1), bs[b*k*n:(b+1)*k*n], max(n, 1), 0, cs[b*m*n:(b+1)*m*n], max(n, 1))
	}
}

func dgemmDot(x *cpuExec, rs *runState, c, a, bm unsafe.Pointer, nb, m, k, n int) {
	bs := view[float64](bm, nb*k*n)
	if !allFinite(bs) || k == 0 {
		naiveDot[float64](x, rs, c, a, bm, nb, m, k, n)
		return
	}
	cs, as := view[float64](c, nb*m*n), view[float64](a, nb*m*k)
	for b := range nb {
		gemm.Dgemm(blas.NoTrans, blas.NoTrans, m, n, k, 1, as[b*m*k:(b+1)*m*k], max(k, 1), bs[b*k*n:(b+1)*k*n], max(n, 1), 0, cs[b*m*n:(b+1)*m*n], max(n, 1))
	}
}

func init() {
	dotTable[tensor.Bool] = boolDot
	dotTable[tensor.U8] = naiveDot[uint8]
	dotTable[tensor.U16] = naiveDot[uint16]
	dotTable[tensor.U32] = naiveDot[uint32]
	dotTable[tensor.U64] = naiveDot[uint64]
	dotTable[tensor.I8] = naiveDot[int8]
	dotTable[tensor.I16] = naiveDot[int16]
	dotTable[tensor.I32] = naiveDot[int32]
	dotTable[tensor.I64] = naiveDot[int64]
	dotTable[tensor.F32] = sgemmDot
	dotTable[tensor.F64] = dgemmDot
	// complex: registerComplex.
}
