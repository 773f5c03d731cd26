package main

import (
	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

// The complex dot's row update on planar rows: accR += ar·bR − ai·bI and
// accI += ar·bI + ai·bR, every product, difference and sum rounded in
// turn (NumPy's complex multiply, then the add; no FMA), so the vector
// lanes give the Go twin's bits.
func registerComplexMAC() {
	for _, t := range []struct {
		name, export, elem string
		size               int
	}{{"cmacF32", "CMulAddF32", "float32", 4}, {"cmacF64", "CMulAddF64", "float64", 8}} {
		add(t.name, "accR, accI, bR, bI []"+t.elem+", ar, ai "+t.elem, func(s isa) {
			mul, sub, addv := VMULPS, VSUBPS, VADDPS
			bcast := s.broadcastParam32
			if t.size == 8 {
				mul, sub, addv, bcast = VMULPD, VSUBPD, VADDPD, s.broadcastParam64
			}
			var vr, vi reg.VecVirtual
			loop{lanes: s.bytes / t.size, unroll: 2,
				setup: func() { vr, vi = bcast("ar"), bcast("ai") },
				body: func(in []reg.VecVirtual) []Op {
					re, p, im, q := s.vec(), s.vec(), s.vec(), s.vec()
					mul(in[2], vr, re)  // ar·bR
					mul(in[3], vi, p)   // ai·bI
					sub(p, re, re)      // ar·bR − ai·bI
					addv(re, in[0], re) // accR + that
					mul(in[3], vr, im)  // ar·bI
					mul(in[2], vi, q)   // ai·bR
					addv(q, im, im)     // ar·bI + ai·bR
					addv(im, in[1], im) // accI + that
					return []Op{re, im}
				}}.emit(s, inout("accR", t.size), inout("accI", t.size), in("bR", t.size), in("bI", t.size))
		}).wrap(t.export, "computes accR[i] += ar·bR[i] − ai·bI[i] and accI[i] += ar·bI[i] + ai·bR[i], each product, difference and sum rounded (NumPy's complex multiply, then the add).",
			"cmacGo(accR, accI, bR, bI, ar, ai)")
	}
}
