//go:build (linux || darwin) && (amd64 || arm64)

package opencl

import (
	"os"
	"runtime"

	"github.com/ebitengine/purego"
)

// libraryNames are tried in order; KILN_OPENCL_LIBRARY overrides them.
func libraryNames() []string {
	if p := os.Getenv("KILN_OPENCL_LIBRARY"); p != "" {
		return []string{p}
	}
	switch runtime.GOOS {
	case "darwin":
		return []string{"/System/Library/Frameworks/OpenCL.framework/OpenCL"}
	}
	return []string{"libOpenCL.so.1", "libOpenCL.so"}
}

func open() (*api, error) {
	var handle uintptr
	var firstErr error
	names := libraryNames()
	for _, name := range names {
		h, err := purego.Dlopen(name, purego.RTLD_NOW|purego.RTLD_GLOBAL)
		if err == nil {
			handle = h
			break
		}
		if firstErr == nil {
			firstErr = err
		}
	}
	if handle == 0 {
		return nil, &Error{Kind: KindNoLibrary, Msg: "cannot load " + names[0] + ": " + firstErr.Error(), Hint: hintInstall}
	}
	a := &api{}
	for _, b := range []struct {
		fn   any
		name string
	}{
		{&a.GetPlatformIDs, "clGetPlatformIDs"},
		{&a.GetPlatformInfo, "clGetPlatformInfo"},
		{&a.GetDeviceIDs, "clGetDeviceIDs"},
		{&a.GetDeviceInfo, "clGetDeviceInfo"},
		{&a.CreateContext, "clCreateContext"},
		{&a.ReleaseContext, "clReleaseContext"},
		{&a.CreateCommandQueue, "clCreateCommandQueue"},
		{&a.ReleaseCommandQueue, "clReleaseCommandQueue"},
		{&a.CreateBuffer, "clCreateBuffer"},
		{&a.ReleaseMemObject, "clReleaseMemObject"},
		{&a.CreateProgramWithSource, "clCreateProgramWithSource"},
		{&a.BuildProgram, "clBuildProgram"},
		{&a.GetProgramBuildInfo, "clGetProgramBuildInfo"},
		{&a.ReleaseProgram, "clReleaseProgram"},
		{&a.RetainProgram, "clRetainProgram"},
		{&a.CreateKernel, "clCreateKernel"},
		{&a.ReleaseKernel, "clReleaseKernel"},
		{&a.SetKernelArg, "clSetKernelArg"},
		{&a.GetKernelWorkGroupInfo, "clGetKernelWorkGroupInfo"},
		{&a.EnqueueWriteBuffer, "clEnqueueWriteBuffer"},
		{&a.EnqueueReadBuffer, "clEnqueueReadBuffer"},
		{&a.EnqueueCopyBuffer, "clEnqueueCopyBuffer"},
		{&a.EnqueueNDRangeKernel, "clEnqueueNDRangeKernel"},
		{&a.Finish, "clFinish"},
	} {
		sym, err := purego.Dlsym(handle, b.name)
		if err != nil {
			return nil, &Error{Kind: KindNoLibrary, Msg: "the OpenCL library lacks " + b.name + " (an OpenCL 1.2 loader is needed)", Hint: hintInstall}
		}
		purego.RegisterFunc(b.fn, sym)
	}
	return a, nil
}
