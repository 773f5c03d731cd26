package trace

import (
	"fmt"
	"os"

	"github.com/kiln-go/kiln/tensor"
)

// VerifyEnv names the environment variable that, set to 1, makes every
// stage verify what it produces: Trace checks the program it returns,
// every pass of package trace (HoistWeakScalars) checks its result, and
// lower.Compile verifies the module after every pass. It is read once,
// at start-up. The conformance suite, the differential test and the
// program generator verify always, whatever it says.
const VerifyEnv = "KILN_VERIFY"

// VerifyAll reports whether VerifyEnv asked every stage to verify.
var VerifyAll = os.Getenv(VerifyEnv) == "1"

// CheckKind says which invariant of a well-formed program a CheckError
// is about.
type CheckKind uint8

// The invariants Program.Check verifies.
const (
	// CheckSSA: every Var is defined once (a program input or the result
	// of one equation) before it is used, with an ID below NumVars; the
	// outputs are defined.
	CheckSSA CheckKind = iota + 1
	// CheckOp: the op is one of the table, applied to its arity.
	CheckOp
	// CheckType: dtypes and weak flags follow the op's rule (operands of
	// elementwise ops share one dtype, converts are explicit, bool is
	// never weak, …).
	CheckType
	// CheckShape: the result shape is the op's rule applied to its
	// operands' shapes and params; no dimension is negative.
	CheckShape
	// CheckParams: the op's static params are valid (sorted, unique,
	// in-range axes; a permutation; a constant's value; …).
	CheckParams
)

var checkKindNames = [...]string{CheckSSA: "ssa", CheckOp: "op", CheckType: "type", CheckShape: "shape", CheckParams: "params"}

func (k CheckKind) String() string {
	if int(k) < len(checkKindNames) && checkKindNames[k] != "" {
		return checkKindNames[k]
	}
	return fmt.Sprintf("CheckKind(%d)", uint8(k))
}

// CheckError reports a program that breaks an invariant every later stage
// relies on. It is a bug in the tracer or in a pass, never in the user's
// code: Pass names the stage that produced the program when the check ran
// after one ("trace", "hoist_weak_scalars").
type CheckError struct {
	Pass string
	Kind CheckKind
	Op   string // the equation's op; "" for the program as a whole
	Eqn  int    // the equation's index in Program.Eqns, or -1
	Pos  Pos    // the user's call site of the equation, if known
	Msg  string
}

func (e *CheckError) Error() string {
	s := "trace: ill-formed program"
	if e.Pass != "" {
		s += " after " + e.Pass
	}
	s += " (" + e.Kind.String() + ")"
	if e.Eqn >= 0 {
		s += fmt.Sprintf(": equation %d (%s", e.Eqn, e.Op)
		if p := e.Pos.String(); p != "" {
			s += " at " + p
		}
		s += ")"
	}
	return s + ": " + e.Msg
}

// fault is a CheckError of kind k, not yet placed in a program.
func fault(k CheckKind, format string, args ...any) *CheckError {
	return &CheckError{Kind: k, Eqn: -1, Msg: fmt.Sprintf(format, args...)}
}

// Check verifies that p is well formed, the invariants every stage after
// tracing relies on: SSA (each Var defined once, before its uses, with an
// ID below NumVars; outputs defined), valid types (a known dtype, bool
// never weak, no negative dimension), and for every equation its op's
// typing rule (the op table's Check, or its class's: operand dtypes,
// weak flags, result shape, params). It returns the first violation as a
// *CheckError, or nil.
func (p *Program) Check() error {
	if p == nil {
		return fault(CheckSSA, "nil program")
	}
	defined := make(map[*Var]bool, len(p.Inputs)+len(p.Eqns))
	ids := make(map[int]*Var, len(p.Inputs)+len(p.Eqns))
	define := func(v *Var, what string) *CheckError {
		switch {
		case v == nil:
			return fault(CheckSSA, "%s is nil", what)
		case defined[v]:
			return fault(CheckSSA, "%s %s is defined twice", what, v.Name())
		case v.ID < 0 || v.ID >= p.NumVars:
			return fault(CheckSSA, "%s %s has ID %d, outside 0..%d (NumVars)", what, v.Name(), v.ID, p.NumVars-1)
		case ids[v.ID] != nil:
			return fault(CheckSSA, "%s %s has the ID of another value", what, v.Name())
		}
		if err := checkVar(v); err != nil {
			err.Msg = what + " " + err.Msg
			return err
		}
		defined[v], ids[v.ID] = true, v
		return nil
	}
	for i, v := range p.Inputs {
		if err := define(v, fmt.Sprintf("input %d", i)); err != nil {
			return err
		}
	}
	made := map[*Var]*Eqn{}
	for i, e := range p.Eqns {
		if err := p.checkEqn(e, defined); err != nil {
			return placed(err, i, e)
		}
		if e.Op == OpResult {
			if err := checkProjection(e, made[e.Args[0]]); err != nil {
				return placed(err, i, e)
			}
		}
		made[e.Out] = e
		if err := define(e.Out, "result"); err != nil {
			return placed(err, i, e)
		}
	}
	if len(p.Outputs) == 0 {
		return fault(CheckSSA, "the program has no outputs")
	}
	for i, o := range p.Outputs {
		if o == nil || !defined[o] {
			return fault(CheckSSA, "output %d is not a value of the program", i)
		}
	}
	return nil
}

