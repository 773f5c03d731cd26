package simd_test

import (
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
)

// TestTwinsWithFMAContraction reruns the twin test built with GOAMD64=v3,
// where the compiler may contract a*b+c into an FMA: the Go twins round
// every such product explicitly, so they must still match the assembly.
func TestTwinsWithFMAContraction(t *testing.T) {
	if testing.Short() || runtime.GOARCH != "amd64" || os.Getenv("GOAMD64") == "v3" {
		t.Skip("short, not amd64, or already v3")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	cmd := exec.Command(goTool, "test", "-count=1", "-short", "-v", "-run", "^TestTwins$", ".")
	cmd.Env = append(os.Environ(), "GOAMD64=v3")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("GOAMD64=v3 go test -run TestTwins: %v\n%s", err, out)
	}
	// A -run that matches nothing passes too: make sure the twins ran.
	if !strings.Contains(string(out), "--- PASS: TestTwins ") {
		t.Fatalf("GOAMD64=v3 go test -run TestTwins did not run TestTwins:\n%s", out)
	}
}
