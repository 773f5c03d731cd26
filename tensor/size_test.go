package tensor

import (
	"errors"
	"math"
	"math/big"
	"slices"
	"strings"
	"testing"
)

func TestShapeSize(t *testing.T) {
	for _, c := range []struct {
		shape []int
		want  int
		err   string // "" ok, "shape" *ShapeError, "size" *SizeError
	}{
		{nil, 1, ""},
		{[]int{}, 1, ""},
		{[]int{2, 3, 4}, 24, ""},
		{[]int{0, 5}, 0, ""},
		{[]int{math.MaxInt}, math.MaxInt, ""},
		{[]int{math.MaxInt, 1, 0}, 0, ""},
		{[]int{2, -1}, 0, "shape"},
		{[]int{1 << 32, 1 << 32}, 0, "size"},
		{[]int{1 << 40, 1 << 40, 2, 3}, 0, "size"},
		{[]int{math.MaxInt, 2}, 0, "size"},
		// NumPy's rule: the nonzero dimensions must fit even beside a 0,
		// so every stride of a valid shape fits.
		{[]int{0, 1 << 40, 1 << 40}, 0, "size"},
	} {
		n, err := ShapeSize(c.shape)
		var se *ShapeError
		var ze *SizeError
		switch {
		case c.err == "" && (err != nil || n != c.want):
			t.Errorf("ShapeSize(%v) = %d, %v; want %d", c.shape, n, err, c.want)
		case c.err == "shape" && !errors.As(err, &se):
			t.Errorf("ShapeSize(%v) = %d, %v; want a *ShapeError", c.shape, n, err)
		case c.err == "size" && (!errors.As(err, &ze) || !slices.Equal(ze.Shape, c.shape)):
			t.Errorf("ShapeSize(%v) = %d, %v; want a *SizeError naming the shape", c.shape, n, err)
		}
	}
}

func TestByteSize(t *testing.T) {
	if n, err := ByteSize(C128, []int{3, 5}); n != 240 || err != nil {
		t.Errorf("ByteSize(c128, [3,5]) = %d, %v", n, err)
	}
	// The element count fits, the bytes do not.
	n, err := ByteSize(C128, []int{1 << 60})
	var ze *SizeError
	if !errors.As(err, &ze) || ze.DType != C128 || !strings.Contains(err.Error(), "18446744073709551616 bytes of c128") {
		t.Errorf("ByteSize(c128, [2^60]) = %d, %v", n, err)
	}
	if _, err := ByteSize(DType(99), []int{1}); err == nil {
		t.Error("ByteSize of an invalid dtype: no error")
	}
}

// TestConstructorsRefuseHugeShapes: before checked sizes, FromSlice of an
// empty slice as [2^32, 2^32] succeeded (the size wrapped to 0) and Zeros
// of it returned an array with no data.
func TestConstructorsRefuseHugeShapes(t *testing.T) {
	huge := []int{1 << 32, 1 << 32}
	for name, f := range map[string]func() (*Array, error){
		"FromSlice": func() (*Array, error) { return FromSlice([]float32{}, huge...) },
		"New":       func() (*Array, error) { return New(F32, huge, []float32{}) },
		"Zeros":     func() (*Array, error) { return Zeros(F32, huge...) },
		"Reshape":   func() (*Array, error) { return Must(Zeros(F32, 0)).Reshape(0, 1<<32, 1<<32) },
		"Arange":    func() (*Array, error) { return Arange(F64, math.MaxInt/4) },
	} {
		a, err := f()
		var ze *SizeError
		if !errors.As(err, &ze) || ze.Op != name {
			t.Errorf("%s: %v, %v; want a *SizeError from %s", name, a, err, name)
			continue
		}
		if !strings.Contains(err.Error(), "shape [") {
			t.Errorf("%s: %q does not name the shape", name, err)
		}
	}
	if _, err := Arange(F32, -1); err == nil {
		t.Error("Arange(-1): no error")
	}
	if _, err := Must(Zeros(F32, 6)).Reshape(4, -1); err == nil {
		t.Error("Reshape of 6 elements to [4,-1]: no error")
	}
	if a, err := Must(Zeros(F32, 6)).Reshape(-1, 3); err != nil || !a.HasShape([]int{2, 3}) {
		t.Errorf("Reshape(-1, 3) = %v, %v", a, err)
	}
}

