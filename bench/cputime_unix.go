//go:build unix

package main

import "syscall"

// processCPU is the CPU time this process has used so far, user and
// system, in seconds: unlike wall time, it does not grow while other work
// on a shared machine holds the cores.
func processCPU() float64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}
