package conformance

import (
	"errors"
	"strings"
	"testing"

	"github.com/kiln-go/kiln/trace"
)

// Cases drops programs that do not trace, so a mistake in an index case
// would silently remove it: every one must trace, but for the orderings
// of complex numbers, which are errors by design.
func TestIndexCasesTrace(t *testing.T) {
	for _, c := range indexCases() {
		_, err := trace.Trace(c.Config, c.Abstract(), c.Fn)
		var de *trace.DTypeError
		if err != nil && !(errors.As(err, &de) && strings.Contains(err.Error(), "no order")) {
			t.Errorf("%s: %v", c.Name, err)
		}
	}
}

// Every preferred_element_type case must trace (Cases would drop one
// that does not).
func TestPreferredCasesTrace(t *testing.T) {
	for _, c := range preferredCases() {
		if _, err := trace.Trace(c.Config, c.Abstract(), c.Fn); err != nil {
			t.Errorf("%s: %v", c.Name, err)
		}
	}
}
