package kiln_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// depsPolicy is every package of the repository and what it may import
// besides the standard library, in the style of Go's go/build/deps_test.go:
// module packages by their path in the repository ("." is package kiln),
// third-party packages by their import path. The pipeline packages import
// only the stages before them (STYLE.md):
//
//	tensor → promote → trace → lower → kernels → kiln
//
// A package missing from the table fails, and so does an import the table
// does not allow: adding either is a decision to write down here. Tests may
// also import what testImports lists.
var depsPolicy = map[string][]string{
	// The core. tensor needs no third-party package: its f16 and bf16
	// conversions are internal/numerics', shared with the kernels (the
	// tests still hold them to github.com/x448/float16).
	"tensor":          {"internal/numerics"},
	"promote":         {"tensor"},
	"trace":           {"tensor", "promote"},
	"lower":           {"tensor", "trace"},
	"lower/stablehlo": {"tensor", "trace", "lower"},
	"kernels":         {"tensor", "trace", "lower", "internal/simd", "internal/xmath", "internal/numerics", "internal/gemm"},
	"kernels/opencl":  {"tensor", "trace", "lower", "kernels", "internal/numerics", "github.com/ebitengine/purego"},
	".":               {"tensor", "promote", "trace", "lower", "kernels"},

	// ONNX export and ONNX Runtime as a backend, outside the core so a
	// Kiln-only program links neither (the protobuf encoder is the
	// exporter's own: no protobuf library).
	"export/onnx": {"tensor", "trace", "lower"},
	"kernels/ort": {"tensor", "trace", "lower", "kernels", "export/onnx", "github.com/ebitengine/purego"},

	// jax.nn's activations, written with the tracer's ops.
	"nn": {"trace"},
	// jax.random: threefry keys and samplers, written with the tracer's ops.
	"random": {"trace", "tensor", "promote"},

	// Internal helpers.
	"internal/xmath":    {},
	"internal/numerics": {},
	"internal/bigmath":  {},
	"internal/simd":     {"internal/xmath", "internal/numerics", "golang.org/x/sys/cpu"},
	"internal/gemm":     {"internal/simd", "internal/numerics"}, // numerics: the f16 widening of packing's Go path

	// Interop, outside the core so a Kiln-only program links neither.
	"interop/gonum":    {"tensor", "gonum.org/v1/gonum/mat"},
	"interop/gorgonia": {"tensor", "gorgonia.org/tensor"},

	// What the tests use: the reference evaluator (independent of the
	// backends by design), the program generator, the conformance suite,
	// golden files, the switch for the exhaustive sweeps and the soak.
	"internal/reference":  {"tensor", "trace"},
	"internal/progen":     {"tensor", "promote", "trace"},
	"kernels/conformance": {"tensor", "promote", "trace", "lower", "kernels", "internal/reference"},
	"internal/golden":     {},
	"internal/longtest":   {},
	"internal/soak":       {".", "tensor", "kernels"},

	// Libraries on top of the root package.
	"optim": {".", "tensor"},

	// Programs.
	"cmd/kiln":                {".", "tensor", "promote", "trace", "lower", "lower/stablehlo", "kernels", "kernels/opencl", "kernels/ort", "export/onnx", "nn", "random"},
	"examples/mixedprecision": {".", "tensor"},
	"examples/mlp":            {".", "tensor"},
	"examples/montecarlo":     {".", "tensor", "random"},
	"examples/perexample":     {".", "tensor", "random"},
	"examples/train":          {".", "tensor", "optim"},
	"examples/recurrent":      {".", "tensor", "optim"},
	"examples/softmax":        {".", "tensor"},

	// The benchmark suite is a module of its own: its peers never enter
	// the library's go.mod.
	"bench": {".", "tensor", "optim", "nn", "kernels/ort", "gorgonia.org/tensor",
		"github.com/gomlx/gomlx/backends", "github.com/gomlx/gomlx/backends/simplego", "github.com/gomlx/gomlx/pkg/core/dtypes",
		"github.com/gomlx/gomlx/pkg/core/graph", "github.com/gomlx/gomlx/pkg/core/tensors",
		"gonum.org/v1/gonum/blas", "gonum.org/v1/gonum/blas/blas32", "gonum.org/v1/gonum/blas/blas64", "gonum.org/v1/gonum/floats",
		"gonum.org/v1/plot", "gonum.org/v1/plot/plotter", "gonum.org/v1/plot/vg", "gonum.org/v1/plot/vg/draw", "gonum.org/v1/plot/vg/vgsvg"},
}

// testImports are what any package's tests may import besides the
// package's own allowance: the module's packages and these. (x/sys/cpu:
// the int8 tests read the CPU's VNNI features from it, independently of
// internal/simd's detection, to know which kernel a tier must take.)
var testImports = []string{"github.com/x448/float16", "gonum.org/v1/gonum/mat", "gorgonia.org/tensor", "golang.org/x/sys/cpu"}

const module = "github.com/kiln-go/kiln"

