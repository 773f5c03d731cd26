//go:build !linux

package kernels

// osYield does nothing where the kernels know no portable way to give a
// core to another thread: runtime.Gosched yields the goroutine's P only.
func osYield() {}
