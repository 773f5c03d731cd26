package kiln_test

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/kiln-go/kiln"
	"github.com/kiln-go/kiln/promote"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// The profile oracle tests hold a rule set's whole profile (promote.Profile)
// against the framework itself: a Python script enumerates cases and prints
// what the framework gives for each ("add t:u8 z:i8\tu8"), and Kiln traces
// the same case under the rule set and must give the same. A case names an
// op and its operands, each a category and a dtype:
//
//	t:D  an array of rank 1 (a "tensor"), dtype D
//	z:D  an array of rank 0 (a "0-dim tensor"), dtype D
//	s:K  a Python scalar of kind K (bool, int, float, complex): Kiln's literals
//
// Ops: add (promotion), where (the two branches; the condition is a rank-1
// bool), div (true division), exp, sqrt, sin, log, log2, tanh, atan2,
// hypot and logaddexp (float functions), sum, prod, cumprod,
// cumsum and mean (reductions of a rank-1 operand), and lit V (a rank-1
// operand plus the int literal V: the result's dtype and first element).
// A result is a Kiln dtype name, "error", or a framework dtype Kiln lacks
// (c32: PyTorch's complex32).

// oracleCase is one line of an oracle script's output.
type oracleCase struct{ key, want string }

// runOracle runs script with python and returns its cases; it skips (or
// fails when require is "1") when python lacks module.
func runOracle(t *testing.T, module, aptName, require, script string) []oracleCase {
	t.Helper()
	if err := exec.Command(numpyPython, "-c", "import "+module).Run(); err != nil {
		msg := fmt.Sprintf("%s oracle test needs %s with %s (apt-get install %s): %v", module, numpyPython, module, aptName, err)
		if os.Getenv(require) == "1" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	path := filepath.Join(t.TempDir(), "oracle.py")
	if err := os.WriteFile(path, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(numpyPython, "-W", "ignore", path)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s oracle script: %v\n%s", module, err, stderr.String())
	}
	var cases []oracleCase
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	for sc.Scan() {
		key, want, ok := strings.Cut(sc.Text(), "\t")
		if !ok {
			t.Fatalf("%s oracle script printed %q", module, sc.Text())
		}
		cases = append(cases, oracleCase{key, want})
	}
	if len(cases) == 0 {
		t.Fatalf("%s oracle script printed no cases", module)
	}
	return cases
}

// oracleOperand is one operand of a case.
type oracleOperand struct {
	cat  byte // 't', 'z' or 's'
	d    tensor.DType
	kind string // for 's': bool, int, float, complex
}

func parseOperand(s string) (oracleOperand, error) {
	cat, name, ok := strings.Cut(s, ":")
	if !ok || len(cat) != 1 || !strings.Contains("tzs", cat) {
		return oracleOperand{}, fmt.Errorf("bad operand %q", s)
	}
	o := oracleOperand{cat: cat[0]}
	if o.cat == 's' {
		o.kind = name
		return o, nil
	}
	d, err := tensor.ParseDType(name)
	o.d = d
	return o, err
}

// abstract is the traced input of a t or z operand.
func (o oracleOperand) abstract() trace.Abstract {
	if o.cat == 'z' {
		return trace.Abstract{Type: promote.Strong(o.d)}
	}
	return trace.Abstract{Type: promote.Strong(o.d), Shape: []int{2}}
}

// literal is the Kiln literal of an s operand.
func (o oracleOperand) literal() trace.Value {
	switch o.kind {
	case "bool":
		return trace.Bool(true)
	case "int":
		return trace.Int(1)
	case "float":
		return trace.Float(1.5)
	}
	return trace.Complex(1 + 1i)
}

// kilnResult traces the case under rules and returns Kiln's answer in the
// oracle's notation, and the error when it is "error".
func kilnResult(rules *promote.RuleSet, key string) (string, error) {
	f := strings.Fields(key)
	op, rest := f[0], f[1:]
	if op == "lit" {
		return kilnLiteral(rules, rest)
	}
	ops := make([]oracleOperand, len(rest))
	var inputs []trace.Abstract
	for i, s := range rest {
		o, err := parseOperand(s)
		if err != nil {
			return "", err
		}
		ops[i] = o
		if o.cat != 's' {
			inputs = append(inputs, o.abstract())
		}
	}
	if op == "where" {
		inputs = append(inputs, trace.Abstract{Type: promote.Strong(tensor.Bool), Shape: []int{2}})
	}
	p, err := trace.Trace(promote.Config{Rules: rules}, inputs, func(args []trace.Value) []trace.Value {
		vals := make([]trace.Value, len(ops))
		k := 0
		for i, o := range ops {
			if o.cat == 's' {
				vals[i] = o.literal()
			} else {
				vals[i], k = args[k], k+1
			}
		}
		var out trace.Value
		switch op {
		case "add":
			out = vals[0].Add(vals[1])
		case "where":
			out = trace.Where(args[len(args)-1], vals[0], vals[1])
		case "div":
			out = vals[0].Div(vals[1])
		case "exp":
			out = vals[0].Exp()
		case "sqrt":
			out = vals[0].Sqrt()
		case "sin":
			out = vals[0].Sin()
		case "log":
			out = vals[0].Log()
		case "log2":
			out = vals[0].Log2()
		case "tanh":
			out = vals[0].Tanh()
		case "atan2":
			out = vals[0].Atan2(vals[1])
		case "hypot":
			out = vals[0].Hypot(vals[1])
		case "logaddexp":
			out = vals[0].LogAddExp(vals[1])
		case "sum":
			out = vals[0].Sum()
		case "prod":
			out = vals[0].Prod()
		case "cumsum":
			out = vals[0].Cumsum(0)
		case "cumprod":
			out = vals[0].Cumprod(0)
		case "mean":
			out = vals[0].Mean()
		default:
			out = trace.Failure(fmt.Errorf("unknown oracle op %q", op))
		}
		return []trace.Value{out}
	})
	if err != nil {
		return "error", err
	}
	return p.Outputs[0].Type.DType.String(), nil
}

// kilnLiteral runs "lit t:D V": ones of dtype D plus the int literal V,
// and returns "D:first element".
func kilnLiteral(rules *promote.RuleSet, rest []string) (string, error) {
	o, err := parseOperand(rest[0])
	if err != nil {
		return "", err
	}
	v, err := strconv.ParseInt(rest[1], 10, 64)
	if err != nil {
		return "", err
	}
	x := tensor.Must(tensor.FromSlice([]int64{1, 1})).Astype(o.d)
	f := kiln.Jit(func(x kiln.Value) kiln.Value { return x.Add(kiln.Int(v)) }, kiln.Rules(rules))
	out, err := f.Run(x)
	if err != nil {
		return "error", err
	}
	return fmt.Sprintf("%s:%s", out.DType(), out.FormatElem(0)), nil
}

// checkOracle compares every case; known maps a case to the documented
// reason Kiln differs (docs/SPEC.md §2), with the answer Kiln gives then.
func checkOracle(t *testing.T, rules *promote.RuleSet, cases []oracleCase, known func(key, want string) (kiln string, why string)) {
	t.Helper()
	agree, documented := 0, 0
	for _, c := range cases {
		got, err := kilnResult(rules, c.key)
		if got == c.want {
			if got == "error" {
				var pe *promote.PromotionError
				var oe *promote.OverflowError
				var de *trace.DTypeError
				if !errors.As(err, &pe) && !errors.As(err, &oe) && !errors.As(err, &de) {
					t.Errorf("%s: error %v is not a typed promotion, overflow or dtype error", c.key, err)
				}
			}
			agree++
			continue
		}
		if k, why := known(c.key, c.want); why != "" && got == k {
			documented++
			continue
		}
		t.Errorf("%s (%s): framework %s, Kiln %s %v", c.key, rules.Name(), c.want, got, err)
	}
	t.Logf("%s: %d cases, %d agree, %d differ as documented", rules.Name(), len(cases), agree, documented)
}
