package conformance

import (
	"testing"

	"github.com/kiln-go/kiln/trace"
)

// Cases drops programs that do not trace; the control-flow cases of the
// float dtypes and the mixed ones must all trace (an integer dtype may
// refuse a case, as bool refuses sub).
func TestControlCasesTrace(t *testing.T) {
	cs := controlCases()
	traced := 0
	for _, c := range cs {
		if _, err := trace.Trace(c.Config, c.Abstract(), c.Fn); err == nil {
			traced++
		} else if c.Inputs[0].DType().IsFloat() {
			t.Errorf("%s: %v", c.Name, err)
		}
	}
	if traced < 50 {
		t.Errorf("only %d of %d control-flow cases trace", traced, len(cs))
	}
}
