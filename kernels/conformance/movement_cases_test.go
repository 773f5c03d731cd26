package conformance

import (
	"testing"

	"github.com/kiln-go/kiln/trace"
)

// Cases drops programs that do not trace; the data-movement cases of the
// float dtypes must all trace (bool may refuse one, as it refuses sub),
// and most of the others too.
func TestMovementCasesTrace(t *testing.T) {
	cs := movementCases()
	traced := 0
	for _, c := range cs {
		if _, err := trace.Trace(c.Config, c.Abstract(), c.Fn); err == nil {
			traced++
		} else if c.Inputs[0].DType().IsFloat() {
			t.Errorf("%s: %v", c.Name, err)
		}
	}
	if traced < len(cs)*9/10 {
		t.Errorf("only %d of %d data-movement cases trace", traced, len(cs))
	}
	t.Logf("%d of %d data-movement cases trace", traced, len(cs))
}
