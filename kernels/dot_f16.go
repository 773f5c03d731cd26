package kernels

import (
	"unsafe"

	"github.com/kiln-go/kiln/lower"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// f16 products of dot_general on the f32 GEMM: operands read as stored
// (gemm.Call's A16 and B16 widen them while packing), in place or past a
// widening convert, and each finished block of an f16 result rounded
// while it is in cache.

// halfOperand returns the f16 array that operand in of an f32 dot (fusion
// dot) can be read from as stored: the source of in when in widens it by
// a convert (a mixed f16 × f32 product, or f16 operands with
// preferred_element_type=f32, as they lower), or nil. Widening is exact,
// so reading past the convert gives the same product, without the
// convert's f32 copy; the convert's kernel is dropped when nothing else
// reads it (bypass). As for int8 operands, the source must still be in
// its buffer when dot runs (keptUntil).
func (x *cpuExec) halfOperand(dot *lower.Fusion, in *lower.Instr) *lower.Instr {
	if in.Op == trace.OpConvert && in.DType == tensor.F32 && in.Args[0].DType == tensor.F16 &&
		x.materialized(in.Args[0]) && x.keptUntil(in.Args[0], in, dot) {
		return in.Args[0]
	}
	return nil
}

// halfFinisher rounds each block of an f32 product the GEMM finishes to
// the f16 product, once, while the block is in cache, then runs the
// epilogue's finisher on it, if any.
type halfFinisher struct {
	c, out unsafe.Pointer // the f32 product and the f16 one, both [b, m, n] row-major
	m, n   int
	epi    *partFinisher
}

func (f *halfFinisher) Finished(b, i0, i1, j0, j1 int) {
	narrow := narrowF16Fn
	if j0 == 0 && j1 == f.n { // whole rows: one run
		at := (b*f.m + i0) * f.n
		narrow(unsafe.Add(f.out, 2*at), unsafe.Add(f.c, 4*at), (i1-i0)*f.n)
	} else {
		for i := i0; i < i1; i++ {
			at := (b*f.m+i)*f.n + j0
			narrow(unsafe.Add(f.out, 2*at), unsafe.Add(f.c, 4*at), j1-j0)
		}
	}
	if f.epi != nil {
		f.epi.Finished(b, i0, i1, j0, j1)
	}
}

// halfFinishers returns one halfFinisher per piece, narrowing c into out
// (products of m×n), each running its piece's epilogue finisher after.
func (j *gemmJob[T]) halfFinishers(c, out unsafe.Pointer, m, n int) []halfFinisher {
	if cap(j.halves) < j.parts {
		j.halves = make([]halfFinisher, j.parts)
	}
	h := j.halves[:j.parts]
	for p := range h {
		h[p] = halfFinisher{c: c, out: out, m: m, n: n}
		if j.fins != nil {
			h[p].epi = &j.fins[p]
		}
	}
	return h
}
