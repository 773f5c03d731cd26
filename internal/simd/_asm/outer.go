package main

import (
	"fmt"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

// registerOuter adds the outer-product kernels: a product with a single
// contracting step (vmap's per-example weight gradients g_i ⊗ h_i) is
// c[i, j] = fma(a[i], b[j], +0) — the GEMM's in-order definition for
// k = 1 — written straight into c's rows, each element stored once, with
// normal stores: streaming ones measured 2.5-7× slower for E10's 8 MiB of
// gradients on a Zen 5 (the output, reused run after run, stays in L3,
// which they bypass for a DRAM write of 9-27 GB/s) and no faster at 64
// MiB (BenchmarkOuter/nt at commit 9a9fcea, under load 3.6-6.9).
func registerOuter() {
	for _, t := range []floatType{f32, f64} {
		add("outer"+t.suffix, "dst, a, b []"+t.gotype+", ldc int", func(s isa) { outer(s, t) }).
			handWritten("Outer" + t.suffix)
	}
}

// outer emits, for every row i < len(a), dst[i*ldc+j] = a[i]·b[j] + (+0)
// as one fused multiply-add, for j < len(b) on AVX-512 (the last partial
// vector of each row under a mask, whose masked-off lanes are neither
// read nor written) and for the whole vectors of b on AVX2. It returns
// how many leading columns of every row it wrote: len(b), or its whole
// vectors on AVX2 (the Go twin does the rest).
func outer(s isa, t floatType) {
	text(s)
	name := current.name + s.name
	lanes := s.bytes / t.size
	bcast, fma, move := VBROADCASTSS, VFMADD231PS, VMOVUPS
	if t.size == 8 {
		bcast, fma, move = VBROADCASTSD, VFMADD231PD, VMOVUPD // a masked store's lanes are its elements
	}
	m := Load(Param("a").Len(), GP64())
	n := Load(Param("b").Len(), GP64())
	dp := Load(Param("dst").Base(), GP64())
	ap := Load(Param("a").Base(), GP64())
	bp := Load(Param("b").Base(), GP64())
	rowBytes := Load(Param("ldc"), GP64())
	SHLQ(U8(log2(t.size)), rowBytes)
	nv := GP64() // columns in whole vectors
	MOVQ(n, nv)
	ANDQ(U32(^uint32(lanes-1)), nv)
	var mask reg.Register
	if s.evex {
		// The mask of the last partial vector: its (n mod lanes) low lanes.
		r, one := GP64(), GP64()
		MOVQ(n, r)
		ANDQ(U32(lanes-1), r)
		MOVQ(U32(1), one)
		SHLXQ(r, one, one)
		DECQ(one)
		mask = K()
		if t.size == 4 {
			KMOVW(one.As32(), mask)
		} else {
			KMOVB(one.As32(), mask)
		}
	}
	i, j := GP64(), GP64()
	XORQ(i, i)
	TESTQ(nv, nv)
	if !s.evex {
		JZ(LabelRef(name + "_done")) // no whole vector: the twin does it all
	} else {
		// Rows shorter than a vector (E10's 128×10 gradients) take a
		// loop of their own: a row is then a broadcast, a masked FMA
		// and a masked store, where the general loop's column bookkeeping
		// cost it as much again.
		JNZ(LabelRef(name + "_row"))
		Label(name + "_short")
		CMPQ(i, m)
		JAE(LabelRef(name + "_done"))
		av, v := s.vec(), s.vec()
		bcast(Mem{Base: ap, Index: i, Scale: uint8(t.size)}, av)
		s.xor(v, v, v)
		fma(Mem{Base: bp}, av, mask, v)
		move(v, mask, Mem{Base: dp})
		ADDQ(rowBytes, dp)
		INCQ(i)
		JMP(LabelRef(name + "_short"))
	}
	Label(name + "_row")
	CMPQ(i, m)
	JAE(LabelRef(name + "_done"))
	av := s.vec()
	bcast(Mem{Base: ap, Index: i, Scale: uint8(t.size)}, av)
	XORQ(j, j)
	col := func(k int) Mem { return Mem{Base: bp, Index: j, Scale: uint8(t.size), Disp: k * s.bytes} }
	out := func(k int) Mem { return Mem{Base: dp, Index: j, Scale: uint8(t.size), Disp: k * s.bytes} }
	rem := GP64()
	const unroll = 4
	Label(name + "_u")
	MOVQ(nv, rem)
	SUBQ(j, rem)
	CMPQ(rem, U32(unroll*lanes))
	JB(LabelRef(name + "_1"))
	ds := make([]reg.VecVirtual, unroll)
	for k := range ds {
		ds[k] = s.vec()
		s.xor(ds[k], ds[k], ds[k]) // +0, the chain's start
		fma(col(k), av, ds[k])
	}
	for k, d := range ds {
		move(d, out(k))
	}
	ADDQ(U32(unroll*lanes), j)
	JMP(LabelRef(name + "_u"))
	Label(name + "_1")
	CMPQ(j, nv)
	JAE(LabelRef(name + "_tail"))
	d := s.vec()
	s.xor(d, d, d)
	fma(col(0), av, d)
	move(d, out(0))
	ADDQ(U32(lanes), j)
	JMP(LabelRef(name + "_1"))
	Label(name + "_tail")
	if s.evex {
		// Masked-off lanes are not read (no fault past b's end) and not
		// written; a mask of no lanes does nothing.
		v := s.vec()
		s.xor(v, v, v)
		fma(col(0), av, mask, v)
		move(v, mask, out(0))
	}
	ADDQ(rowBytes, dp)
	INCQ(i)
	JMP(LabelRef(name + "_row"))
	Label(name + "_done")
	VZEROUPPER()
	if s.evex {
		Store(n, ReturnIndex(0))
	} else {
		Store(nv, ReturnIndex(0))
	}
	RET()
}

func log2(n int) uint8 {
	switch n {
	case 4:
		return 2
	case 8:
		return 3
	}
	panic(fmt.Sprintf("log2 of %d", n))
}

// registerOuterFlat adds outerFlatF32 (AVX-512 only): the outer product
// of rows shorter than a vector stored with no gaps (ldc = n), written as
// the flat run of elements it is, in whole vectors. Element e of the run
// is a[e/n]·b[e%n]; the run repeats its pattern every period of
// lcm(n, 16) elements (rows = lcm/n rows of a). div and mod hold e/n and
// e%n for a period's elements: the kernel first lays b out as the period
// (pat[v] = VPERMPS(mod[v], b)), then writes vector v of period p as
// VPERMPS(div[v], a[p·rows:]) · pat[v] + (+0) — full stores, each
// element once. It does periods whole periods and returns the rows done.
func registerOuterFlat() {
	add("outerFlatF32", "dst, a, b, pat []float32, div, mod []int32, rows, periods int", func(s isa) {
		if !s.evex {
			return
		}
		text(s)
		name := current.name + s.name
		L := Load(Param("pat").Len(), GP64())
		n := Load(Param("b").Len(), GP64())
		dp := Load(Param("dst").Base(), GP64())
		ap := Load(Param("a").Base(), GP64())
		bp := Load(Param("b").Base(), GP64())
		pp := Load(Param("pat").Base(), GP64())
		dv := Load(Param("div").Base(), GP64())
		md := Load(Param("mod").Base(), GP64())
		rows := Load(Param("rows"), GP64())
		periods := Load(Param("periods"), GP64())
		// low is the mask of the low k lanes: reads under it stop at the
		// end of b, and of a's rows of a period.
		low := func(k reg.Register) reg.Register {
			one := GP64()
			MOVQ(U32(1), one)
			SHLXQ(k, one, one)
			DECQ(one)
			mask := K()
			KMOVW(one.As32(), mask)
			return mask
		}
		B := ZMM()
		VMOVUPS_Z(Mem{Base: bp}, low(n), B)
		rowMask := low(rows)
		SHLQ(U8(2), L) // bytes per period
		v := GP64()
		XORQ(v, v)
		Label(name + "_pat")
		CMPQ(v, L)
		JAE(LabelRef(name + "_body"))
		ix, x := ZMM(), ZMM()
		VMOVDQU32(Mem{Base: md, Index: v, Scale: 1}, ix)
		VPERMPS(B, ix, x)
		VMOVUPS(x, Mem{Base: pp, Index: v, Scale: 1})
		ADDQ(U32(64), v)
		JMP(LabelRef(name + "_pat"))
		Label(name + "_body")
		p := GP64()
		XORQ(p, p)
		Label(name + "_period")
		CMPQ(p, periods)
		JAE(LabelRef(name + "_done"))
		A := ZMM()
		VMOVUPS_Z(Mem{Base: ap}, rowMask, A)
		XORQ(v, v)
		Label(name + "_vec")
		CMPQ(v, L)
		JAE(LabelRef(name + "_next"))
		iy, av, d := ZMM(), ZMM(), ZMM()
		VMOVDQU32(Mem{Base: dv, Index: v, Scale: 1}, iy)
		VPERMPS(A, iy, av)
		VPXORD(d, d, d)
		VFMADD231PS(Mem{Base: pp, Index: v, Scale: 1}, av, d)
		VMOVUPS(d, Mem{Base: dp, Index: v, Scale: 1})
		ADDQ(U32(64), v)
		JMP(LabelRef(name + "_vec"))
		Label(name + "_next")
		ADDQ(L, dp)
		LEAQ(Mem{Base: ap, Index: rows, Scale: 4}, ap)
		INCQ(p)
		JMP(LabelRef(name + "_period"))
		Label(name + "_done")
		IMULQ(periods, rows)
		VZEROUPPER()
		Store(rows, ReturnIndex(0))
		RET()
	}).handWritten("OuterF32")
}
