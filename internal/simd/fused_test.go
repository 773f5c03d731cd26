package simd_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/kiln-go/kiln/internal/simd"
)

// fusedCases are the twin-test cases of the fused kernels. The first
// operand pair of each kernel is named /s=2.5, the one the benchmarks run.
func fusedCases() []kcase {
	var cs []kcase
	pairs32 := [][2]float32{{2.5, -0.75}, {negZero32, 0}, {1.5, negZero32}, {float32(math.NaN()), 1}, {3, float32(math.NaN())},
		{float32(math.Inf(1)), float32(math.Inf(-1))}, {1e-40, 1e-45}, {-1e30, 1e38}}
	pairs64 := [][2]float64{{2.5, -0.75}, {negZero64, 0}, {1.5, negZero64}, {math.NaN(), 1}, {3, math.NaN()},
		{math.Inf(1), math.Inf(-1)}, {1e-310, 5e-324}, {-1e300, 1e308}}
	name := func(k string, i int, a, b any) string {
		if i == 0 {
			return k + "/s=2.5"
		}
		return fmt.Sprintf("%s/s=%v,%v", k, a, b)
	}
	for _, k := range []struct {
		name string
		f    func(dst, x []float32, a, b float32)
	}{{"AffineF32", simd.AffineF32}, {"AffineNTF32", simd.AffineNTF32}} {
		for i, p := range pairs32 {
			cs = append(cs, kcase{name: name(k.name, i, p[0], p[1]), dst: 4, ins: []int{4}, alias: true,
				call: func(d []byte, in [][]byte) { k.f(f32s(d), f32s(in[0]), p[0], p[1]) }})
		}
	}
	for _, k := range []struct {
		name string
		f    func(dst, x []float64, a, b float64)
	}{{"AffineF64", simd.AffineF64}, {"AffineNTF64", simd.AffineNTF64}} {
		for i, p := range pairs64 {
			cs = append(cs, kcase{name: name(k.name, i, p[0], p[1]), dst: 8, ins: []int{8}, alias: true,
				call: func(d []byte, in [][]byte) { k.f(f64s(d), f64s(in[0]), p[0], p[1]) }})
		}
	}
	cs = append(cs,
		binF32("AddRoundF16", simd.AddRoundF16), binF32("SubRoundF16", simd.SubRoundF16),
		binF32("MulRoundF16", simd.MulRoundF16), binF32("DivRoundF16", simd.DivRoundF16),
		binF32("AddRoundBF16", simd.AddRoundBF16), binF32("SubRoundBF16", simd.SubRoundBF16),
		binF32("MulRoundBF16", simd.MulRoundBF16), binF32("DivRoundBF16", simd.DivRoundBF16))
	for _, c := range [][]kcase{
		scalarF32("AddScalarRoundF16", simd.AddScalarRoundF16), scalarF32("SubScalarRoundF16", simd.SubScalarRoundF16),
		scalarF32("SubScalarRevRoundF16", simd.SubScalarRevRoundF16), scalarF32("MulScalarRoundF16", simd.MulScalarRoundF16),
		scalarF32("DivScalarRoundF16", simd.DivScalarRoundF16), scalarF32("DivScalarRevRoundF16", simd.DivScalarRevRoundF16),
		scalarF32("AddScalarRoundBF16", simd.AddScalarRoundBF16), scalarF32("SubScalarRoundBF16", simd.SubScalarRoundBF16),
		scalarF32("SubScalarRevRoundBF16", simd.SubScalarRevRoundBF16), scalarF32("MulScalarRoundBF16", simd.MulScalarRoundBF16),
		scalarF32("DivScalarRoundBF16", simd.DivScalarRoundBF16), scalarF32("DivScalarRevRoundBF16", simd.DivScalarRevRoundBF16),
	} {
		cs = append(cs, c...)
	}
	for _, fm := range []string{"F16", "BF16"} {
		for name, f := range storeBinary16[fm] {
			cs = append(cs, kcase{name: name + "To" + fm, dst: 2, ins: []int{4, 4},
				call: func(d []byte, in [][]byte) { f(view[uint16](d), f32s(in[0]), f32s(in[1])) }})
		}
		for name, f := range storeScalar16[fm] {
			for _, sc := range scalarF32(name+"To"+fm, nil) {
				s := sc.name[strings.Index(sc.name, "/s="):]
				v := scalarOf(s)
				cs = append(cs, kcase{name: name + "To" + fm + s, dst: 2, ins: []int{4},
					call: func(d []byte, in [][]byte) { f(view[uint16](d), f32s(in[0]), v) }})
			}
		}
	}
	return cs
}

