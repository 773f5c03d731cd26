package main

import (
	"os"
	"strings"
	"testing"

	"github.com/kiln-go/kiln/kernels/opencl"
)

// requireOpenCL skips when no OpenCL device exists, unless CI demands it.
func requireOpenCL(t *testing.T) {
	t.Helper()
	if _, err := opencl.Devices(); err != nil {
		if os.Getenv("KILN_REQUIRE_OPENCL") == "1" {
			t.Fatalf("KILN_REQUIRE_OPENCL=1 but OpenCL is unavailable: %v", err)
		}
		t.Skipf("no OpenCL device (install pocl-opencl-icd to run this): %v", err)
	}
}

// The OpenCL backend prints exactly what the CPU backend prints for the
// mixed-precision running example, and shows its generated OpenCL C.
func TestEvalOpenCL(t *testing.T) {
	requireOpenCL(t)
	args := []string{"--arg", "x=i8[3]:1,2,3", "--arg", "y=f16[3]:0.5,1,2", "(x*2 + y) * 0.5"}
	cpu, _, st1 := kiln(append([]string{"eval"}, args...)...)
	cl, errOut, st2 := kiln(append([]string{"eval", "--backend", "opencl"}, args...)...)
	if st1 != 0 || st2 != 0 || cpu != cl || cpu != "f16[3] [1.25 2.5 4]\n" {
		t.Errorf("cpu %q (%d), opencl %q (%d) %s", cpu, st1, cl, st2, errOut)
	}
	src, errOut, st := kiln(append([]string{"eval", "--backend", "opencl", "--print", "kernels"}, args...)...)
	if st != 0 || !strings.Contains(src, "__kernel void fusion0(") || strings.Count(src, "__kernel") != 1 {
		t.Errorf("--print kernels: status %d %s\n%s", st, errOut, src)
	}
	out, errOut, st := kiln("devices")
	if st != 0 || !strings.Contains(out, "0: ") {
		t.Errorf("kiln devices: status %d %q %s", st, out, errOut)
	}
	out, _, st = kiln("demo", "--backend", "opencl", "--n", "5000", "--runs", "2")
	if st != 0 || !strings.Contains(out, "results bit-identical: true") {
		t.Errorf("kiln demo --backend opencl: status %d\n%s", st, out)
	}
}
