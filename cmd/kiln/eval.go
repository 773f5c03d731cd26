package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strings"
	"time"

	kilnpkg "github.com/kiln-go/kiln"
	"github.com/kiln-go/kiln/kernels"
	"github.com/kiln-go/kiln/lower"
	"github.com/kiln-go/kiln/lower/stablehlo"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

func init() {
	register("eval", "evaluate a Python-like expression over typed arguments (dtype, weak flag, shape, values)", runEval)
}

// kernelSourcer is a backend that generates source code per module (the
// OpenCL backend's OpenCL C); --print kernels prints it.
type kernelSourcer interface {
	Source(m *lower.Module) (string, error)
}

// printNames are the --print stages, in pipeline order.
var printNames = []string{"program", "module", "fused", "dot", "stablehlo", "kernels"}

// listFlag collects a repeatable flag; with split set, each value may also
// be a comma list.
type listFlag struct {
	vals  []string
	split bool
}

func (l *listFlag) String() string { return strings.Join(l.vals, ",") }

func (l *listFlag) Set(s string) error {
	if l.split {
		for _, v := range strings.Split(s, ",") {
			if v = strings.TrimSpace(v); v != "" {
				l.vals = append(l.vals, v)
			}
		}
		return nil
	}
	l.vals = append(l.vals, s)
	return nil
}

// evalFlags are kiln eval's parsed flags.
type evalFlags struct {
	json, x32, strict, noFusion   bool
	rules, backend, memLimit, out string
	bench                         int
	timeout                       time.Duration
	prints, args, forbid, grads   listFlag
	checked                       checkedFlag
}

func runEval(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("eval", "", stderr)
	var fl evalFlags
	fl.prints.split, fl.grads.split = true, true
	fs.BoolVar(&fl.json, "json", false, `print {"dtype":…,"weak":…,"shape":[…],"values":[…]} or {"error":{"kind":…,"message":…}}`)
	fs.BoolVar(&fl.x32, "x32", false, "32-bit defaults: literals are weak i32/f32/c64 (JAX without x64)")
	fs.BoolVar(&fl.strict, "strict", false, "strict promotion (same as --rules strict): only weak values promote implicitly")
	fs.StringVar(&fl.rules, "rules", "jax", rulesHelp())
	fs.StringVar(&fl.backend, "backend", "cpu", "the backend that runs the program: "+strings.Join(backendNames(), ", "))
	fs.Var(&fl.prints, "print", "print a stage before the result: program, module, fused, dot, stablehlo or kernels (repeat, or a comma list)")
	fs.IntVar(&fl.bench, "bench", 0, "after one warm-up, run the compiled function N times and print min and median time per run")
	fs.Var(&fl.args, "arg", "an argument NAME=DTYPE[SHAPE]:VALUES, or NAME=@FILE.npy, @FILE.npz:MEMBER, @FILE.safetensors:TENSOR (repeat for each)")
	fs.StringVar(&fl.out, "out", "", "also write the result to FILE.npy, FILE.npz or FILE.safetensors (named result, or result0, result1, … with --grad)")
	fs.Var(&fl.forbid, "forbid", "make the implicit widening FROM:TO an error (kind policy), e.g. bf16:f32 (repeatable)")
	fs.BoolVar(&fl.noFusion, "no-fusion", false, "run every op as its own kernel (results are bit-identical)")
	fs.StringVar(&fl.memLimit, "memory-limit", "", "the memory budget of the run (1GiB, 512MiB, 2e9, 50%, off): a program that would hold more at once fails to compile with kind size (default: the machine's memory, or KILN_MEMORY_LIMIT)")
	fs.Var(&fl.checked, "checked", "checked mode (kiln.Checked): an out-of-bounds index or an integer division by zero is an error (kind check); --checked=index,divide,nan picks the checks")
	fs.DurationVar(&fl.timeout, "timeout", 0, "stop the run after this long (e.g. 2s) with an error of kind deadline; 0: no limit. An interrupt (Ctrl-C, SIGINT) stops it too (kind canceled, exit status 130)")
	fs.Var(&fl.grads, "grad", "also print the gradient of EXPR (a real scalar) with respect to these arguments: NAME[,NAME...] (repeatable)")
	fs.Usage = func() { evalUsage(fs, fs.Output() == stdout) } // the full text for --help only
	pos, status := parseFlags(fs, args, stdout)
	if status >= 0 {
		return status
	}
	usageErr := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "kiln eval: "+format+"\n", a...)
		fmt.Fprintln(stderr, "run 'kiln eval --help' for the flags, the expression language and examples")
		return 2
	}
	switch {
	case len(pos) == 0:
		return usageErr("no expression (quote it: kiln eval --arg 'x=f32[3]:1,2,3' '2*x + 1')")
	case len(pos) > 1:
		return usageErr("one expression expected, got %d arguments: %q (quote the expression)", len(pos), pos)
	case fl.bench < 0:
		return usageErr("--bench %d: the number of runs cannot be negative", fl.bench)
	case fl.timeout < 0:
		return usageErr("--timeout %v: the limit cannot be negative", fl.timeout)
	case fl.out != "" && !slices.ContainsFunc([]string{".npy", ".npz", ".safetensors"}, func(ext string) bool { return strings.HasSuffix(fl.out, ext) }):
		return usageErr("--out %s: the file must end in .npy, .npz or .safetensors", fl.out)
	case strings.HasSuffix(fl.out, ".npy") && len(fl.grads.vals) > 0:
		return usageErr("--out %s: a .npy file holds one array, and --grad makes several results; write .npz or .safetensors", fl.out)
	}
	opts, backend, msg := fl.options(fs)
	if msg != "" {
		return usageErr("%s", msg)
	}
	if closer, ok := backend.(io.Closer); ok {
		defer closer.Close()
	}
	var specs []argSpec
	seen := map[string]bool{}
	for _, a := range fl.args.vals {
		spec, err := parseArg(a)
		if spec.close != nil {
			defer spec.close()
		}
		var se *specError
		if errors.As(err, &se) && se.Usage {
			return usageErr("%s", strings.TrimPrefix(err.Error(), "eval: "))
		}
		if err != nil {
			return report(stdout, stderr, fl.json, "", err)
		}
		if seen[spec.name] {
			return usageErr("--arg %s is given twice", spec.name)
		}
		seen[spec.name] = true
		specs = append(specs, spec)
	}
	for _, g := range fl.grads.vals {
		if !seen[g] {
			return usageErr("--grad %s: no --arg is named %s", g, g)
		}
	}
	ctx, stop := runContext(fl.timeout)
	defer stop()
	r := &evalRun{ctx: ctx, flags: fl, expr: pos[0], specs: specs, backend: backend, stdout: stdout}
	r.session.opts = opts
	if err := r.run(); err != nil {
		status := report(stdout, stderr, fl.json, r.expr, err)
		if errors.Is(err, errInterrupted) {
			status = 130 // a shell's status for a command SIGINT ended
		}
		return status
	}
	return 0
}

