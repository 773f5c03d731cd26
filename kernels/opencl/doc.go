// Package opencl is Kiln's OpenCL backend: it runs a lowered, fused and
// buffer-planned module (package lower) on any OpenCL 1.2 device — NVIDIA
// and AMD GPUs, Intel graphics, or PoCL on the CPU — with the numerics of
// kernels/doc.go, so its results are the CPU backend's bit for bit (the
// transcendental functions within docs/SPEC.md §3's bounds).
//
// # Loading
//
// The system's OpenCL ICD loader (libOpenCL.so.1; KILN_OPENCL_LIBRARY
// overrides the path) is opened with github.com/ebitengine/purego on the
// first call to New or Devices — never at import, and never by the CPU
// backend — so building Kiln needs neither cgo nor OpenCL headers, and a
// machine without OpenCL only learns of it when it asks for this backend.
// On platforms purego cannot load libraries from, New reports KindNoLibrary.
//
// # Devices
//
// Devices lists every device of every platform. New picks Options.Device
// (an index into that list or a case-insensitive substring of its
// platform, name, vendor or version), else KILN_OPENCL_DEVICE, else the
// first GPU, else the first device.
//
// # Code generation
//
// Compile writes one OpenCL C kernel per fusion, readable and commented
// with the fusion's instructions (Backend.Source, Executable.Source):
//
//   - loop fusions: one work-item per output element; each instruction is
//     one statement; broadcasts read their operand by index arithmetic;
//   - reduce fusions: the elementwise producers are evaluated per element
//     inside the reduction, which follows kernels/doc.go's fixed summation
//     tree exactly (leaves of 128 with 8 lanes, combined by the
//     largest-power-of-two split) with work-group trees in local memory, so
//     float sums are bit-identical to the CPU backend's (gen_reduce.go);
//   - dot fusions: a tiled matmul with batch dims, each output element
//     accumulated over k in order from +0 (bf16 × bf16: in pairs with
//     subnormals flushed, kernels/doc.go's bf16 rule; gen_dot.go);
//   - copy fusions (transpose, slice, concatenate): gathers.
//
// Numerics (kernels/doc.go): FP_CONTRACT is off and no fast-math option is
// ever passed; f32 ÷ and sqrt are correctly rounded through
// -cl-fp32-correctly-rounded-divide-sqrt, or computed in double on devices
// without it. f16 and bf16 compute in float, rounded after every op by
// branch-free bit arithmetic; f16 is loaded with vload_half, and 64-bit
// sources reach f16/bf16 in one correctly rounded step. Integer arithmetic
// is done in unsigned types (C's signed overflow, INT_MIN / −1 and
// over-wide shifts never occur) with floor division, zero divisors giving
// 0, and saturating float → int converts. Complex numbers are float2 and
// double2: × and ÷ (NumPy's) in the part type, abs, sign, sqrt and the
// transcendentals ported from math/cmplx in double. f64, c128 and the c64
// ops defined through complex128 need cl_khr_fp64; without it Compile
// returns a KindUnsupported error. Transcendentals of f32, f16 and bf16
// are computed in double and rounded, unless Options.FastTranscendentals:
// within the same ulp bounds as the CPU's float32 algorithms, but not
// always their bits. f64 sin, cos and tan are the CPU backend's own
// algorithms (helpers_trig.go), so those bits match it exactly.
//
// # Memory and concurrency
//
// An Executable allocates its device buffers once (the module's buffer
// plan, constant arrays, reduction partials) and reuses them: a Run copies
// the inputs in, enqueues the kernels on the executable's own queue and
// reads the outputs back. Runs of one Executable are serialized by a
// mutex; different Executables run concurrently. Close releases device
// resources (a runtime cleanup does it for unreachable executables and
// backends). Built programs are cached per Backend (one context on one
// device), keyed by their source.
//
// # Errors
//
// Every failure is an *Error whose Kind says what went wrong — no library,
// no platform, no device, unsupported feature, out of device memory, build
// failure (with the compiler's log), … — and whose Hint says what to
// install or change; Unavailable tells "OpenCL cannot run here" apart.
//
// # Tests
//
// The tests skip when no OpenCL device is found, unless
// KILN_REQUIRE_OPENCL=1, which makes that a failure (for CI, which
// installs pocl-opencl-icd). TestConformance runs the shared backend suite
// (package kernels/conformance): all of it with KILN_LONG=1 (CI sets it),
// by default conformance.Sample's one case in eight of every kind, since
// with PoCL's kernel cache empty each case costs a build of its program.
package opencl
