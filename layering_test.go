package kiln_test

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The pipeline packages import only the stages before them (STYLE.md):
// tensor → promote → trace → lower → kernels → kiln. Backends and the
// command line sit on top; internal helpers are allowed where listed.
func TestLayering(t *testing.T) {
	const mod = "github.com/kiln-go/kiln"
	allowed := map[string][]string{
		"tensor":             {},
		"promote":            {"tensor"},
		"trace":              {"tensor", "promote"},
		"lower":              {"tensor", "promote", "trace"},
		"kernels":            {"tensor", "promote", "trace", "lower", "internal/simd", "internal/xmath"},
		"interop/gonum":      {"tensor"},
		"interop/gorgonia":   {"tensor"},
		"internal/soak":      {".", "tensor", "kernels"},
		"lower/stablehlo":    {"tensor", "trace", "lower"},
		"kernels/opencl":     {"tensor", "promote", "trace", "lower", "kernels"},
		"internal/simd":      {"internal/xmath"},
		"internal/xmath":     {},
		"internal/reference": {"tensor", "promote", "trace"},
		".":                  {"tensor", "promote", "trace", "lower", "kernels"},
	}
	for pkg, ok := range allowed {
		files, _ := filepath.Glob(filepath.Join(pkg, "*.go"))
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			ast, err := parser.ParseFile(token.NewFileSet(), f, src, parser.ImportsOnly)
			if err != nil {
				t.Fatal(err)
			}
			for _, imp := range ast.Imports {
				path := strings.Trim(imp.Path.Value, `"`)
				rest, own := strings.CutPrefix(path, mod+"/")
				if !own {
					continue
				}
				found := false
				for _, a := range ok {
					found = found || rest == a
				}
				if !found {
					t.Errorf("%s imports %s, which is not a stage before it", f, path)
				}
			}
		}
	}
}