// The kernels storing f16 or bf16 bits, by the op they compute.
var (
	storeBinary16 = map[string]map[string]func(dst []uint16, a, b []float32){
		"F16":  {"Add": simd.AddToF16, "Sub": simd.SubToF16, "Mul": simd.MulToF16, "Div": simd.DivToF16},
		"BF16": {"Add": simd.AddToBF16, "Sub": simd.SubToBF16, "Mul": simd.MulToBF16, "Div": simd.DivToBF16},
	}
	storeScalar16 = map[string]map[string]func(dst []uint16, a []float32, s float32){
		"F16": {"AddScalar": simd.AddScalarToF16, "SubScalar": simd.SubScalarToF16, "SubScalarRev": simd.SubScalarRevToF16,
			"MulScalar": simd.MulScalarToF16, "DivScalar": simd.DivScalarToF16, "DivScalarRev": simd.DivScalarRevToF16},
		"BF16": {"AddScalar": simd.AddScalarToBF16, "SubScalar": simd.SubScalarToBF16, "SubScalarRev": simd.SubScalarRevToBF16,
			"MulScalar": simd.MulScalarToBF16, "DivScalar": simd.DivScalarToBF16, "DivScalarRev": simd.DivScalarRevToBF16},
	}
)

// scalarOf parses the operand out of a case name's "/s=…" (scalarF32's).
func scalarOf(s string) float32 {
	var v float64
	switch s = strings.TrimPrefix(s, "/s="); s {
	case "NaN":
		v = math.NaN()
	case "-Inf":
		v = math.Inf(-1)
	default:
		fmt.Sscan(s, &v)
	}
	if s == "-0" {
		v = math.Copysign(0, -1)
	}
	return float32(v)
}

// TestStore16Composition: each kernel storing f16 or bf16 bits is its
// f32 op followed by F32ToF16 or F32ToBF16, at every tier.
func TestStore16Composition(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 16))
	const n = 1000
	x, y := make([]float32, n), make([]float32, n)
	genF32(r, asBytes(x))
	genF32(r, asBytes(y))
	narrow := map[string]func(dst []uint16, src []float32){"F16": simd.F32ToF16, "BF16": simd.F32ToBF16}
	bins := map[string]func(d, a, b []float32){"Add": simd.AddF32, "Sub": simd.SubF32, "Mul": simd.MulF32, "Div": simd.DivF32}
	scal := map[string]func(d, a []float32, s float32){
		"AddScalar": simd.AddScalarF32, "SubScalar": simd.SubScalarF32, "SubScalarRev": simd.SubScalarRevF32,
		"MulScalar": simd.MulScalarF32, "DivScalar": simd.DivScalarF32, "DivScalarRev": simd.DivScalarRevF32,
	}
	for _, tier := range simd.Available() {
		restore := simd.SetLevel(tier)
		for fm, nar := range narrow {
			tmp, want, got := make([]float32, n), make([]uint16, n), make([]uint16, n)
			for name, f := range bins {
				f(tmp, x, y)
				nar(want, tmp)
				storeBinary16[fm][name](got, x, y)
				if i := firstDiff(asBytes(got), asBytes(want)); i < 2*n {
					t.Fatalf("%v %sTo%s: element %d: %#04x, want %#04x", tier, name, fm, i/2, got[i/2], want[i/2])
				}
			}
			for name, f := range scal {
				for _, sv := range []float32{0.5, -3, 1e-40, 70000} {
					f(tmp, x, sv)
					nar(want, tmp)
					storeScalar16[fm][name](got, x, sv)
					if i := firstDiff(asBytes(got), asBytes(want)); i < 2*n {
						t.Fatalf("%v %sTo%s s=%g: element %d: %#04x, want %#04x", tier, name, fm, sv, i/2, got[i/2], want[i/2])
					}
				}
			}
		}
		restore()
	}
}

