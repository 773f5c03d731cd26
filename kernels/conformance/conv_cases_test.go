package conformance

import (
	"testing"

	"github.com/kiln-go/kiln/trace"
)

// Cases drops a case whose program does not trace; every convolution and
// pooling case must trace, or the suite would silently lose it.
func TestConvCasesTrace(t *testing.T) {
	cs := convCases()
	if len(cs) < 100 {
		t.Fatalf("only %d convolution cases", len(cs))
	}
	for _, c := range cs {
		if _, err := trace.Trace(c.Config, c.Abstract(), c.Fn); err != nil {
			t.Errorf("%s: %v", c.Name, err)
		}
	}
}
