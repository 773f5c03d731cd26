package trace

import (
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
	"sync"

	"github.com/kiln-go/kiln/promote"
)

// ShapeError reports operand shapes an op cannot take: shapes that do not
// broadcast, a bad axis, a reshape of the wrong size, an out-of-range slice,
// or a result too large to exist (Err is then the *tensor.SizeError).
type ShapeError struct {
	Op     string
	Pos    Pos
	Shapes [][]int
	Msg    string
	Err    error // the cause, when another package found it; may be nil
}

func (e *ShapeError) Error() string { return errorText(e.Op, e.Pos, e.Msg) }

// Unwrap returns the cause, so errors.As finds a *tensor.SizeError.
func (e *ShapeError) Unwrap() error { return e.Err }

// DTypeError reports an operand dtype an op does not accept: bitwise ops on
// floats, subtracting bools, ordering complex values.
type DTypeError struct {
	Op    string
	Pos   Pos
	Types []promote.Type
	Msg   string
}

func (e *DTypeError) Error() string { return errorText(e.Op, e.Pos, e.Msg) }

// OperandError reports an operand that is not a value: the zero Value (a
// Value made by none of an argument, a literal such as Int, Const or an op)
// or a Const of a nil or zero *tensor.Array. Index is the operand's
// position: 0 is the receiver of a method such as x.Add(y), 1 is y; for a
// function such as Where(c, a, b) the arguments in order.
type OperandError struct {
	Op    string
	Pos   Pos
	Index int
	Msg   string
}

func (e *OperandError) Error() string {
	return errorText(e.Op, e.Pos, fmt.Sprintf("operand %d %s", e.Index, e.Msg))
}

// OpError wraps an error from promotion (*promote.PromotionError,
// *promote.OverflowError) or from misuse of the tracer, with the op and the
// caller's position. errors.As finds the wrapped error too.
type OpError struct {
	Op  string
	Pos Pos
	Err error
}

func (e *OpError) Error() string {
	msg := e.Err.Error()
	msg = strings.TrimPrefix(msg, "promote: ")
	return errorText(e.Op, e.Pos, msg)
}

// Unwrap returns the wrapped error.
func (e *OpError) Unwrap() error { return e.Err }

func errorText(op string, pos Pos, msg string) string {
	where := ""
	if p := pos.String(); p != "" {
		where = " at " + p
	}
	return fmt.Sprintf("trace: %s%s: %s", op, where, msg)
}

func shapeString(s []int) string { return "[" + joinInts(s, ",") + "]" }

// ownDirs are the directories of Kiln's packages whose frames are skipped
// when looking for the user's line: trace, the root package and the
// libraries written with trace (nn, optim, random). Frames are
// matched by file, not function name, because inlined closures carry their
// caller's name.
var ownDirs = func() map[string]bool {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		return nil
	}
	dir := filepath.Dir(file)
	root := filepath.Dir(dir)
	return map[string]bool{dir: true, root: true,
		filepath.Join(root, "nn"): true, filepath.Join(root, "optim"): true, filepath.Join(root, "random"): true}
}()

// isOwnFrame reports whether a frame belongs to Kiln's tracing machinery
// (or the runtime and reflect calling into user code).
func isOwnFrame(f runtime.Frame) bool {
	if f.File == "" || strings.HasPrefix(f.Function, "runtime.") || strings.HasPrefix(f.Function, "reflect.") {
		return true
	}
	return ownDirs[filepath.Dir(f.File)] && !strings.HasSuffix(f.File, "_test.go")
}

// callerPos is the first stack frame outside Kiln's own packages: the
// user's line that asked for the op. The file is shortened to its last
// directory and name ("kiln/foo_test.go"). Every op asks for it, so what
// each program counter resolves to is cached: symbolizing frames is most
// of the cost of tracing otherwise.
func callerPos() Pos {
	// The user's frame is usually a few frames up: unwind that far first,
	// and the whole stack only when it is not there.
	var pcs [48]uintptr
	for _, depth := range []int{8, len(pcs)} {
		n := runtime.Callers(2, pcs[:depth])
		for _, pc := range pcs[:n] {
			if r := pcInfo(pc); r.user {
				return r.pos
			}
		}
		if n < depth {
			break
		}
	}
	return Pos{}
}

// pcResult is what one return address resolves to: the first user frame
// among the (possibly inlined) frames at it, if any.
type pcResult struct {
	user bool
	pos  Pos
}

var pcCache sync.Map // uintptr → pcResult

func pcInfo(pc uintptr) pcResult {
	if r, ok := pcCache.Load(pc); ok {
		return r.(pcResult)
	}
	var r pcResult
	frames := runtime.CallersFrames([]uintptr{pc})
	for {
		f, more := frames.Next()
		if !isOwnFrame(f) {
			r = pcResult{user: true, pos: Pos{File: filepath.Join(filepath.Base(filepath.Dir(f.File)), filepath.Base(f.File)), Line: f.Line}}
			break
		}
		if !more {
			break
		}
	}
	pcCache.Store(pc, r)
	return r
}

// CallerPos is the user's line that called into Kiln: the first stack
// frame outside trace, the root package and the libraries written with
// trace. Libraries use it to place their own errors.
func CallerPos() Pos { return callerPos() }
