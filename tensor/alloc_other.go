//go:build !linux

package tensor

// physicalMemory is unknown outside Linux: the default limit is then
// fallbackMaxAlloc.
func physicalMemory() int { return 0 }