func TestAllocLimit(t *testing.T) {
	old := SetMaxAlloc(1000)
	defer SetMaxAlloc(old)
	if MaxAlloc() != 1000 {
		t.Fatalf("MaxAlloc() = %d after SetMaxAlloc(1000)", MaxAlloc())
	}
	if _, err := Zeros(F32, 250); err != nil {
		t.Errorf("Zeros 1000 bytes under a 1000-byte limit: %v", err)
	}
	a, err := Zeros(F32, 5, 51)
	var ze *SizeError
	if !errors.As(err, &ze) || ze.Limit != 1000 || !slices.Equal(ze.Shape, []int{5, 51}) || a != nil {
		t.Fatalf("Zeros 1020 bytes under a 1000-byte limit: %v, %v", a, err)
	}
	if !strings.Contains(err.Error(), MaxAllocEnv) {
		t.Errorf("%q does not say how to raise the limit", err)
	}
	// Wrapping an existing slice allocates nothing: no limit.
	if _, err := FromSlice(make([]float32, 300)); err != nil {
		t.Errorf("FromSlice over the limit: %v", err)
	}
	SetMaxAlloc(0)
	if MaxAlloc() != math.MaxInt {
		t.Errorf("SetMaxAlloc(0) leaves %d, want no limit", MaxAlloc())
	}
}

func TestMaxAllocEnv(t *testing.T) {
	phys := physicalMemory()
	for _, c := range []struct {
		env  string
		want int // -1: an error
	}{
		{"1000", 1000},
		{"12GiB", 12 << 30},
		{"12 gib", 12 << 30},
		{"500MB", 500e6},
		{"1e9", 1e9},
		{"1.5k", 1536},
		{"off", math.MaxInt},
		{"1e30", math.MaxInt},
		{"12 gigs", -1},
		{"-5", -1},
		{"0", -1},
		{"150%", -1},
	} {
		t.Setenv(MaxAllocEnv, c.env)
		got := envLimit()
		if (c.want < 0) != (got.err != nil) || (c.want >= 0 && got.limit != c.want) {
			t.Errorf("%s=%q: limit %d, err %v; want %d", MaxAllocEnv, c.env, got.limit, got.err, c.want)
		}
	}
	if phys > 0 {
		t.Setenv(MaxAllocEnv, "50%")
		if got := envLimit(); got.err != nil || got.limit != phys/2 {
			t.Errorf("50%%: %d, %v; want %d", got.limit, got.err, phys/2)
		}
	}
	t.Setenv(MaxAllocEnv, "")
	if got := envLimit(); got.err != nil || got.limit <= 0 {
		t.Errorf("default limit %d, %v", got.limit, got.err)
	}
	// A malformed value is reported by every allocation, naming the variable.
	t.Setenv(MaxAllocEnv, "lots")
	prev := limitNow.Swap(nil)
	defer limitNow.Store(prev)
	if _, err := Zeros(F32, 1); err == nil || !strings.Contains(err.Error(), MaxAllocEnv+`="lots"`) {
		t.Errorf("Zeros under a malformed %s: %v", MaxAllocEnv, err)
	}
}

