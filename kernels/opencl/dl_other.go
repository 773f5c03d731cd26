//go:build !((linux || darwin) && (amd64 || arm64))

package opencl

import "runtime"

// open fails where purego cannot load a shared library: the backend is
// reported unavailable and the rest of Kiln builds and runs without it.
func open() (*api, error) {
	return nil, &Error{Kind: KindNoLibrary, Msg: "the OpenCL backend is not available on " + runtime.GOOS + "/" + runtime.GOARCH,
		Hint: "use the CPU backend, or a linux or darwin build for amd64 or arm64"}
}
