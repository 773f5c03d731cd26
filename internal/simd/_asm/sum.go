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
}

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
	var sum reg.VecVirtual
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
		sum = lo
	} else {
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
		sum = hi
	}
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