// testHookInterruptible, if set (by a test), is called once an interrupt
// would stop the run.
var testHookInterruptible func()

// errInterrupted is the cause of a run an interrupt (SIGINT) stopped.
var errInterrupted = errors.New("interrupted (SIGINT)")

// runContext is the context kiln eval runs under: done after timeout (if
// not 0), with a cause naming the flag, or at the first interrupt, with
// errInterrupted. The interrupt is caught only until the first one
// arrives (a second one kills the process as usual) or stop is called.
func runContext(timeout time.Duration) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(context.Background())
	var stopTimer context.CancelFunc = func() {}
	if timeout > 0 {
		ctx, stopTimer = context.WithTimeoutCause(ctx, timeout, fmt.Errorf("--timeout %v passed", timeout))
	}
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt)
	if testHookInterruptible != nil {
		testHookInterruptible()
	}
	done := make(chan struct{})
	go func() {
		select {
		case <-sig:
			signal.Stop(sig)
			cancel(errInterrupted)
		case <-done:
		}
	}()
	return ctx, func() {
		signal.Stop(sig)
		close(done)
		stopTimer()
		cancel(nil)
	}
}

// options turns the flags into kiln options, or says what is wrong with
// them.
func (fl *evalFlags) options(fs *flag.FlagSet) ([]kilnpkg.Option, kernels.Backend, string) {
	rulesGiven := false
	fs.Visit(func(f *flag.Flag) { rulesGiven = rulesGiven || f.Name == "rules" })
	if fl.strict {
		if rulesGiven && fl.rules != "strict" {
			return nil, nil, fmt.Sprintf("--strict and --rules %s disagree", fl.rules)
		}
		fl.rules = "strict"
	}
	var opts []kilnpkg.Option
	var sb strings.Builder
	rules, ok := rulesFlag(fl.rules, &sb)
	if !ok {
		return nil, nil, strings.TrimSpace(strings.TrimPrefix(sb.String(), "kiln: "))
	}
	opts = append(opts, kilnpkg.Rules(rules))
	if fl.x32 {
		opts = append(opts, kilnpkg.X32())
	}
	if fl.noFusion {
		opts = append(opts, kilnpkg.NoFusion())
	}
	if fl.memLimit != "" {
		n, err := tensor.ParseBytes(fl.memLimit)
		if err != nil {
			return nil, nil, fmt.Sprintf("--memory-limit %q: %v", fl.memLimit, err)
		}
		opts = append(opts, kilnpkg.MemoryLimit(n))
	}
	if fl.checked.on {
		opts = append(opts, kilnpkg.Checked(fl.checked.kinds...))
	}
	for _, f := range fl.forbid.vals {
		from, to, ok := strings.Cut(f, ":")
		fd, err1 := tensor.ParseDType(from)
		td, err2 := tensor.ParseDType(to)
		if !ok || err1 != nil || err2 != nil {
			return nil, nil, fmt.Sprintf("--forbid %q: want FROM:TO dtypes, e.g. bf16:f32", f)
		}
		opts = append(opts, kilnpkg.Forbid(fd, td))
	}
	if _, ok := backends[fl.backend]; !ok { // the table is shared with kiln demo
		return nil, nil, fmt.Sprintf("unknown --backend %q (have %s)", fl.backend, strings.Join(backendNames(), ", "))
	}
	for _, p := range fl.prints.vals {
		if !slices.Contains(printNames, p) {
			return nil, nil, fmt.Sprintf("unknown --print %q (want %s)", p, strings.Join(printNames, ", "))
		}
	}
	backend, err := lookupBackend(fl.backend)
	if err != nil {
		return nil, nil, fmt.Sprintf("--backend %s: %v", fl.backend, err)
	}
	if _, ok := backend.(kernelSourcer); slices.Contains(fl.prints.vals, "kernels") && !ok {
		return nil, nil, fmt.Sprintf("--print kernels: the %s backend generates no kernel source (code-generating backends such as OpenCL do)", backend.Name())
	}
	return append(opts, kilnpkg.WithBackend(backend)), backend, ""
}