// CheckAfter is Check naming the pass that produced p in its error.
func (p *Program) CheckAfter(pass string) error {
	err := p.Check()
	if ce, ok := err.(*CheckError); ok {
		ce.Pass = pass
	}
	return err
}

func placed(err *CheckError, i int, e *Eqn) *CheckError {
	if e != nil {
		err.Eqn, err.Op, err.Pos = i, e.Op.String(), e.Pos
	}
	return err
}

// checkEqn verifies one equation whose operands must be defined.
func (p *Program) checkEqn(e *Eqn, defined map[*Var]bool) *CheckError {
	switch {
	case e == nil:
		return fault(CheckSSA, "nil equation")
	case e.Op == OpParam:
		return fault(CheckOp, "param is not an equation: the program's inputs are Program.Inputs")
	}
	for i, a := range e.Args {
		if a == nil || !defined[a] {
			name := "nil"
			if a != nil {
				name = a.Name()
			}
			return fault(CheckSSA, "operand %d (%s) is used before it is defined", i, name)
		}
	}
	if e.Out == nil {
		return fault(CheckSSA, "no result")
	}
	args := make([]Abstract, len(e.Args))
	for i, a := range e.Args {
		args[i] = Abstract{Type: a.Type, Shape: a.Shape}
	}
	return e.Op.checkTypes(args, Abstract{Type: e.Out.Type, Shape: e.Out.Shape}, &e.Params)
}

// checkVar verifies a value's type and shape on their own.
func checkVar(v *Var) *CheckError {
	if err := checkAbstract(Abstract{Type: v.Type, Shape: v.Shape}); err != nil {
		err.Msg = v.Name() + ": " + err.Msg
		return err
	}
	return nil
}

func checkAbstract(a Abstract) *CheckError {
	switch {
	case !a.Type.DType.Valid():
		return fault(CheckType, "invalid dtype %v", a.Type.DType)
	case a.Type.DType == tensor.Bool && a.Type.Weak:
		return fault(CheckType, "bool is never weak")
	}
	for _, d := range a.Shape {
		if d < 0 {
			return fault(CheckShape, "negative dimension in %s", shapeString(a.Shape))
		}
	}
	return nil
}

// CheckTypes verifies one application of op: operands of the given types
// and shapes, producing out, with params p. It applies the op's typing
// rule (OpInfo.Check, or its class's rule) and returns a *CheckError
// saying what does not hold, or nil. lower's Module.Verify calls it on
// every instruction (with weak flags erased).
func (op Op) CheckTypes(args []Abstract, out Abstract, p *Params) error {
	if err := op.checkTypes(args, out, p); err != nil {
		err.Op = op.String()
		return err
	}
	return nil
}

func (op Op) checkTypes(args []Abstract, out Abstract, p *Params) *CheckError {
	if op == OpInvalid || op >= numOps {
		return fault(CheckOp, "unknown op %d", uint8(op))
	}
	info := op.Info()
	rule := info.Check
	if rule == nil && int(info.Class) < len(classRules) {
		rule = classRules[info.Class]
	}
	if rule == nil {
		return fault(CheckOp, "%s has no typing rule: give it OpInfo.Check in the op table", op)
	}
	if n := info.Arity; (n >= 0 && len(args) != n) || (n < 0 && len(args) == 0) {
		return fault(CheckOp, "%s takes %s operands, got %d", op, arityString(n), len(args))
	}
	for i, a := range args {
		if err := checkAbstract(a); err != nil {
			err.Msg = fmt.Sprintf("operand %d: %s", i, err.Msg)
			return err
		}
	}
	if err := checkAbstract(out); err != nil {
		err.Msg = "result: " + err.Msg
		return err
	}
	if p == nil {
		p = &Params{}
	}
	if err := rule(op, args, out, p); err != nil {
		if ce, ok := err.(*CheckError); ok {
			return ce // nil when a rule returned a nil *CheckError
		}
		return fault(CheckType, "%v", err)
	}
	return nil
}

func arityString(n int) string {
	if n < 0 {
		return "one or more"
	}
	return fmt.Sprint(n)
}
