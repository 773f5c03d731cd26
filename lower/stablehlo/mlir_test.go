package stablehlo_test

import (
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/kiln-go/kiln/kernels"
	"github.com/kiln-go/kiln/kernels/conformance"
	"github.com/kiln-go/kiln/lower"
	"github.com/kiln-go/kiln/lower/stablehlo"
	"github.com/kiln-go/kiln/trace"
)

// requireMLIROpt returns the mlir-opt to run, or skips where none is
// installed — unless KILN_REQUIRE_MLIR=1 (as in CI), which makes its
// absence a failure.
func requireMLIROpt(t *testing.T) string {
	t.Helper()
	opt := mlirOpt()
	if opt == "" {
		msg := "no mlir-opt found (apt-get install mlir-19-tools, or set KILN_MLIR_OPT): the StableHLO text is checked by the golden files only"
		if os.Getenv("KILN_REQUIRE_MLIR") == "1" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return opt
}

// The StableHLO export of every conformance program — every op at every
// dtype it accepts, broadcasting, reductions, dot_general — parses with
// upstream mlir-opt: SSA dominance, the type of every use, dense literals
// against their types, func.return against the signature. (Programs the
// export refuses, such as an ordering of complex numbers, are counted, not
// parsed.) One mlir-opt process reads them all, split by "// -----".
func TestConformanceProgramsParse(t *testing.T) {
	opt := requireMLIROpt(t)
	var texts []string
	refused := 0
	for _, c := range conformance.Cases() {
		p, err := trace.Trace(c.Config, c.Abstract(), c.Fn)
		if err != nil {
			t.Fatalf("%s: %v", c.Name, err)
		}
		m, err := lower.Compile(p, lower.Options{Fold: kernels.Fold})
		if err != nil {
			t.Fatalf("%s: %v", c.Name, err)
		}
		text, err := stablehlo.Export(m)
		if err != nil {
			var ue *stablehlo.UnsupportedError
			if !errors.As(err, &ue) {
				t.Fatalf("%s: %v", c.Name, err)
			}
			refused++
			continue
		}
		texts = append(texts, "// case "+c.Name+"\n"+text)
	}
	cmd := exec.Command(opt, "--allow-unregistered-dialect", "--split-input-file", "-o", os.DevNull, "-")
	cmd.Stdin = strings.NewReader(strings.Join(texts, "\n// -----\n"))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s rejects an export: %v\n%s", opt, err, out)
	}
	if len(texts) < 1000 {
		t.Errorf("only %d programs parsed; the conformance suite has more", len(texts))
	}
	t.Logf("%d conformance programs parse; %d the export refuses", len(texts), refused)
}