// TestFusedComposition checks each fused kernel against the kernels it
// stands for, run one after the other, at every tier.
func TestFusedComposition(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	const n = 1000
	x32, y32 := make([]float32, n), make([]float32, n)
	genF32(r, asBytes(x32))
	genF32(r, asBytes(y32))
	x64 := make([]float64, n)
	genF64(r, asBytes(x64))
	for _, tier := range simd.Available() {
		restore := simd.SetLevel(tier)
		for _, ab := range [][2]float32{{2.5, -0.75}, {negZero32, 0}, {1e-40, 3}} {
			want, got, gotNT := make([]float32, n), make([]float32, n), make([]float32, n)
			simd.MulScalarF32(want, x32, ab[0])
			simd.AddScalarF32(want, want, ab[1])
			simd.AffineF32(got, x32, ab[0], ab[1])
			simd.AffineNTF32(gotNT, x32, ab[0], ab[1])
			sameBits32(t, fmt.Sprintf("%v AffineF32%v", tier, ab), got, want)
			sameBits32(t, fmt.Sprintf("%v AffineNTF32%v", tier, ab), gotNT, want)
		}
		for _, ab := range [][2]float64{{2.5, -0.75}, {negZero64, 0}, {1e-310, 3}} {
			want, got, gotNT := make([]float64, n), make([]float64, n), make([]float64, n)
			simd.MulScalarF64(want, x64, ab[0])
			simd.AddScalarF64(want, want, ab[1])
			simd.AffineF64(got, x64, ab[0], ab[1])
			simd.AffineNTF64(gotNT, x64, ab[0], ab[1])
			sameBits64(t, fmt.Sprintf("%v AffineF64%v", tier, ab), got, want)
			sameBits64(t, fmt.Sprintf("%v AffineNTF64%v", tier, ab), gotNT, want)
		}
		type round struct {
			name  string
			round func([]float32)
		}
		for _, rd := range []round{{"F16", simd.RoundF16}, {"BF16", simd.RoundBF16}} {
			bins := map[string][2]func(d, a, b []float32){
				"Add": {simd.AddF32}, "Sub": {simd.SubF32}, "Mul": {simd.MulF32}, "Div": {simd.DivF32},
			}
			fused := map[string]func(d, a, b []float32){
				"AddF16": simd.AddRoundF16, "SubF16": simd.SubRoundF16, "MulF16": simd.MulRoundF16, "DivF16": simd.DivRoundF16,
				"AddBF16": simd.AddRoundBF16, "SubBF16": simd.SubRoundBF16, "MulBF16": simd.MulRoundBF16, "DivBF16": simd.DivRoundBF16,
			}
			for op, f := range bins {
				want, got := make([]float32, n), make([]float32, n)
				f[0](want, x32, y32)
				rd.round(want)
				fused[op+rd.name](got, x32, y32)
				sameBits32(t, fmt.Sprintf("%v %sRound%s", tier, op, rd.name), got, want)
			}
			scal := map[string]func(d, a []float32, s float32){
				"AddScalar": simd.AddScalarF32, "SubScalar": simd.SubScalarF32, "SubScalarRev": simd.SubScalarRevF32,
				"MulScalar": simd.MulScalarF32, "DivScalar": simd.DivScalarF32, "DivScalarRev": simd.DivScalarRevF32,
			}
			fusedScal := map[string]func(d, a []float32, s float32){
				"AddScalarF16": simd.AddScalarRoundF16, "SubScalarF16": simd.SubScalarRoundF16, "SubScalarRevF16": simd.SubScalarRevRoundF16,
				"MulScalarF16": simd.MulScalarRoundF16, "DivScalarF16": simd.DivScalarRoundF16, "DivScalarRevF16": simd.DivScalarRevRoundF16,
				"AddScalarBF16": simd.AddScalarRoundBF16, "SubScalarBF16": simd.SubScalarRoundBF16, "SubScalarRevBF16": simd.SubScalarRevRoundBF16,
				"MulScalarBF16": simd.MulScalarRoundBF16, "DivScalarBF16": simd.DivScalarRoundBF16, "DivScalarRevBF16": simd.DivScalarRevRoundBF16,
			}
			for op, f := range scal {
				for _, s := range []float32{0.5, -3, 1e-40} {
					want, got := make([]float32, n), make([]float32, n)
					f(want, x32, s)
					rd.round(want)
					fusedScal[op+rd.name](got, x32, s)
					sameBits32(t, fmt.Sprintf("%v %sRound%s s=%g", tier, op, rd.name, s), got, want)
				}
			}
		}
		restore()
	}
}