func TestStringOfInvalidArrays(t *testing.T) {
	var nilArray *Array
	if s := nilArray.String(); s != "<nil>" {
		t.Errorf("nil array prints %q", s)
	}
	if s := (&Array{}).String(); !strings.Contains(s, "invalid") {
		t.Errorf("zero Array prints %q", s)
	}
	for _, c := range []struct {
		shape []int
		want  string
	}{
		{[]int{1 << 12, 1 << 12}, "f32[4096,4096] (16777216 elements)"},
		{[]int{2, 0}, "f32[2,0] [[] []]"},
		// Empty, but printing a bracket per row would never end.
		{[]int{math.MaxInt / 4, 0}, "f32[2305843009213693951,0] (0 elements)"},
	} {
		if s := Must(Zeros(F32, c.shape...)).String(); s != c.want {
			t.Errorf("%v prints %q, want %q", c.shape, s, c.want)
		}
	}
}

// FuzzShapes checks the size functions and the constructors on arbitrary
// shapes: no panic, and either the exact size (compared with big.Int
// arithmetic) or a typed error.
func FuzzShapes(f *testing.F) {
	f.Add(int64(2), int64(3), int64(0), int64(0), uint8(2), uint8(F32))
	f.Add(int64(1<<32), int64(1<<32), int64(1), int64(1), uint8(2), uint8(F32))
	f.Add(int64(0), int64(1<<40), int64(1<<40), int64(1), uint8(3), uint8(I8))
	f.Add(int64(-1), int64(3), int64(1), int64(1), uint8(2), uint8(C128))
	f.Add(int64(math.MaxInt64), int64(1), int64(1), int64(1), uint8(4), uint8(Bool))
	old := SetMaxAlloc(1 << 20) // the fuzzer must not allocate much
	defer SetMaxAlloc(old)
	f.Fuzz(func(t *testing.T, d0, d1, d2, d3 int64, rank, dt uint8) {
		shape := []int{int(d0), int(d1), int(d2), int(d3)}[:rank%5]
		d := DType(dt % NumDTypes)
		exact, neg := big.NewInt(1), false
		for _, n := range shape {
			neg = neg || n < 0
			if n > 0 {
				exact.Mul(exact, big.NewInt(int64(n)))
			}
		}
		fits := !neg && exact.IsInt64() && exact.Int64() <= math.MaxInt
		n, err := ShapeSize(shape)
		if fits != (err == nil) {
			t.Fatalf("ShapeSize(%v) = %d, %v; fits %v", shape, n, err, fits)
		}
		var se *ShapeError
		var ze *SizeError
		if err != nil && !errors.As(err, &se) && !errors.As(err, &ze) {
			t.Fatalf("ShapeSize(%v): untyped error %v", shape, err)
		}
		if fits {
			want := exact.Int64()
			for _, m := range shape {
				if m == 0 {
					want = 0
				}
			}
			if int64(n) != want {
				t.Fatalf("ShapeSize(%v) = %d, want %d", shape, n, want)
			}
		}
		bytes := new(big.Int).Mul(exact, big.NewInt(int64(d.Size())))
		nb, err := ByteSize(d, shape)
		if bfits := !neg && bytes.IsInt64() && bytes.Int64() <= math.MaxInt; bfits != (err == nil) || (err == nil && nb != n*d.Size()) {
			t.Fatalf("ByteSize(%s, %v) = %d, %v", d, shape, nb, err)
		}
		a, err := Zeros(d, shape...)
		if err == nil && (a.Size() != n || MakeSlice(d, 0) == nil || a.String() == "") {
			t.Fatalf("Zeros(%s, %v): size %d, want %d", d, shape, a.Size(), n)
		}
		if err != nil && !errors.As(err, &se) && !errors.As(err, &ze) {
			t.Fatalf("Zeros(%v): untyped error %v", shape, err)
		}
		if _, err := FromSlice([]float32{}, shape...); err == nil && n != 0 && len(shape) > 0 {
			t.Fatalf("FromSlice of no data as %v succeeded", shape)
		}
		if r, err := Must(Zeros(Bool, 0)).Reshape(shape...); err == nil && r.Size() != 0 {
			t.Fatalf("Reshape of no data to %v: size %d", shape, r.Size())
		}
	})
}
