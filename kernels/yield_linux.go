//go:build linux

package kernels

import "syscall"

// osYield gives the calling thread's core to another runnable thread, if
// any (sched_yield), and returns at once otherwise (see spin).
func osYield() { _, _, _ = syscall.Syscall(syscall.SYS_SCHED_YIELD, 0, 0, 0) }
