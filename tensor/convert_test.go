package tensor

import (
	"math"
	"math/big"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/x448/float16"
)

// bigRound rounds an exact integer to a binary float of prec bits with
// big.Float's round-to-nearest-even (no exponent limits: fine for f32/f64 and
// for the ranges the 16-bit checks use it on).
func bigRound(v *big.Int, prec uint) float64 {
	f, _ := new(big.Float).SetPrec(prec).SetMode(big.ToNearestEven).SetInt(v).Float64()
	return f
}

func TestIntToFloatCorrectlyRounded(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	ints := []int64{0, 1, -1, math.MaxInt64, math.MinInt64, 1<<40 + 1<<32 + 1, 1<<53 + 1, 1<<24 + 1, 65519, 65520, 65521, -65520, 2049, 2051}
	for range 100000 {
		ints = append(ints, int64(r.Uint64())>>r.IntN(63))
	}
	for _, v := range ints {
		bv := big.NewInt(v)
		if got, want := float64(float32(v)), bigRound(bv, 24); got != want {
			t.Fatalf("f32(%d) = %v, want %v", v, got, want)
		}
		if got, want := float64(BFloat16(bf16Format.fromInt64(v)).Float32()), bigRound(bv, 8); got != want {
			t.Fatalf("bf16(%d) = %v, want %v", v, got, want)
		}
		want := bigRound(bv, 11)
		if math.Abs(want) >= 65520 {
			want = math.Copysign(math.Inf(1), want)
		}
		if got := float64(float16.Frombits(f16Format.fromInt64(v)).Float32()); got != want {
			t.Fatalf("f16(%d) = %v, want %v", v, got, want)
		}
		u := uint64(v)
		if got, want := float64(float32(u)), bigRound(new(big.Int).SetUint64(u), 24); got != want {
			t.Fatalf("f32(uint64 %d) = %v, want %v", u, got, want)
		}
		if got, want := float64(BFloat16(bf16Format.fromUint64(u)).Float32()), bigRound(new(big.Int).SetUint64(u), 8); got != want {
			t.Fatalf("bf16(uint64 %d) = %v, want %v", u, got, want)
		}
	}
}

func TestFloatToIntSaturates(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	i8 := []struct {
		in   float64
		want int8
	}{{nan, 0}, {inf, 127}, {-inf, -128}, {127.9, 127}, {128, 127}, {-128.9, -128}, {-129, -128}, {-1.9, -1}, {1.9, 1}, {-0.5, 0}, {1e300, 127}}
	for _, c := range i8 {
		if got := FloatToInt[int8](c.in); got != c.want {
			t.Errorf("int8(%v) = %d, want %d", c.in, got, c.want)
		}
	}
	u8 := []struct {
		in   float64
		want uint8
	}{{nan, 0}, {-1, 0}, {-0.9, 0}, {255.9, 255}, {256, 255}, {inf, 255}, {3.99, 3}}
	for _, c := range u8 {
		if got := FloatToInt[uint8](c.in); got != c.want {
			t.Errorf("uint8(%v) = %d, want %d", c.in, got, c.want)
		}
	}
	if got := FloatToInt[int64](9.3e18); got != math.MaxInt64 {
		t.Errorf("int64(9.3e18) = %d", got)
	}
	if got := FloatToInt[int64](-9.3e18); got != math.MinInt64 {
		t.Errorf("int64(-9.3e18) = %d", got)
	}
	if got := FloatToInt[int64](-9223372036854775808); got != math.MinInt64 {
		t.Errorf("int64(-2^63) = %d", got)
	}
	if got := FloatToInt[uint64](1.9e19); got != math.MaxUint64 {
		t.Errorf("uint64(1.9e19) = %d", got)
	}
	if got := FloatToInt[uint64](1.8e19); got != 18000000000000000000 {
		t.Errorf("uint64(1.8e19) = %d", got)
	}
	if got := FloatToInt[int32](-2147483648.5); got != math.MinInt32 {
		t.Errorf("int32(-2^31-0.5) = %d", got)
	}
}

