package xmath_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"regexp"
	"runtime"
	"testing"

	"github.com/kiln-go/kiln/internal/golden"
	"github.com/kiln-go/kiln/internal/xmath"
)

// bitsHash hashes Tan, Pow, Rsqrt and TrigReduce over a fixed set of
// arguments from every binade.
func bitsHash() uint64 {
	r := rand.New(rand.NewPCG(41, 43))
	var h uint64
	put := func(v float64) { h = (h ^ math.Float64bits(v)) * 0x100000001b3 }
	for range 1 << 17 {
		x := math.Ldexp(r.Float64()+0.5, r.IntN(2100)-1075)
		if r.IntN(2) == 0 {
			x = -x
		}
		put(xmath.Tan(x))
		put(xmath.Rsqrt(math.Abs(x)))
		put(xmath.Pow(math.Abs(x), r.NormFloat64()*3))
		put(xmath.Pow(1+x/1e305, r.NormFloat64()*1e10))
		hi, lo, j := xmath.TrigReduce(math.Abs(x))
		put(hi)
		put(lo)
		put(float64(j))
	}
	return h
}

// TestBitsHash pins the bits of Tan, Pow, Rsqrt and TrigReduce: a change
// to any of them changes the hash, and must come with a new
// testdata/bits_hash.golden (go test -update) and the accuracy tests that
// justify it. TestSameBitsWithFMAContraction runs it in a GOAMD64=v3 build.
func TestBitsHash(t *testing.T) {
	got := fmt.Sprintf("%x", bitsHash())
	t.Logf("bits hash %s", got)
	golden.Check(t, "testdata/bits_hash.golden", got+"\n")
}

// TestSameBitsWithFMAContraction: built with GOAMD64=v3, where the
// compiler may contract a*b+c into an FMA (as it does on arm64), the
// functions give the same bits, since every product feeding a sum is
// rounded explicitly. (Package math's pure-Go functions, math.Expm1 and
// math.Log1p among them, are contracted there and do change.)
func TestSameBitsWithFMAContraction(t *testing.T) {
	if testing.Short() || runtime.GOARCH != "amd64" || os.Getenv("GOAMD64") == "v3" {
		t.Skip("short, not amd64, or already v3")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	cmd := exec.Command(goTool, "test", "-count=1", "-v", "-run", "^TestBitsHash$", ".")
	cmd.Env = append(os.Environ(), "GOAMD64=v3")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("GOAMD64=v3 go test -run TestBitsHash: %v\n%s", err, out)
	}
	m := regexp.MustCompile(`bits hash ([0-9a-f]+)`).FindSubmatch(out)
	if m == nil {
		t.Fatalf("no hash in the output of GOAMD64=v3 go test -run TestBitsHash:\n%s", out)
	}
	if want := fmt.Sprintf("%x", bitsHash()); string(m[1]) != want {
		t.Errorf("GOAMD64=v3 build gives bits hash %s, this build %s", m[1], want)
	}
}
