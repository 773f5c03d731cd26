package simd

import (
	"fmt"
	"os"
)

// Tier is an instruction-set level the kernels can run at.
type Tier uint8

const (
	// Generic is the pure-Go twin of every kernel: the reference, and the
	// only tier on non-amd64 machines and under the purego build tag.
	Generic Tier = iota
	// AVX2 needs AVX2, FMA, F16C and BMI2 (Haswell, Zen 1 and later).
	AVX2
	// AVX512 needs AVX512F, BW, DQ and VL besides the AVX2 set (Skylake-X,
	// Ice Lake, Zen 4 and later).
	AVX512
)

var tierNames = [...]string{Generic: "generic", AVX2: "avx2", AVX512: "avx512"}

func (t Tier) String() string {
	if int(t) < len(tierNames) {
		return tierNames[t]
	}
	return fmt.Sprintf("Tier(%d)", uint8(t))
}

// tier is the active tier, read by every kernel call. It is set once at
// init (best supported, or KILN_SIMD) and changed only by SetLevel.
var tier = initialTier()

// best is the highest tier this machine and build support.
var best = detect()

// EnvVar names the environment variable read at init to cap the tier:
// KILN_SIMD=generic|avx2|avx512. A tier the machine lacks falls back to the
// best one below it.
const EnvVar = "KILN_SIMD"

func initialTier() Tier {
	b := detect()
	switch os.Getenv(EnvVar) {
	case "generic":
		return Generic
	case "avx2":
		return min(b, AVX2)
	}
	return b
}

// Level reports the tier the kernels run at.
func Level() Tier { return tier }

// Available lists the tiers this machine and build can run, lowest first.
func Available() []Tier {
	ts := make([]Tier, 0, int(best)+1)
	for t := Generic; t <= best; t++ {
		ts = append(ts, t)
	}
	return ts
}

// SetLevel makes every kernel run at tier t until restore is called; it is
// meant for tests and benchmarks and must not race with running kernels.
// It panics if the machine cannot run t.
func SetLevel(t Tier) (restore func()) {
	if t > best {
		panic(fmt.Sprintf("simd: tier %v not supported here (best is %v)", t, best))
	}
	old := tier
	tier = t
	return func() { tier = old }
}
