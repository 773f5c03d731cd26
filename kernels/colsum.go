package kernels

import (
	"unsafe"

	"github.com/kiln-go/kiln/internal/numerics"
	"github.com/kiln-go/kiln/internal/simd"
	"github.com/kiln-go/kiln/lower"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// colSumKernel is a float reduce_sum over the leading axes of its operand
// (a bias gradient: the sum over a batch), computed down the columns: the
// operand is evaluated in its own row-major order, and each step of the
// summation tree (package doc) runs for all K outputs at once as one
// vector add of two rows, so no transposed gather is needed. Each output
// sees exactly the tree's additions in the tree's order and operand order
// (the lane sums r_q += x, the combining ((r0+r1)+(r2+r3))+((r4+r5)+(r6+r7))
// with the first operand's NaN, the leftovers s += x, then the leaves'
// pairwise tree): the bits of reduceKernel's.
type colSumKernel[T float32 | float64] struct {
	body  *body // the operand in natural order
	r, k  int   // rows (values per output) and columns (outputs)
	out   int
	slot  int
	add   func(dst, a, b []T)
	rows  int // rows per body evaluation
	nleaf int
	// narrow: fewer than 16 columns, where a vector add per row costs more
	// than the row's additions; each leaf is evaluated whole and summed by
	// narrowLeaves. E7's ten-column bias gradient took 1.9 µs as a
	// transposed gather and segment sums, 3.3 as row adds.
	narrow bool
}

// maxColLeaves bounds a column sum's leaves (16 MiB of f32, 32 of f64).
const maxColLeaves = 1 << 22

// compileColSum returns a column-sum kernel for fusion f when its root
// sums an f32 or f64 operand over leading axes only, else nil.
func (x *cpuExec) compileColSum(f *lower.Fusion) (kernel, error) {
	root := f.Outputs[0]
	operand := root.Args[0]
	if root.Op != trace.OpReduceSum || root.DType != operand.DType || len(root.Params.Axes) == 0 ||
		len(root.Params.Axes) == len(operand.Shape) {
		return nil, nil
	}
	for i, a := range root.Params.Axes {
		if a != i {
			return nil, nil
		}
	}
	r := 1
	for _, a := range root.Params.Axes {
		r *= operand.Shape[a]
	}
	k := root.Size()
	if r < 2 || k == 0 {
		return nil, nil
	}
	if (r+leafElems-1)/leafElems > maxColLeaves/k {
		// The leaves are per-run scratch, a 128th of the operand: past
		// maxColLeaves (an operand of 2^29 elements; a broadcast can
		// claim any size) the general kernel, whose partials are
		// bounded, gives the same bits.
		return nil, nil
	}
	perm := make([]int, len(operand.Shape))
	for i := range perm {
		perm[i] = i
	}
	block := min(groupElems, max(operand.Size(), 1))
	// Narrow rows (fewer than 16 columns) are summed a leaf at a time (see
	// narrowLeaves), so a body evaluation holds a whole leaf.
	narrow := k < 16
	if narrow {
		block = min(leafElems*k, max(operand.Size(), 1))
	}
	if k > block {
		return nil, nil // rows longer than a body block: keep the general kernel
	}
	b, err := compileBody(f, operand, operand.Shape, perm, block, x.source, loc{}, false)
	if err != nil {
		return nil, err
	}
	b.peephole(x.cpu.peepholeOptions())
	x.checkBody(b)
	b.fuseWiden(x.cpu.peepholeOptions())
	b.fuseIntWiden(x.cpu.peepholeOptions())
	out, slot := x.m.Plan.Of[root], x.newSlot()
	nleaf := (r + leafElems - 1) / leafElems
	switch operand.DType {
	case tensor.F32:
		return &colSumKernel[float32]{body: b, r: r, k: k, out: out, slot: slot, add: simd.AddF32, rows: block / k, nleaf: nleaf, narrow: narrow}, nil
	case tensor.F64:
		return &colSumKernel[float64]{body: b, r: r, k: k, out: out, slot: slot, add: simd.AddF64, rows: block / k, nleaf: nleaf, narrow: narrow}, nil
	}
	return nil, nil
}

func (c *colSumKernel[T]) run(x *cpuExec, rs *runState) {
	size := int(unsafe.Sizeof(T(0)))
	leaves := view[T](unsafe.Pointer(unsafe.SliceData(rs.slotBytes(c.slot, 0, c.nleaf*c.k*size+regAlign))), c.nleaf*c.k)
	x.parallel(rs, c.nleaf, c.r*c.k, c)
	if rs.stopped() {
		return // cancelled: the leaves are not all there
	}
	c.combine(leaves, 0, c.nleaf)
	out := view[T](rs.srcs[c.out], c.k)
	for j, v := range leaves[:c.k] {
		out[j] = 0 + v // the tree's result is 0 + sum (a −0 sum is +0)
	}
}

// runRange sums leaves [lo, hi) into their rows of the slot.
func (c *colSumKernel[T]) runRange(rs *runState, w *worker, lo, hi int) {
	size := int(unsafe.Sizeof(T(0)))
	leaves := view[T](unsafe.Pointer(unsafe.SliceData(rs.slotBytes(c.slot, 0, c.nleaf*c.k*size+regAlign))), c.nleaf*c.k)
	w.prepareAt(c.body, rs.srcs, rs.stamp)
	// Eight lane rows, then the rows a body evaluation returned.
	if c.narrow {
		for l := lo; l < hi; l++ {
			r0, r1 := l*leafElems, min((l+1)*leafElems, c.r)
			vals := view[T](w.eval(c.body, rs.srcs, r0*c.k, (r1-r0)*c.k), (r1-r0)*c.k)
			narrowLeaves(leaves[l*c.k:(l+1)*c.k], vals, c.k, r1-r0)
		}
		return
	}
	lanes := view[T](w.temp(8*c.k*size), 8*c.k)
	for l := lo; l < hi; l++ {
		r0, r1 := l*leafElems, min((l+1)*leafElems, c.r)
		n := r1 - r0
		s := leaves[l*c.k : (l+1)*c.k]
		full := n / 8 * 8
		if n < 8 {
			full = 0
		}
		for i := r0; i < r1; {
			m := min(c.rows, r1-i)
			vals := view[T](w.eval(c.body, rs.srcs, i*c.k, m*c.k), m*c.k)
			for j := 0; j < m; {
				li := i + j - r0
				switch {
				case full == 0 && li == 0:
					copy(s, vals[:c.k])
					j++
				case li < 8 && full > 0:
					// The first rows start the lanes: as many as the block
					// holds, one copy.
					g := min(8-li, m-j)
					copy(lanes[li*c.k:(li+g)*c.k], vals[j*c.k:(j+g)*c.k])
					j += g
				case li < full && li%8 == 0 && j+8 <= m:
					// Eight rows, one to each lane, are one contiguous run
					// of additions: a single vector add, the same additions
					// as eight row adds. E7's 256×128 bias gradient took
					// 4.8 µs on one core a row at a time, 2.6 so.
					c.add(lanes, lanes, vals[j*c.k:(j+8)*c.k])
					j += 8
				case li < full:
					q := lanes[li%8*c.k : (li%8+1)*c.k]
					c.add(q, q, vals[j*c.k:(j+1)*c.k])
					j++
				default:
					if li == full && full > 0 {
						c.fold(lanes, s)
					}
					c.add(s, s, vals[j*c.k:(j+1)*c.k])
					j++
				}
			}
			i += m
		}
		if n == full {
			c.fold(lanes, s)
		}
	}
}

// fold combines the eight lane rows into s as the leaf combines its lane
// sums: ((r0+r1)+(r2+r3))+((r4+r5)+(r6+r7)), each add keeping its first
// operand's NaN (the vector add's).
func (c *colSumKernel[T]) fold(lanes, s []T) {
	lane := func(q int) []T { return lanes[q*c.k : (q+1)*c.k] }
	c.add(lane(0), lane(0), lane(1))
	c.add(lane(2), lane(2), lane(3))
	c.add(lane(4), lane(4), lane(5))
	c.add(lane(6), lane(6), lane(7))
	c.add(lane(0), lane(0), lane(2))
	c.add(lane(4), lane(4), lane(6))
	c.add(s, lane(0), lane(4))
}

// combine runs the leaves' tree over leaves [lo, lo+n) in place: the node
// ends in leaf lo's row.
func (c *colSumKernel[T]) combine(leaves []T, lo, n int) {
	if n == 1 {
		return
	}
	p := splitPoint(n)
	c.combine(leaves, lo, p)
	c.combine(leaves, lo+p, n-p)
	a := leaves[lo*c.k : (lo+1)*c.k]
	c.add(a, a, leaves[(lo+p)*c.k:(lo+p+1)*c.k])
}

// narrowLeaves writes to dst[j], for each of the k < 16 columns, the leaf
// sum (numerics.SumLeafFloat) of column j of the n rows of k values in x:
// its values x[j], x[j+k], … added as the leaf adds a contiguous run —
// lane sums r_q += x for full groups of eight, the lanes combined
// ((r0+r1)+(r2+r3))+((r4+r5)+(r6+r7)) with the first operand's NaN, the
// leftovers s += x; fewer than eight, left to right. The lanes of every
// column are kept side by side (lane q of column j at q·k + j), so that
// eight rows are one contiguous run of additions, which the vector add
// (keeping its first operand's NaN as numerics.AddFirstNaN does) takes in
// one call: E7's ten-column bias gradient, summed a column at a time
// with a stride of ten, took 3.7 µs of its step; as scalar runs of eighty
// additions, 1.7 µs for its 256 rows (BenchmarkNarrowLeaves); as vector
// adds, 0.4.
func narrowLeaves[T float32 | float64](dst, x []T, k, n int) {
	add := numerics.AddFirstNaN[T] // every add keeps its first operand's NaN, as x86's does
	dst, x = dst[:k], x[:n*k]
	if n < 8 {
		copy(dst, x[:k])
		for i := 1; i < n; i++ {
			for j, v := range x[i*k : (i+1)*k] {
				dst[j] = add(dst[j], v)
			}
		}
		return
	}
	var buf [8 * 16]T
	r := buf[:8*k]
	copy(r, x[:8*k])
	i := 8
	for ; i+8 <= n; i += 8 {
		// A direct call: through a func value, buf would escape.
		if run := x[i*k : (i+8)*k]; unsafe.Sizeof(T(0)) == 4 {
			simd.AddF32(asF32(r), asF32(r), asF32(run))
		} else {
			simd.AddF64(asF64(r), asF64(r), asF64(run))
		}
	}
	for j := range dst {
		s := add(add(add(r[j], r[k+j]), add(r[2*k+j], r[3*k+j])), add(add(r[4*k+j], r[5*k+j]), add(r[6*k+j], r[7*k+j])))
		for l := i; l < n; l++ {
			s = add(s, x[l*k+j])
		}
		dst[j] = s
	}
}
