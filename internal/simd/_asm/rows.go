package main

import (
	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

// Short rows: reductions of each row of a row-major matrix whose rows are
// shorter than a vector (1 ≤ l < 16 values: a softmax over ten classes),
// sixteen rows at a time, one row a lane. Value j of the sixteen rows is
// one gather (idx holds the rows' offsets, 0, l, …, 15·l), so every lane
// runs the row's own operations in the row's own order: the bits of the Go
// twins, which reduce a row at a time.
//
// sumRowsF32 sums as Kiln's tree sums a short segment (kernels' package
// doc): rows of eight or more as ((x0+x1)+(x2+x3))+((x4+x5)+(x6+x7)), then
// the rest left to right; shorter rows left to right; each left operand
// Intel's src1 (numerics.AddFirstNaN: the first NaN wins), and the sum
// finally added to +0 (a sum of −0s is +0).
//
// maxRowsF32 and minRowsF32 take the largest (smallest) value, +0 above
// −0, by comparing the values as integers ordered as the floats are (a
// negative value's magnitude bits flipped): exact, and independent of the
// order. A group of rows holding a NaN stops the kernel before it: the
// first NaN of a row is its result, which the Go twin finds.
//
// The kernels do whole groups of sixteen rows (len(dst) rounded down)
// and return how many rows they did. x must hold len(dst)·l values.

func registerRows() {
	add("sumRowsF32", "dst, x []float32, idx []int32, l int", func(s isa) {
		if s.evex {
			rowsLoop(s, false, false)
		}
	})
	add("maxRowsF32", "dst, x []float32, idx []int32, l int", func(s isa) {
		if s.evex {
			rowsLoop(s, true, false)
		}
	})
	add("minRowsF32", "dst, x []float32, idx []int32, l int", func(s isa) {
		if s.evex {
			rowsLoop(s, true, true)
		}
	})
}

// rowsLoop emits a short-row kernel: a sum, or (fold) a max or (isMin) min.
func rowsLoop(s isa, fold, isMin bool) {
	text(s)
	name := current.name + s.name
	nd := Load(Param("dst").Len(), GP64())
	pd := Load(Param("dst").Base(), GP64())
	px := Load(Param("x").Base(), GP64())
	pi := Load(Param("idx").Base(), GP64())
	l := Load(Param("l"), GP64())
	idx := ZMM()
	VMOVDQU32(Mem{Base: pi}, idx)
	stride := GP64() // bytes of sixteen rows
	MOVQ(l, stride)
	SHLQ(U8(6), stride)
	ANDQ(I32(-16), nd)
	g := GP64()
	XORQ(g, g)
	zero := ZMM()
	VXORPS(zero, zero, zero)
	k := K()
	// gather loads value j of the sixteen rows at base+4j.
	gather := func(m Mem) reg.VecVirtual {
		v := ZMM()
		KXNORW(k, k, k)
		VGATHERDPS(m, k, v)
		return v
	}
	at := func(base reg.Register, disp int) Mem { return Mem{Base: base, Index: idx, Scale: 4, Disp: disp} }
	acc := ZMM()
	p, j := GP64(), GP64()
	// from starts the rest of the row at value i; rest gathers each value
	// j < l from there and hands it to step, then falls through to _end.
	from := func(i int) {
		MOVQ(U32(i), j)
		LEAQ(Mem{Base: px, Disp: 4 * i}, p)
	}
	rest := func(step func(w reg.VecVirtual)) {
		Label(name + "_next")
		CMPQ(j, l)
		JAE(LabelRef(name + "_end"))
		step(gather(at(p, 0)))
		ADDQ(U8(4), p)
		INCQ(j)
		JMP(LabelRef(name + "_next"))
		Label(name + "_end")
	}

	Label(name + "_loop")
	CMPQ(g, nd)
	JAE(LabelRef(name + "_done"))
	if fold {
		// key maps a float's bits to an integer in the floats' order.
		key := func(v reg.VecVirtual) {
			t := ZMM()
			VPSRAD(U8(31), v, t)
			VPSRLD(U8(1), t, t)
			VPXORD(t, v, v)
		}
		nan := K()
		v := gather(at(px, 0))
		VCMPPS(U8(3), v, v, nan) // unordered: a NaN
		key(v)
		VMOVDQA32(v, acc)
		from(1)
		rest(func(w reg.VecVirtual) {
			n2 := K()
			VCMPPS(U8(3), w, w, n2)
			KORW(n2, nan, nan)
			key(w)
			if isMin {
				VPMINSD(w, acc, acc)
			} else {
				VPMAXSD(w, acc, acc)
			}
		})
		KORTESTW(nan, nan)
		JNZ(LabelRef(name + "_done")) // the Go twin takes this group
		key(acc)                      // the map is its own inverse
	} else {
		CMPQ(l, U8(8))
		JB(LabelRef(name + "_short"))
		var v [8]reg.VecVirtual
		for i := range v {
			v[i] = gather(at(px, 4*i))
		}
		for i := 0; i < 8; i += 2 {
			VADDPS(v[i+1], v[i], v[i]) // x_i + x_{i+1}, x_i as src1
		}
		VADDPS(v[2], v[0], v[0])
		VADDPS(v[6], v[4], v[4])
		VADDPS(v[4], v[0], acc)
		from(8)
		JMP(LabelRef(name + "_next"))
		Label(name + "_short")
		first := gather(at(px, 0))
		VMOVAPS(first, acc)
		from(1)
		rest(func(w reg.VecVirtual) { VADDPS(w, acc, acc) }) // acc + x_j, acc as src1
		VADDPS(acc, zero, acc)                               // +0 + sum
	}
	VMOVUPS(acc, Mem{Base: pd, Index: g, Scale: 4})
	ADDQ(stride, px)
	ADDQ(U8(16), g)
	JMP(LabelRef(name + "_loop"))
	Label(name + "_done")
	VZEROUPPER()
	Store(g, ReturnIndex(0))
	RET()
}
