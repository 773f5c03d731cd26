package main

import (
	"fmt"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

// isa is a target instruction set: AVX2 on 32-byte YMM registers, or
// AVX-512 on 64-byte ZMM registers with opmask registers for conditions.
type isa struct {
	name  string // function name suffix
	tier  string // the simd.Tier constant that runs it
	rank  int
	bytes int  // vector width in bytes
	evex  bool // AVX-512: ZMM registers, K masks
}

var (
	avx2   = isa{name: "AVX2", tier: "AVX2", rank: 1, bytes: 32}
	avx512 = isa{name: "AVX512", tier: "AVX512", rank: 2, bytes: 64, evex: true}
)

// vec allocates a full-width vector register.
func (s isa) vec() reg.VecVirtual {
	if s.evex {
		return ZMM()
	}
	return YMM()
}

// sized allocates a vector register holding n bytes (at least 16: the low
// part of an XMM register holds 4 or 8).
func sized(n int) reg.VecVirtual {
	switch {
	case n <= 16:
		return XMM()
	case n == 32:
		return YMM()
	case n == 64:
		return ZMM()
	}
	panic(fmt.Sprintf("no vector register of %d bytes", n))
}

// narrow views register v as one of n bytes.
func narrow(v reg.VecVirtual, n int) reg.Register {
	switch {
	case n <= 16:
		return v.AsX()
	case n == 32:
		return v.AsY()
	}
	return v.AsZ()
}

// loadN loads n bytes from m into a fresh register.
func loadN(m Mem, n int) reg.VecVirtual {
	v := sized(n)
	switch n {
	case 4:
		VMOVD(m, v)
	case 8:
		VMOVQ(m, v)
	default:
		VMOVUPS(m, v)
	}
	return v
}

// storeN stores the low n bytes of v (a vector or general register) at m.
func storeN(v Op, m Mem, n int) {
	if r, ok := v.(reg.GPVirtual); ok {
		switch n {
		case 4:
			MOVL(r.As32(), m)
		case 8:
			MOVQ(r, m)
		default:
			panic("general register store of more than 8 bytes")
		}
		return
	}
	switch n {
	case 4:
		VMOVD(v.(reg.VecVirtual).AsX(), m)
	case 8:
		VMOVQ(v.(reg.VecVirtual).AsX(), m)
	default:
		VMOVUPS(v, m)
	}
}

// stream is one slice parameter of a kernel.
type stream struct {
	param string
	size  int  // bytes per element
	in    bool // read by the kernel
	out   bool // written by the kernel
}

func in(param string, size int) stream  { return stream{param: param, size: size, in: true} }
func out(param string, size int) stream { return stream{param: param, size: size, out: true} }
func inout(param string, size int) stream {
	return stream{param: param, size: size, in: true, out: true}
}

// loop is a kernel's vector loop: it walks the streams lanes elements at a
// time, unroll steps per iteration while enough remain, then one step at a
// time, and returns the number of elements done. The element count is the
// length of the first stream. body maps one step's inputs (in stream order)
// to its outputs; it may call bailIfAny to stop the kernel before the
// iteration when a lane is outside its vector domain. An iteration loads
// all its steps, computes them, tests the bail conditions, and only then
// stores, so a kernel that stops has written nothing of that iteration.
//
// With nt, the output streams are written with non-temporal (streaming)
// stores, which need their addresses aligned to the vector width (the Go
// wrapper passes a 64-byte aligned dst), and the kernel ends with SFENCE so
// the streamed data is ordered before any later store.
type loop struct {
	lanes  int
	unroll int
	nt     bool
	// noFence leaves the streamed stores unfenced: the caller fences once
	// after many calls (simd.Fence).
	noFence bool
	setup   func()
	body    func(in []reg.VecVirtual) []Op
	// slow, if set, is a second body for the vectors body declines with
	// slowIfAny: body then computes only the common case (no blends for
	// special lanes) and slow the whole function, bailing as body would.
	// It needs unroll 1.
	slow func(in []reg.VecVirtual) []Op
	// hoist is how many constants to keep in registers (see hoister).
	hoist int
}

// A hoister keeps up to budget of the constants a loop body uses in
// registers, loaded once before the loop, instead of reading each from
// memory on every use: in the transcendentals, a dozen 64-byte constant
// reads per vector cost a third of the time. The loop emits the loads
// after its body (when the constants are known) in a block it jumps to
// before the loop and that jumps back; avo's liveness analysis follows the
// jumps.
type hoister struct {
	budget int
	names  []string
	mems   map[string]Mem
	regs   map[string]reg.VecVirtual
	vec    func() reg.VecVirtual
}

// hoist is the hoister of the loop being emitted, if it hoists.
var hoist *hoister

// constant returns m, or the register that holds it in the loop.
func (s isa) constant(m Mem) Op {
	h := hoist
	if h == nil {
		return m
	}
	name := m.Symbol.Name
	if r, ok := h.regs[name]; ok {
		return r
	}
	if len(h.names) == h.budget {
		return m
	}
	r := h.vec()
	h.names = append(h.names, name)
	h.mems[name], h.regs[name] = m, r
	return r
}

// pendingBail collects the bail conditions of the iteration being emitted,
// pendingSlow the conditions that send it to the loop's slow body.
var pendingBail, pendingSlow []reg.Register

// anyLane branches to label when c holds in some lane of any of conds.
func (s isa) anyLane(conds []reg.Register, label string) {
	c := conds[0]
	for _, d := range conds[1:] {
		c = s.orCond(c, d)
	}
	if s.evex {
		KORTESTW(c, c)
	} else {
		VPTEST(c, c)
	}
	JNZ(LabelRef(label))
}

func (l loop) emit(s isa, streams ...stream) {
	text(s)
	name := current.name + s.name
	n := Load(Param(streams[0].param).Len(), GP64())
	ptrs := make([]reg.GPVirtual, len(streams))
	for i, st := range streams {
		ptrs[i] = GP64()
		Load(Param(st.param).Base(), ptrs[i])
	}
	if l.setup != nil {
		l.setup()
	}
	i := GP64()
	XORQ(i, i)
	first := name + "_loop1"
	if l.unroll > 1 {
		first = name + "_loopU"
	}
	if l.hoist > 0 {
		hoist = &hoister{budget: l.hoist, mems: map[string]Mem{}, regs: map[string]reg.VecVirtual{}, vec: s.vec}
		defer func() { hoist = nil }()
		JMP(LabelRef(name + "_consts"))
	}
	rem := GP64()
	mem := func(j, k int) Mem {
		st := streams[j]
		return Mem{Base: ptrs[j], Index: i, Scale: uint8(st.size), Disp: k * l.lanes * st.size}
	}
	if l.slow != nil && l.unroll != 1 {
		panic(name + ": a slow body needs unroll 1")
	}
	// store writes step k's outputs.
	store := func(k int, outs []Op) {
		o := 0
		for j, st := range streams {
			if st.out {
				if l.nt {
					VMOVNTPS(outs[o], mem(j, k))
				} else {
					storeN(outs[o], mem(j, k), l.lanes*st.size)
				}
				o++
			}
		}
	}
	// bail stops the kernel if a pending bail condition holds.
	bail := func() {
		if len(pendingBail) > 0 {
			s.anyLane(pendingBail, name+"_done")
			pendingBail = nil
		}
	}
	// iteration emits steps 0..count−1 at i and returns the last step's
	// inputs.
	iteration := func(count int) []reg.VecVirtual {
		outs := make([][]Op, count)
		var ins []reg.VecVirtual
		for k := range count {
			ins = nil
			for j, st := range streams {
				if st.in {
					ins = append(ins, loadN(mem(j, k), l.lanes*st.size))
				}
			}
			outs[k] = l.body(ins)
		}
		bail()
		if len(pendingSlow) > 0 {
			if l.slow == nil {
				panic(name + ": slowIfAny without a slow body")
			}
			s.anyLane(pendingSlow, name+"_slow")
			pendingSlow = nil
		}
		for k := range count {
			store(k, outs[k])
		}
		return ins
	}
	if l.unroll > 1 {
		Label(name + "_loopU")
		MOVQ(n, rem)
		SUBQ(i, rem)
		CMPQ(rem, U32(l.unroll*l.lanes))
		JB(LabelRef(name + "_loop1"))
		iteration(l.unroll)
		ADDQ(U32(l.unroll*l.lanes), i)
		JMP(LabelRef(name + "_loopU"))
	}
	Label(name + "_loop1")
	MOVQ(n, rem)
	SUBQ(i, rem)
	CMPQ(rem, U32(l.lanes))
	JB(LabelRef(name + "_done"))
	ins := iteration(1)
	ADDQ(U32(l.lanes), i)
	JMP(LabelRef(name + "_loop1"))
	if l.slow != nil {
		// Reached from the loop with this iteration's inputs loaded.
		Label(name + "_slow")
		outs := l.slow(ins)
		bail()
		store(0, outs)
		ADDQ(U32(l.lanes), i)
		JMP(LabelRef(name + "_loop1"))
	}
	Label(name + "_done")
	if l.nt && !l.noFence {
		SFENCE()
	}
	VZEROUPPER()
	Store(i, ReturnIndex(0))
	RET()
	if hoist != nil {
		Label(name + "_consts")
		for _, n := range hoist.names {
			VMOVUPS(hoist.mems[n], hoist.regs[n])
		}
		JMP(LabelRef(first))
	}
}

// Constants live in read-only 64-byte blocks (one value repeated), so any
// vector width can use them as a memory operand.

var consts = map[string]Mem{}

func splat(name string, size int, bits uint64) Mem {
	if m, ok := consts[name]; ok {
		return m
	}
	m := GLOBL(name, RODATA|NOPTR)
	for off := 0; off < 64; off += size {
		switch size {
		case 1:
			DATA(off, U8(uint8(bits)))
		case 2:
			DATA(off, U16(uint16(bits)))
		case 4:
			DATA(off, U32(uint32(bits)))
		case 8:
			DATA(off, U64(bits))
		}
	}
	consts[name] = m
	return m
}

func c32(name string, bits uint32) Mem { return splat(name, 4, uint64(bits)) }
func c64(name string, bits uint64) Mem { return splat(name, 8, bits) }
func c16(name string, bits uint16) Mem { return splat(name, 2, uint64(bits)) }

// Bitwise logic on whole registers (AVX-512 needs the EVEX forms).

func (s isa) and(a, b, dst Op) {
	if s.evex {
		VPANDD(a, b, dst)
	} else {
		VPAND(a, b, dst)
	}
}

func (s isa) or(a, b, dst Op) {
	if s.evex {
		VPORD(a, b, dst)
	} else {
		VPOR(a, b, dst)
	}
}

func (s isa) xor(a, b, dst Op) {
	if s.evex {
		VPXORD(a, b, dst)
	} else {
		VPXOR(a, b, dst)
	}
}

// andNot computes dst = ^a & b.
func (s isa) andNot(a, b, dst Op) {
	if s.evex {
		VPANDND(b, a, dst)
	} else {
		VPANDN(b, a, dst)
	}
}

// A condition is a per-lane truth value: an opmask register on AVX-512, a
// vector of all-ones/all-zeros lanes on AVX2.

// cmpPS compares lanes of float32: cond = a <imm> b.
func (s isa) cmpPS(imm uint8, a, b Op) reg.Register {
	if s.evex {
		k := K()
		VCMPPS(U8(imm), b, a, k)
		return k
	}
	m := YMM()
	VCMPPS(U8(imm), b, a, m)
	return m
}

// cmpPD compares lanes of float64: cond = a <imm> b.
func (s isa) cmpPD(imm uint8, a, b Op) reg.Register {
	if s.evex {
		k := K()
		VCMPPD(U8(imm), b, a, k)
		return k
	}
	m := YMM()
	VCMPPD(U8(imm), b, a, m)
	return m
}

// gtD compares lanes of int32: cond = a > b.
func (s isa) gtD(a, b Op) reg.Register {
	if s.evex {
		k := K()
		VPCMPGTD(b, a, k)
		return k
	}
	m := YMM()
	VPCMPGTD(b, a, m)
	return m
}

// gtQ compares lanes of int64: cond = a > b.
func (s isa) gtQ(a, b Op) reg.Register {
	if s.evex {
		k := K()
		VPCMPGTQ(b, a, k)
		return k
	}
	m := YMM()
	VPCMPGTQ(b, a, m)
	return m
}

// blendPS sets dst = c ? t : f per float32 lane.
func (s isa) blendPS(c reg.Register, t, f, dst Op) {
	if s.evex {
		VBLENDMPS(t, f, c, dst)
	} else {
		VBLENDVPS(c, t, f, dst)
	}
}

// blendPD sets dst = c ? t : f per float64 lane.
func (s isa) blendPD(c reg.Register, t, f, dst Op) {
	if s.evex {
		VBLENDMPD(t, f, c, dst)
	} else {
		VBLENDVPD(c, t, f, dst)
	}
}

// orCond combines two conditions.
func (s isa) orCond(a, b reg.Register) reg.Register {
	if s.evex {
		k := K()
		KORW(a, b, k)
		return k
	}
	m := YMM()
	VPOR(a, b, m)
	return m
}

// bailIfAny stops the kernel before this iteration when c holds in any
// lane (see loop).
func (s isa) bailIfAny(c reg.Register) { pendingBail = append(pendingBail, c) }

// slowIfAny sends the iteration to the loop's slow body when c holds in
// any lane (see loop).
func (s isa) slowIfAny(c reg.Register) { pendingSlow = append(pendingSlow, c) }

// broadcastParam32 fills a vector with the float32 parameter p.
func (s isa) broadcastParam32(p string) reg.VecVirtual {
	x := Load(Param(p), XMM())
	v := s.vec()
	VBROADCASTSS(x, v)
	return v
}

// broadcastParam64 fills a vector with the float64 parameter p.
func (s isa) broadcastParam64(p string) reg.VecVirtual {
	x := Load(Param(p), XMM())
	v := s.vec()
	VBROADCASTSD(x, v)
	return v
}
