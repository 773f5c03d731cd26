package simd_test

import (
	"math/rand/v2"
	"testing"

	"github.com/kiln-go/kiln/internal/simd"
)

// The H kernels (wide.go): operands in f16 or bf16 storage bits.

type wideBin struct {
	name   string
	ha, hb bool // a, b are bits
	round  any  // func(dst []float32, a, b) with a, b []float32 or []uint16
	store  any  // func(dst []uint16, a, b)
	base   func(dst, a, b []float32)
	baseTo func(dst []uint16, a, b []float32)
	fmt    string
}

type wideScalar struct {
	name   string
	round  func(dst []float32, a []uint16, s float32)
	store  func(dst []uint16, a []uint16, s float32)
	base   func(dst, a []float32, s float32)
	baseTo func(dst []uint16, a []float32, s float32)
	fmt    string
}

var wideBins = []wideBin{
	{"AddF16H1", true, false, simd.AddRoundF16H1, simd.AddToF16H1, simd.AddRoundF16, simd.AddToF16, "F16"},
	{"AddF16H2", false, true, simd.AddRoundF16H2, simd.AddToF16H2, simd.AddRoundF16, simd.AddToF16, "F16"},
	{"AddF16H12", true, true, simd.AddRoundF16H12, simd.AddToF16H12, simd.AddRoundF16, simd.AddToF16, "F16"},
	{"SubF16H1", true, false, simd.SubRoundF16H1, simd.SubToF16H1, simd.SubRoundF16, simd.SubToF16, "F16"},
	{"SubF16H2", false, true, simd.SubRoundF16H2, simd.SubToF16H2, simd.SubRoundF16, simd.SubToF16, "F16"},
	{"SubF16H12", true, true, simd.SubRoundF16H12, simd.SubToF16H12, simd.SubRoundF16, simd.SubToF16, "F16"},
	{"MulF16H1", true, false, simd.MulRoundF16H1, simd.MulToF16H1, simd.MulRoundF16, simd.MulToF16, "F16"},
	{"MulF16H2", false, true, simd.MulRoundF16H2, simd.MulToF16H2, simd.MulRoundF16, simd.MulToF16, "F16"},
	{"MulF16H12", true, true, simd.MulRoundF16H12, simd.MulToF16H12, simd.MulRoundF16, simd.MulToF16, "F16"},
	{"DivF16H1", true, false, simd.DivRoundF16H1, simd.DivToF16H1, simd.DivRoundF16, simd.DivToF16, "F16"},
	{"DivF16H2", false, true, simd.DivRoundF16H2, simd.DivToF16H2, simd.DivRoundF16, simd.DivToF16, "F16"},
	{"DivF16H12", true, true, simd.DivRoundF16H12, simd.DivToF16H12, simd.DivRoundF16, simd.DivToF16, "F16"},
	{"AddBF16H1", true, false, simd.AddRoundBF16H1, simd.AddToBF16H1, simd.AddRoundBF16, simd.AddToBF16, "BF16"},
	{"AddBF16H2", false, true, simd.AddRoundBF16H2, simd.AddToBF16H2, simd.AddRoundBF16, simd.AddToBF16, "BF16"},
	{"AddBF16H12", true, true, simd.AddRoundBF16H12, simd.AddToBF16H12, simd.AddRoundBF16, simd.AddToBF16, "BF16"},
	{"SubBF16H1", true, false, simd.SubRoundBF16H1, simd.SubToBF16H1, simd.SubRoundBF16, simd.SubToBF16, "BF16"},
	{"SubBF16H2", false, true, simd.SubRoundBF16H2, simd.SubToBF16H2, simd.SubRoundBF16, simd.SubToBF16, "BF16"},
	{"SubBF16H12", true, true, simd.SubRoundBF16H12, simd.SubToBF16H12, simd.SubRoundBF16, simd.SubToBF16, "BF16"},
	{"MulBF16H1", true, false, simd.MulRoundBF16H1, simd.MulToBF16H1, simd.MulRoundBF16, simd.MulToBF16, "BF16"},
	{"MulBF16H2", false, true, simd.MulRoundBF16H2, simd.MulToBF16H2, simd.MulRoundBF16, simd.MulToBF16, "BF16"},
	{"MulBF16H12", true, true, simd.MulRoundBF16H12, simd.MulToBF16H12, simd.MulRoundBF16, simd.MulToBF16, "BF16"},
	{"DivBF16H1", true, false, simd.DivRoundBF16H1, simd.DivToBF16H1, simd.DivRoundBF16, simd.DivToBF16, "BF16"},
	{"DivBF16H2", false, true, simd.DivRoundBF16H2, simd.DivToBF16H2, simd.DivRoundBF16, simd.DivToBF16, "BF16"},
	{"DivBF16H12", true, true, simd.DivRoundBF16H12, simd.DivToBF16H12, simd.DivRoundBF16, simd.DivToBF16, "BF16"},
}

