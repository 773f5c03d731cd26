package kiln_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/kiln-go/kiln/trace"
)

// traceInternal are package trace's exported functions that are not for
// users writing programs, each with why: transformations, libraries built
// on trace and tools use them. Every other exported function of trace
// must be reachable as kiln.X (TestRootReachesTrace).
var traceInternal = map[string]string{
	"AbstractOf":       "a Jit argument's abstract value, for the root package",
	"AllOps":           "the op table, for tools and tests",
	"CallerPos":        "the user's file:line, for packages built on trace",
	"ConvPermutations": "conv's layout permutations, for lowering",
	"ConvShape":        "conv's result shape, for lowering and the reference",
	"ConvWithParams":   "conv from lowered parameters, for derivative rules",
	"ConvertTo":        "a convert with a promotion's reason, for derivative rules",
	"DilateDim":        "conv's dilated size, for lowering",
	"Failure":          "a value failing the trace it meets, for transformations",
	"GatherShape":      "gather's result shape, for lowering and the reference",
	"HoistWeakScalars": "a compiler pass, for the root package",
	"LookupOp":         "the op table by name, for tools",
	"PreferredRefusal": "dot's preferred_element_type check, for tools",
	"RuleOf":           "the derivative rules, for transformations",
	"Scalar":           "a scalar like x, for derivative rules",
	"ScatterCheck":     "scatter's operand check, for lowering",
	"ScatterWindow":    "scatter's window, for lowering",
	"ShapeEqual":       "a slice comparison, for lowering",
	"ShapeSize":        "the size of a checked shape, for lowering",
	"Trace":            "the tracer itself: users call kiln.Jit",
	"TraceWithin":      "the tracer with a memory budget: users call kiln.Jit with MemoryLimit",
	"WithPos":          "equation positions for tools that build programs from a source of their own (kiln eval)",
	"WindowDims":       "gather/scatter window dims, for lowering",
	"WithConfig":       "config-dependent defaults, for libraries (random)",
}

// exportedFuncs lists the exported package-level functions and the
// exported names of vars, consts and types declared in the non-test files
// of dir.
func exportedFuncs(t *testing.T, dir string) (funcs, names []string) {
	t.Helper()
	fset := token.NewFileSet()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var files []*ast.File
	for _, e := range entries {
		if name := e.Name(); strings.HasSuffix(name, ".go") && !strings.HasSuffix(name, "_test.go") {
			f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			files = append(files, f)
		}
	}
	{
		for _, f := range files {
			for _, d := range f.Decls {
				switch d := d.(type) {
				case *ast.FuncDecl:
					if d.Recv == nil && d.Name.IsExported() {
						funcs = append(funcs, d.Name.Name)
					}
				case *ast.GenDecl:
					for _, s := range d.Specs {
						switch s := s.(type) {
						case *ast.ValueSpec:
							for _, n := range s.Names {
								if n.IsExported() {
									names = append(names, n.Name)
								}
							}
						case *ast.TypeSpec:
							if s.Name.IsExported() {
								names = append(names, s.Name.Name)
							}
						}
					}
				}
			}
		}
	}
	return funcs, names
}

// TestRootReachesTrace: every user-facing function of package trace is
// reachable as kiln.X, so `go doc github.com/kiln-go/kiln` is the manual.
func TestRootReachesTrace(t *testing.T) {
	traceFuncs, _ := exportedFuncs(t, "trace")
	rootFuncs, rootNames := exportedFuncs(t, ".")
	root := append(rootFuncs, rootNames...)
	for _, name := range traceFuncs {
		if _, internal := traceInternal[name]; internal || slices.Contains(root, name) {
			continue
		}
		t.Errorf("trace.%s has no kiln.%s: re-export it (or list it in traceInternal with why)", name, name)
	}
	for name := range traceInternal {
		if !slices.Contains(traceFuncs, name) {
			t.Errorf("traceInternal lists %s, which trace no longer exports", name)
		}
	}
}

// TestDocIndexesValueMethods: the package doc's index of Value's methods
// names every one of them (Value is an alias of trace.Value, whose
// methods `go doc` shows only under package trace).
func TestDocIndexesValueMethods(t *testing.T) {
	src, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(src)
	start := strings.Index(doc, "# Value's methods")
	if start < 0 {
		t.Fatal(`doc.go has no "# Value's methods" section`)
	}
	index := doc[start:]
	if end := strings.Index(index[1:], "\n// # "); end >= 0 {
		index = index[:end+1]
	}
	words := map[string]bool{}
	for _, w := range regexp.MustCompile(`[A-Za-z][A-Za-z0-9]*`).FindAllString(index, -1) {
		words[w] = true
	}
	vt := reflect.TypeOf(trace.Value{})
	for i := range vt.NumMethod() {
		if m := vt.Method(i).Name; !words[m] {
			t.Errorf("the index of Value's methods in doc.go lacks %s", m)
		}
	}
	for _, typ := range []reflect.Type{reflect.TypeOf(trace.Ref{})} {
		for i := range typ.NumMethod() {
			if m := typ.Method(i).Name; !words[m] {
				t.Errorf("the index in doc.go lacks %s.%s", typ.Name(), m)
			}
		}
	}
}
