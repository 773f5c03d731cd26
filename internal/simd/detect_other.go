//go:build !amd64 || purego

package simd

func detect() Tier { return Generic }

const hasVNNI = false

const hasBF16 = false