var wideScalars = []wideScalar{
	{"AddScalarF16H", simd.AddScalarRoundF16H, simd.AddScalarToF16H, simd.AddScalarRoundF16, simd.AddScalarToF16, "F16"},
	{"SubScalarF16H", simd.SubScalarRoundF16H, simd.SubScalarToF16H, simd.SubScalarRoundF16, simd.SubScalarToF16, "F16"},
	{"SubScalarRevF16H", simd.SubScalarRevRoundF16H, simd.SubScalarRevToF16H, simd.SubScalarRevRoundF16, simd.SubScalarRevToF16, "F16"},
	{"MulScalarF16H", simd.MulScalarRoundF16H, simd.MulScalarToF16H, simd.MulScalarRoundF16, simd.MulScalarToF16, "F16"},
	{"DivScalarF16H", simd.DivScalarRoundF16H, simd.DivScalarToF16H, simd.DivScalarRoundF16, simd.DivScalarToF16, "F16"},
	{"DivScalarRevF16H", simd.DivScalarRevRoundF16H, simd.DivScalarRevToF16H, simd.DivScalarRevRoundF16, simd.DivScalarRevToF16, "F16"},
	{"AddScalarBF16H", simd.AddScalarRoundBF16H, simd.AddScalarToBF16H, simd.AddScalarRoundBF16, simd.AddScalarToBF16, "BF16"},
	{"SubScalarBF16H", simd.SubScalarRoundBF16H, simd.SubScalarToBF16H, simd.SubScalarRoundBF16, simd.SubScalarToBF16, "BF16"},
	{"SubScalarRevBF16H", simd.SubScalarRevRoundBF16H, simd.SubScalarRevToBF16H, simd.SubScalarRevRoundBF16, simd.SubScalarRevToBF16, "BF16"},
	{"MulScalarBF16H", simd.MulScalarRoundBF16H, simd.MulScalarToBF16H, simd.MulScalarRoundBF16, simd.MulScalarToBF16, "BF16"},
	{"DivScalarBF16H", simd.DivScalarRoundBF16H, simd.DivScalarToBF16H, simd.DivScalarRoundBF16, simd.DivScalarToBF16, "BF16"},
	{"DivScalarRevBF16H", simd.DivScalarRevRoundBF16H, simd.DivScalarRevToBF16H, simd.DivScalarRevRoundBF16, simd.DivScalarRevToBF16, "BF16"},
}

// callWide calls a binary H kernel f on raw operands, viewing each as
// bits or float32 as the form says.
func callWide[D any](f any, dst []D, a, b []byte) {
	switch f := f.(type) {
	case func([]D, []uint16, []float32):
		f(dst, view[uint16](a), f32s(b))
	case func([]D, []float32, []uint16):
		f(dst, f32s(a), view[uint16](b))
	case func([]D, []uint16, []uint16):
		f(dst, view[uint16](a), view[uint16](b))
	default:
		panic("unexpected kernel type")
	}
}

