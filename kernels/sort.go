package kernels

import (
	"cmp"
	"fmt"
	"math"
	"unsafe"

	"github.com/kiln-go/kiln/lower"
	"github.com/kiln-go/kiln/tensor"
)

// sort (lax.sort, trace/sort.go): every row along the sorted axis is
// ordered by a stable merge sort of its element numbers — insertion-sorted
// runs of sortRun, then bottom-up merges between two halves of a
// per-worker scratch area — comparing the key operands lexicographically
// in JAX's order; the result operand's elements are then moved into place
// by that permutation. Rows run in parallel; nothing is allocated per Run
// once a worker's scratch has grown to a row (2·n ints).

const sortRun = 16 // insertion-sorted run length before merging

// elemCmp compares elements i and j (element offsets) of an array at p.
type elemCmp func(p unsafe.Pointer, i, j int) int

type sortKernel struct {
	keys  []int     // sources of the key operands
	cmps  []elemCmp // their comparisons
	src   int       // source of the result operand
	out   int
	size  int // bytes per result element
	n     int // elements per row
	inner int // stride of the sorted axis (elements)
	rows  int
}

func (x *cpuExec) compileSort(root *lower.Instr) (kernel, error) {
	p := root.Params
	s := p.Sort
	if s.NumKeys < 1 || s.NumKeys > len(root.Args) || s.Output < 0 || s.Output >= len(root.Args) {
		return nil, fmt.Errorf("kernels: sort with num_keys %d, output %d of %d operands", s.NumKeys, s.Output, len(root.Args))
	}
	k := &sortKernel{src: x.source(root.Args[s.Output]), out: x.m.Plan.Of[root], size: root.DType.Size(), n: root.Shape[p.Axis], inner: 1}
	for _, d := range root.Shape[p.Axis+1:] {
		k.inner *= d
	}
	if k.n > 0 {
		k.rows = root.Size() / k.n
	}
	for _, a := range root.Args[:s.NumKeys] {
		c := elemCmpOf(a.DType)
		if c == nil {
			return nil, fmt.Errorf("kernels: cpu cannot sort %s", a.DType)
		}
		k.keys = append(k.keys, x.source(a))
		k.cmps = append(k.cmps, c)
	}
	return k, nil
}

func (k *sortKernel) run(x *cpuExec, rs *runState) {
	if k.rows == 0 {
		return
	}
	work := k.n * max(1, bitsLen(k.n))
	x.parallel(rs, k.rows, k.rows*work, k)
}

func bitsLen(n int) int {
	b := 0
	for ; n > 1; n >>= 1 {
		b++
	}
	return b
}

// sortRowState is one row's view: its first element and the keys.
type sortRowState struct {
	k    *sortKernel
	rs   *runState
	base int
}

// compare orders the row's elements a and b (numbers along the row).
func (s *sortRowState) compare(a, b int) int {
	k := s.k
	ea, eb := s.base+a*k.inner, s.base+b*k.inner
	for i, c := range k.cmps {
		if o := c(s.rs.srcs[k.keys[i]], ea, eb); o != 0 {
			return o
		}
	}
	return 0
}

func (k *sortKernel) runRange(rs *runState, w *worker, lo, hi int) {
	n := k.n
	buf := unsafe.Slice((*int)(w.temp(2*n*8)), 2*n)
	perm, tmp := buf[:n], buf[n:]
	dst, src := rs.srcs[k.out], rs.srcs[k.src]
	for r := lo; r < hi; r++ {
		s := sortRowState{k: k, rs: rs, base: (r/k.inner)*n*k.inner + r%k.inner}
		for i := range perm {
			perm[i] = i
		}
		sorted := mergeSort(&s, perm, tmp)
		for i, from := range sorted {
			moveElem(dst, src, s.base+i*k.inner, s.base+from*k.inner, k.size)
		}
	}
}