// evalRun is one evaluation: parse, check, trace, print, run, bench.
type evalRun struct {
	ctx     context.Context // --timeout and SIGINT (see runContext)
	flags   evalFlags
	expr    string
	specs   []argSpec
	backend kernels.Backend
	stdout  io.Writer
	session session
}

func (r *evalRun) run() error {
	root, err := parseExpr(r.expr)
	if err != nil {
		return err
	}
	c := &checker{names: map[string]bool{}}
	s := &r.session
	for _, a := range r.specs {
		c.names[a.name] = true
		s.names = append(s.names, a.name)
		s.inputs = append(s.inputs, a.input())
	}
	if err := c.array(root); err != nil {
		return err
	}
	f, ev := s.jit(root)
	prog, err := f.Trace(s.inputs...)
	if err != nil {
		return s.explain(ev, err)
	}
	if len(r.flags.grads.vals) > 0 {
		// The expression traced: what fails now is the differentiation.
		if f, prog, err = r.gradFunc(ev); err != nil {
			return err
		}
	}
	stages, err := r.stages(f, prog)
	if err != nil {
		return err
	}
	outs, err := f.RunAllContext(r.ctx, s.inputs...)
	if err != nil {
		return err
	}
	if r.flags.out != "" {
		if err := writeOut(r.flags.out, outs); err != nil {
			return err
		}
	}
	res := result{array: outs[0], weak: prog.Outputs[0].Type.Weak, stages: stages}
	for i, name := range r.flags.grads.vals {
		res.grads = append(res.grads, named{name: name, array: outs[1+i], weak: prog.Outputs[1+i].Type.Weak})
	}
	if r.flags.bench > 0 {
		if res.bench, err = bench(r.ctx, f, s.inputs, outs, r.flags.bench); err != nil {
			return err
		}
	}
	if r.flags.json {
		return res.writeJSON(r.stdout)
	}
	res.writeText(r.stdout)
	return nil
}

