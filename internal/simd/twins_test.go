package simd_test

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"unsafe"

	"github.com/kiln-go/kiln/internal/simd"
)

// The twin test: every kernel at every available tier gives the bytes of
// the Generic tier, on sizes 0..300 and a few large ones, at every offset
// from a 64-byte boundary, in place where dst may alias an input, without
// touching a byte outside dst.

// kcase describes one kernel over raw bytes.
type kcase struct {
	name  string
	dst   int                        // dst element size in bytes
	ins   []int                      // input element sizes
	gen   []func(*rand.Rand, []byte) // fills input i (nil: random float-ish bits)
	alias bool                       // dst may be input 0 (same element size)
	call  func(dst []byte, in [][]byte)
}

func view[T any](b []byte) []T {
	var z T
	return unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(b))), len(b)/int(unsafe.Sizeof(z)))
}

func f32s(b []byte) []float32 { return view[float32](b) }
func f64s(b []byte) []float64 { return view[float64](b) }

// special float bits worth hitting often.
var special32 = []uint32{0, 0x80000000, 0x7f800000, 0xff800000, 0x7fc00000, 0xffc00001, 0x7f800001,
	0x7fbfffff, 1, 0x807fffff, 0x00800000, 0x7f7fffff, 0x3f800000, 0xbf800000, 0x3f000000, 0x477fe000, 0x477ff000,
	0x33000000, 0x33000001, 0x387fc000, 0x38800000}
var special64 = []uint64{0, 1 << 63, 0x7ff0000000000000, 0xfff0000000000000, 0x7ff8000000000000,
	0xfff8000000000123, 0x7ff0000000000001, 1, 0x800fffffffffffff, 0x0010000000000000, 0x7fefffffffffffff,
	0x3ff0000000000000, 0xbff0000000000000, 0x47efffffe0000000, 0x47effffff0000000, 0x36a0000000000000}

// genF32 fills b with float32 values: mostly ordinary numbers, some equal
// pairs, specials and random bit patterns (NaNs with payloads included).
func genF32(r *rand.Rand, b []byte) {
	v := view[uint32](b)
	for i := range v {
		switch k := r.IntN(16); {
		case k < 8:
			v[i] = math.Float32bits(float32(r.NormFloat64() * 10))
		case k < 10:
			v[i] = math.Float32bits(float32(r.IntN(5) - 2))
		case k < 13:
			v[i] = special32[r.IntN(len(special32))]
		default:
			v[i] = r.Uint32()
		}
	}
}

func genF64(r *rand.Rand, b []byte) {
	v := view[uint64](b)
	for i := range v {
		switch k := r.IntN(16); {
		case k < 8:
			v[i] = math.Float64bits(r.NormFloat64() * 10)
		case k < 10:
			v[i] = math.Float64bits(float64(r.IntN(5) - 2))
		case k < 13:
			v[i] = special64[r.IntN(len(special64))]
		default:
			v[i] = r.Uint64()
		}
	}
}

func genBits(r *rand.Rand, b []byte) {
	for i := range b {
		b[i] = byte(r.Uint32())
	}
}

func genBool(r *rand.Rand, b []byte) {
	for i := range b {
		b[i] = byte(r.IntN(2))
	}
}

func genFor(size int) func(*rand.Rand, []byte) {
	switch size {
	case 4:
		return genF32
	case 8:
		return genF64
	}
	return genBits
}

// Constructors for the common shapes of kernel.

func binF32(name string, f func(dst, a, b []float32)) kcase {
	return kcase{name: name, dst: 4, ins: []int{4, 4}, alias: true,
		call: func(d []byte, in [][]byte) { f(f32s(d), f32s(in[0]), f32s(in[1])) }}
}

func binF64(name string, f func(dst, a, b []float64)) kcase {
	return kcase{name: name, dst: 8, ins: []int{8, 8}, alias: true,
		call: func(d []byte, in [][]byte) { f(f64s(d), f64s(in[0]), f64s(in[1])) }}
}

func binInt[T any](name string, f func(dst, a, b []T)) kcase {
	var z T
	n := int(unsafe.Sizeof(z))
	return kcase{name: name, dst: n, ins: []int{n, n}, alias: true, gen: []func(*rand.Rand, []byte){genBits, genBits},
		call: func(d []byte, in [][]byte) { f(view[T](d), view[T](in[0]), view[T](in[1])) }}
}

// byteWiden is a byte op widened to float32: every byte pattern, so every
// wrap.
func byteWiden[T int8 | uint8](name string, f func(dst []float32, a, b []T)) kcase {
	return kcase{name: name, dst: 4, ins: []int{1, 1}, gen: []func(*rand.Rand, []byte){genBits, genBits},
		call: func(d []byte, in [][]byte) { f(f32s(d), view[T](in[0]), view[T](in[1])) }}
}