func TestDependencyPolicy(t *testing.T) {
	gobin := goTool(t)
	out, err := exec.Command(gobin, "list", "-f",
		"{{.ImportPath}}\t{{join .Imports \" \"}}\t{{join .TestImports \" \"}} {{join .XTestImports \" \"}}",
		"./...", "./bench/...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	seen := map[string]bool{}
	for line := range strings.Lines(strings.TrimSpace(string(out))) {
		fields := strings.Split(strings.TrimRight(line, "\n"), "\t")
		pkg := short(fields[0])
		seen[pkg] = true
		allowed, ok := depsPolicy[pkg]
		if !ok {
			t.Errorf("package %s is not in depsPolicy: add it with what it may import", pkg)
			continue
		}
		for _, imp := range strings.Fields(fields[1]) {
			if !standard(imp) && !slices.Contains(allowed, short(imp)) {
				t.Errorf("%s imports %s, which depsPolicy does not allow", pkg, imp)
			}
		}
		for _, imp := range strings.Fields(fields[2]) {
			own := imp == module || strings.HasPrefix(imp, module+"/")
			if !standard(imp) && !own && !slices.Contains(allowed, imp) && !slices.Contains(testImports, imp) {
				t.Errorf("the tests of %s import %s, which depsPolicy does not allow", pkg, imp)
			}
		}
	}
	for pkg := range depsPolicy {
		if !seen[pkg] {
			t.Errorf("depsPolicy lists %s, which no longer exists", pkg)
		}
	}
}

// A program that uses only kiln and kiln/tensor stays small and links none
// of the interop or benchmark dependencies.
func TestSmallProgramIsLean(t *testing.T) {
	if testing.Short() {
		t.Skip("skipping a go build in -short mode")
	}
	gobin := goTool(t)
	out, err := exec.Command(gobin, "list", "-deps", "./testdata/smallprog").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, banned := range []string{"gorgonia", "arrow", "protobuf", "flatbuffers", "gonum.org/v1/plot", "gonum.org/v1/gonum/mat", "export/onnx", "kernels/ort"} {
		if strings.Contains(string(out), banned) {
			t.Errorf("a kiln-only program links %s:\n%s", banned, out)
		}
	}
	bin := filepath.Join(t.TempDir(), "smallprog")
	if out, err := exec.Command(gobin, "build", "-o", bin, "./testdata/smallprog").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	fi, err := os.Stat(bin)
	if err != nil {
		t.Fatal(err)
	}
	// 8 MiB held until cancellation (RunContext) linked package context
	// and the runtime's select (+66 KB), and the array files: package
	// tensor's .npy, .npz and safetensors readers link encoding/json,
	// compress/flate and hash/crc32 (their package-level tables) into
	// every program, +72 KB; the .npz container is written by hand
	// because archive/zip's init would link all of flate (+190 KB).
	// 8.5 MiB held until vmap (every op's batching rule), trees and the
	// promotion profiles: +357 KB (8,585,573 → 8,942,371 bytes: trace +92 KB,
	// kiln +33 KB, tensor's narrow formats +13 KB, promote +8 KB, the rest
	// generic instantiations and reflect) — code, no new dependency.
	// 8.75 MiB held until the narrow dtypes (15 more DTypes through every
	// table and kernel), data-movement fusion (index maps, mapped loops),
	// the conv's implicit-GEMM and batch-major kernels and the outer-product
	// and fp8/int4 GEMMs: +290 KB (9,042,833 → 9,333,310 bytes, go1.26.8;
	// `go list -deps ./testdata/smallprog` unchanged) — code, no new dependency.
	// 9.25 MiB held until the pooling shortcut, the batch-major conv's
	// panels and the GEMM micro-kernels' paired-step loops and 14-row
	// tile: 9,687,164 bytes at f3d39a8, 9,705,338 (+18 KB of assembly)
	// after — code, no new dependency.
	if fi.Size() > 9<<20+1<<19 {
		t.Errorf("a kiln-only program is %.2f MiB, over 9.5 MiB", float64(fi.Size())/(1<<20))
	}
	t.Logf("a kiln-only program: %.1f MiB", float64(fi.Size())/(1<<20))
}

// goTool finds the go command, or skips where there is none.
func goTool(t *testing.T) string {
	t.Helper()
	gobin := filepath.Join(os.Getenv("GOROOT"), "bin", "go")
	if _, err := os.Stat(gobin); err != nil {
		if gobin, err = exec.LookPath("go"); err != nil {
			t.Skip("skipping: no go command to list packages with")
		}
	}
	return gobin
}

// short names a module package by its path in the repository.
func short(pkg string) string {
	if pkg == module {
		return "."
	}
	if rest, ok := strings.CutPrefix(pkg, module+"/"); ok {
		return rest
	}
	return pkg
}

// standard reports whether imp is in the standard library (no dot in its
// first element).
func standard(imp string) bool {
	first, _, _ := strings.Cut(imp, "/")
	return !strings.Contains(first, ".")
}
