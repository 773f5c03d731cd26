package tensor_test

import (
	"math"
	"os"
	"testing"

	"github.com/kiln-go/kiln/tensor"
)

func TestParseBytes(t *testing.T) {
	for s, want := range map[string]int{"1GiB": 1 << 30, "512MiB": 512 << 20, "2e9": 2e9, "500MB": 500e6, "off": math.MaxInt, "1e30": math.MaxInt} {
		if got, err := tensor.ParseBytes(s); err != nil || got != want {
			t.Errorf("ParseBytes(%q) = %d, %v; want %d", s, got, err, want)
		}
	}
	for _, s := range []string{"", "lots", "-1GiB", "1Gx", "0", "0.5", "0.0001k", "1e-30%"} {
		if n, err := tensor.ParseBytes(s); err == nil {
			t.Errorf("ParseBytes(%q) = %d, want an error", s, n)
		}
	}
}

// TestDefaultMemoryLimit: without KILN_MEMORY_LIMIT the default budget is
// the machine's memory, raised to the allocation limit when that is
// higher (KILN_MAX_ALLOC=off turns both off).
func TestDefaultMemoryLimit(t *testing.T) {
	if _, set := os.LookupEnv(tensor.MemoryLimitEnv); set {
		t.Skipf("%s is set in the environment", tensor.MemoryLimitEnv)
	}
	n, err := tensor.DefaultMemoryLimit()
	if err != nil || n <= 0 || n < tensor.MaxAlloc() {
		t.Fatalf("DefaultMemoryLimit() = %d, %v; want at least MaxAlloc() = %d", n, err, tensor.MaxAlloc())
	}
	old := tensor.SetMaxAlloc(0) // none
	defer tensor.SetMaxAlloc(old)
	if n, _ := tensor.DefaultMemoryLimit(); n != math.MaxInt {
		t.Errorf("with no allocation limit, DefaultMemoryLimit() = %d, want none (MaxInt)", n)
	}
}
