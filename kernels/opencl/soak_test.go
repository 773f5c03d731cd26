package opencl

import (
	"testing"
	"time"

	"github.com/kiln-go/kiln/internal/soak"
)

// TestSoakOpenCL is the kiln package's soak on this backend, smaller: each
// new signature builds an OpenCL program. Executables evicted from a Func's
// cache close their queues, kernels and buffers when their last Run ends
// (Executable.Close); the soak checks that the Func keeps no more of them
// than its cache holds.
func TestSoakOpenCL(t *testing.T) {
	if testing.Short() {
		t.Skip("skipping the soak in -short mode")
	}
	soak.Run(t, soak.Config{Backend: testBackend(t), Duration: 8 * time.Second, Workers: 4, Cache: 2, Lengths: 3, HeapSlack: 32 << 20})
}
