//go:build !linux

package tensor

import (
	"io"
	"os"
)

// mapFile reads f where Kiln does not map files: the arrays of an
// OpenSafetensors then view this copy, which Close releases to the
// garbage collector.
func mapFile(f *os.File, size int64) ([]byte, func() error, error) {
	mem := make([]byte, size) // size is the file's, from Stat
	if _, err := io.ReadFull(io.NewSectionReader(f, 0, size), mem); err != nil {
		return nil, nil, err
	}
	return mem, func() error { return nil }, nil
}
