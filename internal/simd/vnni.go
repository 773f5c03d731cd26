package simd

import "os"

// NoVNNIEnvVar names the environment variable that, set to any non-empty
// value at init, hides AVX512_VNNI and AVX-VNNI: the int8 GEMM then runs
// as on a CPU without them (GemmI8 reports the Go twin and callers take
// their plain paths), so that path can be tested on a CPU that has them —
// for instance KILN_SIMD=avx2 KILN_SIMD_NOVNNI=1 is an AVX2 machine
// without AVX-VNNI (Haswell to Tiger Lake, Zen 1-4).
const NoVNNIEnvVar = "KILN_SIMD_NOVNNI"

func init() {
	if os.Getenv(NoVNNIEnvVar) != "" {
		hasVNNI, hasAVXVNNI = false, false
	}
}

// SetVNNI hides (on false) the CPU's VNNI instructions — AVX512_VNNI and
// AVX-VNNI — from the int8 GEMM until restore is called, or shows them
// again (on true: those the CPU has, even if NoVNNIEnvVar hid them). Like
// SetLevel it is meant for tests and benchmarks and must not race with
// running kernels.
func SetVNNI(on bool) (restore func()) {
	old512, oldAVX := hasVNNI, hasAVXVNNI
	hasVNNI, hasAVXVNNI = on && detectedVNNI[0], on && detectedVNNI[1]
	return func() { hasVNNI, hasAVXVNNI = old512, oldAVX }
}

// VNNI reports whether the int8 GEMM runs on VPDPBUSD at the active tier:
// the AVX512 tier with AVX512_VNNI, or the AVX2 tier with AVX-VNNI (the
// VEX-encoded instruction on YMM registers).
func VNNI() bool {
	return tier == AVX512 && hasVNNI || tier == AVX2 && hasAVXVNNI
}

// Mode is a tier with or without its VNNI kernel: what tests and
// benchmarks of the int8 paths iterate over (Modes).
type Mode struct {
	Tier Tier
	VNNI bool // the tier's VNNI kernel runs (else it is hidden, or absent)
}

// String names the mode: the tier, with "-novnni" when its CPU has the
// VNNI instruction but the mode hides it.
func (m Mode) String() string {
	if !m.VNNI && m.Tier.hasVNNIKernel() {
		return m.Tier.String() + "-novnni"
	}
	return m.Tier.String()
}

// Set makes m active (SetLevel and SetVNNI) until restore is called.
func (m Mode) Set() (restore func()) {
	r1, r2 := SetLevel(m.Tier), SetVNNI(m.VNNI)
	return func() { r2(); r1() }
}

// Modes lists every available tier with its VNNI kernel where the CPU has
// it, and then once more without it: on a CPU with both AVX512_VNNI and
// AVX-VNNI, generic, avx2, avx2-novnni, avx512, avx512-novnni.
func Modes() []Mode {
	var ms []Mode
	for _, t := range Available() {
		has := t.hasVNNIKernel()
		ms = append(ms, Mode{t, has})
		if has {
			ms = append(ms, Mode{t, false})
		}
	}
	return ms
}

// hasVNNIKernel reports whether the CPU has the VNNI instruction tier t's
// int8 kernel needs, hidden or not.
func (t Tier) hasVNNIKernel() bool {
	return t == AVX512 && detectedVNNI[0] || t == AVX2 && detectedVNNI[1]
}
