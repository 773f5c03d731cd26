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

// The rule for what is user-facing: every exported function, type,
// constant and variable of package trace is, and must be reachable as
// kiln.X, unless the lists below name it with why. The internal ones are
// the tracer's machinery that transformations (Grad, Jit), the lowering,
// libraries built on trace (nn, optim, random) and tools use: programs,
// equations, the op table's metadata, derivative rules, shape helpers of
// lowering. A program written against this package needs no import of
// trace. TestRootReachesTrace checks it; a new export of trace fails it
// until the root has it or a list here says why not.

// traceInternalTypes are package trace's exported types that are not for
// users writing programs, each with why.
var traceInternalTypes = map[string]string{
	"Abstract":      "a Jit argument's abstract type, for the tracer's callers (Jit, lower)",
	"Call":          "a nested call in a program, for lowering",
	"CheckError":    "the verifier's broken invariant (kiln.Verify), a Kiln bug; kiln.CheckError is Checked mode's",
	"CheckKind":     "the verifier's kinds of invariant, for the verifier's callers",
	"CheckRule":     "a per-op type rule of the verifier, for the op table",
	"Class":         "the op table's op classes, for lowering and tools",
	"ControlParams": "a control-flow equation's parameters, for lowering",
	"ConvParams":    "a conv equation's lowered parameters, for lowering and derivative rules",
	"Domain":        "the op table's input domains, for the reference and tests",
	"Eqn":           "a program's equation, for lowering and tools",
	"Hoisted":       "a hoisted weak scalar, for the root package's compiler pass",
	"IndexParams":   "a gather/scatter equation's parameters, for lowering",
	"OpInfo":        "an op's row of the op table, for lowering and tools",
	"Mark":          "an equation's place in a Checkpoint/CustomJVP/CustomVJP application (Params.Mark), for transformations",
	"Params":        "an equation's parameters, for lowering",
	"Program":       "a traced program, for lowering and tools (Func.Trace returns it)",
	"Region":        "one application of Checkpoint/CustomJVP/CustomVJP, which its equations' marks point to, for transformations",
	"RegionKind":    "what a Region is, for transformations and program printing",
	"Rule":          "an op's derivative rule, for transformations",
	"SortParams":    "a sort equation's parameters, for lowering",
	"Var":           "a program's variable, for lowering and tools",
}

// traceInternalValues are package trace's exported constants and
// variables that are not for users, each with why; internalValueTypes
// are the types whose constants are all internal.
var (
	traceInternalValues = map[string]string{
		"HoistPass": "the hoisting pass's name, for the verifier's messages",
		"NumOps":    "the op table's size, for tables indexed by op",
		"VerifyAll": "KILN_VERIFY's setting, read by the root package (kiln.Verify is the user's switch)",
		"VerifyEnv": "the environment variable's name, for the root package and tests",
	}
	internalValueTypes = map[string]string{
		"CheckKind":  "the verifier's kinds (internal, above)",
		"Class":      "the op table's classes (internal, above)",
		"RegionKind": "the kinds of Region (internal, above)",
		"Domain":     "the op table's domains (internal, above)",
	}
)

// userOp reports whether an op constant is one users name: the ops that
// Reduce and Scatter take. The rest of the op table is for code walking it
// (trace.AllOps, kiln.Elementwise), which reads it from trace.
func userOp(name string) bool {
	return strings.HasPrefix(name, "OpReduce") || strings.HasPrefix(name, "OpScatter")
}

// exports are a package's exported package-level declarations.
type exports struct {
	funcs, types, values []string
	valueType            map[string]string // a constant's or variable's declared type, if named ("" if not)
	// sigs maps each exported function and each exported method of an
	// exported type ("Func.Trace") to its type.
	sigs map[string]*ast.FuncType
}

func (e exports) has(name string) bool {
	return slices.Contains(e.funcs, name) || slices.Contains(e.types, name) || slices.Contains(e.values, name)
}

// exportedDecls lists the exported declarations of the non-test files of
// dir.
func exportedDecls(t *testing.T, dir string) exports {
	t.Helper()
	fset := token.NewFileSet()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	e := exports{valueType: map[string]string{}, sigs: map[string]*ast.FuncType{}}
	for _, ent := range entries {
		name := ent.Name()
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if !d.Name.IsExported() {
					continue
				}
				if d.Recv == nil {
					e.funcs = append(e.funcs, d.Name.Name)
					e.sigs[d.Name.Name] = d.Type
				} else if recv := recvName(d.Recv.List[0].Type); ast.IsExported(recv) {
					e.sigs[recv+"."+d.Name.Name] = d.Type
				}
			case *ast.GenDecl:
				typ := "" // a const spec without type or values repeats the one before it
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.ValueSpec:
						if s.Type != nil || len(s.Values) > 0 {
							typ = ""
							if id, ok := s.Type.(*ast.Ident); ok {
								typ = id.Name
							}
						}
						for _, n := range s.Names {
							if n.IsExported() {
								e.values = append(e.values, n.Name)
								e.valueType[n.Name] = typ
							}
						}
					case *ast.TypeSpec:
						if s.Name.IsExported() {
							e.types = append(e.types, s.Name.Name)
						}
					}
				}
			}
		}
	}
	return e
}

