//go:build !race

package simd_test

const raceEnabled = false
