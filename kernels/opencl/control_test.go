package opencl

import (
	"errors"
	"strings"
	"testing"

	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// Control flow is refused with a typed error (KindUnsupported) naming the
// op and the user's line, not run wrongly.
func TestControlFlowUnsupported(t *testing.T) {
	m := module(t, func(a []trace.Value) []trace.Value {
		return trace.ForiLoop(trace.Int(0), trace.Int(3), func(i trace.Value, c []trace.Value) []trace.Value { return []trace.Value{c[0].Add(c[0])} }, a[0])
	}, abstract(tensor.F32, 3))
	_, err := generate(m, fakeDevice(), Options{})
	var e *Error
	if !errors.As(err, &e) || e.Kind != KindUnsupported || !strings.Contains(err.Error(), "while") || !strings.Contains(err.Error(), "control_test.go:") {
		t.Fatalf("got %v, want a KindUnsupported error naming while and the caller's line", err)
	}
}
