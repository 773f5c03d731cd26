package opencl

import (
	"sync"
	"unsafe"
)

// The OpenCL C API, bound at run time with purego: no cgo and no OpenCL
// headers at build time. The library is opened on first use (load), so a
// program that never asks for the OpenCL backend never touches it.

// Opaque OpenCL handles.
type (
	clPlatform uintptr
	clDevice   uintptr
	clContext  uintptr
	clQueue    uintptr
	clMem      uintptr
	clProgram  uintptr
	clKernel   uintptr
)

// api holds the entry points this package uses (OpenCL 1.2).
type api struct {
	GetPlatformIDs          func(n uint32, platforms *clPlatform, num *uint32) int32
	GetPlatformInfo         func(p clPlatform, param uint32, size uintptr, value unsafe.Pointer, sizeRet *uintptr) int32
	GetDeviceIDs            func(p clPlatform, typ uint64, n uint32, devices *clDevice, num *uint32) int32
	GetDeviceInfo           func(d clDevice, param uint32, size uintptr, value unsafe.Pointer, sizeRet *uintptr) int32
	CreateContext           func(props unsafe.Pointer, n uint32, devices *clDevice, notify, user uintptr, errcode *int32) clContext
	ReleaseContext          func(c clContext) int32
	CreateCommandQueue      func(c clContext, d clDevice, props uint64, errcode *int32) clQueue
	ReleaseCommandQueue     func(q clQueue) int32
	CreateBuffer            func(c clContext, flags uint64, size uintptr, host unsafe.Pointer, errcode *int32) clMem
	ReleaseMemObject        func(m clMem) int32
	CreateProgramWithSource func(c clContext, n uint32, strs **byte, lens *uintptr, errcode *int32) clProgram
	BuildProgram            func(p clProgram, n uint32, devices *clDevice, options *byte, notify, user uintptr) int32
	GetProgramBuildInfo     func(p clProgram, d clDevice, param uint32, size uintptr, value unsafe.Pointer, sizeRet *uintptr) int32
	ReleaseProgram          func(p clProgram) int32
	RetainProgram           func(p clProgram) int32
	CreateKernel            func(p clProgram, name *byte, errcode *int32) clKernel
	ReleaseKernel           func(k clKernel) int32
	SetKernelArg            func(k clKernel, index uint32, size uintptr, value unsafe.Pointer) int32
	GetKernelWorkGroupInfo  func(k clKernel, d clDevice, param uint32, size uintptr, value unsafe.Pointer, sizeRet *uintptr) int32
	EnqueueWriteBuffer      func(q clQueue, m clMem, blocking uint32, offset, size uintptr, ptr unsafe.Pointer, nEvents uint32, events, event unsafe.Pointer) int32
	EnqueueReadBuffer       func(q clQueue, m clMem, blocking uint32, offset, size uintptr, ptr unsafe.Pointer, nEvents uint32, events, event unsafe.Pointer) int32
	EnqueueCopyBuffer       func(q clQueue, src, dst clMem, srcOff, dstOff, size uintptr, nEvents uint32, events, event unsafe.Pointer) int32
	EnqueueNDRangeKernel    func(q clQueue, k clKernel, dims uint32, offset, global, local *uintptr, nEvents uint32, events, event unsafe.Pointer) int32
	Finish                  func(q clQueue) int32
}

var (
	loadOnce sync.Once
	theAPI   *api
	loadErr  error
)

// load opens the OpenCL library once and binds every entry point.
func load() (*api, error) {
	loadOnce.Do(func() { theAPI, loadErr = open() })
	return theAPI, loadErr
}