func unary[D, S any](name string, f func(dst []D, src []S), gen func(*rand.Rand, []byte)) kcase {
	var d D
	var s S
	ds, ss := int(unsafe.Sizeof(d)), int(unsafe.Sizeof(s))
	return kcase{name: name, dst: ds, ins: []int{ss}, alias: ds == ss, gen: []func(*rand.Rand, []byte){gen},
		call: func(dd []byte, in [][]byte) { f(view[D](dd), view[S](in[0])) }}
}

func inPlace(name string, f func(x []float32), gen func(*rand.Rand, []byte)) kcase {
	return kcase{name: name, dst: 4, ins: nil, gen: []func(*rand.Rand, []byte){gen},
		call: func(d []byte, _ [][]byte) { f(f32s(d)) }}
}

func scalarF32(name string, f func(dst, a []float32, s float32)) []kcase {
	var cs []kcase
	for _, s := range []float32{2.5, negZero32, float32(math.NaN()), float32(math.Inf(-1)), 1e-40} {
		s := s
		cs = append(cs, kcase{name: fmt.Sprintf("%s/s=%g", name, s), dst: 4, ins: []int{4}, alias: true,
			call: func(d []byte, in [][]byte) { f(f32s(d), f32s(in[0]), s) }})
	}
	return cs
}

func scalarF64(name string, f func(dst, a []float64, s float64)) []kcase {
	var cs []kcase
	for _, s := range []float64{2.5, negZero64, math.NaN(), math.Inf(-1), 1e-310} {
		s := s
		cs = append(cs, kcase{name: fmt.Sprintf("%s/s=%g", name, s), dst: 8, ins: []int{8}, alias: true,
			call: func(d []byte, in [][]byte) { f(f64s(d), f64s(in[0]), s) }})
	}
	return cs
}

func cmpCase[T float32 | float64](name string, f func(dst []bool, a, b []T, p simd.Pred)) []kcase {
	var z T
	n := int(unsafe.Sizeof(z))
	var cs []kcase
	for p, pn := range []string{"Eq", "Ne", "Lt", "Le", "Gt", "Ge"} {
		p := simd.Pred(p)
		cs = append(cs, kcase{name: name + "/" + pn, dst: 1, ins: []int{n, n},
			call: func(d []byte, in [][]byte) { f(view[bool](d), view[T](in[0]), view[T](in[1]), p) }})
	}
	return cs
}

func selectCase[T any](name string, f func(dst []T, c []bool, a, b []T)) kcase {
	var z T
	n := int(unsafe.Sizeof(z))
	return kcase{name: name, dst: n, ins: []int{1, n, n}, gen: []func(*rand.Rand, []byte){genBool, genFor(n), genFor(n)},
		call: func(d []byte, in [][]byte) { f(view[T](d), view[bool](in[0]), view[T](in[1]), view[T](in[2])) }}
}

