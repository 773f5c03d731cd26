package main

import (
	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

// Threefry-2x32, 20 rounds, of a block of counters under one key (the
// loop-invariant key of jax.random's bits). Each u64 lane holds the
// counter words x0 (high) and x1 (low); the rounds run on dword lanes, so
// the high dwords of the x1 register and the low dwords of the x0 register
// carry words that never mix into the ones kept (every step is per dword),
// and the result packs x0 high and x1 low again.

var threefryRotations = [2][4]uint64{{13, 15, 26, 6}, {17, 29, 16, 24}}

func registerPRNG() {
	add("threefryKey", "dst, x []uint64, k uint64", func(s isa) {
		var ks [3]reg.VecVirtual  // the key words k0, k1 and k2 = k0^k1^C
		var inj [5]reg.VecVirtual // ks[(g+2)%3] + g + 1, added to x1 after group g
		unroll := 4
		if !s.evex {
			unroll = 2 // 16 YMM registers: 8 hold the key schedule
		}
		loop{lanes: s.bytes / 8, unroll: unroll,
			setup: func() {
				k, hi := GP64(), GP64()
				Load(Param("k"), k)
				k0, k1, k2 := GP32(), GP32(), GP32()
				MOVQ(k, hi)
				SHRQ(U8(32), hi)
				MOVL(hi.As32(), k0)
				MOVL(k.As32(), k1)
				MOVL(k0, k2)
				XORL(k1, k2)
				XORL(U32(0x1BD11BDA), k2)
				words := [3]reg.GPVirtual{k0, k1, k2}
				for i, w := range words {
					ks[i] = broadcastDword(s, w)
				}
				for g := range 5 {
					t := GP32()
					MOVL(words[(g+2)%3], t)
					ADDL(U32(uint32(g+1)), t)
					inj[g] = broadcastDword(s, t)
				}
			},
			body: func(in []reg.VecVirtual) []Op {
				x0, x1, t := s.vec(), s.vec(), s.vec()
				VPSRLQ(U8(32), in[0], x0)
				VPADDD(ks[0], x0, x0)
				VPADDD(ks[1], in[0], x1)
				for g := range 5 {
					for _, r := range threefryRotations[g%2] {
						VPADDD(x1, x0, x0)
						if s.evex {
							VPROLD(U8(r), x1, x1)
						} else {
							VPSLLD(U8(r), x1, t)
							VPSRLD(U8(32-r), x1, x1)
							VPOR(t, x1, x1)
						}
						s.xor(x0, x1, x1)
					}
					VPADDD(ks[(g+1)%3], x0, x0)
					VPADDD(inj[g], x1, x1)
				}
				d := s.vec()
				VPSLLQ(U8(32), x0, x0)
				VPSLLQ(U8(32), x1, x1)
				VPSRLQ(U8(32), x1, x1)
				s.or(x0, x1, d)
				return []Op{d}
			}}.emit(s, out("dst", 8), in("x", 8))
	}).wrap("ThreefryKey", "computes dst[i] = Threefry-2x32 (20 rounds) of the counter words (x[i]>>32, x[i]) under the key words (k>>32, k), packed the same way.", "threefryKeyGo(dst, x, k)").
		fills("simdScalar", "scalarTable[trace.OpThreefry2x32][tensor.U64][1]")
}

// broadcastDword fills a vector with the 32-bit general register w.
func broadcastDword(s isa, w reg.GPVirtual) reg.VecVirtual {
	x := XMM()
	MOVD(w, x)
	v := s.vec()
	VPBROADCASTD(x, v)
	return v
}
