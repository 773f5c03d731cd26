// Package longtest says whether the tests run their exhaustive sweeps:
// every f16/bf16 or float32 input, 10⁶-point accuracy runs, the whole
// OpenCL conformance suite, thousands of random programs. They run when
// the environment sets KILN_LONG=1 (as .ci/run does, after the README's
// test command); without it each such test checks a deterministic sample
// that still reaches every op, dtype and special class, so the README's
// command stays fast on a small machine. The flag only ever adds points:
// a test never passes with it that fails without it, and nothing is
// skipped silently (a test that runs only under the flag says so).
package longtest

import (
	"os"
	"testing"
)

// Enabled reports whether KILN_LONG=1: the exhaustive sweeps run.
func Enabled() bool { return os.Getenv("KILN_LONG") == "1" }

// Pick returns long when the exhaustive sweeps run, short otherwise: the
// number of points, programs or iterations a test checks.
func Pick[T any](long, short T) T {
	if Enabled() {
		return long
	}
	return short
}

// Skip skips t unless the exhaustive sweeps run, naming what it would
// check and how to run it.
func Skip(t testing.TB, what string) {
	t.Helper()
	if !Enabled() {
		t.Skipf("skipping %s: set KILN_LONG=1 to run it (as CI does)", what)
	}
}
