package kernels

import (
	"reflect"
	"unsafe"
)

// Data movement (broadcast, transpose, slice, concatenate, copies) does not
// care what the bits mean, only how wide an element is: it runs on
// 1-, 2-, 4-, 8- and 16-byte words, one loop per width instead of one per
// dtype.

type word16 [2]uint64

// sliceLen is the length of a typed slice, via reflection.
func sliceLen(s any) (int, bool) {
	v := reflect.ValueOf(s)
	if v.Kind() != reflect.Slice {
		return 0, false
	}
	return v.Len(), true
}

// dataPtr is the address of a storage slice's first element (nil when it is
// empty).
func dataPtr(s any) unsafe.Pointer {
	v := reflect.ValueOf(s)
	if v.Len() == 0 {
		return nil
	}
	return v.UnsafePointer()
}

// strided describes a gather over an iteration space: iteration element k
// (row-major over shape) reads source element base + Σ idx[j]·strides[j].
type strided struct {
	shape   []int
	base    int
	strides []int
}

// maxRank bounds the rank of gathers that need no allocation.
const maxRank = 16

// gather copies n elements, dst[i] = src[offset of iteration element lo+i].
func gather[W any](dst, src unsafe.Pointer, g *strided, lo, n int) {
	d, s := (*W)(dst), (*W)(src)
	rank := len(g.shape)
	if n == 0 {
		return
	}
	if rank == 0 {
		// One value everywhere (a pinned scalar: an optimizer's rates and
		// bias corrections fill a register each per kernel call): store
		// it once and double the copied prefix, memmove doing the rest —
		// a 1024-element fill took a tenth of E7's step as a store loop.
		out := unsafe.Slice(d, n)
		out[0] = *(*W)(unsafe.Add(unsafe.Pointer(s), g.base*int(unsafe.Sizeof(*s))))
		for k := 1; k < n; k *= 2 {
			copy(out[k:], out[:k])
		}
		return
	}
	var idxBuf [maxRank]int
	idx := idxBuf[:rank:rank]
	if rank > maxRank {
		idx = make([]int, rank)
	}
	rem, off := lo, g.base
	for j := rank - 1; j >= 0; j-- {
		idx[j] = rem % g.shape[j]
		rem /= g.shape[j]
		off += idx[j] * g.strides[j]
	}
	out := unsafe.Slice(d, n)
	last, lastStride := g.shape[rank-1], g.strides[rank-1]
	if rank == 2 && g.strides[0] == 0 && lastStride == 1 {
		// A row broadcast down a matrix (a bias added to every row): the
		// block is the row repeated from phase idx[1]. Copy the row once,
		// then double the copied prefix: log(n/last) copies, not n/last.
		row := unsafe.Slice((*W)(unsafe.Add(unsafe.Pointer(s), off*int(unsafe.Sizeof(*s)))), last-idx[1])
		k := copy(out, row)
		if k < n {
			k += copy(out[k:], unsafe.Slice((*W)(unsafe.Add(unsafe.Pointer(s), g.base*int(unsafe.Sizeof(*s)))), idx[1]))
		}
		for k < n {
			k += copy(out[k:], out[:k])
		}
		return
	}
	if rank == 2 && lastStride == 0 {
		// A column broadcast across a matrix (a per-row scale): each source
		// element fills (the rest of) one iteration row.
		st := g.strides[0]
		for i := 0; i < n; off += st {
			run := out[i:min(i+last-idx[1], n)]
			v := *(*W)(unsafe.Add(unsafe.Pointer(s), off*int(unsafe.Sizeof(*s))))
			for k := range run {
				run[k] = v
			}
			i += len(run)
			idx[1] = 0
		}
		return
	}
	if rows := n / max(last, 1); rank >= 2 && g.strides[rank-2] == 1 && lastStride > 1 && idx[rank-1] == 0 &&
		n == rows*last && idx[rank-2]+rows <= g.shape[rank-2] && rows > 1 {
		// A transposed block (a transpose, or a reduction over a leading
		// axis reading its operand so): whole iteration rows whose source
		// rows are adjacent elements. Read the source in its own order and
		// write each value to its row, in tiles of transposeTile source
		// rows by as many of their elements: the tile's output rows stay
		// in L1 while the tile fills a cache line of each. Source row at a
		// time, a 256×64 f32 transpose wrote 64 output rows 1 KiB apart
		// per source row and took 2.3 ns an element, 0.9 so.
		in := unsafe.Slice((*W)(unsafe.Add(unsafe.Pointer(s), off*int(unsafe.Sizeof(*s)))), (last-1)*lastStride+rows)
		if rows <= transposeTile {
			// One tile high (a wide transpose's chunk: copyChunk
			// elements of 1,024-long rows are 16 of them): the source
			// rows one after another.
			for i := range last {
				src := in[i*lastStride : i*lastStride+rows]
				for r, v := range src {
					out[r*last+i] = v
				}
			}
			return
		}
		for i0 := 0; i0 < last; i0 += transposeTile {
			i1 := min(i0+transposeTile, last)
			for r0 := 0; r0 < rows; r0 += transposeTile {
				r1 := min(r0+transposeTile, rows)
				for i := i0; i < i1; i++ {
					src := in[i*lastStride+r0 : i*lastStride+r1]
					dst := out[r0*last+i:]
					for r, v := range src {
						dst[r*last] = v
					}
				}
			}
		}
		return
	}
	for i := 0; i < n; {
		// A run along the last axis.
		m := min(last-idx[rank-1], n-i)
		switch lastStride {
		case 1:
			copy(out[i:i+m], unsafe.Slice((*W)(unsafe.Add(unsafe.Pointer(s), off*int(unsafe.Sizeof(*s)))), m))
		case 0:
			v := *(*W)(unsafe.Add(unsafe.Pointer(s), off*int(unsafe.Sizeof(*s))))
			run := out[i : i+m]
			for k := range run {
				run[k] = v
			}
		case -1: // rev: read forward, write backward (2× a strided loop)
			in := unsafe.Slice((*W)(unsafe.Add(unsafe.Pointer(s), (off-m+1)*int(unsafe.Sizeof(*s)))), m)
			run := out[i : i+m]
			for k, v := range in {
				run[m-1-k] = v
			}
		default:
			// The run reads off, off+lastStride, …: from the lowest of them
			// (a negative stride, for rev, walks backwards).
			low := off + min(0, (m-1)*lastStride)
			in := unsafe.Slice((*W)(unsafe.Add(unsafe.Pointer(s), low*int(unsafe.Sizeof(*s)))), off+max(0, (m-1)*lastStride)-low+1)
			o := off - low
			run := out[i : i+m]
			for k := range run {
				run[k] = in[o]
				o += lastStride
			}
		}
		i += m
		off += m * lastStride
		idx[rank-1] += m
		for j := rank - 1; j > 0 && idx[j] == g.shape[j]; j-- {
			off -= idx[j] * g.strides[j]
			idx[j] = 0
			idx[j-1]++
			off += g.strides[j-1]
		}
	}
}

