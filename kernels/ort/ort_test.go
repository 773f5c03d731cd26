package ort_test

import (
	"os"
	"testing"

	"github.com/kiln-go/kiln/kernels/ort"
)

// backend returns the ONNX Runtime backend or skips the test when the
// library is not installed — unless KILN_REQUIRE_ORT=1 (as in CI), which
// makes that a failure.
func backend(t *testing.T) *ort.Backend {
	t.Helper()
	b, err := ort.New(ort.Options{Threads: 1})
	if err != nil {
		if ort.Unavailable(err) && os.Getenv("KILN_REQUIRE_ORT") != "1" {
			t.Skipf("skipping: no ONNX Runtime (%v); set KILN_REQUIRE_ORT=1 to make this a failure", err)
		}
		t.Fatal(err)
	}
	return b
}
