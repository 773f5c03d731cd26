//go:build !purego

package simd

import "golang.org/x/sys/cpu"

func detect() Tier {
	x := cpu.X86
	if !(x.HasAVX2 && x.HasFMA && x.HasBMI2 && x.HasF16C) {
		return Generic
	}
	if x.HasAVX512F && x.HasAVX512BW && x.HasAVX512DQ && x.HasAVX512VL {
		return AVX512
	}
	return AVX2
}

// hasVNNI reports AVX512_VNNI (VPDPBUSD on ZMM registers), which the
// AVX512 tier does not imply. SetVNNI and NoVNNIEnvVar can hide it.
var hasVNNI = cpu.X86.HasAVX512VNNI

// hasAVXVNNI reports AVX-VNNI (the VEX-encoded VPDPBUSD on YMM registers,
// CPUID leaf 7 subleaf 1 EAX bit 4: Alder Lake, Sapphire Rapids, Zen 5),
// which the AVX2 tier does not imply. SetVNNI and NoVNNIEnvVar can hide it.
var hasAVXVNNI = cpu.X86.HasAVXVNNI

// detectedVNNI is what the CPU has, for SetVNNI to restore.
var detectedVNNI = [2]bool{cpu.X86.HasAVX512VNNI, cpu.X86.HasAVXVNNI}

// hasBF16 reports AVX512_BF16 (VDPBF16PS on ZMM registers), which the
// AVX512 tier does not imply.
var hasBF16 = cpu.X86.HasAVX512BF16
