package main

import (
	. "github.com/mmcloughlin/avo/build"
	"github.com/mmcloughlin/avo/ir"
	. "github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

// interleaveI8x4 packs four rows of int8 into a row of the int8 GEMM's
// b panels: four k values of column j side by side, one dword per column,
// the 32 columns of panel p at dst[p*stride:] (dst[p*stride + 4(j-32p)
// + t] = r_t[j]), and sums[j] += r0[j] + r1[j] + r2[j] + r3[j] (the
// column sums of package gemm's correction), for whole groups of 16 of
// the len(sums) columns; it returns how many columns it did, the Go twin
// does the rest. VEX-encoded (SSE-width registers), so one body serves
// both tiers: byte and word unpacks build the dwords, VPMADDUBSW by ones
// and VPMADDWD by ones sum their four signed bytes exactly (|Σ| ≤ 512).
func registerPack() {
	addR("interleaveI8x4", "dst []int8, sums []int32, r0, r1, r2, r3 []int8, stride int", "int", "0", func(s isa) {
		if s.evex {
			return // the AVX2 body serves the AVX-512 tier too
		}
		text(s)
		label := func(l string) string { return "interleaveI8x4" + s.name + "_" + l }
		n := Load(Param("sums").Len(), GP64())
		ANDQ(I32(-16), n)
		dst, sums := Load(Param("dst").Base(), GP64()), Load(Param("sums").Base(), GP64())
		rows := []reg.GPVirtual{GP64(), GP64(), GP64(), GP64()}
		for t, r := range rows {
			Load(Param("r"+string(rune('0'+t))).Base(), r)
		}
		stride := Load(Param("stride"), GP64())
		ones8, ones16 := XMM(), XMM()
		VPCMPEQB(ones8, ones8, ones8)
		VPSRLW(U8(15), ones8, ones16) // words of 1
		VPABSB(ones8, ones8)          // bytes of 1
		i := GP64()
		XORQ(i, i)
		Label(label("loop"))
		CMPQ(i, n)
		JGE(LabelRef(label("done")))
		// Byte then word unpacks give column j's dword x0[j] x1[j] x2[j]
		// x3[j], columns 0-3, 4-7, 8-11, 12-15 in turn.
		out := interleave4(loadRows(Mem{Base: rows[0], Index: i, Scale: 1}, Mem{Base: rows[1], Index: i, Scale: 1},
			Mem{Base: rows[2], Index: i, Scale: 1}, Mem{Base: rows[3], Index: i, Scale: 1}), byteWord)
		// Column i's group goes to dst + (i/32)·stride + (i%32)·4.
		d, q := GP64(), GP64()
		MOVQ(i, q)
		SHRQ(U8(5), q)
		IMULQ(stride, q)
		MOVQ(i, d)
		ANDQ(U8(31), d)
		LEAQ(Mem{Base: q, Index: d, Scale: 4}, d)
		ADDQ(dst, d)
		sp := GP64()
		LEAQ(Mem{Base: sums, Index: i, Scale: 4}, sp)
		for q, o := range out {
			VMOVDQU(o, Mem{Base: d, Disp: 16 * q})
			w := XMM()
			VPMADDUBSW(o, ones8, w) // u8 ones · s8 bytes, pairs summed into words
			VPMADDWD(ones16, w, w)  // word pairs summed into dwords
			VPADDD(Mem{Base: sp, Disp: 16 * q}, w, w)
			VMOVDQU(w, Mem{Base: sp, Disp: 16 * q})
		}
		ADDQ(U8(16), i)
		JMP(LabelRef(label("loop")))
		Label(label("done"))
		Store(n, ReturnIndex(0))
		RET()
	})
}

// transposeI8 packs rows of int8 into dword-interleaved panels, the int8
// GEMM's a panel (12 rows, offset by 128) and b panel of a transposed b
// (32 columns read as rows): dword l4 of row r (a[r*lda + 4·l4 + t]) to
// dst[(l4*rows + r)*4 + t], each byte XORed with the matching byte of
// flip, for rows = 4·quads and whole groups of four dwords of n4 per row;
// it returns how many dwords per row it did, the Go twin does the rest.
// Each quad of rows is a 4×4 dword transpose (DQ then QDQ unpacks) of 16
// bytes from each of its four rows.
func registerPackA() {
	addR("transposeI8", "dst []uint8, a []int8, lda, n4, quads int, flip uint32", "int", "0", func(s isa) {
		if s.evex {
			return // the AVX2 body serves the AVX-512 tier too
		}
		text(s)
		label := func(l string) string { return "transposeI8" + s.name + "_" + l }
		n := Load(Param("n4"), GP64())
		ANDQ(I32(-4), n)
		dst := Load(Param("dst").Base(), GP64())
		a := Load(Param("a").Base(), GP64())
		quads := Load(Param("quads"), GP64())
		L := Load(Param("lda"), GP64())
		L3 := GP64()
		LEAQ(Mem{Base: L, Index: L, Scale: 2}, L3)
		R := GP64() // bytes per dword step of the panel: rows·4 = quads·16
		MOVQ(quads, R)
		SHLQ(U8(4), R)
		R3 := GP64()
		LEAQ(Mem{Base: R, Index: R, Scale: 2}, R3)
		flip := broadcastParam32("flip")
		i := GP64()
		XORQ(i, i)
		Label(label("group"))
		CMPQ(i, n)
		JGE(LabelRef(label("done")))
		p, d, q := GP64(), GP64(), GP64()
		LEAQ(Mem{Base: a, Index: i, Scale: 4}, p) // row 0, dword i
		MOVQ(i, d)
		IMULQ(R, d)
		ADDQ(dst, d) // step i of the panel
		MOVQ(quads, q)
		Label(label("quad"))
		out := interleave4(loadRows(fourRows(p, L, L3)...), dwordQword)
		steps := []Mem{{Base: d}, {Base: d, Index: R, Scale: 1}, {Base: d, Index: R, Scale: 2}, {Base: d, Index: R3, Scale: 1}}
		for l, o := range out {
			VPXOR(flip, o, o)
			VMOVDQU(o, steps[l])
		}
		LEAQ(Mem{Base: p, Index: L, Scale: 4}, p)
		ADDQ(U8(16), d)
		DECQ(q)
		JNE(LabelRef(label("quad")))
		ADDQ(U8(4), i)
		JMP(LabelRef(label("group")))
		Label(label("done"))
		Store(n, ReturnIndex(0))
		RET()
	})
}

// sumPanelI8 adds the four signed bytes of every dword of kc4 steps of a
// 32-column int8 b panel (b[(l*32+j)*4+t]) into sums[j]: VPDPBUSD by a
// vector of ones, two accumulators, on the AVX-512 body, which package
// simd runs when the CPU has AVX512_VNNI; the AVX2 body (sumPanelI8AVX2)
// needs no VNNI.
func registerPanelSum() {
	addR("sumPanelI8", "kc4 int, b []int8, sums []int32", "", "", func(s isa) {
		if !s.evex {
			sumPanelI8AVX2(s) // int8avx2.go
			return
		}
		text(s)
		label := func(l string) string { return "sumPanelI8" + s.name + "_" + l }
		kc := Load(Param("kc4"), GP64())
		b := Load(Param("b").Base(), GP64())
		sums := Load(Param("sums").Base(), GP64())
		ones := ZMM()
		m := GP32()
		MOVL(U32(0x01010101), m)
		VPBROADCASTD(m, ones)
		acc := []reg.VecVirtual{ZMM(), ZMM()}
		for v, x := range acc {
			VMOVDQU32(Mem{Base: sums, Disp: 64 * v}, x)
		}
		TESTQ(kc, kc)
		JEQ(LabelRef(label("store")))
		Label(label("loop"))
		for v, x := range acc {
			// x += u8(ones)·s8(b) by dword; avo v0.5.0 has no VPDPBUSD.
			Instruction(&ir.Instruction{Opcode: "VPDPBUSD", Operands: []Op{Mem{Base: b, Disp: 64 * v}, ones, x},
				Inputs: []Op{Mem{Base: b, Disp: 64 * v}, ones, x}, Outputs: []Op{x}, ISA: []string{"AVX512_VNNI"}})
		}
		ADDQ(U32(128), b)
		DECQ(kc)
		JNE(LabelRef(label("loop")))
		Label(label("store"))
		for v, x := range acc {
			VMOVDQU32(x, Mem{Base: sums, Disp: 64 * v})
		}
		VZEROUPPER()
		RET()
	})
}

// interleaveI8x12 packs the int8 GEMM's a panel from an a stored
// transposed (each k a contiguous row of a's 12 rows' values): for
// steps l < n4, the 12 bytes at a[(4l+t)*lda:] (t < 4, the four k values
// of step l) become 12 dwords dst[(l*12+r)*4+t] = a[(4l+t)*lda+r], each
// byte XORed with the matching byte of flip. It reads 16 bytes of each
// row (the 4 past the panel are not stored): the caller guarantees
// them. Byte then word unpacks, as interleaveI8x4; one step per loop. It
// returns n4 (the Go twin does all at the Generic tier).
func registerPackAT() {
	addR("interleaveI8x12", "dst []uint8, a []int8, lda, n4 int, flip uint32", "int", "0", func(s isa) {
		if s.evex {
			return // the AVX2 body serves the AVX-512 tier too
		}
		text(s)
		label := func(l string) string { return "interleaveI8x12" + s.name + "_" + l }
		n := Load(Param("n4"), GP64())
		dst := Load(Param("dst").Base(), GP64())
		p := GP64()
		Load(Param("a").Base(), p)
		L := Load(Param("lda"), GP64())
		L3 := GP64()
		LEAQ(Mem{Base: L, Index: L, Scale: 2}, L3)
		flip := broadcastParam32("flip")
		cnt := GP64()
		MOVQ(n, cnt)
		TESTQ(cnt, cnt)
		JEQ(LabelRef(label("done")))
		Label(label("loop"))
		out := interleave4(loadRows(fourRows(p, L, L3)...), byteWord)
		for q, o := range out[:3] { // rows 0-3, 4-7, 8-11
			VPXOR(flip, o, o)
			VMOVDQU(o, Mem{Base: dst, Disp: 16 * q})
		}
		LEAQ(Mem{Base: p, Index: L, Scale: 4}, p)
		ADDQ(U8(48), dst)
		DECQ(cnt)
		JNE(LabelRef(label("loop")))
		Label(label("done"))
		Store(n, ReturnIndex(0))
		RET()
	})
}

// unpacks is a pair of unpack instructions (low halves, high halves).
type unpacks struct{ lo, hi func(ops ...Op) }

// The two levels of interleaving: bytes then words (four bytes of four
// rows into dwords), dwords then qwords (a 4×4 dword transpose).
var (
	byteWord   = [2]unpacks{{VPUNPCKLBW, VPUNPCKHBW}, {VPUNPCKLWD, VPUNPCKHWD}}
	dwordQword = [2]unpacks{{VPUNPCKLDQ, VPUNPCKHDQ}, {VPUNPCKLQDQ, VPUNPCKHQDQ}}
)

// interleave4 interleaves four registers x0…x3 in two levels: level 0
// pairs x0 with x1 and x2 with x3, level 1 pairs those results. It
// returns lo(lo01, lo23), hi(lo01, lo23), lo(hi01, hi23), hi(hi01, hi23).
func interleave4(x []reg.VecVirtual, u [2]unpacks) []reg.VecVirtual {
	lo01, hi01, lo23, hi23 := XMM(), XMM(), XMM(), XMM()
	u[0].lo(x[1], x[0], lo01)
	u[0].hi(x[1], x[0], hi01)
	u[0].lo(x[3], x[2], lo23)
	u[0].hi(x[3], x[2], hi23)
	out := []reg.VecVirtual{XMM(), XMM(), XMM(), XMM()}
	u[1].lo(lo23, lo01, out[0])
	u[1].hi(lo23, lo01, out[1])
	u[1].lo(hi23, hi01, out[2])
	u[1].hi(hi23, hi01, out[3])
	return out
}

// loadRows loads 16 bytes from each of the addresses.
func loadRows(rows ...Mem) []reg.VecVirtual {
	x := make([]reg.VecVirtual, len(rows))
	for t, m := range rows {
		x[t] = XMM()
		VMOVDQU(m, x[t])
	}
	return x
}

// fourRows addresses rows p, p+L, p+2L and p+3L (L3 = 3L).
func fourRows(p, L, L3 reg.Register) []Mem {
	return []Mem{{Base: p}, {Base: p, Index: L, Scale: 1}, {Base: p, Index: L, Scale: 2}, {Base: p, Index: L3, Scale: 1}}
}

// broadcastParam32 is the uint32 parameter name in every dword of an XMM
// register.
func broadcastParam32(name string) reg.VecVirtual {
	x := XMM()
	VMOVD(Load(Param(name), GP32()), x)
	VPBROADCASTD(x, x)
	return x
}

// widenF16Runs widens count runs of n binary16 values to float32, run l
// from src[l*ls:] to dst[l*ld:] (package gemm's packing of f16 operands:
// the rows or steps of a panel, strided in both source and panel). F16C's
// VCVTPH2PS takes eight values at a time, then four, then one, so it does
// every element and returns n. VEX-encoded, so the AVX2 body serves the
// AVX-512 tier too.
func registerWidenF16Runs() {
	addR("widenF16Runs", "dst []float32, src []uint16, n, count, ld, ls int", "int", "0", func(s isa) {
		if s.evex {
			return
		}
		text(s)
		label := func(l string) string { return "widenF16Runs" + s.name + "_" + l }
		n := Load(Param("n"), GP64())
		cnt := Load(Param("count"), GP64())
		dst := Load(Param("dst").Base(), GP64())
		src := Load(Param("src").Base(), GP64())
		ld := Load(Param("ld"), GP64())
		ls := Load(Param("ls"), GP64())
		SHLQ(U8(2), ld) // bytes
		SHLQ(U8(1), ls)
		TESTQ(n, n)
		JEQ(LabelRef(label("done")))
		TESTQ(cnt, cnt)
		JEQ(LabelRef(label("done")))
		Label(label("run"))
		r, t := GP64(), GP64()
		XORQ(r, r)
		// group widens the next w values of the run if that many are
		// left, else jumps to next; loop: again while they are.
		group := func(name, next string, w int, v reg.VecVirtual, loop bool) {
			Label(label(name))
			LEAQ(Mem{Base: r, Disp: w}, t)
			CMPQ(t, n)
			JGT(LabelRef(label(next)))
			VCVTPH2PS(Mem{Base: src, Index: r, Scale: 2}, v)
			VMOVUPS(v, Mem{Base: dst, Index: r, Scale: 4})
			MOVQ(t, r)
			if loop {
				JMP(LabelRef(label(name)))
			}
		}
		group("eight", "four", 8, YMM(), true)
		group("four", "one", 4, XMM(), false)
		Label(label("one"))
		CMPQ(r, n)
		JGE(LabelRef(label("next")))
		h, x1 := GP32(), XMM()
		MOVWLZX(Mem{Base: src, Index: r, Scale: 2}, h)
		VMOVD(h, x1)
		VCVTPH2PS(x1, x1)
		VMOVSS(x1, Mem{Base: dst, Index: r, Scale: 4})
		INCQ(r)
		JMP(LabelRef(label("one")))
		Label(label("next"))
		ADDQ(ld, dst)
		ADDQ(ls, src)
		DECQ(cnt)
		JNE(LabelRef(label("run")))
		Label(label("done"))
		VZEROUPPER()
		Store(n, ReturnIndex(0))
		RET()
	})
}
