package opencl

import (
	"os"
	"sync"
	"testing"

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

// TestConformance runs the shared backend conformance suite.
func TestConformance(t *testing.T) {
	conformance.Run(t, testBackend(t))
}
