package tensor

import (
	"bufio"
	"hash/fnv"
	"math"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/kiln-go/kiln/internal/longtest"
)

// mlDtypesGolden is testdata/mldtypes/float8_golden.txt: what ml_dtypes'
// own C++ conversions (float8.h, mxfloat.h; gen.cc beside the file says
// how it was made) give for every format — each encoding widened to
// float32, and FNV-1a hashes of the conversions of every 4099th float32
// pattern ("sample"), of all 2³² ("full"), and of the midpoints between
// adjacent values and their neighbours, from float32 ("ties32") and
// float64 ("ties64"). Python and NumPy are not needed to run it.
type mlDtypesGolden struct {
	decode map[string][]uint32
	hash   map[string]uint64 // "sample f8e4m3fn" → hash
}

var readGolden = sync.OnceValues(func() (*mlDtypesGolden, error) {
	file, err := os.Open("testdata/mldtypes/float8_golden.txt")
	if err != nil {
		return nil, err
	}
	defer file.Close()
	g := &mlDtypesGolden{decode: map[string][]uint32{}, hash: map[string]uint64{}}
	sc := bufio.NewScanner(file)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		switch {
		case len(fields) == 0 || strings.HasPrefix(fields[0], "#"):
		case fields[0] == "decode" && len(fields) == 4:
			v, err := strconv.ParseUint(fields[3], 16, 32)
			if err != nil {
				return nil, err
			}
			g.decode[fields[1]] = append(g.decode[fields[1]], uint32(v))
		case len(fields) == 3:
			v, err := strconv.ParseUint(fields[2], 16, 64)
			if err != nil {
				return nil, err
			}
			g.hash[fields[0]+" "+fields[1]] = v
		}
	}
	return g, sc.Err()
})

func golden(t *testing.T) *mlDtypesGolden {
	t.Helper()
	g, err := readGolden()
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// TestFloatFormatMLDtypesDecode widens every encoding as ml_dtypes does,
// bit for bit (NaN signs included).
func TestFloatFormatMLDtypesDecode(t *testing.T) {
	g := golden(t)
	for i := range NumFloatFormats {
		f := FloatFormat(i)
		want := g.decode[f.String()]
		if len(want) != 1<<f.Bits() {
			t.Fatalf("%s: golden has %d encodings, want %d", f, len(want), 1<<f.Bits())
		}
		for b, w := range want {
			if got := math.Float32bits(f.ToFloat32(uint8(b))); got != w {
				t.Errorf("%s %#02x: %#08x, ml_dtypes %#08x", f, b, got, w)
			}
		}
	}
}

// sweepHash hashes the conversions of the float32 patterns 0, step, 2·step,
// … below 2³², as gen.cc does.
func sweepHash(f FloatFormat, step uint64) uint64 {
	h := fnv.New64a()
	buf := make([]byte, 0, 1<<16)
	for u := uint64(0); u < 1<<32; u += step {
		buf = append(buf, f.FromFloat32(math.Float32frombits(uint32(u))))
		if len(buf) == cap(buf) {
			h.Write(buf)
			buf = buf[:0]
		}
	}
	h.Write(buf)
	return h.Sum64()
}

// tieHashes hashes the conversions of every midpoint between adjacent
// finite non-negative values of f, and its neighbours toward 0 and away,
// each with both signs, from float32 and from float64, as gen.cc does.
func tieHashes(f FloatFormat) (h32, h64 uint64) {
	var vals []float64
	for b := range 1 << f.Bits() {
		v := f.ToFloat64(uint8(b))
		if (!f.Signed() || b < 1<<(f.Bits()-1)) && !math.IsNaN(v) && !math.IsInf(v, 0) {
			vals = append(vals, v)
		}
	}
	a, b := fnv.New64a(), fnv.New64a()
	for i := range len(vals) - 1 {
		m := (vals[i] + vals[i+1]) / 2
		for _, x := range []float64{m, math.Nextafter(m, 0), math.Nextafter(m, math.Inf(1))} {
			b.Write([]byte{f.FromFloat64(x), f.FromFloat64(-x)})
		}
		mf := float32(m)
		for _, x := range []float32{mf, math.Nextafter32(mf, 0), math.Nextafter32(mf, float32(math.Inf(1)))} {
			a.Write([]byte{f.FromFloat32(x), f.FromFloat32(-x)})
		}
	}
	return a.Sum64(), b.Sum64()
}

// TestFloatFormatMLDtypes converts every 4099th float32 pattern and every
// midpoint neighbourhood (float32 and float64) to every format and
// compares with ml_dtypes' conversions.
func TestFloatFormatMLDtypes(t *testing.T) {
	g := golden(t)
	for i := range NumFloatFormats {
		f := FloatFormat(i)
		if got, want := sweepHash(f, 4099), g.hash["sample "+f.String()]; got != want {
			t.Errorf("%s: every 4099th float32 hashes to %016x, ml_dtypes %016x", f, got, want)
		}
		h32, h64 := tieHashes(f)
		if want := g.hash["ties32 "+f.String()]; h32 != want {
			t.Errorf("%s: float32 midpoints hash to %016x, ml_dtypes %016x", f, h32, want)
		}
		if want := g.hash["ties64 "+f.String()]; h64 != want {
			t.Errorf("%s: float64 midpoints hash to %016x, ml_dtypes %016x", f, h64, want)
		}
	}
}

// TestFloatFormatMLDtypesFull converts all 2³² float32 patterns to every
// format and compares with ml_dtypes (KILN_LONG=1 only).
func TestFloatFormatMLDtypesFull(t *testing.T) {
	longtest.Skip(t, "the conversion of all 2^32 float32 patterns to every narrow float format")
	g := golden(t)
	for i := range NumFloatFormats {
		f := FloatFormat(i)
		t.Run(f.String(), func(t *testing.T) {
			t.Parallel()
			if got, want := sweepHash(f, 1), g.hash["full "+f.String()]; got != want {
				t.Errorf("%s: all float32 hash to %016x, ml_dtypes %016x", f, got, want)
			}
		})
	}
}