// recvName is the type name of a method's receiver.
func recvName(x ast.Expr) string {
	switch x := x.(type) {
	case *ast.StarExpr:
		return recvName(x.X)
	case *ast.IndexExpr:
		return recvName(x.X)
	case *ast.IndexListExpr:
		return recvName(x.X)
	case *ast.Ident:
		return x.Name
	}
	return ""
}

// TestRootReachesTrace: every user-facing function, type, constant and
// variable of package trace is reachable as kiln.X, so `go doc
// github.com/kiln-go/kiln` is the manual and a program imports kiln alone.
func TestRootReachesTrace(t *testing.T) {
	tr, root := exportedDecls(t, "trace"), exportedDecls(t, ".")
	for _, name := range tr.funcs {
		if _, internal := traceInternal[name]; !internal && !root.has(name) {
			t.Errorf("trace.%s has no kiln.%s: re-export it (or list it in traceInternal with why)", name, name)
		}
	}
	for _, name := range tr.types {
		if _, internal := traceInternalTypes[name]; !internal && !root.has(name) {
			t.Errorf("type trace.%s has no kiln.%s: alias it (or list it in traceInternalTypes with why)", name, name)
		}
	}
	for _, name := range tr.values {
		typ := tr.valueType[name]
		_, internal := traceInternalValues[name]
		_, internalType := internalValueTypes[typ]
		if internal || internalType || typ == "Op" && !userOp(name) || root.has(name) {
			continue
		}
		t.Errorf("trace.%s (type %q) has no kiln.%s: re-export it (or list it in traceInternalValues with why)", name, typ, name)
	}
	for _, list := range []map[string]string{traceInternal, traceInternalTypes, traceInternalValues} {
		for name := range list {
			if !tr.has(name) {
				t.Errorf("an internal list names %s, which trace no longer exports", name)
			}
		}
	}
	for typ := range internalValueTypes {
		if _, ok := traceInternalTypes[typ]; !ok {
			t.Errorf("internalValueTypes names %s, which traceInternalTypes does not", typ)
		}
	}
}

// rootSigTrace are the exported functions and methods of this package
// whose signatures may name a type of package trace, each with why.
var rootSigTrace = map[string]string{
	"Func.Trace": "returns the traced program (*trace.Program), for tools",
}

// TestRootSignaturesNameRootTypes: no exported function or method of this
// package, and no method of Value, KeptDims or Ref, takes or returns a
// type of package trace that kiln does not alias, so its callers need no
// import of trace.
func TestRootSignaturesNameRootTypes(t *testing.T) {
	root := exportedDecls(t, ".")
	for name, sig := range root.sigs {
		if _, ok := rootSigTrace[name]; ok {
			continue
		}
		ast.Inspect(sig, func(n ast.Node) bool {
			if sel, ok := n.(*ast.SelectorExpr); ok {
				if pkg, ok := sel.X.(*ast.Ident); ok && pkg.Name == "trace" {
					t.Errorf("kiln.%s names trace.%s: use (or add) the alias kiln.%s", name, sel.Sel.Name, sel.Sel.Name)
				}
			}
			return true
		})
	}
	for name := range rootSigTrace {
		if _, ok := root.sigs[name]; !ok {
			t.Errorf("rootSigTrace lists %s, which kiln no longer exports", name)
		}
	}
	tracePkg := reflect.TypeOf(trace.Value{}).PkgPath()
	var check func(where string, typ reflect.Type)
	check = func(where string, typ reflect.Type) {
		switch typ.Kind() {
		case reflect.Pointer, reflect.Slice, reflect.Array:
			check(where, typ.Elem())
			return
		}
		if typ.PkgPath() == tracePkg && typ.Name() != "" && !root.has(typ.Name()) {
			t.Errorf("%s uses trace.%s, which kiln does not alias", where, typ.Name())
		}
	}
	for _, typ := range []reflect.Type{reflect.TypeOf(trace.Value{}), reflect.TypeOf(trace.KeptDims{}), reflect.TypeOf(trace.Ref{})} {
		for i := range typ.NumMethod() {
			m := typ.Method(i)
			where := typ.Name() + "." + m.Name
			for j := 1; j < m.Type.NumIn(); j++ { // 0 is the receiver
				check(where, m.Type.In(j))
			}
			for j := range m.Type.NumOut() {
				check(where, m.Type.Out(j))
			}
		}
	}
}

