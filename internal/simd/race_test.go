//go:build race

package simd_test

// raceEnabled: checkptr (on under -race) rejects the byte-misaligned views
// TestTwins makes otherwise.
const raceEnabled = true
