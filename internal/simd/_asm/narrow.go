package main

import (
	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

// registerUnpackNarrow registers the unpacking of narrow operands into
// the int8 and bf16 GEMMs' packing (package gemm's I4Call and FP8Call).
func registerUnpackNarrow() {
	// unpackU4 and unpackI4 widen bytes of two 4-bit values (the low
	// nibble first) to two bytes each: byte i of src to dst[2i] (its low
	// nibble) and dst[2i+1] (its high one). A byte widened to the word
	// w = 0x00hl gives (w | w<<4) & 0x0f0f = 0x0h0l, both values in
	// place; a signed value v then is (v ^ 8) − 8 in each byte.
	for _, signed := range []bool{false, true} {
		name, export, twin := "unpackU4", "UnpackU4", "unpackU4Go"
		doc := "sets dst[2i] and dst[2i+1] to the low and high nibbles of src[i], as unsigned 4-bit values (dst holds 2·len(src) bytes)."
		if signed {
			name, export, twin = "unpackI4", "UnpackI4", "unpackI4Go"
			doc = "sets dst[2i] and dst[2i+1] to the low and high nibbles of src[i], as two's-complement 4-bit values (dst holds 2·len(src) bytes)."
		}
		add(name, "dst []int8, src []uint8", func(s isa) {
			loop{lanes: s.bytes / 2, unroll: 4, body: func(in []reg.VecVirtual) []Op {
				d, t := s.vec(), s.vec()
				VPMOVZXBW(in[0], d)
				VPSLLW(U8(4), d, t)
				s.or(d, t, d)
				s.and(c16("nib0f", 0x0f0f), d, d)
				if signed {
					eight := c16("nib08", 0x0808)
					s.xor(eight, d, d)
					VPSUBB(eight, d, d)
				}
				return []Op{d}
			}}.emit(s, in("src", 1), out("dst", 2))
		}).wrapBody(export, doc, "dst = dst[:2*len(src)]\n\tn := "+name+"Accel(dst, src)\n\t"+twin+"(dst[2*n:], src[n:])")
	}

	// lookupU16 maps bytes through a 256-entry table of 16-bit values:
	// on AVX-512 the table's eight ZMM registers stay loaded, each vector
	// of 32 codes (widened to words) goes through VPERMI2W once per
	// quarter of the table (the index's low 6 bits), and its bits 6 and 7
	// choose among the four.
	add("lookupU16", "dst []uint16, src []uint8, tab *[256]uint16", func(s isa) {
		if !s.evex {
			return
		}
		var t [8]reg.VecVirtual
		loop{lanes: s.bytes / 2, unroll: 2, setup: func() {
			p := Load(Param("tab"), GP64())
			for i := range t {
				t[i] = s.vec()
				VMOVDQU64(Mem{Base: p, Disp: 64 * i}, t[i])
			}
		}, body: func(in []reg.VecVirtual) []Op {
			idx := s.vec()
			VPMOVZXBW(in[0], idx)
			var q [4]reg.VecVirtual
			for i := range q {
				q[i] = s.vec()
				VMOVDQA64(idx, q[i])
				VPERMI2W(t[2*i+1], t[2*i], q[i])
			}
			k6, k7 := K(), K()
			VPTESTMW(c16("bit6w", 0x40), idx, k6)
			VPTESTMW(c16("bit7w", 0x80), idx, k7)
			lo, hi, d := s.vec(), s.vec(), s.vec()
			VPBLENDMW(q[1], q[0], k6, lo)
			VPBLENDMW(q[3], q[2], k6, hi)
			VPBLENDMW(hi, lo, k7, d)
			return []Op{d}
		}}.emit(s, out("dst", 2), in("src", 1))
	}).wrapBody("LookupU16", "sets dst[i] = tab[src[i]] for i < len(dst) (src holds at least len(dst) bytes): the bf16 GEMM's unpacking of 8-bit float codes to their bf16 bits.",
		"src = src[:len(dst)]\n\tn := lookupU16Accel(dst, src, tab)\n\tlookupU16Go(dst[n:], src[n:], tab)")
}