func TestAstype(t *testing.T) {
	src, _ := FromSlice([]float32{-1.5, 0.5, 2.5, 300, float32(math.NaN()), float32(math.Inf(-1))})
	before := src.Clone()
	cases := []struct {
		d    DType
		want string
	}{
		{I8, "i8[6] [-1 0 2 127 0 -128]"},
		{U8, "u8[6] [0 0 2 255 0 0]"},
		{Bool, "bool[6] [true true true true true true]"},
		{F16, "f16[6] [-1.5 0.5 2.5 300 nan -inf]"},
		{BF16, "bf16[6] [-1.5 0.5 2.5 300 nan -inf]"},
		{C64, "c64[6] [(-1.5+0j) (0.5+0j) (2.5+0j) (300+0j) (nan+0j) (-inf+0j)]"},
		{F64, "f64[6] [-1.5 0.5 2.5 300 nan -inf]"},
	}
	for _, c := range cases {
		got := src.Astype(c.d)
		if got.String() != c.want {
			t.Errorf("Astype(%s) = %s, want %s", c.d, got, c.want)
		}
	}
	if !Equal(src, before) {
		t.Error("Astype modified its input")
	}
	// int → int wraps; complex → real keeps the real part; bool → 0/1.
	ints, _ := FromSlice([]int16{-129, 255, 256, 1000})
	if got := ints.Astype(I8).String(); got != "i8[4] [127 -1 0 -24]" {
		t.Errorf("i16 → i8 = %s", got)
	}
	cs, _ := FromSlice([]complex128{complex(2.7, 9), complex(-3.5, 1)})
	if got := cs.Astype(I32).String(); got != "i32[2] [2 -3]" {
		t.Errorf("c128 → i32 = %s", got)
	}
	bs, _ := FromSlice([]bool{true, false})
	if got := bs.Astype(F16).String(); got != "f16[2] [1 0]" {
		t.Errorf("bool → f16 = %s", got)
	}
	// Every pair converts, and converting back from a wider type is exact
	// for small integers.
	small := Must(Arange(I8, 5))
	for _, d := range AllDTypes() {
		if d == Bool || d == F8E8M0FNU || d == I2 || d == U2 { // f8e8m0fnu has no 0 nor 3; i2, u2 no 4
			continue
		}
		back := small.Astype(d).Astype(I8)
		if !Equal(back, small) {
			t.Errorf("i8 → %s → i8 = %s", d, back)
		}
	}
}

func TestConvertSliceErrors(t *testing.T) {
	if err := ConvertSlice(make([]float32, 2), make([]int8, 3)); err == nil || !strings.Contains(err.Error(), "lengths differ") {
		t.Errorf("length mismatch: %v", err)
	}
	if err := ConvertSlice(make([]int, 2), make([]int8, 2)); err == nil {
		t.Error("[]int is not a storage slice: want an error")
	}
	// Long slices cross the block boundary.
	n := 3*convBlock + 17
	src := make([]uint64, n)
	for i := range src {
		src[i] = uint64(i) * 1e15
	}
	dst := make([]Float16, n)
	if err := ConvertSlice(dst, src); err != nil {
		t.Fatal(err)
	}
	for i := range dst {
		if want := Float64ToF16(float64(src[i])); dst[i] != want && !(i > 0 && src[i] > 1<<53) {
			t.Fatalf("element %d: %v, want %v", i, dst[i], want)
		}
	}
}

