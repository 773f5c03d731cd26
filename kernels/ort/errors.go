package ort

import (
	"errors"
	"fmt"
)

// Kind classifies an *Error.
type Kind uint8

// The error kinds.
const (
	// KindNoLibrary: ONNX Runtime's shared library could not be loaded
	// (or is too old).
	KindNoLibrary Kind = iota + 1
	// KindProvider: the execution provider asked for is not in the
	// library (the CPU build has no CUDA or TensorRT).
	KindProvider
	// KindRuntime: an ONNX Runtime call failed (session creation for a
	// model its kernels do not cover, a run).
	KindRuntime
	// KindClosed: an executable was run after Close.
	KindClosed
)

var kindNames = [...]string{
	KindNoLibrary: "no ONNX Runtime library",
	KindProvider:  "execution provider unavailable",
	KindRuntime:   "ONNX Runtime error",
	KindClosed:    "closed",
}

func (k Kind) String() string {
	if int(k) < len(kindNames) && kindNames[k] != "" {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}

// Error is an error of the ONNX Runtime backend.
type Error struct {
	Kind Kind
	Msg  string
	Hint string // what to install or set, for KindNoLibrary
}

func (e *Error) Error() string {
	s := "ort: " + e.Kind.String() + ": " + e.Msg
	if e.Hint != "" {
		s += " (" + e.Hint + ")"
	}
	return s
}

const hintInstall = "install it with `npm install --ignore-scripts onnxruntime-node@1.30.0` and set KILN_ORT_LIBRARY to node_modules/onnxruntime-node/bin/napi-v6/linux/x64/libonnxruntime.so.1, or pass Options.Library"

// Unavailable reports whether err means ONNX Runtime (or the execution
// provider asked for) is not installed, as opposed to a failure of a
// working installation: tests skip on it.
func Unavailable(err error) bool {
	var e *Error
	return errors.As(err, &e) && (e.Kind == KindNoLibrary || e.Kind == KindProvider)
}
