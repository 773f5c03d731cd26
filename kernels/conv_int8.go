package kernels

import (
	"encoding/binary"
	"unsafe"

	"github.com/kiln-go/kiln/internal/gemm"
	"github.com/kiln-go/kiln/internal/simd"
	"github.com/kiln-go/kiln/lower"
	"github.com/kiln-go/kiln/tensor"
)

// Convolutions of byte operands on the int8 GEMM (internal/gemm's
// I8Call): a conv_general_dilated whose operands are int8 or uint8 — in
// place, or the sources of the converts a preferred_element_type
// (i8 × i8 → i32, u8 × i8 → i32, …) lowers to — with an integer result
// of at most 32 bits. Each block of im2col patch rows (bytes, as convRun
// builds them) is multiplied by the packed kernel on the GEMM into int32
// and stored as the result dtype, keeping the low bits. Integer products
// and sums wrap, so the exact sum's low bits are the contract's in any
// order; every operand value is exact in a byte of the GEMM's form:
//
//   - lhs int8 (or a sub-byte integer stored one a byte, storedAs) is the
//     GEMM's signed a, uint8 its unsigned a (I8Call.AUnsigned);
//   - rhs int8 (or sub-byte) is the GEMM's b; a uint8 rhs is packed as
//     w − 128 (its bits with the top one flipped) and each output
//     element gets 128 · Σ of its patch row back (convI8Job's rowsum),
//     except for an 8-bit result, whose low 8 bits are those of the
//     product with the rhs's bytes read as int8 (w ≡ w − 256).
//
// Where the active tier has no VNNI kernel the operands are widened and
// run on the f32 or f64 GEMM instead, whose sums are then exact
// (convI8Float). 64-bit results (whose sums can pass 2³¹) and float
// results keep the plain paths.

// convByteOperands returns the byte arrays conv's operands are read from
// on the int8 GEMM, whether the lhs is uint8, and whether the rhs is
// uint8 needing the correction; l is nil if the conv does not run there.
func (x *cpuExec) convByteOperands(dot *lower.Fusion, root *lower.Instr) (l, r *lower.Instr, aUnsigned, bFlip bool) {
	switch root.DType {
	case tensor.I8, tensor.U8, tensor.I16, tensor.U16, tensor.I32, tensor.U32:
	default:
		return nil, nil, false, false
	}
	lhs, rhs := root.Args[0], root.Args[1]
	if l = x.byteOperand(dot, lhs, tensor.I8); l == nil {
		if l = x.byteOperand(dot, lhs, tensor.U8); l == nil {
			return nil, nil, false, false
		}
		aUnsigned = true
	}
	if r = x.byteOperand(dot, rhs, tensor.I8); r == nil {
		if r = x.byteOperand(dot, rhs, tensor.U8); r == nil {
			return nil, nil, false, false
		}
		bFlip = root.DType.Size() > 1
	}
	return l, r, aUnsigned, bFlip
}

// convI8Job is one Run of a convolution on the int8 GEMM over work units
// (batch element, block of output positions), as convJob's.
type convI8Job struct {
	k      *convKernel
	lhs, w []int8
	out    unsafe.Pointer // the result, k.dtype
	blocks int
	epi    *epilogueRun // run on each block of positions, or nil
	calls  []gemm.I8Call
}

// convRunI8 computes the convolution of byte operands lp and rp into out
// (the output, or an epilogue's product) on the int8 GEMM.
func convRunI8(k *convKernel, x *cpuExec, rs *runState, out, lp, rp unsafe.Pointer, epi *epilogueRun) {
	j := slotJob[convI8Job](rs, k.slotA)
	j.k, j.out, j.epi = k, out, nil
	if epi != nil && k.epi.perBlock {
		j.epi = epi
	}
	j.lhs = view[int8](lp, k.lhsN)
	if k.relayout != nil {
		dst := view[int8](unsafe.Pointer(unsafe.SliceData(rs.slotBytes(k.slotR, 0, k.lhsN+16))), k.lhsN)
		convRelayoutCopy(k, dst, j.lhs)
		j.lhs = dst
	}
	rhs := view[int8](rp, k.rhsN)
	// Pack the kernel: W[g][kk][o], a uint8 rhs as w − 128.
	wN := k.g * k.kk * k.og
	j.w = view[int8](unsafe.Pointer(unsafe.SliceData(rs.slotBytes(k.slotB, 0, wN+16))), wN)
	var flip int8
	if k.bFlip {
		flip = -128
	}
	nk := k.kk / max(k.cin, 1)
	for g := range k.g {
		for kp := range nk {
			roff := 0
			for i := range k.ns {
				roff += k.kpos[kp*k.ns+i] * k.rsS[i]
			}
			for c := range k.cin {
				dst := j.w[(g*k.kk+kp*k.cin+c)*k.og:][:k.og]
				src := roff + c*k.rsI + g*k.og*k.rsO
				for o := range dst {
					dst[o] = rhs[src+o*k.rsO] ^ flip
				}
			}
		}
	}
	// One GEMM call per worker, kept here: a call on the stack would
	// escape (the GEMM reads its operands through an interface).
	if n := max(len(rs.workers), x.cpu.workers()); len(j.calls) < n {
		j.calls = make([]gemm.I8Call, n)
	}
	j.blocks = (k.npos + k.rows - 1) / k.rows
	work := k.nb * k.npos * max(k.kk, 1) * k.og * k.g
	x.parallel(rs, k.nb*j.blocks, work, j)
	j.lhs, j.w, j.out, j.epi = nil, nil, nil, nil // hold no caller's array
	for i := range j.calls {
		j.calls[i] = gemm.I8Call{}
	}
}

