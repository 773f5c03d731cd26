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
