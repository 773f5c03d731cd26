package lower_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/kiln-go/kiln/lower"
	"github.com/kiln-go/kiln/promote"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// TestCheckAllocs: a program whose intermediate buffer is over the
// allocation limit fails to compile, naming the op, its line and the
// shape; one whose big broadcast fuses into a reduction allocates only
// the result and compiles.
func TestCheckAllocs(t *testing.T) {
	old := tensor.SetMaxAlloc(1 << 20)
	defer tensor.SetMaxAlloc(old)
	in := []trace.Abstract{abs(tensor.F32, 1)}
	big := func(a []trace.Value) []trace.Value { return []trace.Value{a[0].BroadcastTo(1024, 1024).Exp()} }
	p, err := trace.Trace(promote.Config{}, in, big)
	if err != nil {
		t.Fatal(err)
	}
	_, err = lower.Compile(p, lower.Options{})
	var se *trace.ShapeError
	var ze *tensor.SizeError
	if !errors.As(err, &se) || !errors.As(err, &ze) || !slices.Equal(ze.Shape, []int{1024, 1024}) || ze.Limit != 1<<20 ||
		!strings.Contains(err.Error(), "alloc_test.go:") {
		t.Fatalf("a 4 MiB result under a 1 MiB limit: %v", err)
	}
	fused := func(a []trace.Value) []trace.Value { return []trace.Value{a[0].BroadcastTo(1024, 1024).Exp().Sum()} }
	compile(t, in, lower.Options{}, fused)
}
