package main

import (
	"fmt"
	"os"
	"os/exec"
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

// The CPU path never loads the OpenCL library: a child process runs eval
// and the demo on the default backend, then finds no libOpenCL among its
// mappings (Linux /proc/self/maps). The library is looked for only when
// the OpenCL backend is asked for.
func TestCPUPathDoesNotLoadOpenCL(t *testing.T) {
	if os.Getenv("KILN_CPU_CHILD") == "1" {
		out, errOut, st := kiln("eval", "--arg", "x=i8[3]:1,2,3", "--arg", "y=f16[3]:0.5,1,2", "(x*2 + y) * 0.5")
		if st != 0 || out != "f16[3] [1.25 2.5 4]\n" {
			fmt.Printf("eval: status %d %q %s\n", st, out, errOut)
			os.Exit(1)
		}
		if out, errOut, st = kiln("demo", "--n", "5000", "--runs", "2"); st != 0 {
			fmt.Printf("demo: status %d %s\n%s\n", st, errOut, out)
			os.Exit(1)
		}
		maps, err := os.ReadFile("/proc/self/maps")
		if err != nil {
			fmt.Println("SKIP: no /proc/self/maps:", err)
			os.Exit(0)
		}
		if strings.Contains(string(maps), "libOpenCL") {
			fmt.Println("libOpenCL is mapped after CPU-only runs")
			os.Exit(1)
		}
		fmt.Println("OK")
		os.Exit(0)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestCPUPathDoesNotLoadOpenCL$")
	cmd.Env = append(os.Environ(), "KILN_CPU_CHILD=1")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "OK") {
		if strings.Contains(string(out), "SKIP:") {
			t.Skip(strings.TrimSpace(string(out)))
		}
		t.Fatalf("child: %v\n%s", err, out)
	}
}
