package conformance

import (
	"testing"

	"github.com/kiln-go/kiln/trace"
)

// Every f16 dot case must trace: Cases would drop one that does not, and
// the suite would stop testing what it says.
func TestF16DotCasesTrace(t *testing.T) {
	for _, c := range f16DotCases() {
		if _, err := trace.Trace(c.Config, c.Abstract(), c.Fn); err != nil {
			t.Errorf("%s: %v", c.Name, err)
		}
	}
}