func (j *convI8Job) runRange(rs *runState, wk *worker, lo, hi int) {
	k := j.k
	call := &j.calls[0]
	for i, w := range rs.workers {
		if w == wk {
			call = &j.calls[i]
		}
	}
	pN, cN := (k.rows*k.kk+7)&^7, k.rows*k.og
	mem := wk.temp(pN + 4*cN + 8*k.ns + 16)
	patch := view[int8](mem, pN)
	acc := view[int32](unsafe.Add(mem, pN), cN)
	y := view[int](unsafe.Add(mem, pN+4*((cN+1)&^1)), k.ns)
	if j.epi != nil {
		j.epi.e.prepare(wk, j.epi.srcs)
	}
	size := k.dtype.Size()
	var out32 []int32
	if size == 4 {
		out32 = view[int32](j.out, k.outN)
	}
	for u := lo; u < hi; u++ {
		b, r0 := u/j.blocks, u%j.blocks*k.rows
		r1 := min(r0+k.rows, k.npos)
		m := r1 - r0
		for g := range k.g {
			convIm2col(k, patch, j.lhs, b, g, r0, r1, y)
			*call = gemm.I8Call{Batch: 1, M: m, N: k.og, K: k.kk, AUnsigned: k.aUnsigned,
				A: patch[:m*k.kk], RowA: k.kk, ColA: 1, B: j.w[g*k.kk*k.og : (g+1)*k.kk*k.og], RowB: k.og, ColB: 1}
			if k.ldc > 0 && size == 4 { // the output's rows are the product's: write in place
				off := b*k.osB + r0*k.ldc + g*k.og
				call.C, call.LDC = out32[off:], k.ldc
				call.Run()
				if k.bFlip {
					convUnflip(call.C, patch, m, k.kk, k.og, k.ldc, k.aUnsigned)
				}
				continue
			}
			call.C, call.LDC = acc[:m*k.og], k.og
			call.Run()
			if k.bFlip {
				convUnflip(call.C, patch, m, k.kk, k.og, k.og, k.aUnsigned)
			}
			for r := r0; r < r1; r++ {
				off, step := b*k.osB+r*k.ldc+g*k.og, 1
				if k.ldc == 0 {
					off, step = k.outOffset(b, g, r, y), k.osC
				}
				storeI32(j.out, size, off, step, acc[(r-r0)*k.og:(r-r0+1)*k.og])
			}
		}
		if j.epi != nil { // positions [r0, r1) are one run of the output (ldc > 0)
			j.epi.e.finished(wk, j.epi.srcs, b*k.osB+r0*k.ldc, m*k.ldc)
		}
	}
	*call = gemm.I8Call{} // hold no caller's array
}

// storeI32 stores src's int32 values as size-byte integers (their low
// bits) into out's elements off, off+step, ….
func storeI32(out unsafe.Pointer, size, off, step int, src []int32) {
	switch size {
	case 1:
		p := unsafe.Add(out, off)
		for o, v := range src {
			*(*int8)(unsafe.Add(p, o*step)) = int8(v)
		}
	case 2:
		p := unsafe.Add(out, 2*off)
		for o, v := range src {
			*(*int16)(unsafe.Add(p, 2*o*step)) = int16(v)
		}
	default:
		p := unsafe.Add(out, 4*off)
		for o, v := range src {
			*(*int32)(unsafe.Add(p, 4*o*step)) = v
		}
	}
}

// convUnflip adds 128 · Σ patch row i to row i's og sums in c (row
// stride ldc): the product with the rhs packed as w − 128 is then the
// product with w. Patch bytes are int8, or uint8 with unsigned.
func convUnflip(c []int32, patch []int8, m, kk, og, ldc int, unsigned bool) {
	for i := range m {
		s := int32(rowSumBytes(patch[i*kk:(i+1)*kk], unsigned)) * 128
		row := c[i*ldc : i*ldc+og]
		for o := range row {
			row[o] += s
		}
	}
}