// docSection is the text of the package doc's section under heading, up
// to the next one.
func docSection(t *testing.T, heading string) string {
	t.Helper()
	src, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(src)
	start := strings.Index(doc, "// # "+heading+"\n")
	if start < 0 {
		t.Fatalf("doc.go has no %q section", "# "+heading)
	}
	section := doc[start:]
	if end := strings.Index(section[1:], "\n// # "); end >= 0 {
		section = section[:end+1]
	}
	return section
}

var identRE = regexp.MustCompile(`[A-Za-z][A-Za-z0-9]*`)

// words are the identifiers a section names.
func words(section string) map[string]bool {
	w := map[string]bool{}
	for _, id := range identRE.FindAllString(section, -1) {
		w[id] = true
	}
	return w
}

// docProse are the capitalized words of the indexes' bullets that name no
// identifier: the families' names and the projects'.
var docProse = []string{"Arithmetic", "Bitwise", "Comparisons", "Control", "Creation", "Dtypes",
	"Exponentials", "Indexing", "Inspecting", "Joining", "Linear", "Literals",
	"NaN", "NumPy", "Python", "Random", "Reductions", "Rounding", "Sorting", "The",
	"Transformations", "Trigonometric"}

// methodsOf are the method names of the types Value's methods hand out.
func methodsOf() map[string]bool {
	m := map[string]bool{}
	for _, typ := range []reflect.Type{reflect.TypeOf(trace.Value{}), reflect.TypeOf(trace.KeptDims{}), reflect.TypeOf(trace.Ref{})} {
		for i := range typ.NumMethod() {
			m[typ.Method(i).Name] = true
		}
	}
	return m
}

// checkBullets fails on a capitalized word of a section's bullet lists
// that is neither a method of Value, KeptDims or Ref, nor a name of this
// package, nor prose: a stale entry of the index.
func checkBullets(t *testing.T, heading, section string, root exports) {
	t.Helper()
	methods := methodsOf()
	inList := false
	for _, line := range strings.Split(section, "\n") {
		switch {
		case strings.HasPrefix(line, "//   - "):
			inList = true
		case !strings.HasPrefix(line, "//     "):
			inList = false
		}
		if !inList {
			continue
		}
		for _, loc := range identRE.FindAllStringIndex(line, -1) {
			id := line[loc[0]:loc[1]]
			if line[loc[0]-1] == '.' { // errors.As, x.KeepDims()
				continue
			}
			if id[0] < 'A' || id[0] > 'Z' || methods[id] || root.has(id) || slices.Contains(docProse, id) {
				continue
			}
			t.Errorf("doc.go's %q index names %s, which is no method of Value, KeptDims or Ref and no name of kiln", heading, id)
		}
	}
}

// TestDocIndexesValueMethods: the package doc's index of Value's methods
// names every one of them, and of KeptDims's and Ref's (Value is an alias
// of trace.Value, whose methods `go doc` shows only under package trace),
// and nothing that is not one.
func TestDocIndexesValueMethods(t *testing.T) {
	const heading = "Value's methods"
	section := docSection(t, heading)
	w := words(section)
	for _, typ := range []reflect.Type{reflect.TypeOf(trace.Value{}), reflect.TypeOf(trace.KeptDims{}), reflect.TypeOf(trace.Ref{})} {
		for i := range typ.NumMethod() {
			if m := typ.Method(i).Name; !w[m] {
				t.Errorf("the index of Value's methods in doc.go lacks %s.%s", typ.Name(), m)
			}
		}
	}
	checkBullets(t, heading, section, exportedDecls(t, "."))
}

// TestDocIndexesFunctions: the package doc's index of functions by family
// names every function this package re-exports from trace, and no name
// the package lacks.
func TestDocIndexesFunctions(t *testing.T) {
	const heading = "Functions by family"
	section := docSection(t, heading)
	w := words(section)
	tr, root := exportedDecls(t, "trace"), exportedDecls(t, ".")
	for _, name := range tr.funcs {
		if _, internal := traceInternal[name]; !internal && !w[name] {
			t.Errorf("the index of functions in doc.go lacks %s", name)
		}
	}
	checkBullets(t, heading, section, root)
}
