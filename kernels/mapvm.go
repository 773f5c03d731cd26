package kernels

import (
	"math"
	"unsafe"

	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// A mapped region's body of f32 adds, subtracts, multiplies and divides
// over contiguous leaves and loop-invariant scalars also compiles to a
// mapVM program, which evaluates the whole body tile by tile — 256
// elements, held in sixteen AVX-512 registers (the accumulator) — instead
// of step by step over a block. An op combines the accumulator with a
// tile read from memory (a leaf at the tile's offset, a scratch slot, or
// a slot holding a scalar 256 times), so a value stays in the registers
// from the op computing it to the op reading it next and goes to a
// 1 KiB scratch slot (in L1) only when a later op reads it again: E8's
// heat step, u + α·((roll(u, 1) + roll(u, −1)) − 2·u), is per tile
// load l; add r; store t; load u; mul 2; t − acc; mul α; u + acc; store
// out, one pass over u and the output. On one worker over 2^20 elements
// (BenchmarkMapVM, two runs at a load of 3-5 on 2 cores) the step took
// 1.4-2.1× the time of one SIMD add of two views of u (a single pass),
// against 2.3-4.5× as the body's five step kernels over 1,024-element
// blocks.
//
// The ops are the body's steps in order, with the operands in the order
// the steps' kernels pass them to the vector instruction (the first
// operand is the one whose NaN an x86 vector op returns when both are
// NaNs): the same IEEE operations on the same values, hence the same
// bits. The elements past the last whole tile run through the body's
// steps.

// mapVMOff turns the programs off (the tests compare both paths).
var mapVMOff bool

// The binary ops of a vmIns, and the accumulator code's op codes
// (mapvm_amd64.s): load a tile into the accumulator, store it, combine
// the accumulator with a tile (vmOp + op: the accumulator first) or a
// tile with the accumulator (vmRev + op: the tile first).
const (
	vmAdd = iota
	vmSub
	vmMul
	vmDiv

	vmLoad  = 0
	vmStore = 1
	vmOp    = 2
	vmRev   = 6
)

// vmIns is a binary op d = a op b over table entries.
type vmIns struct{ op, d, a, b int }

// accumulate translates straight-line code into accumulator code: a
// value stays in the registers from the op computing it to the op reading
// it next, and goes to its slot only when a later op reads it again (or,
// for the output, at the end). It returns nil unless the code's last op
// writes the output, table entry out.
func accumulate(code []vmIns, out int) []uint32 {
	if len(code) == 0 || code[len(code)-1].d != out {
		return nil
	}
	var prog []uint32
	emit := func(op, ref int) { prog = append(prog, uint32(op)|uint32(ref)<<8) }
	// needed reports whether entry r is read at or after op j before an
	// op writes it.
	needed := func(r, j int) bool {
		for _, c := range code[j:] {
			if c.a == r || c.b == r {
				return true
			}
			if c.d == r {
				return false
			}
		}
		return false
	}
	acc, dirty := -1, false // the entry whose value the accumulator holds; not yet stored
	for j, c := range code {
		switch {
		case c.a == acc && c.b == acc:
			if dirty {
				emit(vmStore, acc)
			}
			emit(vmOp+c.op, c.b)
		case c.a == acc || c.b == acc:
			if dirty && c.d != acc && needed(acc, j+1) {
				emit(vmStore, acc)
			}
			if c.a == acc {
				emit(vmOp+c.op, c.b)
			} else {
				emit(vmRev+c.op, c.a)
			}
		default:
			if dirty && (acc == out || needed(acc, j)) {
				emit(vmStore, acc)
			}
			emit(vmLoad, c.a)
			emit(vmOp+c.op, c.b)
		}
		acc, dirty = c.d, true
	}
	emit(vmStore, out)
	return prog
}

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
	vmTile    = 256 // elements per tile: Z0-Z15 (mapvm_amd64.s)
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
	var code []vmIns
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
			code = append(code, vmIns{op, d, x, y})
		case stepScalar:
			x, ok1 := ref(s.args[0])
			c, ok2 := scalar(s.args[1], false)
			if !ok1 || !ok2 || x < 0 {
				return nil
			}
			if s.rev && (op == vmSub || op == vmDiv) {
				x, c = c, x // SubScalarRev, DivScalarRev: s − x, s / x
			}
			code = append(code, vmIns{op, d, x, c})
		case stepAffine:
			// x·a + b, a and b negated as simdAffine negates them.
			x, ok1 := ref(s.args[0])
			a, ok2 := scalar(s.args[1], s.neg[0])
			c, ok3 := scalar(s.args[2], s.neg[1])
			if !ok1 || !ok2 || !ok3 || x < 0 {
				return nil
			}
			code = append(code, vmIns{vmMul, d, x, a}, vmIns{vmAdd, d, d, c})
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
	fix := func(r int) int {
		if r < 0 {
			return v.nadv + v.nregs + (-1 - r)
		}
		return r
	}
	for i := range code {
		code[i].d, code[i].a, code[i].b = fix(code[i].d), fix(code[i].a), fix(code[i].b)
	}
	v.prog = accumulate(code, nleaf)
	if v.prog == nil {
		return nil
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
