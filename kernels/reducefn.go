package kernels

import (
	"math/bits"
	"unsafe"

	"github.com/kiln-go/kiln/internal/numerics"
	"github.com/kiln-go/kiln/internal/simd"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// The reduction arithmetic of the package doc: one fixed tree for sums and
// products, folds for max and min, first-wins scans for argmax and argmin.

// reducer reduces segments of a block and combines group partials.
type reducer struct {
	// seg writes dst[s] = reduce(src[s·segLen : (s+1)·segLen]) for s < nseg.
	seg func(dst, src unsafe.Pointer, nseg, segLen int)
	// combine writes dst[o] = reduce of the ngroups partials of output o.
	combine func(dst, parts unsafe.Pointer, nout, ngroups int)
	// identity fills dst with the result of reducing nothing.
	identity func(dst unsafe.Pointer, n int)
}

// argReducer is the index-returning counterpart: indices are int64.
type argReducer struct {
	// seg writes, for each segment, the index of its winner and its value.
	seg func(idx []int64, vals, src unsafe.Pointer, nseg, segLen int)
	// combine picks among ngroups partials per output; a partial's index is
	// relative to its group, which starts at g·groupLen.
	combine func(idx []int64, parts []int64, partVals unsafe.Pointer, nout, ngroups, groupLen int)
}

var (
	reduceTable [trace.NumOps][tensor.NumDTypes]*reducer
	argTable    [2][tensor.NumDTypes]*argReducer // 0: argmax, 1: argmin
)

// splitPoint is the largest power of two below n (n ≥ 2).
func splitPoint(n int) int { return 1 << (bits.Len(uint(n-1)) - 1) }

// leafSum is a leaf of the summation tree (package doc). Floats run
// internal/simd's vector leaf, which gives the same bits (its tests hold it
// to internal/numerics.SumLeafFloat); other types run the definition,
// numerics.SumLeaf.
func leafSum[T number](x []T) T {
	var z T
	switch any(z).(type) {
	case float64:
		s := simd.SumLeafF64(view[float64](unsafe.Pointer(unsafe.SliceData(x)), len(x)))
		return *(*T)(unsafe.Pointer(&s))
	case float32:
		s := simd.SumLeafF32(view[float32](unsafe.Pointer(unsafe.SliceData(x)), len(x)))
		return *(*T)(unsafe.Pointer(&s))
	}
	return numerics.SumLeaf(x)
}

func leafProd[T number](x []T) T {
	n := len(x)
	if n < 8 {
		var s T = 1
		if n > 0 {
			s = x[0]
		}
		for _, v := range x[min(n, 1):] {
			s *= v
		}
		return s
	}
	r0, r1, r2, r3, r4, r5, r6, r7 := x[0], x[1], x[2], x[3], x[4], x[5], x[6], x[7]
	i := 8
	for ; i+8 <= n; i += 8 {
		y := x[i : i+8 : i+8]
		r0 *= y[0]
		r1 *= y[1]
		r2 *= y[2]
		r3 *= y[3]
		r4 *= y[4]
		r5 *= y[5]
		r6 *= y[6]
		r7 *= y[7]
	}
	s := ((r0 * r1) * (r2 * r3)) * ((r4 * r5) * (r6 * r7))
	for _, v := range x[i:] {
		s *= v
	}
	return s
}

// treeLeaves combines leaves [lo, lo+n) of x with the fixed tree.
func treeLeaves[T number](x []T, lo, n int, prod bool) T {
	if n == 1 {
		leaf := x[lo*leafElems : min((lo+1)*leafElems, len(x))]
		if prod {
			return leafProd(leaf)
		}
		return leafSum(leaf)
	}
	p := splitPoint(n)
	a, b := treeLeaves(x, lo, p, prod), treeLeaves(x, lo+p, n-p, prod)
	if prod {
		return a * b
	}
	return a + b
}

// maxLeaves bounds the leaves a sum computes first and then combines.
const maxLeaves = groupElems / leafElems

// treeReduce sums (or multiplies) x with the fixed tree. A sum of at most
// maxLeaves leaves computes all its leaves first (floats several side by
// side, see sumLeaves) and combines them with the same tree.
func treeReduce[T number](x []T, prod bool) T {
	if len(x) == 0 {
		if prod {
			return 1
		}
		return 0
	}
	nl := (len(x) + leafElems - 1) / leafElems
	if !prod && nl == 1 {
		return sumLeaf(x) // sumLeaves of one leaf, without its buffer and loop
	}
	if !prod && nl <= maxLeaves {
		var buf [maxLeaves]T
		sumLeaves(buf[:nl], x)
		return treeCombine(buf[:nl], false)
	}
	return treeLeaves(x, 0, nl, prod)
}

// sumLeaf is the sum of one leaf (at most leafElems values), as sumLeaves
// computes it.
func sumLeaf[T number](x []T) T {
	var z T
	switch any(z).(type) {
	case float64:
		s := simd.SumLeafF64(view[float64](unsafe.Pointer(unsafe.SliceData(x)), len(x)))
		return *(*T)(unsafe.Pointer(&s))
	case float32:
		s := simd.SumLeafF32(view[float32](unsafe.Pointer(unsafe.SliceData(x)), len(x)))
		return *(*T)(unsafe.Pointer(&s))
	}
	return numerics.SumLeaf(x)
}

// sumLeaves writes the sums of x's leaves to dst (one per leaf).
func sumLeaves[T number](dst, x []T) {
	var z T
	switch any(z).(type) {
	case float64:
		simd.SumLeavesF64(view[float64](unsafe.Pointer(unsafe.SliceData(dst)), len(dst)), view[float64](unsafe.Pointer(unsafe.SliceData(x)), len(x)))
		return
	case float32:
		simd.SumLeavesF32(view[float32](unsafe.Pointer(unsafe.SliceData(dst)), len(dst)), view[float32](unsafe.Pointer(unsafe.SliceData(x)), len(x)))
		return
	}
	for k := range dst {
		dst[k] = numerics.SumLeaf(x[k*leafElems : min(k*leafElems+leafElems, len(x))])
	}
}

// treeCombine combines partial results of aligned groups with the same tree.
// Eight partials (a whole group's leaves, and the bottom of a long list of
// groups' partials) are combined written out, the recursion's additions in
// its order: E4's two passes spent 6% of their time in these calls, 15 per
// group.
func treeCombine[T number](p []T, prod bool) T {
	switch len(p) {
	case 1:
		return p[0]
	case 8:
		p = p[:8:8]
		if prod {
			return ((p[0] * p[1]) * (p[2] * p[3])) * ((p[4] * p[5]) * (p[6] * p[7]))
		}
		return ((p[0] + p[1]) + (p[2] + p[3])) + ((p[4] + p[5]) + (p[6] + p[7]))
	}
	k := splitPoint(len(p))
	a, b := treeCombine(p[:k], prod), treeCombine(p[k:], prod)
	if prod {
		return a * b
	}
	return a + b
}

// shortSums writes the float sums of the segments of s, each l values
// (0 < l < 16, one leaf), to d and reports whether it did (not for
// integers or complex): the leaf's additions written out per segment, not
// a call per segment into the vector leaf sum (E7's softmax sums rows of
// ten logits, 256 of them, 7 ns a row that way). The bits are
// numerics.SumLeafFloat's, then +0 added (treeReducer's start).
func shortSums[T number](d, s []T, l int) bool {
	switch any(d).(type) {
	case []float32:
		sumShort(view[float32](unsafe.Pointer(unsafe.SliceData(d)), len(d)), view[float32](unsafe.Pointer(unsafe.SliceData(s)), len(s)), l)
		return true
	case []float64:
		sumShort(view[float64](unsafe.Pointer(unsafe.SliceData(d)), len(d)), view[float64](unsafe.Pointer(unsafe.SliceData(s)), len(s)), l)
		return true
	}
	return false
}

func sumShort[T float32 | float64](d, s []T, l int) {
	var zero T
	s = s[:len(d)*l]
	add := numerics.AddFirstNaN[T]
	done := 0
	if unsafe.Sizeof(zero) == 4 { // float32: sixteen rows at a time
		done = simd.SumRowsF32(asF32(d), asF32(s), l)
	}
	for i := done; i < len(d); i++ {
		x := s[i*l : i*l+l : i*l+l]
		var v T
		if l < 8 {
			v = x[0]
			for _, y := range x[1:] {
				v += y
			}
		} else {
			v = add(add(add(x[0], x[1]), add(x[2], x[3])), add(add(x[4], x[5]), add(x[6], x[7])))
			for _, y := range x[8:] {
				v += y
			}
		}
		d[i] = zero + v
	}
}

// treeReducer sums (or multiplies) with the fixed tree. A sum starts from
// +0 (+0 ⊕ tree), so a sum of −0s is +0; adding +0 to a partial as well
// changes nothing in the end, since only the sign of a zero can change.
func treeReducer[T number](prod bool) *reducer {
	var zero T
	return &reducer{
		seg: func(dst, src unsafe.Pointer, nseg, segLen int) {
			d, s := view[T](dst, nseg), view[T](src, nseg*segLen)
			if !prod && segLen > 0 && segLen < 16 && shortSums(d, s, segLen) {
				return
			}
			for i := range d {
				d[i] = treeReduce(s[i*segLen:(i+1)*segLen], prod)
				if !prod {
					d[i] = zero + d[i]
				}
			}
		},
		combine: func(dst, parts unsafe.Pointer, nout, ngroups int) {
			d, p := view[T](dst, nout), view[T](parts, nout*ngroups)
			for o := range d {
				d[o] = treeCombine(p[o*ngroups:(o+1)*ngroups], prod)
				if !prod {
					d[o] = zero + d[o]
				}
			}
		},
		identity: func(dst unsafe.Pointer, n int) {
			var v T
			if prod {
				v = 1
			}
			for i := range view[T](dst, n) {
				view[T](dst, n)[i] = v
			}
		},
	}
}

// treeReducerWith is the fixed tree with a custom combine (NumPy's complex
// multiply) and the result of reducing nothing.
func treeReducerWith[T any](f func(a, b T) T, identity T) *reducer {
	leaf := func(x []T) T {
		if len(x) < 8 {
			s := x[0]
			for _, v := range x[1:] {
				s = f(s, v)
			}
			return s
		}
		var r [8]T
		copy(r[:], x[:8])
		i := 8
		for ; i+8 <= len(x); i += 8 {
			for j := range r {
				r[j] = f(r[j], x[i+j])
			}
		}
		s := f(f(f(r[0], r[1]), f(r[2], r[3])), f(f(r[4], r[5]), f(r[6], r[7])))
		for _, v := range x[i:] {
			s = f(s, v)
		}
		return s
	}
	var tree func(x []T, lo, n int) T
	tree = func(x []T, lo, n int) T {
		if n == 1 {
			return leaf(x[lo*leafElems : min((lo+1)*leafElems, len(x))])
		}
		p := splitPoint(n)
		return f(tree(x, lo, p), tree(x, lo+p, n-p))
	}
	var combine func(p []T) T
	combine = func(p []T) T {
		if len(p) == 1 {
			return p[0]
		}
		k := splitPoint(len(p))
		return f(combine(p[:k]), combine(p[k:]))
	}
	return &reducer{
		seg: func(dst, src unsafe.Pointer, nseg, segLen int) {
			d, s := view[T](dst, nseg), view[T](src, nseg*segLen)
			for i := range d {
				if segLen == 0 {
					d[i] = identity
					continue
				}
				d[i] = tree(s[i*segLen:(i+1)*segLen], 0, (segLen+leafElems-1)/leafElems)
			}
		},
		combine: func(dst, parts unsafe.Pointer, nout, ngroups int) {
			d, p := view[T](dst, nout), view[T](parts, nout*ngroups)
			for o := range d {
				d[o] = combine(p[o*ngroups : (o+1)*ngroups])
			}
		},
		identity: func(dst unsafe.Pointer, n int) {
			d := view[T](dst, n)
			for i := range d {
				d[i] = identity
			}
		},
	}
}

// floatFoldReducer is foldReducer(numerics.Maximum[T]) (or Minimum) with
// the comparison written in the loop: a call through a function value per
// element cost more than the comparison. Its results are numerics.Maximum's: the first
// NaN, else the largest (smallest) value, +0 over −0 (−0 over +0).
func floatFoldReducer[T float](isMin bool) *reducer {
	// Go's min and max are numerics.Minimum's and Maximum's but for which
	// NaN they give, and branch-free, and in any order the same: two
	// chains halve the latency (the last value starts the second; values
	// may be taken twice), and a row with a NaN is scanned again for its
	// first one. E7's row maxima over ten logits, 256 rows, took 2.3 µs as
	// one chain of branches, 1.4 so. Each segment is folded in one loop
	// (foldFloats), not by a call of a function value per segment.
	r := &reducer{}
	r.seg = func(dst, src unsafe.Pointer, nseg, segLen int) {
		foldFloats(view[T](dst, nseg), view[T](src, nseg*segLen), segLen, isMin)
	}
	r.combine = func(dst, parts unsafe.Pointer, nout, ngroups int) {
		foldFloats(view[T](dst, nout), view[T](parts, nout*ngroups), ngroups, isMin)
	}
	return r
}

// foldFloats writes to d[i] the minimum (isMin) or maximum of the segment
// s[i·n : (i+1)·n] (n ≥ 1), or its first NaN if it has one (see
// floatFoldReducer).
func foldFloats[T float](d, s []T, n int, isMin bool) {
	if unsafe.Sizeof(T(0)) == 4 && n < 16 {
		// float32: sixteen rows at a time, but a group of rows holding a
		// NaN here, a row at a time; where the kernel does nothing (no
		// AVX-512, fewer than sixteen rows left, a NaN in the first
		// group), the rest a row at a time.
		d32, s32 := asF32(d), asF32(s)
		for i := 0; i < len(d); {
			var did int
			if isMin {
				did = simd.MinRowsF32(d32[i:], s32[i*n:], n)
			} else {
				did = simd.MaxRowsF32(d32[i:], s32[i*n:], n)
			}
			if did == 0 {
				foldRows(d[i:], s[i*n:], n, isMin)
				return
			}
			i += did
			end := min(i+16, len(d))
			foldRows(d[i:end], s[i*n:end*n], n, isMin)
			i = end
		}
		return
	}
	foldRows(d, s, n, isMin)
}

// asF32 views x, a []float32 (its elements are 4 bytes), as one, and asF64
// a []float64 as one.
func asF32[T float](x []T) []float32 {
	return unsafe.Slice((*float32)(unsafe.Pointer(unsafe.SliceData(x))), len(x))
}

func asF64[T float](x []T) []float64 {
	return unsafe.Slice((*float64)(unsafe.Pointer(unsafe.SliceData(x))), len(x))
}

// foldRows is foldFloats a row at a time.
func foldRows[T float](d, s []T, n int, isMin bool) {
	for i := range d {
		x := s[i*n : (i+1)*n]
		m0, m1 := x[0], x[n-1]
		var m T
		if isMin {
			for j := 1; j+1 < n; j += 2 {
				m0, m1 = min(m0, x[j]), min(m1, x[j+1])
			}
			m = min(m0, m1)
		} else {
			for j := 1; j+1 < n; j += 2 {
				m0, m1 = max(m0, x[j]), max(m1, x[j+1])
			}
			m = max(m0, m1)
		}
		if m != m {
			m = firstNaNOr(x, m0)
		}
		d[i] = m
	}
}

// firstNaNOr is x's first NaN, or m when it has none.
func firstNaNOr[T float](x []T, m T) T {
	for _, v := range x {
		if v != v {
			return v
		}
	}
	return m
}

// foldReducer reduces with a pairwise function that is exact in any order
// (max, min, integer ops, bool or/and).
func foldReducer[T any](f func(a, b T) T) *reducer {
	return foldSegs(func(x []T) T {
		m := x[0]
		for _, v := range x[1:] {
			m = f(m, v)
		}
		return m
	})
}

// foldSegs is the reducer applying fold to each segment and to each
// output's group partials.
func foldSegs[T any](fold func(x []T) T) *reducer {
	return &reducer{
		seg: func(dst, src unsafe.Pointer, nseg, segLen int) {
			d, s := view[T](dst, nseg), view[T](src, nseg*segLen)
			for i := range d {
				d[i] = fold(s[i*segLen : (i+1)*segLen])
			}
		},
		combine: func(dst, parts unsafe.Pointer, nout, ngroups int) {
			d, p := view[T](dst, nout), view[T](parts, nout*ngroups)
			for o := range d {
				d[o] = fold(p[o*ngroups : (o+1)*ngroups])
			}
		},
	}
}

// argScan returns the first index whose value wins: a NaN (the first)
// beats everything, otherwise strictly better (greater for argmax, less for
// argmin) values replace the best.
func argScan[T ordered](x []T, isMin bool) (int, T) {
	best, bv := 0, x[0]
	if bv != bv {
		return 0, bv
	}
	for i, v := range x[1:] {
		if v != v {
			return i + 1, v
		}
		if (!isMin && v > bv) || (isMin && v < bv) {
			best, bv = i+1, v
		}
	}
	return best, bv
}

func newArgReducer[T ordered](isMin bool) *argReducer {
	return &argReducer{
		seg: func(idx []int64, vals, src unsafe.Pointer, nseg, segLen int) {
			s, v := view[T](src, nseg*segLen), view[T](vals, nseg)
			for i := range nseg {
				j, bv := argScan(s[i*segLen:(i+1)*segLen], isMin)
				idx[i], v[i] = int64(j), bv
			}
		},
		combine: func(idx []int64, parts []int64, partVals unsafe.Pointer, nout, ngroups, groupLen int) {
			pv := view[T](partVals, nout*ngroups)
			for o := range nout {
				g, _ := argScan(pv[o*ngroups:(o+1)*ngroups], isMin)
				idx[o] = int64(g*groupLen) + parts[o*ngroups+g]
			}
		},
	}
}

func registerReduce[T number](d tensor.DType) {
	reduceTable[trace.OpReduceSum][d] = treeReducer[T](false)
	reduceTable[trace.OpReduceProd][d] = treeReducer[T](true)
}

func registerOrdered[T integer](d tensor.DType) {
	registerReduce[T](d)
	reduceTable[trace.OpReduceMax][d] = foldReducer(func(a, b T) T { return max(a, b) })
	reduceTable[trace.OpReduceMin][d] = foldReducer(func(a, b T) T { return min(a, b) })
	argTable[0][d], argTable[1][d] = newArgReducer[T](false), newArgReducer[T](true)
}

func registerFloatReduce[T float](d tensor.DType) {
	registerReduce[T](d)
	reduceTable[trace.OpReduceMax][d] = floatFoldReducer[T](false)
	reduceTable[trace.OpReduceMin][d] = floatFoldReducer[T](true)
	argTable[0][d], argTable[1][d] = newArgReducer[T](false), newArgReducer[T](true)
}

func init() {
	registerOrdered[uint8](tensor.U8)
	registerOrdered[uint16](tensor.U16)
	registerOrdered[uint32](tensor.U32)
	registerOrdered[uint64](tensor.U64)
	registerOrdered[int8](tensor.I8)
	registerOrdered[int16](tensor.I16)
	registerOrdered[int32](tensor.I32)
	registerOrdered[int64](tensor.I64)
	registerFloatReduce[float32](tensor.F32)
	registerFloatReduce[float32](tensor.F16) // compute form
	registerFloatReduce[float32](tensor.BF16)
	registerFloatReduce[float64](tensor.F64)
	// complex: registerComplex.
	// bool: max is any, min is all; argmax/argmin compare false < true,
	// which is uint8's order on Go's 0/1 bools.
	reduceTable[trace.OpReduceMax][tensor.Bool] = foldReducer(func(a, b bool) bool { return a || b })
	reduceTable[trace.OpReduceMin][tensor.Bool] = foldReducer(func(a, b bool) bool { return a && b })
	argTable[0][tensor.Bool], argTable[1][tensor.Bool] = newArgReducer[uint8](false), newArgReducer[uint8](true)
}
