package stablehlo_test

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/kiln-go/kiln/kernels"
	"github.com/kiln-go/kiln/kernels/conformance"
	"github.com/kiln-go/kiln/lower"
	"github.com/kiln-go/kiln/lower/stablehlo"
	"github.com/kiln-go/kiln/tensor"
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

// conformanceExports exports every conformance program — every op at
// every dtype it accepts, broadcasting, reductions, dot_general, control
// flow, indexing, sorts, convolutions — and checks each text by parsing it
// back (stablehlo.RoundTrip: op for op against the export and the lowered
// module). It returns the texts, each headed by its case's name, and how
// many programs the export refuses (an ordering of complex numbers, …).
// Any other failure fails the test: no program goes unchecked.
func conformanceExports(t *testing.T) (texts []string, refused, ops int) {
	t.Helper()
	for _, c := range conformance.Cases() {
		p, err := trace.Trace(c.Config, c.Abstract(), c.Fn)
		if err != nil {
			t.Fatalf("%s: %v", c.Name, err)
		}
		m, err := lower.Compile(p, lower.Options{Fold: kernels.Fold})
		if err != nil {
			t.Fatalf("%s: %v", c.Name, err)
		}
		text, n, err := stablehlo.RoundTrip(m)
		if err != nil {
			var ue *stablehlo.UnsupportedError
			if !errors.As(err, &ue) {
				t.Fatalf("%s: %v\n%s", c.Name, err, text)
			}
			refused++
			continue
		}
		ops += n
		texts = append(texts, "// case "+c.Name+"\n"+text)
	}
	if len(texts) < 1000 {
		t.Errorf("only %d programs exported; the conformance suite has more", len(texts))
	}
	return texts, refused, ops
}

// Every conformance program's export parses back (stablehlo.Parse) and
// matches, op for op, the ops Export built and the lowered module's
// instructions: kinds, result types and shapes, the producer of every
// operand, attributes, constants bit for bit, regions.
func TestConformanceRoundTrip(t *testing.T) {
	texts, refused, ops := conformanceExports(t)
	t.Logf("%d conformance programs (%d ops) parse back and match their modules; %d the export refuses", len(texts), ops, refused)
}

// The same exports parse with upstream mlir-opt: SSA dominance, the type
// of every use, dense literals against their types, func.return against
// the signature. One mlir-opt process reads them all, split by "// -----".
func TestConformanceProgramsParse(t *testing.T) {
	opt := requireMLIROpt(t)
	texts, refused, _ := conformanceExports(t)
	// The newest narrow float types (f8E3M4 since LLVM 19's successors,
	// f8E8M0FNU and the 6- and 4-bit floats since LLVM 20) are unknown to
	// an older mlir-opt: the programs using a type it does not parse are
	// left out, and counted.
	unknown := unknownTypes(t, opt)
	var kept []string
	for _, text := range texts {
		if !slices.ContainsFunc(unknown, func(ty string) bool { return strings.Contains(text, "x"+ty+">") || strings.Contains(text, "<"+ty+">") }) {
			kept = append(kept, text)
		}
	}
	cmd := exec.Command(opt, "--allow-unregistered-dialect", "--split-input-file", "-o", os.DevNull, "-")
	cmd.Stdin = strings.NewReader(strings.Join(kept, "\n// -----\n"))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s rejects an export: %v\n%s", opt, err, out)
	}
	t.Logf("%d conformance programs parse with %s; %d the export refuses; %d use element types it does not know (%v)", len(kept), opt, refused, len(texts)-len(kept), unknown)
}

// unknownTypes lists the narrow element types mlir-opt at opt does not
// parse, each probed in a one-line module; the older types must parse.
func unknownTypes(t *testing.T, opt string) []string {
	var unknown []string
	for _, d := range tensor.NarrowDTypes() {
		ty := stablehlo.ElemTypeName(d)
		cmd := exec.Command(opt, "-o", os.DevNull, "-")
		cmd.Stdin = strings.NewReader(fmt.Sprintf("func.func @f(%%a: tensor<2x%s>) -> tensor<2x%s> { return %%a : tensor<2x%s> }", ty, ty, ty))
		if cmd.Run() != nil {
			switch d {
			case tensor.F8E3M4, tensor.F8E8M0FNU, tensor.F6E2M3FN, tensor.F6E3M2FN, tensor.F4E2M1FN:
				unknown = append(unknown, ty)
			default:
				t.Errorf("%s does not parse %s, which MLIR has had since LLVM 19", opt, ty)
			}
		}
	}
	return unknown
}
