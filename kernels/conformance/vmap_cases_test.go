package conformance

import (
	"testing"

	"github.com/kiln-go/kiln/trace"
)

// The vmapped cases must all trace: Cases drops a case that does not,
// which would hide a batching rule that fails.
func TestVmapCasesTrace(t *testing.T) {
	for _, c := range vmapCases() {
		if _, err := trace.Trace(c.Config, c.Abstract(), c.Fn); err != nil {
			t.Errorf("%s: %v", c.Name, err)
		}
	}
}
