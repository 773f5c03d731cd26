package opencl

import (
	"errors"
	"fmt"
)

// Kind classifies an *Error so callers can react to it (skip a test, fall
// back to the CPU backend, tell the user what to install).
type Kind uint8

// The error kinds.
const (
	// KindNoLibrary: the OpenCL ICD loader (libOpenCL) could not be loaded.
	KindNoLibrary Kind = iota + 1
	// KindNoPlatform: the loader found no OpenCL platform (no ICD installed).
	KindNoPlatform
	// KindNoDevice: no device, or none matching the requested name/index.
	KindNoDevice
	// KindUnsupported: the device lacks a feature the module needs (f64
	// without cl_khr_fp64, correctly rounded f32 divide/sqrt, …).
	KindUnsupported
	// KindOutOfMemory: a device allocation failed or exceeds the device's
	// limits.
	KindOutOfMemory
	// KindBuild: the generated OpenCL C did not compile; Log holds the
	// compiler's build log.
	KindBuild
	// KindRuntime: any other OpenCL call failed.
	KindRuntime
	// KindClosed: the backend or executable was used after Close.
	KindClosed
)

var kindNames = [...]string{
	KindNoLibrary:   "no OpenCL library",
	KindNoPlatform:  "no OpenCL platform",
	KindNoDevice:    "no OpenCL device",
	KindUnsupported: "unsupported by device",
	KindOutOfMemory: "out of device memory",
	KindBuild:       "build failed",
	KindRuntime:     "OpenCL call failed",
	KindClosed:      "closed",
}

// String names the kind: "no OpenCL library", "build failed", ….
func (k Kind) String() string {
	if int(k) < len(kindNames) && kindNames[k] != "" {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}

// Error is every error this package returns. Hint says what to install or
// change; Log is the compiler's build log for KindBuild.
type Error struct {
	Kind Kind
	Call string // the OpenCL function that failed, or ""
	Code int32  // the OpenCL status code, or 0
	Msg  string
	Hint string
	Log  string
}

// Error formats the message, the failing call and its status, the hint and
// the build log.
func (e *Error) Error() string {
	s := "opencl: " + e.Msg
	if e.Call != "" {
		s += fmt.Sprintf(" (%s: %s)", e.Call, statusName(e.Code))
	}
	if e.Hint != "" {
		s += "; " + e.Hint
	}
	if e.Log != "" {
		s += "\nbuild log:\n" + e.Log
	}
	return s
}

// IsKind reports whether err is (or wraps) an *Error of kind k.
func IsKind(err error, k Kind) bool {
	var e *Error
	return errors.As(err, &e) && e.Kind == k
}

// Unavailable reports whether err says OpenCL cannot be used on this
// machine at all (no library, no platform or no device), as opposed to a
// failure of a particular program. Tests and callers use it to skip or fall
// back to the CPU backend.
func Unavailable(err error) bool {
	return IsKind(err, KindNoLibrary) || IsKind(err, KindNoPlatform) || IsKind(err, KindNoDevice)
}

const (
	hintInstall = "install an OpenCL ICD loader and a driver, e.g. `apt-get install ocl-icd-libopencl1 pocl-opencl-icd` (PoCL runs on the CPU) or your GPU vendor's OpenCL runtime"
	hintDevice  = "list devices with `kiln devices`; choose one with KILN_OPENCL_DEVICE=<index or name substring>"
)

// callError wraps a failed OpenCL call, classifying memory failures.
func callError(call string, code int32, msg string) *Error {
	e := &Error{Kind: KindRuntime, Call: call, Code: code, Msg: msg}
	switch code {
	case clMemObjectAllocationFailure, clOutOfResources, clOutOfHostMemory, clInvalidBufferSize:
		e.Kind = KindOutOfMemory
		e.Hint = "use smaller arrays, free executables with Close, or pick a device with more memory"
	}
	return e
}

// OpenCL status codes this package names or reacts to.
const (
	clSuccess                    = 0
	clDeviceNotFound             = -1
	clDeviceNotAvailable         = -2
	clCompilerNotAvailable       = -3
	clMemObjectAllocationFailure = -4
	clOutOfResources             = -5
	clOutOfHostMemory            = -6
	clBuildProgramFailure        = -11
	clInvalidValue               = -30
	clInvalidDevice              = -33
	clInvalidBufferSize          = -61
	clInvalidWorkGroupSize       = -54
	clPlatformNotFoundKHR        = -1001
)

var statusNames = map[int32]string{
	0: "CL_SUCCESS", -1: "CL_DEVICE_NOT_FOUND", -2: "CL_DEVICE_NOT_AVAILABLE",
	-3: "CL_COMPILER_NOT_AVAILABLE", -4: "CL_MEM_OBJECT_ALLOCATION_FAILURE",
	-5: "CL_OUT_OF_RESOURCES", -6: "CL_OUT_OF_HOST_MEMORY",
	-7: "CL_PROFILING_INFO_NOT_AVAILABLE", -8: "CL_MEM_COPY_OVERLAP", -9: "CL_IMAGE_FORMAT_MISMATCH",
	-10: "CL_IMAGE_FORMAT_NOT_SUPPORTED", -11: "CL_BUILD_PROGRAM_FAILURE", -12: "CL_MAP_FAILURE",
	-13: "CL_MISALIGNED_SUB_BUFFER_OFFSET", -14: "CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST",
	-15: "CL_COMPILE_PROGRAM_FAILURE", -16: "CL_LINKER_NOT_AVAILABLE", -17: "CL_LINK_PROGRAM_FAILURE",
	-30: "CL_INVALID_VALUE", -31: "CL_INVALID_DEVICE_TYPE", -32: "CL_INVALID_PLATFORM",
	-33: "CL_INVALID_DEVICE", -34: "CL_INVALID_CONTEXT", -35: "CL_INVALID_QUEUE_PROPERTIES",
	-36: "CL_INVALID_COMMAND_QUEUE", -37: "CL_INVALID_HOST_PTR", -38: "CL_INVALID_MEM_OBJECT",
	-42: "CL_INVALID_BINARY", -43: "CL_INVALID_BUILD_OPTIONS", -44: "CL_INVALID_PROGRAM",
	-45: "CL_INVALID_PROGRAM_EXECUTABLE", -46: "CL_INVALID_KERNEL_NAME", -47: "CL_INVALID_KERNEL_DEFINITION",
	-48: "CL_INVALID_KERNEL", -49: "CL_INVALID_ARG_INDEX", -50: "CL_INVALID_ARG_VALUE",
	-51: "CL_INVALID_ARG_SIZE", -52: "CL_INVALID_KERNEL_ARGS", -53: "CL_INVALID_WORK_DIMENSION",
	-54: "CL_INVALID_WORK_GROUP_SIZE", -55: "CL_INVALID_WORK_ITEM_SIZE", -56: "CL_INVALID_GLOBAL_OFFSET",
	-57: "CL_INVALID_EVENT_WAIT_LIST", -58: "CL_INVALID_EVENT", -59: "CL_INVALID_OPERATION",
	-61: "CL_INVALID_BUFFER_SIZE", -63: "CL_INVALID_GLOBAL_WORK_SIZE",
	-1001: "CL_PLATFORM_NOT_FOUND_KHR",
}

func statusName(code int32) string {
	if s, ok := statusNames[code]; ok {
		return s
	}
	return fmt.Sprintf("status %d", code)
}
