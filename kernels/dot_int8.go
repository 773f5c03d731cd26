package kernels

import (
	"slices"
	"unsafe"

	"github.com/kiln-go/kiln/internal/gemm"
	"github.com/kiln-go/kiln/internal/simd"
	"github.com/kiln-go/kiln/lower"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// The int8 products of dot_general on the VNNI GEMM (internal/gemm's
// I8Call): which operands it reads (int8, or uint8 for the lhs, in place
// or past a widening convert), the converts it makes unnecessary, and
// running it into int32.

// unread reports whether every output of fusion f is a value whose every
// reader reads past it (x.bypassed) and that is no program output: its
// kernel's work would be thrown away. An int8 dot of converted operands
// (as preferred_element_type lowers) reads the int8 sources, and the
// converts' kernels, 1024×1024 each, cost an eighth of the product.
func (x *cpuExec) unread(f *lower.Fusion) bool {
	if len(x.bypassed) == 0 {
		return false
	}
	strip := func(in *lower.Instr) *lower.Instr {
		for in.Op == trace.OpReshape {
			in = in.Args[0]
		}
		return in
	}
	for _, o := range f.Outputs {
		by := x.bypassed[o]
		if by == nil {
			return false
		}
		for _, out := range x.m.Outputs {
			if strip(out) == o {
				return false
			}
		}
		for _, g := range x.m.Fusions {
			for _, in := range g.Inputs {
				if strip(in) == o && !by[g] {
					return false
				}
			}
		}
	}
	return true
}

// int8Operand returns the array of dtype d (int8, or uint8 for an lhs)
// that operand in of a dot with result dtype res can be read from on the
// int8 GEMM — in itself, or the source of its convert from d — or nil.
// The int8 GEMM sums in int32, so res must be int8, int16 or int32
// (narrower results wrap the same), and it runs only where the active
// tier has a VNNI kernel (simd.VNNI: AVX512_VNNI at the AVX512 tier,
// AVX-VNNI at the AVX2 tier; elsewhere, or with KILN_SIMD_NOVNNI set, the
// plain loop, whose speed the Go twin of the kernel does not beat).
//
// Reading a convert's source at the dot (fusion dot) needs that source
// still in its buffer: buffer planning only keeps it alive up to the
// convert, so no fusion between the two may write that buffer.
func (x *cpuExec) int8Operand(dot *lower.Fusion, in *lower.Instr, res, d tensor.DType) *lower.Instr {
	if _, fast := simd.GemmI8(); !fast || (res != tensor.I8 && res != tensor.I16 && res != tensor.I32) {
		return nil
	}
	return x.byteOperand(dot, in, d)
}

// byteOperand returns the array of dtype d (int8 or uint8) that operand
// in of product dot can be read from as bytes: in itself, or the source
// of its convert from d (or, for int8, from a sub-byte integer, storedAs)
// while that source is still in place at dot (keptUntil) — or nil.
func (x *cpuExec) byteOperand(dot *lower.Fusion, in *lower.Instr, d tensor.DType) *lower.Instr {
	// A convert from a sub-byte integer (int8 × int4 with an int8
	// result: the convert is the operand itself) is read past too, so
	// a packed input is read packed (runGemmI8).
	if in.Op == trace.OpConvert && storedAs(in.Args[0].DType, d) && x.materialized(in.Args[0]) && x.keptUntil(in.Args[0], in, dot) {
		return in.Args[0]
	}
	if in.DType == d {
		return in
	}
	return nil
}

// storedAs reports whether an array of dtype s holds its values as bytes
// of dtype d (int8, or uint8 for an lhs): s is d, or a sub-byte integer,
// stored one a byte sign-extended (i4, i2) or zero-extended (u4, u2) —
// each of whose values is also an int8 (so int4 × int8 with
// preferred_element_type i32 is the int8 GEMM's product of the bytes).
func storedAs(s, d tensor.DType) bool {
	return s == d || d == tensor.I8 && (s == tensor.I4 || s == tensor.I2 || s == tensor.U4 || s == tensor.U2)
}

// keptUntil reports whether src's data is still in place when fusion
// dot runs, given that it was read by the fusion computing conv: src is a
// constant or a parameter, or no fusion from conv's to dot's, dot's
// included, writes its buffer.
func (x *cpuExec) keptUntil(src, conv *lower.Instr, dot *lower.Fusion) bool {
	for src.Op == trace.OpReshape {
		src = src.Args[0]
	}
	if _, isConst := x.constIdx[src]; isConst {
		return true
	}
	buf := x.m.Plan.Of[src]
	if x.m.Plan.Buffers[buf].Param >= 0 {
		return true
	}
	from := -1
	for i, f := range x.m.Fusions {
		if slices.Contains(f.Instrs, conv) || slices.Contains(f.Outputs, conv) {
			from = i
		}
		if from < 0 {
			continue
		}
		// dot's own results count: src is not among its inputs, so the
		// planner may give one of them src's freed buffer (an epilogue
		// narrowing an f16 product back to f16), which the kernel would
		// write while its GEMM still reads src.
		for _, o := range f.Outputs {
			if b, ok := x.m.Plan.Of[o]; ok && b == buf && o != src {
				return false
			}
		}
		if f == dot {
			return true
		}
	}
	return false
}

// bypass notes that fusion f's kernel reads operand in's source src
// instead of in (an int8 dot reading past a widening convert): when no
// other kernel and no output reads in, the kernel computing it is dropped
// (see unread).
func (x *cpuExec) bypass(f *lower.Fusion, in, src *lower.Instr) {
	if in == src {
		return
	}
	if x.readsPast == nil {
		x.readsPast = map[*lower.Fusion]bool{}
	}
	x.readsPast[f] = true // a buffer outside f.Inputs: see schedule
	// A fused epilogue reading in too still needs its kernel's result.
	for _, m := range f.Instrs {
		if m.Op.Info().Class == trace.ClassDot {
			continue
		}
		for _, a := range m.Args {
			for a.Op == trace.OpReshape {
				a = a.Args[0]
			}
			if a == in {
				return
			}
		}
	}
	if x.bypassed == nil {
		x.bypassed = map[*lower.Instr]map[*lower.Fusion]bool{}
	}
	if x.bypassed[in] == nil {
		x.bypassed[in] = map[*lower.Fusion]bool{}
	}
	x.bypassed[in][f] = true
}

// materialized reports whether in has a buffer or a constant to read.
func (x *cpuExec) materialized(in *lower.Instr) bool {
	for in.Op == trace.OpReshape {
		in = in.Args[0]
	}
	_, isConst := x.constIdx[in]
	_, planned := x.m.Plan.Of[in]
	return isConst || planned
}

// gemmI8Job runs pieces of one int8 product on the workers.
type gemmI8Job struct {
	call  gemm.I8Call
	parts int
}

func (j *gemmI8Job) runRange(_ *runState, _ *worker, lo, hi int) {
	for p := lo; p < hi; p++ {
		j.call.RunPart(p, j.parts)
	}
}

// gemmI4Job runs pieces of one product of packed 4-bit operands.
type gemmI4Job struct {
	call  gemm.I4Call
	parts int
}

func (j *gemmI4Job) runRange(_ *runState, _ *worker, lo, hi int) {
	for p := lo; p < hi; p++ {
		j.call.RunPart(p, j.parts)
	}
}

// runGemmI8 runs an int8 product into int32 (out itself, or a temporary
// narrowed into it). An operand read from a program input the caller
// passed packed (tensor.Array.IsPacked, an i4 or u4: operandLayout's
// nibbles) is read packed, unpacked as the GEMM packs its panels
// (gemm.I4Call); the int32 sums are the same exact ones.
func runGemmI8(x *cpuExec, rs *runState, k *dotKernel, out, a, b unsafe.Pointer, na, nb int) {
	c := out
	if k.dtype != tensor.I32 {
		c = x.worker0(rs).temp(k.b * k.m * k.n * 4)
	}
	pa, pb := rs.packedOperand(&k.lhs), rs.packedOperand(&k.rhs)
	if pa != nil || pb != nil {
		j := slotJob[gemmI4Job](rs, k.slot)
		j.call = gemm.I4Call{Batch: k.b, M: k.m, N: k.n, K: k.kk, AKind: gemm.Int8, BKind: gemm.Int8,
			C: view[int32](c, k.b*k.m*k.n), BatchC: k.m * k.n, LDC: k.n, Stop: rs.gemmStop()}
		if k.aUnsigned {
			j.call.AKind = gemm.Uint8
		}
		j.call.A, j.call.B = pa, pb
		if pa != nil {
			j.call.AKind = k.lhs.kind
		} else {
			j.call.A = view[uint8](a, na)
		}
		if pb != nil {
			j.call.BKind = k.rhs.kind
		} else {
			j.call.B = view[uint8](b, nb)
		}
		j.call.BatchA, j.call.RowA, j.call.ColA = k.lhs.strides[0], k.lhs.strides[1], k.lhs.strides[2]
		j.call.BatchB, j.call.RowB, j.call.ColB = k.rhs.strides[0], k.rhs.strides[1], k.rhs.strides[2]
		j.parts = j.call.Parts(x.int8Workers(k))
		x.finishInt8(rs, k, j.parts, j, out, c)
		j.call = gemm.I4Call{} // hold no caller's array between Runs
		return
	}
	j := slotJob[gemmI8Job](rs, k.slot)
	j.call = gemm.I8Call{Batch: k.b, M: k.m, N: k.n, K: k.kk, AUnsigned: k.aUnsigned,
		A: view[int8](a, na), B: view[int8](b, nb), C: view[int32](c, k.b*k.m*k.n), BatchC: k.m * k.n, LDC: k.n, Stop: rs.gemmStop()}
	j.call.BatchA, j.call.RowA, j.call.ColA = k.lhs.strides[0], k.lhs.strides[1], k.lhs.strides[2]
	j.call.BatchB, j.call.RowB, j.call.ColB = k.rhs.strides[0], k.rhs.strides[1], k.rhs.strides[2]
	j.parts = j.call.Parts(x.int8Workers(k))
	x.finishInt8(rs, k, j.parts, j, out, c)
	j.call = gemm.I8Call{} // hold no caller's array between Runs
}

// int8Workers is how many workers an int8 product of k's size is split
// over: all of them, or one below the GEMM's parallel threshold.
func (x *cpuExec) int8Workers(k *dotKernel) int {
	if !x.wide(k.b*k.m*k.n*k.kk, 4*x.gemmParallelMin()) {
		return 1
	}
	return x.cpu.workers()
}

// finishInt8 runs an int8 product's parts and narrows its int32 sums c
// into out when the result dtype is i8 or i16.
func (x *cpuExec) finishInt8(rs *runState, k *dotKernel, parts int, j rangeJob, out, c unsafe.Pointer) {
	x.parallel(rs, parts, k.b*k.m*k.n*max(k.kk, 1), j)
	if k.dtype != tensor.I32 {
		wrapI32(k.dtype, out, c, k.b*k.m*k.n)
	}
}

// wrapI32 stores n int32 values at src into dst as d (int8 or int16),
// keeping the low bits: the wrapping sum's value in d.
func wrapI32(d tensor.DType, dst, src unsafe.Pointer, n int) {
	in := view[int32](src, n)
	switch d {
	case tensor.I8:
		out := view[int8](dst, n)
		for i, v := range in {
			out[i] = int8(v)
		}
	case tensor.I16:
		out := view[int16](dst, n)
		for i, v := range in {
			out[i] = int16(v)
		}
	}
}
