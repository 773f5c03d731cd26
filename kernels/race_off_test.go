//go:build !race

package kernels

const raceOn = false

// RaceOn tells the package's external tests that the race detector is on.
const RaceOn = raceOn
