package simd_test

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	"golang.org/x/sys/cpu"

	"github.com/kiln-go/kiln/internal/simd"
)

// TestNoVNNIEnv runs this test binary again at KILN_SIMD=avx2 with and
// without KILN_SIMD_NOVNNI and checks whether the int8 GEMM starts on its
// VNNI kernel (AVX-VNNI, read here from x/sys/cpu), and that SetVNNI(true)
// shows what the variable hid.
func TestNoVNNIEnv(t *testing.T) {
	if os.Getenv("KILN_SIMD_CHILD") != "" {
		_, fast := simd.GemmI8()
		restore := simd.SetVNNI(true)
		fmt.Printf("tier %v vnni %v shown %v\n", simd.Level(), fast, simd.VNNI())
		restore()
		return
	}
	best := simd.Available()[len(simd.Available())-1]
	has := best >= simd.AVX2 && cpu.X86.HasAVXVNNI
	for _, hide := range []bool{false, true} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestNoVNNIEnv$", "-test.v")
		cmd.Env = append(os.Environ(), "KILN_SIMD_CHILD=1", simd.EnvVar+"=avx2", simd.NoVNNIEnvVar+"=")
		if hide {
			cmd.Env = append(cmd.Env, simd.NoVNNIEnvVar+"=1")
		}
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s=%v: %v\n%s", simd.NoVNNIEnvVar, hide, err, out)
		}
		want := fmt.Sprintf("tier %v vnni %v shown %v\n", min(best, simd.AVX2), has && !hide, has)
		if !strings.Contains(string(out), want) {
			t.Errorf("%s set %v: want %q, got\n%s", simd.NoVNNIEnvVar, hide, want, out)
		}
	}
}
