package kernels

import (
	"unsafe"

	"github.com/kiln-go/kiln/internal/gemm"
)

// convBF16Job is a bf16 convolution (bf16 operands, a bf16 result or an
// f32 one by preferred_element_type) over work units (batch element,
// block of output positions), as convJob: each unit builds its patch
// block P[r][kk] as bf16 bits (the input as stored; zeros for padding and
// dilation holes) and multiplies it by the packed kernel W[g][kk][o] on
// gemm.BF16Call, so every output element follows dot_general's bf16 rule
// over the convolution's K order (kernel positions row-major, then the
// group's input features): k in pairs from +0, the odd product first,
// DAZ/FTZ, in f32 — on VDPBF16PS, the f32 kernels under DAZ/FTZ or the
// Go twin, the same bits on every tier. The f32 accumulators go to the
// output (an f32 result) or to an f32 copy narrowed once at the end.
type convBF16Job struct {
	k      *convKernel
	lhs, w []uint16
	out    []float32
	blocks int
	epi    *epilogueRun // run on each block of positions, or nil
}

// convRunBF16 computes the bf16 convolution into out (the output, or an
// epilogue's product).
func convRunBF16(k *convKernel, x *cpuExec, rs *runState, out, lp, rp unsafe.Pointer, epi *epilogueRun) {
	j := slotJob[convBF16Job](rs, k.slotA)
	j.k, j.epi = k, nil
	if epi != nil && k.epi.perBlock {
		j.epi = epi
	}
	j.lhs = view[uint16](lp, k.lhsN)
	if k.relayout != nil {
		dst := view[uint16](unsafe.Pointer(unsafe.SliceData(rs.slotBytes(k.slotR, 0, k.lhsN*2+16))), k.lhsN)
		convRelayoutCopy(k, dst, j.lhs)
		j.lhs = dst
	}
	wN := k.g * k.kk * k.og
	j.w = view[uint16](unsafe.Pointer(unsafe.SliceData(rs.slotBytes(k.slotB, 0, wN*2+16))), wN)
	convPackKernel(k, j.w, view[uint16](rp, k.rhsN))
	narrow := narrowFn(k.dtype) // bf16; nil for an f32 result
	if narrow != nil {
		j.out = view[float32](unsafe.Pointer(unsafe.SliceData(rs.slotBytes(k.slotB, 1, k.outN*4+16))), k.outN)
	} else {
		j.out = view[float32](out, k.outN)
	}
	j.blocks = (k.npos + k.rows - 1) / k.rows
	work := k.nb * k.npos * max(k.kk, 1) * k.og * k.g
	x.parallel(rs, k.nb*j.blocks, work, j)
	if narrow != nil {
		narrow(out, unsafe.Pointer(unsafe.SliceData(j.out)), k.outN)
	}
	j.lhs, j.w, j.out, j.epi = nil, nil, nil, nil // hold no caller's array
}

func (j *convBF16Job) runRange(_ *runState, wk *worker, lo, hi int) {
	k := j.k
	pN, cN := k.rows*k.kk, k.rows*k.og
	// The worker's temp holds the accumulator (f32), the patch (bf16) and
	// the position scratch, each 8-byte aligned.
	pOff := (cN*4 + 7) &^ 7
	yOff := pOff + (pN*2+7)&^7
	base := wk.temp(yOff + k.ns*8 + 16)
	acc := view[float32](base, cN)
	patch := view[uint16](unsafe.Add(base, pOff), pN)
	y := view[int](unsafe.Add(base, yOff), k.ns)
	if j.epi != nil {
		j.epi.e.prepare(wk, j.epi.srcs)
	}
	for u := lo; u < hi; u++ {
		b, r0 := u/j.blocks, u%j.blocks*k.rows
		r1 := min(r0+k.rows, k.npos)
		m := r1 - r0
		for g := range k.g {
			convIm2col(k, patch, j.lhs, b, g, r0, r1, y)
			w := j.w[g*k.kk*k.og : (g+1)*k.kk*k.og]
			if wk.bf16Conv == nil {
				wk.bf16Conv = new(gemm.BF16Call)
			}
			call := wk.bf16Conv
			*call = gemm.BF16Call{Batch: 1, M: m, N: k.og, K: k.kk, A: patch[:m*k.kk], RowA: k.kk, ColA: 1,
				B: w, RowB: k.og, ColB: 1}
			if k.ldc > 0 { // the output's rows are the product's: write in place
				off := b*k.osB + r0*k.ldc + g*k.og
				call.C, call.LDC = j.out[off:], k.ldc
				call.Run()
				continue
			}
			call.C, call.LDC = acc[:m*k.og], k.og
			call.Run()
			for r := r0; r < r1; r++ {
				off := k.outOffset(b, g, r, y)
				for o, v := range acc[(r-r0)*k.og : (r-r0+1)*k.og] {
					j.out[off+o*k.osC] = v
				}
			}
		}
		if j.epi != nil { // positions [r0, r1) are one run of the output (ldc > 0)
			j.epi.e.finished(wk, j.epi.srcs, b*k.osB+r0*k.ldc, m*k.ldc)
		}
	}
	if wk.bf16Conv != nil {
		*wk.bf16Conv = gemm.BF16Call{} // hold no caller's array
	}
}