// mergeSort sorts perm stably by s.compare, using tmp (of perm's length)
// as the other half, and returns whichever holds the result.
func mergeSort(s *sortRowState, perm, tmp []int) []int {
	n := len(perm)
	for lo := 0; lo < n; lo += sortRun {
		hi := min(lo+sortRun, n)
		for i := lo + 1; i < hi; i++ {
			v := perm[i]
			j := i
			for ; j > lo && s.compare(v, perm[j-1]) < 0; j-- {
				perm[j] = perm[j-1]
			}
			perm[j] = v
		}
	}
	from, to := perm, tmp
	for width := sortRun; width < n; width *= 2 {
		for lo := 0; lo < n; lo += 2 * width {
			mid, hi := min(lo+width, n), min(lo+2*width, n)
			i, j, o := lo, mid, lo
			for i < mid && j < hi {
				if s.compare(from[j], from[i]) < 0 { // strictly less: equal keys keep their order
					to[o] = from[j]
					j++
				} else {
					to[o] = from[i]
					i++
				}
				o++
			}
			o += copy(to[o:], from[i:mid])
			copy(to[o:], from[j:hi])
		}
		from, to = to, from
	}
	return from
}

// moveElem copies element j of src to element i of dst, size bytes each.
func moveElem(dst, src unsafe.Pointer, i, j, size int) {
	switch size {
	case 1:
		*(*uint8)(unsafe.Add(dst, i)) = *(*uint8)(unsafe.Add(src, j))
	case 2:
		*(*uint16)(unsafe.Add(dst, 2*i)) = *(*uint16)(unsafe.Add(src, 2*j))
	case 4:
		*(*uint32)(unsafe.Add(dst, 4*i)) = *(*uint32)(unsafe.Add(src, 4*j))
	case 8:
		*(*uint64)(unsafe.Add(dst, 8*i)) = *(*uint64)(unsafe.Add(src, 8*j))
	case 16:
		*(*[2]uint64)(unsafe.Add(dst, 16*i)) = *(*[2]uint64)(unsafe.Add(src, 16*j))
	}
}

func elemCmpOf(d tensor.DType) elemCmp {
	switch d {
	case tensor.Bool, tensor.U8:
		return cmpOrdered[uint8]
	case tensor.U16:
		return cmpOrdered[uint16]
	case tensor.U32:
		return cmpOrdered[uint32]
	case tensor.U64:
		return cmpOrdered[uint64]
	case tensor.I8:
		return cmpOrdered[int8]
	case tensor.I16:
		return cmpOrdered[int16]
	case tensor.I32:
		return cmpOrdered[int32]
	case tensor.I64:
		return cmpOrdered[int64]
	case tensor.F16:
		return cmpHalf(0x7c00)
	case tensor.BF16:
		return cmpHalf(0x7f80)
	case tensor.F32:
		return cmpFloat[float32]
	case tensor.F64:
		return cmpFloat[float64]
	case tensor.C64:
		return cmpComplex[float32]
	case tensor.C128:
		return cmpComplex[float64]
	}
	return nil
}

func at[T any](p unsafe.Pointer, i int) T {
	var z T
	return *(*T)(unsafe.Add(p, uintptr(i)*unsafe.Sizeof(z)))
}

func cmpOrdered[T cmp.Ordered](p unsafe.Pointer, i, j int) int {
	return cmp.Compare(at[T](p, i), at[T](p, j))
}

// floatOrder is JAX's sort order of floats: −0 = +0, every NaN equal to
// the others and above everything else.
func floatOrder[T float32 | float64](a, b T) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	case a == b:
		return 0
	}
	an, bn := a != a, b != b
	switch {
	case an && bn:
		return 0
	case an:
		return 1
	}
	return -1
}

func cmpFloat[T float32 | float64](p unsafe.Pointer, i, j int) int {
	return floatOrder(at[T](p, i), at[T](p, j))
}

func cmpComplex[T float32 | float64](p unsafe.Pointer, i, j int) int {
	a, b := at[[2]T](p, i), at[[2]T](p, j)
	if o := floatOrder(a[0], b[0]); o != 0 {
		return o
	}
	return floatOrder(a[1], b[1])
}

// cmpHalf orders 16-bit floats (f16, bf16) whose exponent mask is inf by
// their bits: sign-magnitude to an integer, ±0 to 0, every NaN above all.
func cmpHalf(inf uint16) elemCmp {
	key := func(b uint16) int {
		m := b & 0x7fff
		switch {
		case m > inf:
			return math.MaxInt
		case b&0x8000 != 0:
			return -int(m)
		}
		return int(m)
	}
	return func(p unsafe.Pointer, i, j int) int {
		return cmp.Compare(key(at[uint16](p, i)), key(at[uint16](p, j)))
	}
}
