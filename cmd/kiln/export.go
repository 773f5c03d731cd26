package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"

	kilnpkg "github.com/kiln-go/kiln"
	"github.com/kiln-go/kiln/export/onnx"
)

func init() {
	register("export", "write an expression over typed arguments as an ONNX model (--format onnx)", runExport)
}

// runExport is kiln export --format onnx -o FILE --arg … 'EXPR': the
// expression traced and lowered as kiln eval does, then written by
// export/onnx with the graph inputs named after the arguments and the
// output named result.
func runExport(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("export", "--format onnx -o FILE [--arg NAME=DTYPE[SHAPE]:VALUES …] [--x32] [--rules R] 'EXPR'", stderr)
	var format, out, rules string
	var x32 bool
	var argFlags listFlag
	fs.StringVar(&format, "format", "onnx", "the model format (onnx)")
	fs.StringVar(&out, "o", "", "the file to write (- for stdout)")
	fs.Var(&argFlags, "arg", "an argument NAME=DTYPE[SHAPE]:VALUES (repeat for each); its dtype and shape are the model input's, its values are not kept")
	fs.BoolVar(&x32, "x32", false, "32-bit defaults: literals are weak i32/f32/c64 (JAX without x64)")
	fs.StringVar(&rules, "rules", "jax", rulesHelp())
	pos, status := parseFlags(fs, args, stdout)
	if status >= 0 {
		return status
	}
	usageErr := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "kiln export: "+format+"\n", a...)
		fmt.Fprintln(stderr, "run 'kiln export --help' for the flags")
		return 2
	}
	switch {
	case format != "onnx":
		return usageErr("--format %q: only onnx is supported", format)
	case out == "":
		return usageErr("no output file (-o model.onnx, or -o - for stdout)")
	case len(pos) != 1:
		return usageErr("one expression expected, got %d arguments: %q (quote the expression)", len(pos), pos)
	}
	var sb strings.Builder
	r, ok := rulesFlag(rules, &sb)
	if !ok {
		return usageErr("%s", strings.TrimSpace(strings.TrimPrefix(sb.String(), "kiln: ")))
	}
	opts := []kilnpkg.Option{kilnpkg.Rules(r)}
	if x32 {
		opts = append(opts, kilnpkg.X32())
	}
	s := &session{opts: opts}
	seen := map[string]bool{}
	for _, a := range argFlags.vals {
		spec, err := parseArg(a)
		var se *specError
		if errors.As(err, &se) && se.Usage {
			return usageErr("%s", err.Error())
		}
		if err != nil {
			fmt.Fprintf(stderr, "kiln export: %v\n", err)
			return 1
		}
		if seen[spec.name] {
			return usageErr("--arg %s is given twice", spec.name)
		}
		seen[spec.name] = true
		s.names = append(s.names, spec.name)
		s.inputs = append(s.inputs, spec.input())
	}
	model, err := exportONNX(s, pos[0])
	if err != nil {
		// The Go position of a refused op is a line of this interpreter.
		fmt.Fprintf(stderr, "kiln export: %s\n", goPosition.ReplaceAllString(err.Error(), ""))
		return 1
	}
	if out == "-" {
		_, err = stdout.Write(model)
	} else {
		err = os.WriteFile(out, model, 0o644)
	}
	if err != nil {
		fmt.Fprintf(stderr, "kiln export: %v\n", err)
		return 1
	}
	return 0
}

// goPosition is the " (at kiln/file.go:N)" an export error names.
var goPosition = regexp.MustCompile(` \(at kiln/[^)]*\.go:[0-9]+\)`)

// exportONNX parses, checks, traces and lowers expr over the session's
// arguments and exports the module.
func exportONNX(s *session, expr string) ([]byte, error) {
	root, err := parseExpr(expr)
	if err != nil {
		return nil, err
	}
	c := &checker{names: map[string]bool{}}
	for _, n := range s.names {
		c.names[n] = true
	}
	if err := c.array(root); err != nil {
		return nil, err
	}
	f, ev := s.jit(root)
	if _, err := f.Trace(s.inputs...); err != nil {
		return nil, s.explain(ev, err)
	}
	mod, err := f.Lower(s.inputs...)
	if err != nil {
		return nil, err
	}
	return onnx.Export(mod, onnx.Options{InputNames: s.names})
}