func allCases() []kcase {
	cs := []kcase{
		binF32("AddF32", simd.AddF32), binF32("SubF32", simd.SubF32), binF32("MulF32", simd.MulF32),
		binF32("DivF32", simd.DivF32), binF32("MinF32", simd.MinF32), binF32("MaxF32", simd.MaxF32),
		binF64("AddF64", simd.AddF64), binF64("SubF64", simd.SubF64), binF64("MulF64", simd.MulF64),
		binF64("DivF64", simd.DivF64), binF64("MinF64", simd.MinF64), binF64("MaxF64", simd.MaxF64),
		unary("SqrtF32", simd.SqrtF32, genF32), unary("SqrtF64", simd.SqrtF64, genF64),
		binInt("AddI8", simd.AddI8), binInt("SubI8", simd.SubI8), binInt("MulI8", simd.MulI8),
		binInt("AddI16", simd.AddI16), binInt("SubI16", simd.SubI16), binInt("MulI16", simd.MulI16),
		binInt("AddI32", simd.AddI32), binInt("SubI32", simd.SubI32), binInt("MulI32", simd.MulI32),
		binInt("AddI64", simd.AddI64), binInt("SubI64", simd.SubI64), binInt("MulI64", simd.MulI64),
		selectCase("Select8", simd.Select8), selectCase("Select16", simd.Select16),
		selectCase("Select32", simd.Select32), selectCase("Select64", simd.Select64),
		selectCase("SelectF32", simd.SelectF32), selectCase("SelectF64", simd.SelectF64),
		unary("F16ToF32", simd.F16ToF32, genBits), unary("F32ToF16", simd.F32ToF16, genF32),
		inPlace("RoundF16", simd.RoundF16, genF32),
		unary("BF16ToF32", simd.BF16ToF32, genBits), unary("F32ToBF16", simd.F32ToBF16, genF32),
		inPlace("RoundBF16", simd.RoundBF16, genF32),
		unary("F32ToF64", simd.F32ToF64, genF32), unary("F64ToF32", simd.F64ToF32, genF64),
		unary("I8ToF32", simd.I8ToF32, genBits), unary("U8ToF32", simd.U8ToF32, genBits),
		unary("I16ToF32", simd.I16ToF32, genBits), unary("U16ToF32", simd.U16ToF32, genBits),
		unary("I32ToF32", simd.I32ToF32, genBits), unary("I32ToF64", simd.I32ToF64, genBits),
		byteWiden("AddI8ToF32", simd.AddI8ToF32), byteWiden("SubI8ToF32", simd.SubI8ToF32),
		byteWiden("MulI8ToF32", simd.MulI8ToF32), byteWiden("AddU8ToF32", simd.AddU8ToF32),
		byteWiden("SubU8ToF32", simd.SubU8ToF32), byteWiden("MulU8ToF32", simd.MulU8ToF32),
	}
	for _, c := range [][]kcase{
		scalarF32("AddScalarF32", simd.AddScalarF32), scalarF32("SubScalarF32", simd.SubScalarF32),
		scalarF32("SubScalarRevF32", simd.SubScalarRevF32), scalarF32("MulScalarF32", simd.MulScalarF32),
		scalarF32("DivScalarF32", simd.DivScalarF32), scalarF32("DivScalarRevF32", simd.DivScalarRevF32),
		scalarF64("AddScalarF64", simd.AddScalarF64), scalarF64("SubScalarF64", simd.SubScalarF64),
		scalarF64("SubScalarRevF64", simd.SubScalarRevF64), scalarF64("MulScalarF64", simd.MulScalarF64),
		scalarF64("DivScalarF64", simd.DivScalarF64), scalarF64("DivScalarRevF64", simd.DivScalarRevF64),
		cmpCase("CmpF32", simd.CmpF32), cmpCase("CmpF64", simd.CmpF64),
	} {
		cs = append(cs, c...)
	}
	cs = append(cs, fusedCases()...)
	cs = append(cs, wideCases()...)
	cs = append(cs, storeNTCases()...)
	return append(cs, transcendentalCases()...)
}

// sizes to test: every n up to 300, then some large and odd ones.
func testSizes() []int {
	var ns []int
	for n := 0; n <= 300; n++ {
		ns = append(ns, n)
	}
	return append(ns, 511, 1000, 4096+13, 1<<16+7)
}

const guard = 0xa5 // fills every byte around dst (as float32: a NaN-free pattern; 0xffff... bytes are NaN)

// aligned returns n bytes starting at a 64-byte boundary plus off.
func aligned(n, off int) []byte {
	b := make([]byte, n+off+256)
	p := uintptr(unsafe.Pointer(&b[0]))
	start := int((64-p%64)%64) + 64
	return b[start+off : start+off+n : start+off+n]
}

func TestTwins(t *testing.T) {
	tiers := simd.Available()
	if testing.Short() || len(tiers) == 1 {
		t.Logf("tiers: %v", tiers)
	}
	for _, c := range allCases() {
		t.Run(c.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(1, uint64(len(c.name))))
			for _, n := range testSizes() {
				e := c.dst
				offs := []int{(n * e) % 64}
				if n == 257 {
					// Every offset from a 64-byte boundary; those that are
					// not a multiple of the element size only arise from
					// unsafe views of byte buffers (e.g. a mapped file),
					// and checkptr rejects them under -race.
					offs = offs[:0]
					for o := 0; o < 64; o++ {
						if o%e == 0 || !raceEnabled {
							offs = append(offs, o)
						}
					}
				}
				for _, off := range offs {
					checkCase(t, c, tiers, r, n, off)
				}
			}
		})
	}
}

