package conformance

import (
	"strings"
	"testing"

	"github.com/kiln-go/kiln/lower"
	"github.com/kiln-go/kiln/trace"
)

// Every epilogue case must trace (Cases would drop one that does not) and
// lower to a plan with an epilogue fused into its product, or the suite
// would stop testing what it says.
func TestEpilogueCasesFuse(t *testing.T) {
	for _, c := range epilogueCases() {
		p, err := trace.Trace(c.Config, c.Abstract(), c.Fn)
		if err != nil {
			t.Errorf("%s: %v", c.Name, err)
			continue
		}
		m, err := lower.Compile(p, lower.Options{Verify: true})
		if err != nil {
			t.Errorf("%s: %v", c.Name, err)
			continue
		}
		fused, multi := false, false
		for _, f := range m.Fusions {
			fused = fused || f.Epilogue()
			multi = multi || f.Epilogue() && len(f.EpilogueResults()) > 1
		}
		if !fused || strings.Contains(c.Name, "-multi") && !multi {
			t.Errorf("%s: no epilogue fused (or one result where several are expected):\n%s", c.Name, m.FusedString())
		}
	}
}
