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
// AVX512 tier does not imply.
var hasVNNI = cpu.X86.HasAVX512VNNI

// hasBF16 reports AVX512_BF16 (VDPBF16PS on ZMM registers), which the
// AVX512 tier does not imply.
var hasBF16 = cpu.X86.HasAVX512BF16