// stage is one --print section.
type stage struct{ name, text string }

// stages renders the requested --print sections, each once, in the order
// asked for.
func (r *evalRun) stages(f *kilnpkg.Func, prog *trace.Program) ([]stage, error) {
	var out []stage
	var mod *lower.Module
	for _, name := range r.flags.prints.vals {
		if slices.ContainsFunc(out, func(s stage) bool { return s.name == name }) {
			continue
		}
		if name != "program" && mod == nil {
			var err error
			if mod, err = f.Lower(r.session.inputs...); err != nil {
				return nil, err
			}
		}
		var text string
		switch name {
		case "program":
			text = prog.String()
		case "module":
			text = mod.String()
		case "fused":
			text = mod.FusedString()
		case "dot":
			text = mod.DOT()
		case "stablehlo":
			var err error
			if text, err = stablehlo.Export(mod); err != nil {
				return nil, err
			}
		case "kernels":
			src, err := r.backend.(kernelSourcer).Source(mod)
			if err != nil {
				return nil, err
			}
			text = src
		}
		out = append(out, stage{name, hideGoPositions(text)})
	}
	return out, nil
}

// hideGoPositions drops the "at kiln/build.go:123" that the tracer records
// for every op (the Go line that called it, which on the command line is a
// line of this interpreter, not of the user's expression).
func hideGoPositions(s string) string {
	var b strings.Builder
	for line := range strings.Lines(s) {
		if i := strings.LastIndex(line, " at kiln/"); i >= 0 && strings.Contains(line[i:], ".go:") {
			nl := ""
			if strings.HasSuffix(line, "\n") {
				nl = "\n"
			}
			line = strings.TrimRight(line[:i], " ") + nl
		}
		b.WriteString(line)
	}
	return b.String()
}

// benchResult is the timing of --bench.
type benchResult struct {
	Runs   int   `json:"runs"`
	MinNs  int64 `json:"min_ns"`
	MedNs  int64 `json:"median_ns"`
	min    time.Duration
	median time.Duration
}

// bench runs f once to warm up, then n times into preallocated outputs,
// and returns the minimum and the median time per run.
func bench(ctx context.Context, f *kilnpkg.Func, inputs []any, likes []*tensor.Array, n int) (*benchResult, error) {
	outs := make([]*tensor.Array, len(likes))
	for i, like := range likes {
		out, err := tensor.Zeros(like.DType(), like.Shape()...)
		if err != nil {
			return nil, err
		}
		outs[i] = out
	}
	if err := f.RunIntoContext(ctx, outs, inputs...); err != nil {
		return nil, err
	}
	times := make([]time.Duration, n)
	for i := range times {
		start := time.Now()
		if err := f.RunIntoContext(ctx, outs, inputs...); err != nil {
			return nil, err
		}
		times[i] = time.Since(start)
	}
	slices.Sort(times)
	median := times[n/2]
	if n%2 == 0 {
		median = (times[n/2-1] + times[n/2]) / 2
	}
	return &benchResult{Runs: n, MinNs: times[0].Nanoseconds(), MedNs: median.Nanoseconds(), min: times[0], median: median}, nil
}

// result is what kiln eval prints.
type result struct {
	array  *tensor.Array
	weak   bool
	grads  []named // --grad, in the order asked for
	stages []stage
	bench  *benchResult
}

// writeText prints the stages, each followed by a blank line, then the
// result as tensor.Array.String does with a * after a weak dtype, then the
// bench line.
func (r result) writeText(w io.Writer) {
	for _, s := range r.stages {
		fmt.Fprintln(w, strings.TrimRight(s.text, "\n"))
		fmt.Fprintln(w)
	}
	fmt.Fprintln(w, arrayText(r.array, r.weak))
	for _, g := range r.grads {
		fmt.Fprintf(w, "grad %s: %s\n", g.name, arrayText(g.array, g.weak))
	}
	if b := r.bench; b != nil {
		fmt.Fprintf(w, "bench: %d runs, min %v, median %v per run\n", b.Runs, b.min, b.median)
	}
}

// arrayText prints an array as tensor.Array.String does, with a * after a
// weak dtype.
func arrayText(a *tensor.Array, weak bool) string {
	text := a.String()
	if weak {
		d := a.DType().String()
		text = d + "*" + strings.TrimPrefix(text, d)
	}
	return text
}

