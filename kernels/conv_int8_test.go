package kernels

import (
	"fmt"
	"slices"
	"testing"

	"github.com/kiln-go/kiln/internal/simd"
	"github.com/kiln-go/kiln/lower"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// compileConvOf traces fn on an NHWC input and an HWIO kernel of the
// given dtypes, lowers it and compiles it on the default CPU backend.
func compileConvOf(t *testing.T, fn func([]trace.Value) []trace.Value, ls, rs []int, ld, rd tensor.DType) *cpuExec {
	t.Helper()
	return compileShapes(t, fn, []tensor.DType{ld, rd}, ls, rs)
}

// TestInt8ConvPath: convolutions of byte operands run on the int8 GEMM
// (convKernel.i8) in every simd.Mode, reading past the converts a
// preferred_element_type lowers to — whose kernels are then dropped,
// unless a converted operand is an output too — with the lhs read as
// uint8 (aUnsigned) and a uint8 rhs corrected (bFlip) only where the
// result is wider than a byte; 64-bit and float results keep the plain
// paths. The results are the plain wrapping sums, computed here.
func TestInt8ConvPath(t *testing.T) {
	ls, rs := []int{2, 5, 4, 3}, []int{3, 3, 3, 5}
	opts := trace.ConvOptions{PaddingMode: "SAME", DimensionNumbers: [3]string{"NHWC", "HWIO", "NHWC"}}
	cases := []struct {
		l, r, pref  tensor.DType // pref 0: none
		alsoOut     bool         // the converted lhs is an output too
		i8, au, bf  bool
		dropped     int // convert kernels dropped
		widthResult tensor.DType
	}{
		{tensor.I8, tensor.I8, tensor.I32, false, true, false, false, 2, tensor.I32},
		{tensor.I8, tensor.I8, tensor.I32, true, true, false, false, 1, tensor.I32},
		{tensor.U8, tensor.I8, tensor.I32, false, true, true, false, 2, tensor.I32},
		{tensor.I8, tensor.U8, tensor.I32, false, true, false, true, 2, tensor.I32},
		{tensor.U8, tensor.U8, tensor.U16, false, true, true, true, 2, tensor.U16},
		{tensor.I8, tensor.I8, 0, false, true, false, false, 0, tensor.I8},
		{tensor.U8, tensor.U8, 0, false, true, true, false, 0, tensor.U8},
		{tensor.I8, tensor.I8, tensor.I64, false, false, false, false, 0, tensor.I64},
		{tensor.I8, tensor.I8, tensor.F32, false, false, false, false, 0, tensor.F32},
	}
	for _, mode := range simd.Modes() {
		restore := mode.Set()
		for _, c := range cases {
			name := fmt.Sprintf("%v %v×%v→%v out=%v", mode, c.l, c.r, c.pref, c.alsoOut)
			fn := func(a []trace.Value) []trace.Value {
				var o []trace.DotOption
				if c.pref != 0 {
					o = append(o, trace.PreferredElementType(c.pref))
				}
				outs := []trace.Value{trace.ConvGeneralDilated(a[0], a[1], opts, o...)}
				if c.alsoOut {
					outs = append(outs, a[0].Astype(c.pref))
				}
				return outs
			}
			x := compileConvOf(t, fn, ls, rs, c.l, c.r)
			var conv *convKernel
			for _, k := range x.kernels {
				if ck, ok := k.(*convKernel); ok {
					conv = ck
				}
			}
			if conv == nil || conv.i8 != c.i8 || conv.aUnsigned != c.au || conv.bFlip != c.bf {
				t.Fatalf("%s: conv kernel %+v, want i8=%v aUnsigned=%v bFlip=%v", name, conv, c.i8, c.au, c.bf)
			}
			if _, vnni := simd.GemmI8(); c.i8 && conv.i8Float != map[bool]tensor.DType{true: 0, false: tensor.F32}[vnni] {
				t.Errorf("%s: the GEMM's sums in %v, want f32 exactly where the VNNI kernel is missing", name, conv.i8Float)
			}
			if got, want := len(x.kernels), len(x.m.Fusions)-c.dropped; got != want {
				t.Errorf("%s: %d kernels for %d fusions, want %d", name, got, len(x.m.Fusions), want)
			}
			if !c.i8 {
				continue
			}
			// Operands whose bytes are the same for both signednesses.
			a8, b8 := make([]int8, trace.ShapeSize(ls)), make([]int8, trace.ShapeSize(rs))
			for i := range a8 {
				a8[i] = [4]int8{-128, 127, -1, int8(i*37 + 11)}[i%4]
			}
			for i := range b8 {
				b8[i] = [4]int8{-128, int8(i*53 - 7), -128, 127}[i%4]
			}
			a, _ := tensor.FromSlice(a8, ls...)
			b, _ := tensor.FromSlice(b8, rs...)
			outs, err := x.Run([]*tensor.Array{a.Astype(c.l), b.Astype(c.r)})
			if err != nil {
				t.Fatal(err)
			}
			want := convNHWCSame(a8, b8, ls, rs, c.l, c.r)
			n, h, w, co := ls[0], ls[1], ls[2], rs[3]
			wantArr, _ := tensor.FromSlice(want, n, h, w, co)
			gotI, _ := tensor.Data[int64](outs[0].Astype(tensor.I64))
			wantI, _ := tensor.Data[int64](wantArr.Astype(c.widthResult).Astype(tensor.I64))
			if outs[0].DType() != c.widthResult || !slices.Equal(gotI, wantI) {
				t.Errorf("%s: %v result differs from the int64 loop wrapped to %v", name, outs[0].DType(), c.widthResult)
			}
		}
		restore()
	}
}

// convNHWCSame is the NHWC × HWIO SAME convolution of a8 (shape ls) and
// b8 (shape rs), their bytes read as dtypes l and r (int8 or uint8),
// exactly, in int64.
func convNHWCSame(a8, b8 []int8, ls, rs []int, l, r tensor.DType) []int64 {
	val := func(v int8, d tensor.DType) int64 {
		if d == tensor.U8 {
			return int64(uint8(v))
		}
		return int64(v)
	}
	n, h, w, ci, kh, kw, co := ls[0], ls[1], ls[2], ls[3], rs[0], rs[1], rs[3]
	want := make([]int64, n*h*w*co)
	for bi := range n {
		for y := range h {
			for xx := range w {
				for o := range co {
					var s int64
					for dy := range kh {
						for dx := range kw {
							iy, ix := y+dy-kh/2, xx+dx-kw/2
							if iy < 0 || iy >= h || ix < 0 || ix >= w {
								continue
							}
							for i := range ci {
								s += val(a8[((bi*h+iy)*w+ix)*ci+i], l) * val(b8[((dy*kw+dx)*ci+i)*co+o], r)
							}
						}
					}
					want[((bi*h+y)*w+xx)*co+o] = s
				}
			}
		}
	}
	return want
}

// An int8 convolution whose fused epilogue reads a converted operand too
// (conv(x, w) + x.astype(i32), as many features out as in) keeps that
// convert's kernel — the GEMM reads past the convert, the epilogue does
// not — in every simd.Mode, and adds the widened x.
func TestInt8ConvEpilogueReadsConvert(t *testing.T) {
	ls, rs := []int{2, 5, 4, 6}, []int{3, 3, 6, 6}
	opts := trace.ConvOptions{PaddingMode: "SAME", DimensionNumbers: [3]string{"NHWC", "HWIO", "NHWC"}}
	a8, b8 := make([]int8, trace.ShapeSize(ls)), make([]int8, trace.ShapeSize(rs))
	for i := range a8 {
		a8[i] = [3]int8{-128, int8(i*29 + 3), 127}[i%3]
	}
	for i := range b8 {
		b8[i] = [3]int8{-128, -1, int8(i*41 - 9)}[i%3]
	}
	want := convNHWCSame(a8, b8, ls, rs, tensor.I8, tensor.I8)
	for i, v := range a8 {
		want[i] = int64(int32(want[i]) + int32(v))
	}
	a, _ := tensor.FromSlice(a8, ls...)
	b, _ := tensor.FromSlice(b8, rs...)
	for _, mode := range simd.Modes() {
		restore := mode.Set()
		x := compileConvOf(t, func(v []trace.Value) []trace.Value {
			return []trace.Value{trace.ConvGeneralDilated(v[0], v[1], opts, trace.PreferredElementType(tensor.I32)).Add(v[0].Astype(tensor.I32))}
		}, ls, rs, tensor.I8, tensor.I8)
		if !slices.ContainsFunc(x.m.Fusions, (*lower.Fusion).Epilogue) {
			t.Fatalf("the add is not the convolution's epilogue:\n%s", x.m.FusedString())
		}
		outs, err := x.Run([]*tensor.Array{a, b})
		if err != nil {
			t.Fatal(err)
		}
		got, _ := tensor.Data[int64](outs[0].Astype(tensor.I64))
		if !slices.Equal(got, want) {
			t.Errorf("%v: conv(x, w) + x differs from the int64 loop", mode)
		}
		restore()
	}
}

// Without the VNNI kernel, a byte convolution whose sums could pass 2²⁴
// (K · 255 · 255 > 2²⁴) runs on the f64 GEMM, exact; one whose sums
// cannot on the f32 GEMM.
func TestInt8ConvFloatRoute(t *testing.T) {
	defer simd.SetVNNI(false)()
	opts := trace.ConvOptions{DimensionNumbers: [3]string{"NWC", "WIO", "NWC"}}
	for _, c := range []struct {
		d    tensor.DType
		cin  int
		want tensor.DType
	}{{tensor.U8, 258, tensor.F32}, {tensor.U8, 259, tensor.F64}, {tensor.I8, 1024, tensor.F32}, {tensor.I8, 1025, tensor.F64}} {
		x := compileConvOf(t, func(a []trace.Value) []trace.Value {
			return []trace.Value{trace.ConvGeneralDilated(a[0], a[1], opts, trace.PreferredElementType(tensor.I32))}
		}, []int{1, 3, c.cin}, []int{1, c.cin, 2}, c.d, c.d)
		found := false
		for _, k := range x.kernels {
			if ck, ok := k.(*convKernel); ok {
				found = true
				if !ck.i8 || ck.i8Float != c.want {
					t.Errorf("%v, K = %d: i8=%v on %v, want %v", c.d, c.cin, ck.i8, ck.i8Float, c.want)
				}
			}
		}
		if !found {
			t.Errorf("%v, K = %d: no conv kernel", c.d, c.cin)
		}
	}
}

// rowSumBytes against a plain loop, signed and unsigned, on lengths
// around its word and 128-word rounds, all bytes 0x80 or 0xff.
func TestRowSumBytes(t *testing.T) {
	for _, n := range []int{0, 1, 7, 8, 9, 1023, 1024, 1025, 3000} {
		for _, fill := range []int8{-128, -1, 127} {
			row := make([]int8, n)
			for i := range row {
				row[i] = fill
				if i%5 == 3 {
					row[i] = int8(i)
				}
			}
			for _, u := range []bool{false, true} {
				want := 0
				for _, v := range row {
					if u {
						want += int(uint8(v))
					} else {
						want += int(v)
					}
				}
				if got := rowSumBytes(row, u); got != want {
					t.Errorf("n=%d fill=%d unsigned=%v: %d, want %d", n, fill, u, got, want)
				}
			}
		}
	}
}