func wideCases() []kcase {
	var cs []kcase
	size := func(h bool) int {
		if h {
			return 2
		}
		return 4
	}
	for _, k := range wideBins {
		ins := []int{size(k.ha), size(k.hb)}
		cs = append(cs,
			kcase{name: k.name + "Round", dst: 4, ins: ins, alias: !k.ha,
				call: func(d []byte, in [][]byte) { callWide(k.round, f32s(d), in[0], in[1]) }},
			kcase{name: k.name + "To", dst: 2, ins: ins,
				call: func(d []byte, in [][]byte) { callWide(k.store, view[uint16](d), in[0], in[1]) }})
	}
	for _, k := range wideScalars {
		for _, sc := range scalarF32(k.name, nil) {
			s := sc.name[len(k.name):]
			v := scalarOf(s)
			cs = append(cs,
				kcase{name: k.name + "Round" + s, dst: 4, ins: []int{2},
					call: func(d []byte, in [][]byte) { k.round(f32s(d), view[uint16](in[0]), v) }},
				kcase{name: k.name + "To" + s, dst: 2, ins: []int{2},
					call: func(d []byte, in [][]byte) { k.store(view[uint16](d), view[uint16](in[0]), v) }})
		}
	}
	return cs
}

// TestWideComposition: each H kernel gives the bits of widening its bits
// operands (F16ToF32, BF16ToF32) and then running the kernel without H,
// at every tier, on random bits (NaNs, infinities and subnormals of both
// formats included) and random float32 operands.
func TestWideComposition(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	const n = 1000
	ha, hb := make([]uint16, n), make([]uint16, n)
	fa, fb := make([]float32, n), make([]float32, n)
	genBits(r, asBytes(ha))
	genBits(r, asBytes(hb))
	genF32(r, asBytes(fa))
	genF32(r, asBytes(fb))
	widen := map[string]func(dst []float32, src []uint16){"F16": simd.F16ToF32, "BF16": simd.BF16ToF32}
	for _, tier := range simd.Available() {
		restore := simd.SetLevel(tier)
		for _, k := range wideBins {
			a, b := asBytes(fa), asBytes(fb)
			wa, wb := fa, fb
			if k.ha {
				a, wa = asBytes(ha), make([]float32, n)
				widen[k.fmt](wa, ha)
			}
			if k.hb {
				b, wb = asBytes(hb), make([]float32, n)
				widen[k.fmt](wb, hb)
			}
			want, got := make([]float32, n), make([]float32, n)
			k.base(want, wa, wb)
			callWide(k.round, got, a, b)
			if i := firstDiff(asBytes(got), asBytes(want)); i < 4*n {
				t.Fatalf("%v %sRound: element %d: %#x, want %#x", tier, k.name, i/4, got[i/4], want[i/4])
			}
			want16, got16 := make([]uint16, n), make([]uint16, n)
			k.baseTo(want16, wa, wb)
			callWide(k.store, got16, a, b)
			if i := firstDiff(asBytes(got16), asBytes(want16)); i < 2*n {
				t.Fatalf("%v %sTo: element %d: %#04x, want %#04x", tier, k.name, i/2, got16[i/2], want16[i/2])
			}
		}
		for _, k := range wideScalars {
			wa := make([]float32, n)
			widen[k.fmt](wa, ha)
			for _, s := range []float32{0.5, -3, 1e-40, 70000, 0} {
				want, got := make([]float32, n), make([]float32, n)
				k.base(want, wa, s)
				k.round(got, ha, s)
				if i := firstDiff(asBytes(got), asBytes(want)); i < 4*n {
					t.Fatalf("%v %s s=%g: element %d: %#x, want %#x", tier, k.name, s, i/4, got[i/4], want[i/4])
				}
				want16, got16 := make([]uint16, n), make([]uint16, n)
				k.baseTo(want16, wa, s)
				k.store(got16, ha, s)
				if i := firstDiff(asBytes(got16), asBytes(want16)); i < 2*n {
					t.Fatalf("%v %sTo s=%g: element %d: %#04x, want %#04x", tier, k.name, s, i/2, got16[i/2], want16[i/2])
				}
			}
		}
		restore()
	}
}
