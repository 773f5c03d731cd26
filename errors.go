package kiln

import (
	"bytes"
	"fmt"
	"runtime"
	"strconv"
	"strings"
)

// FuncError reports a function Jit cannot trace: not a function, or one
// whose parameters or results are not kiln.Values. Jit finds it at once
// (Func.Err); every call of the Func returns it.
type FuncError struct {
	Type string // the function's Go type
	Msg  string
}

func (e *FuncError) Error() string { return "kiln: Jit of " + e.Type + ": " + e.Msg }

// ReentrantError reports a Run (or Trace, Lower, …) of a Func from inside
// the trace of the very signature it asks for — a jitted function calling
// itself with the same kinds of arguments, directly or through other
// Funcs. Waiting for that trace to finish would wait forever; JAX, whose
// jit inlines a nested call into the outer trace, recurses until Python's
// recursion limit. Kiln returns this error to the inner call and leaves the
// outer trace and the cache usable. A call with another signature from
// inside a trace is fine: it traces and runs that signature.
type ReentrantError struct {
	Signature string // the argument types, e.g. "(f32[3], i64*[])"
}

func (e *ReentrantError) Error() string {
	return "kiln: re-entrant call: the Func is being traced for the signature " + e.Signature +
		" by this same call chain; a traced function must not run its own Func with the signature it is tracing"
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

// goroutineID returns the current goroutine's ID, read from its stack
// header ("goroutine 42 [running]:"). Only the cache's slow paths call it:
// a miss, and a hit on a signature still being traced.
func goroutineID() int64 {
	var buf [64]byte
	b := buf[:runtime.Stack(buf[:], false)]
	b, _ = bytes.CutPrefix(b, []byte("goroutine "))
	if i := bytes.IndexByte(b, ' '); i > 0 {
		b = b[:i]
	}
	id, err := strconv.ParseInt(string(b), 10, 64)
	if err != nil {
		return 0
	}
	return id
}
