package conformance

import (
	"testing"

	"github.com/kiln-go/kiln/trace"
)

// Cases drops programs that do not trace; every sort case must.
func TestSortCasesTrace(t *testing.T) {
	cs := sortCases()
	if len(cs) < 20 {
		t.Fatalf("only %d sort cases", len(cs))
	}
	for _, c := range cs {
		if _, err := trace.Trace(c.Config, c.Abstract(), c.Fn); err != nil {
			t.Errorf("%s: %v", c.Name, err)
		}
	}
}