// rowSumBytes is the sum of row's bytes read as int8, or as uint8 with
// unsigned: eight at a time in a word, as uint8 values (signed ones
// offset by 128, taken off at the end) added into four 16-bit lanes,
// each of which gains at most 2·255 a word, so 128 words fit.
func rowSumBytes(row []int8, unsigned bool) int {
	const lo = 0x00ff00ff00ff00ff
	var flip uint64 = 0x8080808080808080
	if unsigned {
		flip = 0
	}
	b := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(row))), len(row))
	s, i := 0, 0
	for i+8 <= len(b) {
		var acc uint64
		end := min(len(b), i+8*128)
		for ; i+8 <= end; i += 8 {
			w := binary.LittleEndian.Uint64(b[i:]) ^ flip
			acc += w&lo + w>>8&lo
		}
		acc = acc&0x0000ffff0000ffff + acc>>16&0x0000ffff0000ffff
		s += int(acc&0xffffffff + acc>>32)
	}
	if !unsigned {
		s -= 128 * i
	}
	for ; i < len(b); i++ {
		if unsigned {
			s += int(b[i])
		} else {
			s += int(int8(b[i]))
		}
	}
	return s
}

// convI8Float is the float GEMM a byte convolution runs on where the
// active tier has no VNNI kernel (simd.GemmI8 not fast; its Go twin is
// slower than any other path): F32 when every partial sum of a
// contraction is an integer of magnitude at most 2²⁴ — K · max|a| ·
// max|w| ≤ 2²⁴ — so each fused multiply-add is exact in any order, F64
// otherwise (exact up to 2⁵³). The exact sum is stored as the result
// dtype, keeping its low bits: the wrapping sum's. Zero where the VNNI
// kernel runs.
func convI8Float(k *convKernel) tensor.DType {
	if _, fast := simd.GemmI8(); fast {
		return 0
	}
	ma, mb := 128, 128
	if k.aUnsigned {
		ma = 255
	}
	if k.bFlip {
		mb = 255
	}
	if k.kk*ma*mb <= 1<<24 {
		return tensor.F32
	}
	return tensor.F64
}

// computeSize is the bytes of one element of k's patches and products.
func (k *convKernel) computeSize() int {
	if k.i8Float != 0 {
		return k.i8Float.Size()
	}
	return computeDType(k.dtype).Size()
}

// convRunI8Float computes a byte convolution on the float GEMM
// (convI8Float): the operands widened (the lhs as uint8 with aUnsigned,
// the rhs with bFlip), convRun into a float copy of the output, stored as
// the result dtype.
func convRunI8Float(k *convKernel, x *cpuExec, rs *runState, out, lp, rp unsafe.Pointer) {
	size := k.i8Float.Size()
	a := unsafe.Pointer(unsafe.SliceData(rs.slotBytes(k.slotA, 0, k.lhsN*size+16)))
	b := unsafe.Pointer(unsafe.SliceData(rs.slotBytes(k.slotA, 1, k.rhsN*size+16)))
	c := unsafe.Pointer(unsafe.SliceData(rs.slotBytes(k.slotB, 1, k.outN*size+16)))
	if k.i8Float == tensor.F32 {
		widenBytes[float32](a, lp, k.lhsN, k.aUnsigned)
		widenBytes[float32](b, rp, k.rhsN, k.bFlip)
		convRun(k, x, rs, c, a, b, nil, gemmMatMul[float32])
		storeExact[float32](out, c, k.outN, k.dtype.Size())
		return
	}
	widenBytes[float64](a, lp, k.lhsN, k.aUnsigned)
	widenBytes[float64](b, rp, k.rhsN, k.bFlip)
	convRun(k, x, rs, c, a, b, nil, gemmMatMul[float64])
	storeExact[float64](out, c, k.outN, k.dtype.Size())
}

// widenBytes writes n bytes at src, read as int8 or (unsigned) uint8, to
// dst as floats.
func widenBytes[F float32 | float64](dst, src unsafe.Pointer, n int, unsigned bool) {
	out, in := view[F](dst, n), view[int8](src, n)
	if unsigned {
		for i, v := range in {
			out[i] = F(uint8(v))
		}
		return
	}
	for i, v := range in {
		out[i] = F(v)
	}
}

// storeExact stores n integral floats at src into dst as size-byte
// integers, keeping their low bits.
func storeExact[F float32 | float64](dst, src unsafe.Pointer, n, size int) {
	in := view[F](src, n)
	switch size {
	case 1:
		out := view[int8](dst, n)
		for i, v := range in {
			out[i] = int8(int64(v))
		}
	case 2:
		out := view[int16](dst, n)
		for i, v := range in {
			out[i] = int16(int64(v))
		}
	default:
		out := view[int32](dst, n)
		for i, v := range in {
			out[i] = int32(int64(v))
		}
	}
}
