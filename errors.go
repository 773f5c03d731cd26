package kiln

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/kiln-go/kiln/trace"
)

// FuncError reports a function Jit cannot trace: not a function, or one
// whose parameters or results are not kiln.Values. Jit finds it at once
// (Func.Err); every call of the Func returns it.
type FuncError struct {
	Type string // the function's Go type
	Msg  string
}

func (e *FuncError) Error() string { return "kiln: Jit of " + e.Type + ": " + e.Msg }

// ReentrantError reports a call of a Func (Run, RunAll, RunInto, Trace,
// Lower, Explain) that would wait for a trace that is waiting for it: a
// jitted function running its own Func with the signature being traced —
// directly, through other Funcs, or through another goroutine whose trace
// waits for this one. Waiting would never end; Kiln returns this error to
// the inner call instead and leaves the outer trace and the cache usable.
// A call with another signature from inside a trace is fine: it traces
// and runs that signature. JAX, whose jit inlines a nested call into the
// outer trace, recurses in the same situation until Python's recursion
// limit. (A trace that waits for its own Func some other way — a channel
// fed by a goroutine that runs it — is invisible to Kiln and does hang.)
type ReentrantError struct {
	Signature string // the argument types, e.g. "(f32[3], i64*[])"
}

func (e *ReentrantError) Error() string {
	return "kiln: re-entrant call: the Func is being traced for the signature " + e.Signature +
		" by a trace that waits for this call; a traced function must not run its own Func with the signature it is tracing"
}

// PanicError is a panic inside a traced function, returned as an error.
// When the panic's value is an error, errors.As and errors.Is see it
// through Unwrap.
type PanicError struct {
	Value any // what the function panicked with
}

func (e *PanicError) Error() string {
	return fmt.Sprintf("kiln: the traced function panicked: %v", e.Value)
}

// Unwrap returns the panic's value when it is an error.
func (e *PanicError) Unwrap() error {
	err, _ := e.Value.(error)
	return err
}

// String prints a signature as the argument types: (f32[3], i64*[]).
func (s sig) String() string {
	parts := make([]string, len(s))
	for i, a := range s {
		dims := make([]string, len(a.Shape))
		for j, d := range a.Shape {
			dims[j] = strconv.Itoa(d)
		}
		parts[i] = a.Type.String() + "[" + strings.Join(dims, ",") + "]"
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

// BudgetError reports a program whose run would hold more memory at once
// than its budget (MemoryLimit): the op at which the total first goes over
// the limit, its line, the bytes needed and the limit. errors.As finds it
// through Jit's and Eval's errors.
type BudgetError = trace.BudgetError
