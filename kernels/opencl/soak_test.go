package opencl

import (
	"testing"
	"time"

	"github.com/kiln-go/kiln/internal/soak"
)

// TestSoakOpenCL is the kiln package's soak on this backend, smaller: each
// new signature builds an OpenCL program. Executables evicted from a Func's
// cache close their queues, kernels and buffers when their last Run ends
// (Executable.Close). The soak has a backend of its own, so the backend's
// count of open executables is the Func's: at the end it is within the
// cache size, and the garbage collector's cleanup has had none to release.
// $KILN_SOAK sets the duration (8 s by default).
func TestSoakOpenCL(t *testing.T) {
	if testing.Short() {
		t.Skip("skipping the soak in -short mode")
	}
	testBackend(t) // skips without a device
	b, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	soak.Run(t, soak.Config{Backend: b, Duration: 8 * time.Second, Workers: 4, Cache: 2, Lengths: 3, HeapSlack: 32 << 20,
		Executables: func() (int64, int64) { return b.res.execs.open.Load(), b.res.execs.collected.Load() }})
}
