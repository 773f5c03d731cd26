package tensor

import (
	"math"
	"os"
	"syscall"
)

// mapFile maps the size bytes of f read-only and returns the mapping and
// the function that unmaps it.
func mapFile(f *os.File, size int64) ([]byte, func() error, error) {
	if size > math.MaxInt {
		return nil, nil, syscall.EFBIG
	}
	mem, err := syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil, nil, err
	}
	return mem, func() error { return syscall.Munmap(mem) }, nil
}
