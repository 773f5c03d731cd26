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
//
// The cases with a narrow dtype are refused with a KindUnsupported error
// (the backend has none; docs/SPEC.md); one in eight of them is checked so.
func TestConformance(t *testing.T) {
	b := testBackend(t)
	narrow, cs := conformance.Split(conformance.Cases())
	refused := func(err error) bool { return IsKind(err, KindUnsupported) }
	if longtest.Enabled() {
		conformance.RunCases(t, b, cs)
		conformance.RunRefused(t, b, narrow, refused)
		return
	}
	conformance.RunRefused(t, b, conformance.Sample(narrow, 8), refused)
	sample := conformance.Sample(cs, 8)
	t.Logf("%d of the %d conformance cases (KILN_LONG=1 runs all)", len(sample), len(cs))
	conformance.RunCases(t, b, sample)
}

// TestMemberBroadcasts: a broadcast whose operand is a member of the same
// fusion (hand-built modules: conformance.RunMemberBroadcasts) is computed,
// and the ill-formed one refused.
func TestMemberBroadcasts(t *testing.T) {
	conformance.RunMemberBroadcasts(t, testBackend(t))
}
