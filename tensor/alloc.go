package tensor

import (
	"fmt"
	"math"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"sync/atomic"
)

// MaxAllocEnv is the environment variable that sets the allocation limit
// when a program starts: bytes ("8000000000"), with a unit ("12GiB", "500MB";
// K M G T and KiB MiB GiB TiB are powers of 1024, KB MB GB TB of 1000), a
// share of physical memory ("50%"), or "off" for no limit.
const MaxAllocEnv = "KILN_MAX_ALLOC"

// fallbackMaxAlloc is the default limit where physical memory is unknown.
const fallbackMaxAlloc = 64 << 30

// limitState is the limit in force: bytes, or the error of a malformed
// MaxAllocEnv, which every CheckAlloc reports until SetMaxAlloc replaces it.
type limitState struct {
	limit int
	err   error
}

var limitNow atomic.Pointer[limitState]

// MaxAlloc returns the largest single allocation, in bytes, that Kiln makes
// from a shape (CheckAlloc). By default it is the machine's physical memory
// (on Linux lowered to the cgroup's memory limit and to GOMEMLIMIT when
// either is set; 64 GiB where memory size is unknown): an array larger than
// that would only page or be killed, so a shape asking for it is taken for
// a typo. MaxAllocEnv and SetMaxAlloc change it; math.MaxInt means none.
func MaxAlloc() int {
	n, _ := allocLimit()
	return n
}

// SetMaxAlloc sets the allocation limit to n bytes (n ≤ 0: no limit) for
// the whole process and returns the previous limit. It overrides
// MaxAllocEnv, malformed or not.
func SetMaxAlloc(n int) int {
	if n <= 0 {
		n = math.MaxInt
	}
	old := limitNow.Swap(&limitState{limit: n})
	if old == nil {
		old = envLimit()
	}
	return old.limit
}

func allocLimit() (int, error) {
	s := limitNow.Load()
	if s == nil {
		limitNow.CompareAndSwap(nil, envLimit()) // a racing SetMaxAlloc wins
		s = limitNow.Load()
	}
	return s.limit, s.err
}

// envLimit is the limit MaxAllocEnv asks for, or the default.
func envLimit() *limitState {
	v, ok := os.LookupEnv(MaxAllocEnv)
	if !ok || strings.TrimSpace(v) == "" {
		return &limitState{limit: defaultMaxAlloc()}
	}
	n, err := parseBytes(v, physicalMemory())
	if err != nil {
		return &limitState{err: fmt.Errorf("%s=%q: %v", MaxAllocEnv, v, err)}
	}
	return &limitState{limit: n}
}

func defaultMaxAlloc() int {
	n := physicalMemory()
	if n <= 0 {
		n = min(fallbackMaxAlloc, math.MaxInt)
	}
	if g := debug.SetMemoryLimit(-1); g > 0 && g < int64(n) {
		n = int(g)
	}
	return n
}

var byteUnits = map[string]float64{
	"": 1, "b": 1,
	"k": 1 << 10, "kib": 1 << 10, "kb": 1e3,
	"m": 1 << 20, "mib": 1 << 20, "mb": 1e6,
	"g": 1 << 30, "gib": 1 << 30, "gb": 1e9,
	"t": 1 << 40, "tib": 1 << 40, "tb": 1e12,
}

// parseBytes reads MaxAllocEnv's forms; a percentage is of physical
// memory (phys, 0 when unknown).
func parseBytes(s string, phys int) (int, error) {
	s = strings.ToLower(strings.TrimSpace(s))
	switch s {
	case "off", "none", "unlimited":
		return math.MaxInt, nil
	}
	if pct, ok := strings.CutSuffix(s, "%"); ok {
		p, err := strconv.ParseFloat(strings.TrimSpace(pct), 64)
		if err != nil || !(p > 0 && p <= 100) {
			return 0, fmt.Errorf("want a percentage of memory in (0, 100]")
		}
		if phys <= 0 {
			return 0, fmt.Errorf("a percentage needs the physical memory size, which is unknown here; give bytes")
		}
		if n := float64(phys) * p / 100; n >= 1 {
			return int(n), nil
		}
		return 0, fmt.Errorf("%s%% of memory is less than one byte", pct)
	}
	i := strings.IndexFunc(s, func(r rune) bool { return !(r >= '0' && r <= '9' || r == '.' || r == 'e' || r == '+') })
	if i < 0 {
		i = len(s)
	}
	num, unit := s[:i], strings.TrimSpace(s[i:])
	scale, okUnit := byteUnits[unit]
	f, err := strconv.ParseFloat(num, 64)
	if err != nil || !okUnit || !(f > 0) {
		return 0, fmt.Errorf("want bytes such as 8GiB, 500MB, 1e9 or 50%%, or off")
	}
	if f*scale >= math.MaxInt {
		return math.MaxInt, nil
	}
	if f*scale < 1 { // 0.5 would be a limit of 0, which callers read as none
		return 0, fmt.Errorf("less than one byte; want bytes such as 8GiB, 500MB, 1e9 or 50%%, or off")
	}
	return int(f * scale), nil
}
