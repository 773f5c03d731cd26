package kernels

import (
	"fmt"
	"math"
	"runtime"
	"sync"

	"github.com/kiln-go/kiln/internal/gemm"
	"github.com/kiln-go/kiln/tensor"
)

// The products of narrow operands — 8-bit floats (tensor.FloatFormat)
// with an f32 or bf16 result, 4-bit and 2-bit integers
// (tensor.IntFormat) with an int32 result — on the bf16 and int8 GEMMs,
// the narrow values unpacked as the GEMMs pack their panels
// (internal/gemm's FP8Call and I4Call). NarrowMatMul runs them on plain
// slices; the dot_general of the narrow dtypes runs the same calls.

// NarrowMatMul is one matrix product c = a·b of narrow operands: a is
// m×k and b k×n, each row-major (or stored transposed: TransA, TransB),
// and c m×n row-major. Its methods take the operands as bytes in their
// formats and report bad arguments as a *NarrowDotError; the product
// splits over Workers goroutines (each element computed by one, so the
// number does not change a bit).
type NarrowMatMul struct {
	M, N, K int
	TransA  bool // a is stored k×m (row-major aᵀ)
	TransB  bool // b is stored n×k (row-major bᵀ)
	Workers int  // goroutines to split the product over (≤ 1: the calling one)
}

// NarrowDotError reports arguments of a NarrowMatMul method that do not
// describe a product it computes: the method, what is wrong, and the
// caller's position.
type NarrowDotError struct {
	Op  string // "NarrowMatMul.FP8", …
	Msg string
	Pos string // the caller's file:line
}

func (e *NarrowDotError) Error() string {
	return fmt.Sprintf("kernels: %s: %s: %s", e.Pos, e.Op, e.Msg)
}

// narrowErr is the error of method op for a problem msg ("" for none),
// positioned at the method's caller: it must be called by the method.
func narrowErr(op, msg string) error {
	if msg == "" {
		return nil
	}
	pos := "?"
	if _, file, line, ok := runtime.Caller(2); ok {
		pos = fmt.Sprintf("%s:%d", file, line)
	}
	return &NarrowDotError{Op: op, Msg: msg, Pos: pos}
}

// check validates the shape and the operands' and result's lengths (in
// bytes for a and b: na, nb are the bytes m·k and k·n values take).
func (p NarrowMatMul) check(na, nb, la, lb, lc int) string {
	switch {
	case p.M < 0 || p.N < 0 || p.K < 0:
		return fmt.Sprintf("negative size m=%d n=%d k=%d", p.M, p.N, p.K)
	case la < na:
		return fmt.Sprintf("a (%d×%d) needs %d bytes, has %d", p.M, p.K, na, la)
	case lb < nb:
		return fmt.Sprintf("b (%d×%d) needs %d bytes, has %d", p.K, p.N, nb, lb)
	case lc < p.M*p.N:
		return fmt.Sprintf("c (%d×%d) needs %d elements, has %d", p.M, p.N, p.M*p.N, lc)
	}
	return ""
}

// strides are the row and column strides (in elements) of a and b.
func (p NarrowMatMul) strides() (rowA, colA, rowB, colB int) {
	rowA, colA, rowB, colB = p.K, 1, p.N, 1
	if p.TransA {
		rowA, colA = 1, p.M
	}
	if p.TransB {
		rowB, colB = 1, p.K
	}
	return
}

// partedCall is a gemm call that splits into pieces.
type partedCall interface {
	Parts(workers int) int
	RunPart(p, parts int)
}

// runParted runs g's pieces for p.Workers goroutines.
func (p NarrowMatMul) runParted(g partedCall) {
	parts := g.Parts(max(p.Workers, 1))
	if p.Workers <= 1 || parts <= 1 {
		for q := range parts {
			g.RunPart(q, parts)
		}
		return
	}
	var wg sync.WaitGroup
	for q := range parts {
		wg.Add(1)
		go func() { defer wg.Done(); g.RunPart(q, parts) }()
	}
	wg.Wait()
}

// fp8Code is what the bf16 GEMM needs of one 8-bit float format: its
// codes' bf16 bits, whether every code's value is exactly that bf16 and
// not a bf16 subnormal (which the bf16 dot rule reads as zero), and its
// smallest nonzero finite magnitude.
type fp8Code struct {
	bf16   [256]uint16
	exact  bool
	tiny   float64
	normal bool // every code of the format (of any width) is exactly a bf16 that is not subnormal (narrowOnBF16)
}