// writeJSON prints one object: dtype, weak, shape, values (flat,
// row-major), the gradients, then the stages asked for by name and the
// bench timing.
func (r result) writeJSON(w io.Writer) error {
	obj := struct {
		DType   string          `json:"dtype"`
		Weak    bool            `json:"weak"`
		Shape   []int           `json:"shape"`
		Values  json.RawMessage `json:"values"`
		Grad    json.RawMessage `json:"grad,omitempty"`
		Program string          `json:"program,omitempty"`
		Module  string          `json:"module,omitempty"`
		Fused   string          `json:"fused,omitempty"`
		DOT     string          `json:"dot,omitempty"`
		SHLO    string          `json:"stablehlo,omitempty"`
		Kernels string          `json:"kernels,omitempty"`
		Bench   *benchResult    `json:"bench,omitempty"`
	}{DType: r.array.DType().String(), Weak: r.weak, Shape: r.array.Shape(), Values: jsonValues(r.array), Grad: gradJSON(r.grads), Bench: r.bench}
	for _, s := range r.stages {
		*map[string]*string{"program": &obj.Program, "module": &obj.Module, "fused": &obj.Fused, "dot": &obj.DOT, "stablehlo": &obj.SHLO, "kernels": &obj.Kernels}[s.name] = s.text
	}
	return encodeJSON(w, obj)
}

// encodeJSON writes v on one line without escaping <, > and &, which
// programs and error messages contain.
func encodeJSON(w io.Writer, v any) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	_, err := w.Write(buf.Bytes())
	return err
}

// jsonValues prints an array's elements flat, row-major: numbers as the
// shortest decimal that reads back to the same value at the element's own
// precision (tensor.FormatElem), nan/inf/-inf as strings, complex as
// [re, im], bools as true/false.
func jsonValues(a *tensor.Array) json.RawMessage {
	var b strings.Builder
	b.WriteByte('[')
	for i := range a.Size() {
		if i > 0 {
			b.WriteByte(',')
		}
		switch v := tensor.Index(a.Data(), i).(type) {
		case complex64:
			fmt.Fprintf(&b, "[%s,%s]", jsonNumber(real(v)), jsonNumber(imag(v)))
		case complex128:
			fmt.Fprintf(&b, "[%s,%s]", jsonNumber(real(v)), jsonNumber(imag(v)))
		default:
			b.WriteString(jsonNumber(v))
		}
	}
	b.WriteByte(']')
	return json.RawMessage(b.String())
}

func jsonNumber(v any) string {
	s := tensor.FormatValue(v)
	switch s {
	case "nan", "inf", "-inf":
		return `"` + s + `"`
	}
	return s
}

// report prints a failure — on stderr with a caret under the column of the
// expression it concerns, or as {"error":{…}} on stdout with --json — and
// returns exit status 1.
func report(stdout, stderr io.Writer, asJSON bool, expr string, err error) int {
	if asJSON {
		writeJSONError(stdout, err)
		return 1
	}
	fmt.Fprintln(stderr, err)
	if col := errColumn(err); col > 0 && expr != "" {
		fmt.Fprintf(stderr, "  %s\n  %s^\n", expr, strings.Repeat(" ", col-1))
	}
	return 1
}

// errColumn is the expression column an error points at, or 0.
func errColumn(err error) int {
	var xe *exprError
	if errors.As(err, &xe) {
		return xe.Col
	}
	var pos trace.Pos
	var se *trace.ShapeError
	var de *trace.DTypeError
	var oe *trace.OpError
	var pe *kilnpkg.PolicyError
	var be *kilnpkg.BudgetError
	var ce *trace.ControlError
	var dv *trace.DerivError
	var ve *trace.VmapError
	switch {
	case errors.As(err, &ve):
		pos = ve.Pos
	case errors.As(err, &be):
		pos = be.Pos
	case errors.As(err, &ce):
		pos = ce.Pos
	case errors.As(err, &dv):
		pos = dv.Pos
	case errors.As(err, &se):
		pos = se.Pos
	case errors.As(err, &de):
		pos = de.Pos
	case errors.As(err, &oe):
		pos = oe.Pos
	case errors.As(err, &pe):
		pos = pe.Widening.Pos
	}
	if pos.File == "<expr>" {
		return pos.Col
	}
	return 0
}
