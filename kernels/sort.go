package kernels

import (
	"cmp"
	"fmt"
	"math"
	"unsafe"

	"github.com/kiln-go/kiln/lower"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// sort (lax.sort, trace/sort.go): every row along the sorted axis is
// ordered by a stable merge sort of its element numbers — insertion-sorted
// runs of sortRun, then bottom-up merges between two halves of a
// per-worker scratch area — comparing the key operands lexicographically
// in JAX's order; the result operand's elements are then moved into place
// by that permutation. One real key (the common case: sort, argsort,
// top_k, random permutations) is first mapped to an unsigned number whose
// order is JAX's (keyFuncOf), and (key, element number) pairs are sorted
// directly: by a stable LSD radix sort from radixMin elements, merged
// below. Rows run in parallel; nothing is allocated per Run once a
// worker's scratch has grown to a row (2·n pairs).
//
// lax.sort's results are sibling equations over the same operands (one
// per result, trace/sort.go). The first sibling to run keeps its rows'
// permutations in a per-run scratch slot; the later ones only move their
// operand's elements by it, so the operands are sorted once.

const sortRun = 16 // insertion-sorted run length before merging

// elemCmp compares elements i and j (element offsets) of an array at p.
type elemCmp func(p unsafe.Pointer, i, j int) int

type sortKernel struct {
	keys     []int     // sources of the key operands
	cmps     []elemCmp // their comparisons
	key1     keyFunc   // one real key: its unsigned sort key, else nil
	keyBytes int       // the key's width in bytes
	src      int       // source of the result operand
	out      int
	size     int // bytes per result element
	n        int // elements per row
	inner    int // stride of the sorted axis (elements)
	rows     int
	// perm is the scratch slot of the rows' permutations shared by the
	// sibling sorts (−1: none); givePerm: this kernel sorts and fills it,
	// else it only reads it.
	perm     int
	givePerm bool
}

// sortSiblingKey identifies the sorts that order their rows alike: the
// same operands, axis and keys.
func sortSiblingKey(in *lower.Instr) string {
	key := fmt.Sprintf("%d/%d:", in.Params.Axis, in.Params.Sort.NumKeys)
	for _, a := range in.Args {
		key += fmt.Sprintf("%p,", a)
	}
	return key
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
	if s.NumKeys == 1 {
		k.key1, k.keyBytes = keyFuncOf(root.Args[0].DType)
	}
	k.perm = -1
	siblings := 0
	for _, in := range x.m.Instrs {
		if in.Op == trace.OpSort && sortSiblingKey(in) == sortSiblingKey(root) {
			siblings++
		}
	}
	if siblings > 1 {
		if x.sortPerms == nil {
			x.sortPerms = map[string]int{}
		}
		key := sortSiblingKey(root)
		slot, seen := x.sortPerms[key]
		if !seen { // the first sibling compiled runs first: fusions are compiled in order
			slot = x.newSlot()
			x.sortPerms[key] = slot
		}
		k.perm, k.givePerm = slot, !seen
	}
	return k, nil
}

func (k *sortKernel) run(x *cpuExec, rs *runState) {
	if k.rows == 0 {
		return
	}
	if k.perm >= 0 {
		rs.slotBytes(k.perm, 0, k.rows*k.n*8) // sized here, before the workers read it
		if !k.givePerm {
			x.parallel(rs, k.rows, k.rows*k.n, sortMover{k})
			return
		}
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
func (s sortRowState) compare(a, b int) int {
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
	if k.key1 != nil {
		k.runKeyed(rs, w, lo, hi)
		return
	}
	n := k.n
	buf := unsafe.Slice((*int)(w.temp(2*n*8)), 2*n)
	perm, tmp := buf[:n], buf[n:]
	dst, src := rs.srcs[k.out], rs.srcs[k.src]
	for r := lo; r < hi; r++ {
		s := sortRowState{k: k, rs: rs, base: (r/k.inner)*n*k.inner + r%k.inner}
		for i := range perm {
			perm[i] = i
		}
		sorted := mergeSort(s, perm, tmp)
		kept := k.keptPerm(rs, r)
		for i, from := range sorted {
			moveElem(dst, src, s.base+i*k.inner, s.base+from*k.inner, k.size)
			if kept != nil {
				kept[i] = from
			}
		}
	}
}

// keptPerm is row r's permutation in the siblings' slot, or nil when
// this kernel gives none.
func (k *sortKernel) keptPerm(rs *runState, r int) []int {
	if !k.givePerm {
		return nil
	}
	all := unsafe.Slice((*int)(unsafe.Pointer(unsafe.SliceData(rs.slots[k.perm][0]))), k.rows*k.n)
	return all[r*k.n : (r+1)*k.n]
}

// sortMover moves a later sibling's elements by the kept permutations.
type sortMover struct{ k *sortKernel }

func (m sortMover) runRange(rs *runState, _ *worker, lo, hi int) {
	k := m.k
	all := unsafe.Slice((*int)(unsafe.Pointer(unsafe.SliceData(rs.slots[k.perm][0]))), k.rows*k.n)
	dst, src := rs.srcs[k.out], rs.srcs[k.src]
	for r := lo; r < hi; r++ {
		base := (r/k.inner)*k.n*k.inner + r%k.inner
		for i, from := range all[r*k.n : (r+1)*k.n] {
			moveElem(dst, src, base+i*k.inner, base+from*k.inner, k.size)
		}
	}
}

// orderer says whether a sorts before b.
type orderer[T any] interface{ before(a, b T) bool }

// before orders a row's elements a and b (numbers along the row).
func (s sortRowState) before(a, b int) bool { return s.compare(a, b) < 0 }

// keyedOrder orders (key, element) pairs by key.
type keyedOrder struct{}

func (keyedOrder) before(a, b keyed) bool { return a.k < b.k }

// mergeSort sorts a stably by o — insertion-sorted runs of sortRun, then
// bottom-up merges that take from the right only when strictly before —
// using tmp (of a's length) as the other half, and returns whichever
// holds the result.
func mergeSort[T any, O orderer[T]](o O, a, tmp []T) []T {
	n := len(a)
	for lo := 0; lo < n; lo += sortRun {
		hi := min(lo+sortRun, n)
		for i := lo + 1; i < hi; i++ {
			v := a[i]
			j := i
			for ; j > lo && o.before(v, a[j-1]); j-- {
				a[j] = a[j-1]
			}
			a[j] = v
		}
	}
	from, to := a, tmp
	for width := sortRun; width < n; width *= 2 {
		for lo := 0; lo < n; lo += 2 * width {
			mid, hi := min(lo+width, n), min(lo+2*width, n)
			if mid >= hi || !o.before(from[mid], from[mid-1]) { // already in order
				copy(to[lo:hi], from[lo:hi])
				continue
			}
			i, j, k := lo, mid, lo
			for i < mid && j < hi {
				if o.before(from[j], from[i]) {
					to[k] = from[j]
					j++
				} else {
					to[k] = from[i]
					i++
				}
				k++
			}
			k += copy(to[k:], from[i:mid])
			copy(to[k:], from[j:hi])
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
	if f, ok := d.FloatFormat(); ok { // by value: ±0 equal, every NaN above all
		return func(p unsafe.Pointer, i, j int) int {
			return floatOrder(f.ToFloat32(at[uint8](p, i)), f.ToFloat32(at[uint8](p, j)))
		}
	}
	switch computeDType(d) { // sub-byte integers: their i8/u8 values
	case tensor.I8:
		return cmpOrdered[int8]
	case tensor.U8:
		return cmpOrdered[uint8]
	}
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

// keyFunc reads element i of an array at p as an unsigned key of the
// element's width whose order is JAX's sort order of the element.
type keyFunc func(p unsafe.Pointer, i int) uint64

// keyFuncOf returns d's key function and key bytes; nil for complex, which
// has two parts (the general path compares those).
func keyFuncOf(d tensor.DType) (keyFunc, int) {
	if f, ok := d.FloatFormat(); ok { // the key of the f32 value
		return func(p unsafe.Pointer, i int) uint64 {
			return floatKey(uint64(math.Float32bits(f.ToFloat32(at[uint8](p, i)))), 32, 23)
		}, 4
	}
	if d.IsNarrow() {
		d = computeDType(d)
	}
	switch d {
	case tensor.Bool, tensor.U8:
		return func(p unsafe.Pointer, i int) uint64 { return uint64(at[uint8](p, i)) }, 1
	case tensor.U16:
		return func(p unsafe.Pointer, i int) uint64 { return uint64(at[uint16](p, i)) }, 2
	case tensor.U32:
		return func(p unsafe.Pointer, i int) uint64 { return uint64(at[uint32](p, i)) }, 4
	case tensor.U64:
		return func(p unsafe.Pointer, i int) uint64 { return at[uint64](p, i) }, 8
	case tensor.I8: // two's complement with the sign bit flipped orders as unsigned
		return func(p unsafe.Pointer, i int) uint64 { return uint64(at[uint8](p, i) ^ 1<<7) }, 1
	case tensor.I16:
		return func(p unsafe.Pointer, i int) uint64 { return uint64(at[uint16](p, i) ^ 1<<15) }, 2
	case tensor.I32:
		return func(p unsafe.Pointer, i int) uint64 { return uint64(at[uint32](p, i) ^ 1<<31) }, 4
	case tensor.I64:
		return func(p unsafe.Pointer, i int) uint64 { return at[uint64](p, i) ^ 1<<63 }, 8
	case tensor.F16:
		return func(p unsafe.Pointer, i int) uint64 { return floatKey(uint64(at[uint16](p, i)), 16, 10) }, 2
	case tensor.BF16:
		return func(p unsafe.Pointer, i int) uint64 { return floatKey(uint64(at[uint16](p, i)), 16, 7) }, 2
	case tensor.F32:
		return func(p unsafe.Pointer, i int) uint64 { return floatKey(uint64(at[uint32](p, i)), 32, 23) }, 4
	case tensor.F64:
		return func(p unsafe.Pointer, i int) uint64 { return floatKey(at[uint64](p, i), 64, 52) }, 8
	}
	return nil, 0
}

// floatKey maps the bits of a float of the given width and mantissa
// length to its order as an unsigned number of that width: ±0 to one key,
// every NaN to the largest, sign-magnitude to offset binary (negatives
// below the sign bit, positives above).
func floatKey(b uint64, width, mant int) uint64 {
	sign := uint64(1) << (width - 1)
	mag := b &^ sign
	inf := (sign - 1) &^ (uint64(1)<<mant - 1)
	switch {
	case mag > inf:
		return sign | (sign - 1) // NaN: all ones
	case mag == 0:
		return sign // both zeros
	case b&sign != 0:
		return sign - mag
	}
	return sign + mag
}

// keyed is an element's sort key and its number along the row.
type keyed struct {
	k uint64
	i int
}

// runKeyed sorts rows by one real key: (key, number) pairs merged stably.
func (k *sortKernel) runKeyed(rs *runState, w *worker, lo, hi int) {
	n := k.n
	buf := unsafe.Slice((*keyed)(w.temp(2*n*int(unsafe.Sizeof(keyed{})))), 2*n)
	pairs, tmp := buf[:n], buf[n:]
	dst, src, keys := rs.srcs[k.out], rs.srcs[k.src], rs.srcs[k.keys[0]]
	for r := lo; r < hi; r++ {
		base := (r/k.inner)*n*k.inner + r%k.inner
		for i := range pairs {
			pairs[i] = keyed{k.key1(keys, base+i*k.inner), i}
		}
		sorted := pairs
		if n >= radixMin {
			sorted = radixKeyed(pairs, tmp, k.keyBytes)
		} else {
			sorted = mergeSort(keyedOrder{}, pairs, tmp)
		}
		kept := k.keptPerm(rs, r)
		for i, p := range sorted {
			moveElem(dst, src, base+i*k.inner, base+p.i*k.inner, k.size)
			if kept != nil {
				kept[i] = p.i
			}
		}
	}
}

// radixMin is the row length from which one key is radix sorted: below
// it, the 256-bucket histograms cost more than merging.
const radixMin = 256

// radixKeyed sorts pairs by their keys of nbytes bytes with a stable
// least-significant-digit radix sort, a byte per pass (passes whose byte
// is the same in every key are skipped), using tmp as the other half; it
// returns whichever holds the result.
func radixKeyed(a, tmp []keyed, nbytes int) []keyed {
	var count [8][256]int
	for _, p := range a {
		for b := range nbytes {
			count[b][byte(p.k>>(8*b))]++
		}
	}
	from, to := a, tmp
	for b := range nbytes {
		c := &count[b]
		shift := 8 * b
		if c[byte(from[0].k>>shift)] == len(from) {
			continue // one digit: the pass would not move anything
		}
		sum := 0
		for d, m := range c {
			c[d] = sum
			sum += m
		}
		for _, p := range from {
			d := byte(p.k >> shift)
			to[c[d]] = p
			c[d]++
		}
		from, to = to, from
	}
	return from
}
