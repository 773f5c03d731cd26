package conformance

import (
	"testing"

	"github.com/kiln-go/kiln/trace"
)

// Every narrow case must trace: Cases would drop one that does not, and
// the suite would stop testing what it says.
func TestNarrowCasesTrace(t *testing.T) {
	for _, c := range narrowCases() {
		if _, err := trace.Trace(c.Config, c.Abstract(), c.Fn); err != nil {
			t.Errorf("%s: %v", c.Name, err)
		}
	}
}
