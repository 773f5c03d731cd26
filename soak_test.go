package kiln_test

import (
	"testing"
	"time"

	"github.com/kiln-go/kiln/internal/soak"
)

// TestSoak runs the CPU backend hard for 3 s, or for $KILN_SOAK (CI: 60 s
// under -race with -tags purego, so the race detector sees the pure-Go
// kernels; `KILN_SOAK=10m go test -run Soak .` for a long run).
func TestSoak(t *testing.T) {
	if testing.Short() {
		t.Skip("skipping the soak in -short mode")
	}
	soak.Run(t, soak.Config{Duration: 3 * time.Second, Workers: 8, Cache: 3, Lengths: 24, HeapSlack: 32 << 20})
}
