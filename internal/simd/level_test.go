package simd_test

import (
	"testing"

	"github.com/kiln-go/kiln/internal/simd"
)

func TestLevel(t *testing.T) {
	av := simd.Available()
	if av[0] != simd.Generic {
		t.Fatalf("Available() = %v, want Generic first", av)
	}
	t.Logf("level %v, available %v", simd.Level(), av)
	for _, tier := range av {
		restore := simd.SetLevel(tier)
		if simd.Level() != tier {
			t.Errorf("SetLevel(%v): Level() = %v", tier, simd.Level())
		}
		restore()
	}
	defer func() {
		if recover() == nil {
			t.Errorf("SetLevel beyond the best tier did not panic")
		}
	}()
	simd.SetLevel(av[len(av)-1] + 1)
}
