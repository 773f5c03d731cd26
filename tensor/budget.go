package tensor

import (
	"fmt"
	"math"
	"os"
	"strings"
	"sync"
)

// MemoryLimitEnv is the environment variable that sets the default memory
// budget of a run (DefaultMemoryLimit), in MaxAllocEnv's forms: bytes, a
// unit (12GiB, 500MB), a share of physical memory (50%), or "off".
const MemoryLimitEnv = "KILN_MEMORY_LIMIT"

// envBudget is MemoryLimitEnv's budget, or -1 when it is not set; read once.
var envBudget = sync.OnceValues(func() (int, error) {
	v, ok := os.LookupEnv(MemoryLimitEnv)
	if !ok || strings.TrimSpace(v) == "" {
		return -1, nil
	}
	n, err := parseBytes(v, physicalMemory())
	if err != nil {
		return 0, fmt.Errorf("%s=%q: %v", MemoryLimitEnv, v, err)
	}
	return n, nil
})

var machineBudget = sync.OnceValue(defaultMaxAlloc)

// DefaultMemoryLimit returns the memory budget of a compiled program's run
// when none is given (kiln.MemoryLimit gives one): the bytes everything the
// run holds at once may add up to. It is MemoryLimitEnv's value when that
// is set (an error when malformed), else the machine's physical memory as
// MaxAlloc derives it (cgroup and GOMEMLIMIT included) — but never below
// MaxAlloc, so raising the per-allocation limit (KILN_MAX_ALLOC=off, a
// SetMaxAlloc above memory) raises the default budget with it. math.MaxInt
// means none.
func DefaultMemoryLimit() (int, error) {
	n, err := envBudget()
	if err != nil || n >= 0 {
		return n, err
	}
	return max(machineBudget(), MaxAlloc()), nil
}

// ParseBytes reads a byte count in MaxAllocEnv's forms: 8000000000, 12GiB,
// 500MB, 1e9 (K M G T and KiB MiB GiB TiB are powers of 1024, KB MB GB TB
// of 1000), a share of physical memory (50%), or "off" (math.MaxInt).
func ParseBytes(s string) (int, error) {
	n, err := parseBytes(s, physicalMemory())
	if err != nil {
		return 0, err
	}
	return min(n, math.MaxInt), nil
}

// HumanBytes prints a byte count in binary units: 3.6 TiB.
func HumanBytes(n int) string { return humanBytes(float64(n)) }