var fp8Codes = sync.OnceValue(func() (t [tensor.NumFloatFormats]fp8Code) {
	for f := range tensor.FloatFormat(tensor.NumFloatFormats) {
		c := &t[f]
		c.exact, c.tiny, c.normal = f.Bits() == 8, math.Inf(1), true
		for code := range 256 {
			if code < 1<<f.Bits() {
				v := f.ToFloat32(uint8(code))
				bits := math.Float32bits(v)
				if v == v && (bits&0xffff != 0 || v != 0 && !math.IsInf(float64(v), 0) && math.Abs(float64(v)) < 0x1p-126) {
					c.normal = false
				}
			}
			v := f.ToFloat32(uint8(code))
			bits := math.Float32bits(v)
			switch {
			case v != v:
				c.bf16[code] = uint16(bits>>16) | 0x7fc0 // a quiet NaN of v's sign
			default:
				c.bf16[code] = uint16(bits >> 16)
				if bits&0xffff != 0 || v != 0 && !math.IsInf(float64(v), 0) && math.Abs(float64(v)) < 0x1p-126 {
					c.exact = false
				}
				if a := math.Abs(float64(v)); a != 0 && !math.IsInf(a, 0) {
					c.tiny = min(c.tiny, a)
				}
			}
		}
	}
	return t
})

// FP8OnBF16 reports whether the product of 8-bit float formats fa and fb
// runs on the bf16 GEMM (see NarrowMatMul.FP8): both formats' values are
// exact bf16s, none subnormal, and the smallest product of two nonzero
// values is at least 2⁻¹²⁶. Every 8-bit format but f8e8m0fnu (2⁻¹²⁷ is a
// bf16 subnormal; its products reach 2⁻²⁵⁴) qualifies, with each other.
func FP8OnBF16(fa, fb tensor.FloatFormat) bool {
	if int(fa) >= tensor.NumFloatFormats || int(fb) >= tensor.NumFloatFormats {
		return false
	}
	t := fp8Codes()
	a, b := &t[fa], &t[fb]
	return a.exact && b.exact && a.tiny*b.tiny >= 0x1p-126
}

// FP8 computes c = a·b of 8-bit float codes (one a byte, a in format fa
// and b in fb) into f32, as dot_general with preferred_element_type f32:
//
//   - where FP8OnBF16(fa, fb) — every pair of fp8 formats — each element
//     follows the bf16 dot rule (docs/SPEC.md §3: k in pairs from +0, the
//     odd product first, each step one fused multiply-add in f32) on the
//     values, which are bf16s exactly: the codes are unpacked to bf16
//     while the bf16 GEMM packs its panels and run on VDPBF16PS. The
//     rule's flushing never acts there (every product is exact in f32 and
//     every partial sum a multiple of the smallest product ≥ 2⁻¹²⁶), so
//     this is the exact sum of the products with one rounding per step,
//     in that order; NaN and ±inf propagate as IEEE addition makes them.
//   - otherwise (f8e8m0fnu) the values are widened to f32 and follow the
//     f32 rule (k in order, one fused multiply-add per step).
//
// Formats of fewer than 8 bits (fp6, fp4) are an error.
func (p NarrowMatMul) FP8(c []float32, a []byte, fa tensor.FloatFormat, b []byte, fb tensor.FloatFormat) error {
	if err := narrowErr("NarrowMatMul.FP8", p.fp8Check(len(c), a, fa, b, fb)); err != nil {
		return err
	}
	p.fp8(c, a, fa, b, fb)
	return nil
}

// FP8BF16 is FP8 with a bf16 result: each element of FP8's f32 result
// rounded once (to nearest, ties to even) — dot_general's default result
// type for bf16-accumulated products.
func (p NarrowMatMul) FP8BF16(c []tensor.BFloat16, a []byte, fa tensor.FloatFormat, b []byte, fb tensor.FloatFormat) error {
	if err := narrowErr("NarrowMatMul.FP8BF16", p.fp8Check(len(c), a, fa, b, fb)); err != nil {
		return err
	}
	acc := make([]float32, p.M*p.N)
	p.fp8(acc, a, fa, b, fb)
	for i, v := range acc {
		c[i] = tensor.BFloat16FromFloat32(v)
	}
	return nil
}

// fp8Check is what is wrong with FP8's arguments ("" if nothing).
func (p NarrowMatMul) fp8Check(lc int, a []byte, fa tensor.FloatFormat, b []byte, fb tensor.FloatFormat) string {
	for _, f := range []tensor.FloatFormat{fa, fb} {
		if int(f) >= tensor.NumFloatFormats {
			return fmt.Sprintf("invalid FloatFormat(%d)", uint8(f))
		}
		if f.Bits() != 8 {
			return fmt.Sprintf("%s is a %d-bit format; FP8 takes 8-bit formats (one code a byte)", f, f.Bits())
		}
	}
	return p.check(p.M*p.K, p.K*p.N, len(a), len(b), lc)
}

