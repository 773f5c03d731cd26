//go:build !unix

package main

// processCPU is unknown here (0): the reports then show wall times only.
func processCPU() float64 { return 0 }