func TestArrayConstruction(t *testing.T) {
	if _, err := FromSlice([]float32{1, 2, 3}, 2, 2); err == nil {
		t.Error("FromSlice 3 elements as [2,2]: want an error")
	} else if se, ok := err.(*ShapeError); !ok || !strings.Contains(se.Error(), "needs 4 elements, the data has 3") {
		t.Errorf("error %v", err)
	}
	if _, err := FromSlice([]int8{}, -1); err == nil {
		t.Error("negative dimension: want an error")
	}
	a, err := FromSlice([]int8(nil), 0)
	if err != nil || a.Size() != 0 {
		t.Errorf("empty array: %v, %v", a, err)
	}
	s := Scalar(float32(2.5))
	if s.Rank() != 0 || s.Size() != 1 || s.String() != "f32[] 2.5" {
		t.Errorf("scalar = %s", s)
	}
	if _, err := New(F32, []int{2}, []float64{1, 2}); err == nil {
		t.Error("New with the wrong Go type: want an error")
	}
	data := []float64{1, 2, 3, 4, 5, 6}
	m, _ := FromSlice(data, 2, 3)
	v, err := m.Reshape(3, -1)
	if err != nil || v.String() != "f64[3,2] [[1 2] [3 4] [5 6]]" {
		t.Errorf("reshape = %v, %v", v, err)
	}
	data[0] = 9 // views share the caller's data
	if v.FormatElem(0) != "9" {
		t.Error("Reshape copied instead of viewing")
	}
	if _, err := m.Reshape(4, -1); err == nil {
		t.Error("reshape 6 → [4,-1]: want an error")
	}
	sh := m.Shape()
	sh[0] = 100
	if m.Shape()[0] != 2 {
		t.Error("Shape returned the array's own slice")
	}
	if _, err := Data[float32](m); err == nil {
		t.Error("Data[float32] of an f64 array: want an error")
	}
	z, _ := Zeros(C64, 2)
	if z.String() != "c64[2] [(0+0j) (0+0j)]" {
		t.Errorf("zeros = %s", z)
	}
	for _, d := range AllDTypes() {
		if got := Must(Arange(d, 3)).DType(); got != d {
			t.Errorf("Arange(%s) has dtype %s", d, got)
		}
	}
}

func TestFormatShortestAtOwnPrecision(t *testing.T) {
	cases := []struct {
		a    *Array
		want string
	}{
		{Scalar(Float64ToF16(0.1)), "0.1"},
		{Scalar(Float64ToBF16(0.1)), "0.1"},
		{Scalar(float32(0.1)), "0.1"},
		{Scalar(Float64ToF16(65504)), "65500"},
		{Scalar(Float64ToF16(1.0 / 3)), "0.3333"},
		{Scalar(float64(1) / 3), "0.3333333333333333"},
		{Scalar(Float64ToF16(math.Inf(-1))), "-inf"},
		{Scalar(complex64(complex(1, -2))), "(1-2j)"},
		{Scalar(true), "true"},
	}
	for _, c := range cases {
		if got := c.a.FormatElem(0); got != c.want {
			t.Errorf("FormatElem(%s) = %q, want %q", c.a.DType(), got, c.want)
		}
	}
}

func TestDTypeNames(t *testing.T) {
	for _, d := range AllDTypes() {
		for _, name := range []string{d.String(), d.LongName(), strings.ToUpper(d.LongName())} {
			got, err := ParseDType(name)
			if err != nil || got != d {
				t.Errorf("ParseDType(%q) = %v, %v", name, got, err)
			}
		}
	}
	if _, err := ParseDType("f17"); err == nil {
		t.Error("ParseDType(f17): want an error")
	}
	if d, _ := ParseDType("i8"); d != I8 {
		t.Error("i8 must be int8, never NumPy's int64 code")
	}
	sizes := map[DType]int{Bool: 1, U16: 2, I64: 8, BF16: 2, F16: 2, C64: 8, C128: 16}
	for d, n := range sizes {
		if d.Size() != n {
			t.Errorf("%s.Size() = %d, want %d", d, d.Size(), n)
		}
	}
	if !F16.IsFloat() || !BF16.IsInexact() || C64.RealPart() != F32 || F16.ComplexOf() != C64 || !U8.IsUnsigned() || Bool.IsInteger() {
		t.Error("dtype kinds are wrong")
	}
}