func sameBits32(t *testing.T, what string, got, want []float32) {
	t.Helper()
	for i := range want {
		if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
			t.Fatalf("%s: element %d: got %#08x, want %#08x", what, i, math.Float32bits(got[i]), math.Float32bits(want[i]))
		}
	}
}

func sameBits64(t *testing.T, what string, got, want []float64) {
	t.Helper()
	for i := range want {
		if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
			t.Fatalf("%s: element %d: got %#016x, want %#016x", what, i, math.Float64bits(got[i]), math.Float64bits(want[i]))
		}
	}
}

// TestAffineNTAlignment runs the non-temporal kernels on every element
// offset from a 64-byte boundary and many lengths, against the plain ones.
func TestAffineNTAlignment(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, tier := range simd.Available() {
		restore := simd.SetLevel(tier)
		for _, n := range []int{0, 1, 15, 16, 17, 63, 64, 65, 200, 1031} {
			for off := 0; off < 16; off++ {
				b := aligned(4*(n+off), 0)
				genF32(r, b)
				x := f32s(b)[off:]
				want, got := make([]float32, n), aligned(4*(n+off), 0)
				simd.AffineF32(want, x, 1.25, -3)
				simd.AffineNTF32(f32s(got)[off:], x, 1.25, -3)
				sameBits32(t, fmt.Sprintf("%v n=%d off=%d", tier, n, off), f32s(got)[off:], want)
			}
			for off := 0; off < 8; off++ {
				b := aligned(8*(n+off), 0)
				genF64(r, b)
				x := f64s(b)[off:]
				want, got := make([]float64, n), aligned(8*(n+off), 0)
				simd.AffineF64(want, x, 1.25, -3)
				simd.AffineNTF64(f64s(got)[off:], x, 1.25, -3)
				sameBits64(t, fmt.Sprintf("%v n=%d off=%d", tier, n, off), f64s(got)[off:], want)
			}
		}
		restore()
	}
}

// BenchmarkFused compares each fused kernel with the kernels it stands
// for, run one after the other, on one block in L1 and at the best tier:
//
//	go test ./internal/simd -run '^$' -bench Fused -count 10 | benchstat -col /impl -
func BenchmarkFused(b *testing.B) {
	const n = 2048 // the executor's block
	x, y := make([]float32, n), make([]float32, n)
	x64 := make([]float64, n)
	for i := range x {
		x[i], y[i] = float32(i%100)+0.5, float32(i%7)+1
		x64[i] = float64(x[i])
	}
	d, d64, h := make([]float32, n), make([]float64, n), make([]uint16, n)
	cases := []struct {
		name         string
		fused, steps func()
	}{
		{"AffineF32", func() { simd.AffineF32(d, x, 1.5, 0.25) },
			func() { simd.MulScalarF32(d, x, 1.5); simd.AddScalarF32(d, d, 0.25) }},
		{"AffineF64", func() { simd.AffineF64(d64, x64, 1.5, 0.25) },
			func() { simd.MulScalarF64(d64, x64, 1.5); simd.AddScalarF64(d64, d64, 0.25) }},
		{"AddRoundF16", func() { simd.AddRoundF16(d, x, y) },
			func() { simd.AddF32(d, x, y); simd.RoundF16(d) }},
		{"MulScalarRoundF16", func() { simd.MulScalarRoundF16(d, x, 0.5) },
			func() { simd.MulScalarF32(d, x, 0.5); simd.RoundF16(d) }},
		{"AddRoundBF16", func() { simd.AddRoundBF16(d, x, y) },
			func() { simd.AddF32(d, x, y); simd.RoundBF16(d) }},
		{"MulScalarToF16", func() { simd.MulScalarToF16(h, x, 0.5) },
			func() { simd.MulScalarF32(d, x, 0.5); simd.F32ToF16(h, d) }},
		{"AddToBF16", func() { simd.AddToBF16(h, x, y) },
			func() { simd.AddF32(d, x, y); simd.F32ToBF16(h, d) }},
	}
	for _, c := range cases {
		b.Run(c.name+"/impl=fused", func(b *testing.B) {
			for b.Loop() {
				c.fused()
			}
		})
		b.Run(c.name+"/impl=steps", func(b *testing.B) {
			for b.Loop() {
				c.steps()
			}
		})
	}
}
