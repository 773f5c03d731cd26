package opencl

import (
	"os"
	"sync"
	"testing"

	"github.com/kiln-go/kiln/internal/longtest"
	"github.com/kiln-go/kiln/kernels/conformance"
)

var (
	backendOnce sync.Once
	theBackend  *Backend
	backendErr  error
)

// testBackend returns the shared backend, or skips the test when this
// machine has no OpenCL — unless KILN_REQUIRE_OPENCL=1 (as in CI), which
// makes the absence a failure.
func testBackend(t testing.TB) *Backend {
	t.Helper()
	backendOnce.Do(func() { theBackend, backendErr = New(Options{}) })
	if backendErr != nil {
		if Unavailable(backendErr) && os.Getenv("KILN_REQUIRE_OPENCL") != "1" {
			t.Skipf("skipping: no OpenCL device (%v); set KILN_REQUIRE_OPENCL=1 to make this a failure", backendErr)
		}
		t.Fatalf("opencl backend: %v", backendErr)
	}
	return theBackend
}

// TestConformance runs the shared backend conformance suite: all of it
// with KILN_LONG=1 (as in CI), by default conformance.Sample's one case in
// eight of every kind — every op, dtype, reduction shape and program of the
// suite, at a sixth of the kernel compiles (with PoCL's cache empty the
// whole suite compiles for 10 minutes or more).
func TestConformance(t *testing.T) {
	b := testBackend(t)
	if longtest.Enabled() {
		conformance.Run(t, b)
		return
	}
	cs := conformance.Cases()
	sample := conformance.Sample(cs, 8)
	t.Logf("%d of the %d conformance cases (KILN_LONG=1 runs all)", len(sample), len(cs))
	conformance.RunCases(t, b, sample)
}