// transposeTile is the side of gather's transposed tiles: sixteen f32
// are a cache line.
const transposeTile = 16

// gatherFn returns the gather for elements of the given byte size.
func gatherFn(size int) func(dst, src unsafe.Pointer, g *strided, lo, n int) {
	switch size {
	case 1:
		return gather[uint8]
	case 2:
		return gather[uint16]
	case 4:
		return gather[uint32]
	case 8:
		return gather[uint64]
	case 16:
		return gather[word16]
	}
	panic("kernels: no gather for element size")
}

// simplify merges adjacent iteration dims that the source walks
// contiguously, so gathers run along long rows; size-1 dims are dropped.
func (g *strided) simplify() {
	var shape, strides []int
	for j, n := range g.shape {
		if n == 1 {
			continue
		}
		if k := len(shape) - 1; k >= 0 && strides[k] == n*g.strides[j] {
			shape[k] *= n
			strides[k] = g.strides[j]
			continue
		}
		shape = append(shape, n)
		strides = append(strides, g.strides[j])
	}
	g.shape, g.strides = shape, strides
}

// contiguous reports whether the gather reads the source in order from base.
func (g *strided) contiguous() bool {
	return len(g.shape) == 0 || (len(g.shape) == 1 && g.strides[0] == 1)
}