// checkCase runs c at every tier on one size and offset, in a fresh dst and
// (if allowed) in place, and compares each with Generic.
func checkCase(t *testing.T, c kcase, tiers []simd.Tier, r *rand.Rand, n, off int) {
	t.Helper()
	ins := make([][]byte, len(c.ins))
	for i, size := range c.ins {
		ins[i] = aligned(n*size, (off/c.dst*size+off%c.dst+13*i*size)%64)
		gen := genFor(size)
		if i < len(c.gen) && c.gen[i] != nil {
			gen = c.gen[i]
		}
		gen(r, ins[i])
	}
	var init []byte // dst contents before the call (in-place kernels)
	if len(c.ins) == 0 {
		init = make([]byte, n*c.dst)
		c.gen[0](r, init)
	}
	run := func(tier simd.Tier, inPlace bool) []byte {
		defer simd.SetLevel(tier)()
		full := aligned(n*c.dst+128, 0)
		for i := range full {
			full[i] = guard
		}
		dst := full[64+off : 64+off+n*c.dst]
		args := ins
		if inPlace {
			copy(dst, ins[0])
			args = append([][]byte{dst}, ins[1:]...)
		} else if init != nil {
			copy(dst, init)
		}
		c.call(dst, args)
		for i, v := range full {
			if (i < 64+off || i >= 64+off+n*c.dst) && v != guard {
				t.Fatalf("%v n=%d off=%d inPlace=%v: wrote byte %d outside dst", tier, n, off, inPlace, i-64-off)
			}
		}
		return bytes.Clone(dst)
	}
	for _, inPlace := range []bool{false, true} {
		if inPlace && !c.alias {
			continue
		}
		want := run(simd.Generic, inPlace)
		for _, tier := range tiers[1:] {
			if got := run(tier, inPlace); !bytes.Equal(got, want) {
				i := firstDiff(got, want) / c.dst * c.dst
				var in0 []byte
				if len(ins) > 0 {
					in0 = ins[0][i/c.dst*c.ins[0] : (i/c.dst+1)*c.ins[0]]
				}
				t.Fatalf("%v n=%d off=%d inPlace=%v: element %d: got % x, want % x (input0 % x)",
					tier, n, off, inPlace, i/c.dst, got[i:i+c.dst], want[i:i+c.dst], in0)
			}
		}
	}
}

func firstDiff(a, b []byte) int {
	for i := range a {
		if a[i] != b[i] {
			return i
		}
	}
	return len(a)
}

// TestStreamCopy checks StreamCopy at every tier, length 0..300 and
// offset from a 64-byte line, plus a large copy, against copy(), with guard
// bytes around dst left alone; and that Prefetch changes nothing.
func TestStreamCopy(t *testing.T) {
	for _, tier := range simd.Available() {
		t.Run(tier.String(), func(t *testing.T) {
			defer simd.SetLevel(tier)()
			testStreamCopy(t)
		})
	}
}

func testStreamCopy(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	src := make([]byte, 1<<16+128)
	for i := range src {
		src[i] = byte(r.Uint32())
	}
	buf := make([]byte, len(src)+256)
	for _, n := range append(seqInts(301), 1<<16) {
		for off := range 64 {
			for i := range buf {
				buf[i] = 0xA5
			}
			s := src[off%7 : off%7+n]
			d := buf[64+off : 64+off+n]
			simd.Prefetch(unsafe.Pointer(unsafe.SliceData(s)), n)
			simd.StreamCopy(unsafe.Pointer(unsafe.SliceData(d)), unsafe.Pointer(unsafe.SliceData(s)), n)
			simd.Fence()
			if !bytes.Equal(d, s) {
				t.Fatalf("n=%d off=%d: copy differs", n, off)
			}
			for i, c := range buf {
				if (i < 64+off || i >= 64+off+n) && c != 0xA5 {
					t.Fatalf("n=%d off=%d: byte %d outside dst written", n, off, i)
				}
			}
		}
	}
}

func seqInts(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = i
	}
	return s
}

// FuzzTwins runs a kernel chosen by the fuzzer on inputs tiled from the
// fuzzer's bytes (any bit patterns: NaN payloads, infinities, subnormals,
// the thresholds of the vector paths' fast and full bodies), at every tier
// and in place, and checks that every tier gives the Generic bits:
//
//	go test -run '^$' -fuzz FuzzTwins ./internal/simd
func FuzzTwins(f *testing.F) {
	cases := allCases()
	f.Add(uint16(0), uint8(0), uint8(40), []byte{0, 0, 0xc0, 0x7f, 0, 0, 0x80, 0x3f})
	f.Add(uint16(1), uint8(3), uint8(17), []byte{0, 0, 0xae, 0x42, 1, 0, 0x80, 0x47, 0xff, 0xff, 0x7f, 0})
	tiers := simd.Available()
	f.Fuzz(func(t *testing.T, which uint16, off, n uint8, data []byte) {
		if len(data) == 0 {
			return
		}
		c := cases[int(which)%len(cases)]
		fill := func(_ *rand.Rand, b []byte) {
			for i := range b {
				b[i] = data[i%len(data)]
			}
		}
		c.gen = make([]func(*rand.Rand, []byte), max(len(c.ins), 1))
		for i := range c.gen {
			c.gen[i] = fill
		}
		e := c.dst
		checkCase(t, c, tiers, rand.New(rand.NewPCG(1, 2)), int(n)%200, int(off)%64/e*e)
	})
}
