package conformance

import (
	"testing"

	"github.com/kiln-go/kiln/kernels"
	"github.com/kiln-go/kiln/lower"
	"github.com/kiln-go/kiln/trace"
)

// RunRefused checks that backend b refuses every case of cs at Compile
// with an error refused accepts (the backend's typed error for what it
// does not support): for a backend without the narrow dtypes, the narrow
// cases of Split.
func RunRefused(t *testing.T, b kernels.Backend, cs []Case, refused func(error) bool) {
	t.Helper()
	for _, c := range cs {
		t.Run(c.Name, func(t *testing.T) {
			p, err := trace.Trace(c.Config, c.Abstract(), c.Fn)
			if err != nil {
				t.Fatal(err)
			}
			m, err := lower.Compile(p, lower.Options{Fold: kernels.Fold, Verify: true})
			if err != nil {
				t.Fatal(err)
			}
			exe, err := b.Compile(m)
			if err == nil || !refused(err) {
				t.Errorf("%s: Compile = %v, %v; want the backend's typed refusal", b.Name(), exe, err)
			}
		})
	}
}
