package kernels

import (
	"math"
	"unsafe"

	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// A mapped region's body of f32 adds, subtracts, multiplies and divides
// over contiguous leaves and loop-invariant scalars also compiles to a
// mapVM program, which evaluates the whole body tile by tile — 64
// elements, four AVX-512 registers — instead of step by step over a block:
// each instruction loads a tile of its first operand (a leaf at the
// tile's offset, a tile-sized scratch slot, or a slot holding a scalar
// 64 times), combines it with a tile of its second and stores the tile,
// so the intermediates live in a few hundred bytes of L1 that store
// forwarding serves, and the leaves and the output are touched once per
// tile, in one streaming pass. E8's heat step,
// u + α·((roll(u, 1) + roll(u, −1)) − 2·u), is five instructions a tile.
//
// The instructions are the body's steps in order, with the operands in
// the order the steps' kernels pass them to the vector instruction (the
// first operand is the one whose NaN an x86 vector op returns when both
// are NaNs): the same IEEE operations on the same values, hence the same
// bits. The elements past the last whole tile run through the body's
// steps.

// mapVMOff turns the programs off (the tests compare both paths).
var mapVMOff bool

// mapVM op codes (mapvm_amd64.s).
const (
	vmCopy = iota
	vmAdd
	vmSub
	vmMul
	vmDiv
)

// mapVM is a region body's program. Its table (per worker) holds, in
// order, the leaves' pointers and the output's (nadv entries, advanced a
// tile at a time), the scratch slots of the body's registers, and the
// slots of its scalars.
type mapVM struct {
	prog   []uint32
	nadv   int
	nregs  int        // scratch slots
	consts []vmScalar // scalar slots, after the scratch ones
}

// vmScalar is a scalar slot's value: the first element of pinned register
// reg (filled by the body's once steps), negated when neg and not a NaN
// (as simdAffine negates an affine step's constants).
type vmScalar struct {
	reg int
	neg bool
}

const (
	vmTile    = 64 // elements per tile
	vmSlot    = vmTile * 4
	vmMaxRefs = 256
)

// compileMapVM compiles body b of a region with nleaf leaves (body buffer
// indices 0..nleaf-1, the output nleaf) to a mapVM program, or returns nil
// when the body has a step the program cannot run.
func compileMapVM(b *body, nleaf int, store unaryFn) *mapVM {
	if b == nil || store != nil || len(b.keep) > 0 || len(b.steps) == 0 {
		return nil
	}
	v := &mapVM{nadv: nleaf + 1}
	regSlot := map[int]int{} // a body register → its scratch slot number
	constSlot := map[vmScalar]int{}
	pinned := map[int]bool{}
	for i := range b.once {
		s := &b.once[i]
		if s.dst.kind != locReg || s.kind != stepGather || s.widens {
			return nil
		}
		pinned[s.dst.idx] = true
	}
	var scalars []vmScalar
	scalar := func(l loc, neg bool) (int, bool) {
		if l.kind != locReg || !pinned[l.idx] {
			return 0, false
		}
		k := vmScalar{reg: l.idx, neg: neg}
		if i, ok := constSlot[k]; ok {
			return -1 - i, true
		}
		constSlot[k] = len(scalars)
		scalars = append(scalars, k)
		return -1 - constSlot[k], true
	}
	// ref numbers operands: ≥ 0 the table's first entries or scratch
	// slots (resolved below), < 0 scalar slots.
	type ins struct{ op, d, a, b int }
	var code []ins
	ref := func(l loc) (int, bool) {
		switch l.kind {
		case locBuf:
			if l.size != 4 || l.idx > nleaf {
				return 0, false
			}
			return l.idx, true
		case locReg:
			if pinned[l.idx] {
				return scalar(l, false)
			}
			s, ok := regSlot[l.idx]
			if !ok {
				s = len(regSlot)
				regSlot[l.idx] = s
			}
			return v.nadv + s, true
		}
		return 0, false
	}
	opOf := map[trace.Op]int{trace.OpAdd: vmAdd, trace.OpSub: vmSub, trace.OpMul: vmMul, trace.OpDiv: vmDiv}
	for i := range b.steps {
		s := &b.steps[i]
		op, ok := opOf[s.op]
		if !ok || s.dt != tensor.F32 || s.round != nil || s.fused != fusedNone || s.wide || s.widens || s.check != nil {
			return nil
		}
		d, ok := ref(s.dst)
		if !ok || d < 0 {
			return nil
		}
		switch s.kind {
		case stepBinary:
			x, ok1 := ref(s.args[0])
			y, ok2 := ref(s.args[1])
			if !ok1 || !ok2 {
				return nil
			}
			code = append(code, ins{op, d, x, y})
		case stepScalar:
			x, ok1 := ref(s.args[0])
			c, ok2 := scalar(s.args[1], false)
			if !ok1 || !ok2 || x < 0 {
				return nil
			}
			if s.rev && (op == vmSub || op == vmDiv) {
				x, c = c, x // SubScalarRev, DivScalarRev: s − x, s / x
			}
			code = append(code, ins{op, d, x, c})
		case stepAffine:
			// x·a + b, a and b negated as simdAffine negates them.
			x, ok1 := ref(s.args[0])
			a, ok2 := scalar(s.args[1], s.neg[0])
			c, ok3 := scalar(s.args[2], s.neg[1])
			if !ok1 || !ok2 || !ok3 || x < 0 {
				return nil
			}
			code = append(code, ins{vmMul, d, x, a}, ins{vmAdd, d, d, c})
		default:
			return nil
		}
	}
	if out, ok := ref(b.out); !ok || out != nleaf {
		return nil // the result is not written to the output
	}
	v.nregs = len(regSlot)
	v.consts = scalars
	if v.nadv+v.nregs+len(scalars) > vmMaxRefs {
		return nil
	}
	fix := func(r int) uint32 {
		if r < 0 {
			return uint32(v.nadv + v.nregs + (-1 - r))
		}
		return uint32(r)
	}
	for _, c := range code {
		v.prog = append(v.prog, uint32(c.op)|fix(c.d)<<8|fix(c.a)<<16|fix(c.b)<<24)
	}
	return v
}

// run evaluates the region's elements [start, end) of the row whose leaf
// and output pointers are slots: whole tiles through the program, the
// rest through the body's steps. w is prepared for b.
func (v *mapVM) run(w *worker, b *body, slots []unsafe.Pointer, start, end int) {
	tiles := (end - start) / vmTile
	if tiles > 0 {
		n := v.nadv + v.nregs + len(v.consts)
		if cap(w.vmTab) < n {
			w.vmTab = make([]uintptr, n)
		}
		tab := w.vmTab[:n]
		mem := (v.nregs+len(v.consts))*vmSlot + regAlign
		if cap(w.vmMem) < mem {
			w.vmMem = make([]byte, mem)
		}
		base := unsafe.Pointer(unsafe.SliceData(w.vmMem))
		base = unsafe.Add(base, (regAlign-int(uintptr(base)%regAlign))%regAlign)
		for i := range v.nadv {
			tab[i] = uintptr(slots[i]) + uintptr(start*4)
		}
		for i := range v.nregs + len(v.consts) {
			tab[v.nadv+i] = uintptr(base) + uintptr(i*vmSlot)
		}
		for i, c := range v.consts {
			x := *(*float32)(w.regs[c.reg])
			if c.neg && x == x {
				x = -x
			}
			fill := unsafe.Slice((*uint32)(unsafe.Add(base, (v.nregs+i)*vmSlot)), vmTile)
			bits := math.Float32bits(x)
			for j := range fill {
				fill[j] = bits
			}
		}
		runMapVM(v.prog, tab, v.nadv, tiles)
	}
	for lo := start + tiles*vmTile; lo < end; lo += b.block {
		w.eval(b, slots, lo, min(b.block, end-lo))
	}
}
