//go:build !amd64 || purego

package simd

func detect() Tier { return Generic }

// No VNNI without the assembly: variables only so that SetVNNI compiles.
var hasVNNI, hasAVXVNNI bool

var detectedVNNI [2]bool

const hasBF16 = false
