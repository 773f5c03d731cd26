package main

import (
	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

// The leaf of Kiln's fixed summation tree (kernels' package doc) for
// m ≥ 8 values: eight lane accumulators r[j] = x[j], r[j] += x[8i+j] for
// every full group of eight, then ((r0+r1)+(r2+r3))+((r4+r5)+(r6+r7)),
// then the m mod 8 values left over added left to right. Eight float32
// lanes are one YMM register, eight float64 lanes two; every addition keeps
// the Go twin's left operand as Intel's src1, so even a NaN comes out the
// same. The accumulators form one dependency chain per lane whatever the
// vector width, so the AVX-512 tier runs the same YMM code.
//
// The kernels return (sum, m), or (0, 0) for m < 8, which the Go twin
// folds itself.

func registerSum() {
	addR("sumLeafF64", "x []float64", "(float64, int)", "0, 0", func(s isa) {
		if s.evex {
			return
		}
		sumLeaf(s, f64)
	})
	addR("sumLeafF32", "x []float32", "(float32, int)", "0, 0", func(s isa) {
		if s.evex {
			return
		}
		sumLeaf(s, f32)
	})
	add("sumLeavesF64", "dst, x []float64", func(s isa) {
		if s.evex {
			return
		}
		sumLeaves(s, f64, 4)
	})
	add("sumLeavesF32", "dst, x []float32", func(s isa) {
		if s.evex {
			return
		}
		sumLeaves(s, f32, 8)
	})
	add("sumLeavesSqDiffF64", "dst, x []float64, c float64", func(s isa) {
		if s.evex {
			return
		}
		sumLeavesSqDiff(s, f64, 4)
	})
	add("sumLeavesSqDiffF32", "dst, x []float32, c float32", func(s isa) {
		if s.evex {
			return
		}
		sumLeavesSqDiff(s, f32, 8)
	})
}

// sumLeaves sums full leaves of x, per leaves at a time, into dst: one
// leaf's lanes are one dependency chain of 15 additions, so several leaves
// side by side keep the adders busy (eight chains of YMM). It does
// min(len(dst), len(x)/128) rounded down to a multiple of per leaves and
// returns that count; the Go wrapper does the rest.
func sumLeaves(s isa, t floatType, per int) {
	leafLoop(s, t, per, leafForm{
		first: func(m Mem, a reg.VecVirtual) { VMOVUPS(m, a) },
		next:  func(m Mem, a reg.VecVirtual) { t.add(m, a, a) }, // r += x[8g : 8g+8]
	})
}

// sumLeavesSqDiff is sumLeaves of the values (x[i] − c)², each rounded as
// the two kernels computing them would (subScalar's x[i] − c with x[i] as
// src1, then the product of that with itself), without writing them: the
// leaf's lanes start at the first eight values and add the rest with the
// accumulator as src1, as sumLeaves does. It is a variance's second pass,
// sum((x − mean)²), in one read of x.
func sumLeavesSqDiff(s isa, t floatType, per int) {
	var c reg.VecVirtual
	// term writes (x[at] − c)² for the YMM of values at m into dst.
	term := func(m Mem, dst reg.VecVirtual) {
		VMOVUPS(m, dst)
		t.sub(c, dst, dst)
		t.mul(dst, dst, dst)
	}
	leafLoop(s, t, per, leafForm{
		setup: func() {
			c = YMM()
			if t.size == 8 {
				VBROADCASTSD(Load(Param("c"), XMM()), c)
			} else {
				VBROADCASTSS(Load(Param("c"), XMM()), c)
			}
		},
		first: term,
		next: func(m Mem, a reg.VecVirtual) {
			v := YMM()
			term(m, v)
			t.add(v, a, a) // r += (x[8g : 8g+8] − c)²
		},
	})
}

// leafForm is what a leaf-sum kernel adds up: setup (may be nil) loads its
// other parameters; first starts a leaf's accumulator at the YMM of values
// at m, next adds the YMM at m into it.
type leafForm struct {
	setup       func()
	first, next func(m Mem, a reg.VecVirtual)
}

// leafLoop is the body of the leaf-sum kernels: full leaves, per at a
// time, each a YMM accumulator chain (two for f64) combined by
// combineLanes into dst; it returns how many leaves it did.
func leafLoop(s isa, t floatType, per int, f leafForm) {
	text(s)
	name := current.name + s.name
	nd := Load(Param("dst").Len(), GP64())
	nx := Load(Param("x").Len(), GP64())
	pd := Load(Param("dst").Base(), GP64())
	px := Load(Param("x").Base(), GP64())
	if f.setup != nil {
		f.setup()
	}
	SHRQ(U8(7), nx) // full leaves
	CMPQ(nx, nd)
	CMOVQLT(nx, nd) // nd = min(nd, full leaves)
	ANDQ(I32(-per), nd)
	k := GP64()
	XORQ(k, k)
	leafBytes := leafElems * t.size
	ymms := 8 / (32 / t.size) // YMM registers per leaf: 2 (f64) or 1 (f32)
	Label(name + "_loop")
	CMPQ(k, nd)
	JAE(LabelRef(name + "_done"))
	accs := make([][]reg.VecVirtual, per)
	for l := range accs {
		for h := range ymms {
			a := YMM()
			f.first(Mem{Base: px, Disp: l*leafBytes + 32*h}, a)
			accs[l] = append(accs[l], a)
		}
	}
	pf := 0
	for g := 1; g < leafElems/8; g++ {
		for l := range accs {
			for h, a := range accs[l] {
				f.next(Mem{Base: px, Disp: l*leafBytes + g*8*t.size + 32*h}, a)
			}
			if prefetchAhead > 0 && pf < per*leafBytes {
				PREFETCHT0(Mem{Base: px, Disp: prefetchAhead*per*leafBytes + pf})
				pf += 64
			}
		}
	}
	for ; prefetchAhead > 0 && pf < per*leafBytes; pf += 64 {
		PREFETCHT0(Mem{Base: px, Disp: prefetchAhead*per*leafBytes + pf})
	}
	for l := range accs {
		sum := combineLanes(t, accs[l])
		if t.size == 8 {
			VMOVSD(sum, Mem{Base: pd, Index: k, Scale: 8, Disp: 8 * l})
		} else {
			VMOVSS(sum, Mem{Base: pd, Index: k, Scale: 4, Disp: 4 * l})
		}
	}
	ADDQ(U32(per*leafBytes), px)
	ADDQ(U8(per), k)
	JMP(LabelRef(name + "_loop"))
	Label(name + "_done")
	VZEROUPPER()
	Store(k, ReturnIndex(0))
	RET()
}

// combineLanes adds the eight lanes r0..r7 held in accs (one YMM of f32 or
// two of f64) as ((r0+r1)+(r2+r3))+((r4+r5)+(r6+r7)), each left operand
// Intel's src1, and returns the sum in the low lane of an XMM register.
func combineLanes(t floatType, accs []reg.VecVirtual) reg.VecVirtual {
	if t.size == 8 {
		// Per YMM (r0..r3): lane 0 of r + swap(r) is r0+r1, lane 2 is
		// r2+r3; adding the high half's lane 0 to the low one's gives
		// (r0+r1)+(r2+r3).
		half := func(r reg.VecVirtual) reg.VecVirtual {
			sw, pr := YMM(), YMM()
			VPERMILPD(U8(0b0101), r, sw)
			VADDPD(sw, r, pr)
			hi := XMM()
			VEXTRACTF128(U8(1), pr, hi)
			VADDSD(hi, pr.AsX(), hi)
			return hi
		}
		lo, hi := half(accs[0]), half(accs[1])
		VADDSD(hi, lo, lo)
		return lo
	}
	r := accs[0]
	sw, pr := YMM(), YMM()
	VPERMILPS(U8(0xb1), r, sw) // swap neighbours: lane 2j is r[2j] + r[2j+1]
	VADDPS(sw, r, pr)
	sw2, quad := YMM(), YMM()
	VPERMILPS(U8(0x4e), pr, sw2) // swap pairs: lane 0 is (r0+r1)+(r2+r3), lane 4 (r4+r5)+(r6+r7)
	VADDPS(sw2, pr, quad)
	hi := XMM()
	VEXTRACTF128(U8(1), quad, hi)
	VADDSS(hi, quad.AsX(), hi)
	return hi
}

// leafElems is the length of a full leaf.
const leafElems = 128

// prefetchAhead is how many iterations ahead sumLeaves prefetches (one
// PREFETCHT0 per cache line of the iteration, spread over its additions).
// Several leaves side by side read several lines 1 KiB apart at a time,
// which the hardware prefetchers follow badly from DRAM: 16M f64 summed by
// two threads took 7 ms without it against 4.3 ms leaf by leaf; with it
// 4.4 ms, while from L1 it stays twice as fast as leaf by leaf.
const prefetchAhead = 2

func sumLeaf(s isa, t floatType) {
	text(s)
	name := current.name + s.name
	n := Load(Param("x").Len(), GP64())
	p := Load(Param("x").Base(), GP64())
	i := GP64()
	XORQ(i, i)
	CMPQ(n, U8(8))
	JAE(LabelRef(name + "_go"))
	z := XMM()
	VXORPS(z, z, z)
	Store(z, ReturnIndex(0))
	Store(i, ReturnIndex(1))
	RET()

	Label(name + "_go")
	at := func(disp int) Mem { return Mem{Base: p, Index: i, Scale: uint8(t.size), Disp: disp} }
	// The accumulators: r0..r7 in one YMM (f32) or two (f64).
	accs := []reg.VecVirtual{YMM()}
	if t.size == 8 {
		accs = append(accs, YMM())
	}
	for k, a := range accs {
		VMOVUPS(Mem{Base: p, Disp: 32 * k}, a)
	}
	MOVQ(U32(8), i)
	rem := GP64()
	Label(name + "_loop")
	MOVQ(n, rem)
	SUBQ(i, rem)
	CMPQ(rem, U8(8))
	JB(LabelRef(name + "_combine"))
	for k, a := range accs {
		t.add(at(32*k), a, a) // r += x[i:i+8]
	}
	ADDQ(U8(8), i)
	JMP(LabelRef(name + "_loop"))

	Label(name + "_combine")
	sum := combineLanes(t, accs)
	Label(name + "_tail")
	CMPQ(i, n)
	JAE(LabelRef(name + "_done"))
	if t.size == 8 {
		VADDSD(at(0), sum, sum)
	} else {
		VADDSS(at(0), sum, sum)
	}
	INCQ(i)
	JMP(LabelRef(name + "_tail"))

	Label(name + "_done")
	VZEROUPPER()
	Store(sum.AsX(), ReturnIndex(0))
	Store(n, ReturnIndex(1))
	RET()
}
