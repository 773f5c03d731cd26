//go:build race

package kernels

const raceOn = true
