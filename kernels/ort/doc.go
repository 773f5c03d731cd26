// Package ort runs Kiln programs on ONNX Runtime: kiln.WithBackend(b)
// with b from New. Compile exports the lowered module to ONNX (package
// export/onnx) and creates an ONNX Runtime session from the bytes; Run
// wraps the input and output arrays' memory as ONNX Runtime tensors
// (no copies) and runs the session.
//
// The library, libonnxruntime.so, is loaded at run time with purego, as
// the OpenCL backend loads libOpenCL: the build needs no cgo and a
// program that never calls New never loads it. Options.Library, else the
// environment variable KILN_ORT_LIBRARY, else the dynamic loader's
// search path (DefaultLibrary) names it. The CPU build ships in the npm
// package onnxruntime-node:
//
//	npm install --ignore-scripts onnxruntime-node@1.30.0
//	export KILN_ORT_LIBRARY=$PWD/node_modules/onnxruntime-node/bin/napi-v6/linux/x64/libonnxruntime.so.1
//
// Options.Provider picks the execution provider: "cpu", or "cuda" and
// "tensorrt" with a GPU build of the library (the way a Kiln program
// reaches NVIDIA GPUs and ONNX Runtime's serving stack); a provider the
// library lacks is an *Error for which Unavailable is true.
//
// What the backend runs and how its numerics differ from Kiln's CPU
// backend is export/onnx's package doc: programs with an op the exporter
// refuses fail to Compile with its *onnx.UnsupportedError; everything
// else agrees bit for bit except transcendental functions (within 8 ulps)
// and float dot_general (ONNX Runtime's summation order, within the
// documented tolerance). TestConformance runs the whole conformance suite
// this way and prints how many programs were exported and run and which
// ops were refused; its tests skip without the library unless
// KILN_REQUIRE_ORT=1.
package ort
