package tensor

import (
	"math"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// physicalMemory is the RAM of the machine, lowered to the memory limit of
// the cgroup the process runs in (a container's), or 0 if unknown.
func physicalMemory() int {
	var info syscall.Sysinfo_t
	if syscall.Sysinfo(&info) != nil {
		return 0
	}
	total := uint64(info.Totalram) * uint64(info.Unit)
	for _, f := range []string{"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"} {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		if n, err := strconv.ParseUint(strings.TrimSpace(string(b)), 10, 64); err == nil && n > 0 && n < total {
			total = n
		}
	}
	if total > math.MaxInt {
		return math.MaxInt
	}
	return int(total)
}