// fp8 is FP8 on checked arguments.
func (p NarrowMatMul) fp8(c []float32, a []byte, fa tensor.FloatFormat, b []byte, fb tensor.FloatFormat) {
	rowA, colA, rowB, colB := p.strides()
	if FP8OnBF16(fa, fb) {
		t := fp8Codes()
		p.runParted(&gemm.FP8Call{Batch: 1, M: p.M, N: p.N, K: p.K, A: a, RowA: rowA, ColA: colA, ATable: &t[fa].bf16,
			B: b, RowB: rowB, ColB: colB, BTable: &t[fb].bf16, C: c, LDC: p.N})
		return
	}
	wa, wb := make([]float32, p.M*p.K), make([]float32, p.K*p.N)
	for i := range wa {
		wa[i] = fa.ToFloat32(a[i])
	}
	for i := range wb {
		wb[i] = fb.ToFloat32(b[i])
	}
	p.runParted(&gemm.Call[float32]{Batch: 1, M: p.M, N: p.N, K: p.K, A: wa, RowA: rowA, ColA: colA,
		B: wb, RowB: rowB, ColB: colB, C: c, LDC: p.N})
}

// IntStorage is how an integer operand of NarrowMatMul.Int stores its
// values.
type IntStorage uint8

const (
	StoredI8 IntStorage = iota // one int8 a byte
	StoredU8                   // one uint8 a byte
	StoredI4                   // tensor.FormatI4: two a byte, the first in the low nibble
	StoredU4                   // tensor.FormatU4, packed as StoredI4
	StoredI2                   // tensor.FormatI2: four a byte, the first in the low bits
	StoredU2                   // tensor.FormatU2, packed as StoredI2
)

var storageNames = [...]string{"i8", "u8", "i4", "u4", "i2", "u2"}

// String names s by its values' dtype.
func (s IntStorage) String() string {
	if int(s) < len(storageNames) {
		return storageNames[s]
	}
	return fmt.Sprintf("IntStorage(%d)", uint8(s))
}

// bytes is how many bytes n values stored as s take.
func (s IntStorage) bytes(n int) int {
	switch s {
	case StoredI4, StoredU4:
		return tensor.FormatI4.PackedLen(n)
	case StoredI2, StoredU2:
		return tensor.FormatI2.PackedLen(n)
	}
	return n
}

// Int computes c = a·b of integer operands stored as sa and sb into int32,
// as dot_general with preferred_element_type i32: each element is the
// exact sum of the products wrapped to 32 bits (the same in any order).
// It runs on the int8 GEMM (VPDPBUSD where the CPU has AVX512_VNNI or
// AVX-VNNI, else its Go twin), 4-bit operands unpacked to bytes as the
// panels are packed; 2-bit operands are unpacked to bytes first. Packed
// operands are packed as one run of m·k (k·n) values, row after row of
// their storage order (tensor.PackInts of the row-major, or with TransA
// or TransB the transposed, matrix). b may not be StoredU8 (the GEMM
// multiplies unsigned bytes of a by signed bytes of b: pass a uint8
// operand as a).
func (p NarrowMatMul) Int(c []int32, a []byte, sa IntStorage, b []byte, sb IntStorage) error {
	if err := narrowErr("NarrowMatMul.Int", p.intCheck(c, a, sa, b, sb)); err != nil {
		return err
	}
	rowA, colA, rowB, colB := p.strides()
	ka, a := gemmInt(sa, a, p.M*p.K)
	kb, b := gemmInt(sb, b, p.K*p.N)
	p.runParted(&gemm.I4Call{Batch: 1, M: p.M, N: p.N, K: p.K, A: a, RowA: rowA, ColA: colA, AKind: ka,
		B: b, RowB: rowB, ColB: colB, BKind: kb, C: c, LDC: p.N})
	return nil
}

// intCheck is what is wrong with Int's arguments ("" if nothing).
func (p NarrowMatMul) intCheck(c []int32, a []byte, sa IntStorage, b []byte, sb IntStorage) string {
	for _, s := range []IntStorage{sa, sb} {
		if int(s) >= len(storageNames) {
			return fmt.Sprintf("invalid %v", s)
		}
	}
	if sb == StoredU8 {
		return fmt.Sprintf("b stored as u8 (a %s): the int8 GEMM's b is signed; pass the uint8 operand as a", sa)
	}
	return p.check(sa.bytes(p.M*p.K), sb.bytes(p.K*p.N), len(a), len(b), len(c))
}

// gemmInt is the I4Call kind of an operand of n values stored as s, with
// the bytes to pass: 2-bit values unpacked to one a byte.
func gemmInt(s IntStorage, x []byte, n int) (gemm.IntKind, []byte) {
	switch s {
	case StoredI8:
		return gemm.Int8, x
	case StoredU8:
		return gemm.Uint8, x
	case StoredI4:
		return gemm.Int4, x
	case StoredU4:
		return gemm.Uint4, x
	}
	f, k := tensor.FormatI2, gemm.Int8
	if s == StoredU2 {
		f, k = tensor.FormatU2, gemm.Uint8
	}
	wide := make([]int8, n)
	_ = tensor.UnpackInts(f, wide, x) // lengths checked by the caller
	out := make([]byte, n)
	for i, v := range wide {
		out[i] = byte(v)
	}
	return k, out
}
