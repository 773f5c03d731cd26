package simd_test

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
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

// TestEnvVar runs this test binary again with KILN_SIMD set and checks the
// tier it starts at.
func TestEnvVar(t *testing.T) {
	if os.Getenv("KILN_SIMD_CHILD") != "" {
		fmt.Println("tier:", simd.Level())
		return
	}
	av := simd.Available()
	for _, env := range []string{"generic", "avx2", "avx512", "bogus"} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestEnvVar$", "-test.v")
		cmd.Env = append(os.Environ(), "KILN_SIMD_CHILD=1", simd.EnvVar+"="+env)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s=%s: %v\n%s", simd.EnvVar, env, err, out)
		}
		want := av[len(av)-1] // bogus and avx512: the best there is
		switch env {
		case "generic":
			want = simd.Generic
		case "avx2":
			want = min(want, simd.AVX2)
		}
		if !strings.Contains(string(out), "tier: "+want.String()+"\n") {
			t.Errorf("%s=%s: want tier %v, got\n%s", simd.EnvVar, env, want, out)
		}
	}
}
