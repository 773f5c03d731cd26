package main

import (
	"runtime/debug"
	"time"

	"github.com/kiln-go/kiln"
	"github.com/kiln-go/kiln/tensor"
)

// Peer names, in report column order.
const (
	kilnFused    = "kiln-fused"
	kilnRun      = "kiln-run"
	kilnRelease  = "kiln-release"
	kilnFirst    = "kiln-first"
	kilnOpByOp   = "kiln-opbyop"
	gorgoniaPeer = "gorgonia"
	gonumPeer    = "gonum"
	goLoop       = "go-loop"
	cPeer        = "c-O3"
	cFastPeer    = "c-fastmath"
	openblasPeer = "openblas"
	numpyPeer    = "numpy"
	torchPeer    = "torch"
	ortPeer      = "ort"
)

// peerNames is every peer in column order; kiln-fused comes first because
// its output is the one the others are checked against.
var peerNames = []string{kilnFused, kilnRun, kilnRelease, kilnFirst, kilnOpByOp, ortPeer, gorgoniaPeer, gonumPeer, goLoop, cPeer, cFastPeer, openblasPeer, numpyPeer, torchPeer}

// peerDesc says what each column measures.
var peerDesc = map[string]string{
	kilnFused:    "Kiln fused, steady state: cached executable, `RunInto` preallocated outputs",
	kilnRun:      "Kiln fused, cached executable, `Run` returning freshly allocated outputs (the Go heap recycles them)",
	kilnRelease:  "Kiln fused, cached executable, `Run` with the previous result given back by `Release` (Kiln's pool reuses it)",
	kilnFirst:    "a fresh `kiln.Jit` and its first `Run`: trace, lower, compile and fresh outputs, with the heap returned to the OS before each repetition (`debug.FreeOSMemory`) so outputs page-fault as in a new process",
	kilnOpByOp:   "Kiln with `kiln.NoFusion()`: every op its own kernel and buffer, `RunInto` preallocated outputs",
	ortPeer:      "E9 only: the same Kiln program on the ONNX Runtime backend (kernels/ort: exported to ONNX, run by ONNX Runtime 1.30's CPU execution provider on 2 intra-op threads), `RunInto` preallocated outputs",
	gorgoniaPeer: "gorgonia.org/tensor eager `Dense` ops (a new `Dense` per op)",
	gonumPeer:    "gonum where it has the op: floats Sum, AddConst and Dot (E4), blas32.Gemm (E6a–E6e) and blas64.Gemm (E6f); for f32 E1 and E5a blas32 Copy, Scal and Axpy with a ones vector (three passes: floats.ScaleTo/AddConst are float64-only and blas32 has no add-constant)",
	goLoop:       "a plain Go loop on 2 goroutines (float64 math for E3; x448/float16 conversions for E2; naive i-k-j for E6a–E6f, for E6i on the bf16 operands widened to f32, for E6j in int32; one plain call for E5a; for E10, 256 calls of the jitted per-example `Grad`, one per example)",
	cPeer:        "C `-O3 -march=native -ffp-contract=off -fopenmp`, 2 threads, built at run time and run as a subprocess that times itself (AVX-512 F16C intrinsics for E2; naive i-k-j for E6a–E6f, in double for E6f, in int32 for E6j; for E6k the naive convolution loop, output features innermost; for E6kb the naive loops of its input gradient (a dot over output features per input feature) and kernel gradient (output features innermost); for E8 the stencil, double-buffered, its two end cells wrapping around, in one parallel region with a barrier per step)",
	cFastPeer:    "the same C with `-ffast-math` (vector libm), E3 only",
	openblasPeer: "OpenBLAS (Debian's libopenblas-dev): the same peer.c built with `-DKILN_CBLAS` and linked with `-lopenblas`, whose E6a–E6e call `cblas_sgemm` and E6f `cblas_dgemm` (row-major, no transposes, alpha 1, beta 0) on 2 threads (none for E6i–E6l: Debian's libopenblas exports no `cblas_sbgemm` and has no int8 GEMM or convolution), with `OPENBLAS_CORETYPE` removed from its environment so that OpenBLAS picks its kernel for this CPU (the exact build and run line is below)",
	numpyPeer:    "NumPy in Debian's /usr/bin/python3, timing itself in a subprocess; its `a @ b` (E6a–E6f, and c64 E6m; NumPy has no bf16, and its integer matmul does not use the BLAS, so none for E6i–E6l) calls the BLAS named in the Machine table, in the environment this report ran in (OPENBLAS_CORETYPE as set there), on 2 threads",
	torchPeer:    "PyTorch (Debian's python3-torch 1.13, built with oneDNN) in the same Python, timing itself in a subprocess (peers/peer_torch.py) on 2 threads: `OMP_NUM_THREADS=2 OMP_WAIT_POLICY=PASSIVE` in its environment (PyTorch's idle OpenMP threads otherwise spin between ops, taking the core the working thread needs on a shared machine) and `torch.set_num_threads(2)`; E6k `F.conv2d` on channels-last tensors (`torch.channels_last`, which runs oneDNN's convolution; the NHWC input and HWIO kernel permuted once before the timing, the output back to NHWC after it; E6kb `torch.ops.aten.convolution_backward` on the same channels-last tensors and the output gradient, for the input and weight gradients only — oneDNN's backward-data and backward-weights, no forward pass, as Kiln's VJP computes none), E6p `F.max_pool2d` and E6pb `torch.ops.aten.max_pool2d_with_indices` then `max_pool2d_with_indices_backward` on a channels-last input (SAME's windows as `padding=⌊pad/2⌋, ceil_mode=True`), E6a–E6f and E6m `a @ b` (the BLAS named in the Machine table), E7 the forward pass in torch ops, autograd's backward pass and `torch.optim.Adam` with Kiln's hyperparameters (each timed step from the same weights and zero Adam state, restored in place untimed), E1, E3, E4, E5a and E8 (`torch.roll`) eager ops under `torch.inference_mode()`",
}

// kilnImpl prepares a Kiln variant of w; ok is false when the variant does
// not apply to w. The kiln-fused variant records w.cold, the time of the
// very first Run of a fresh Jit in this process.
func kilnImpl(w *workload, peer string) (im impl, ok bool, err error) {
	if w.compile {
		switch peer {
		case kilnFused:
			return compileImpl(w), true, nil
		case kilnOpByOp:
			return compileImpl(w, kiln.NoFusion()), true, nil
		}
		return impl{}, false, nil
	}
	switch peer {
	case kilnFused:
		im, err = runIntoImpl(w)
	case kilnOpByOp:
		im, err = runIntoImpl(w, kiln.NoFusion())
	case kilnRun:
		f := kiln.Jit(w.fn, w.opts...)
		var outs []*tensor.Array
		im = impl{result: func() any { return w.joined(outs) }}
		im.run, im.steps = w.repeat(func() (err error) { outs, err = f.RunAll(w.args...); return err })
	case kilnRelease:
		f := kiln.Jit(w.fn, w.opts...)
		var outs []*tensor.Array
		im = impl{result: func() any { return w.joined(outs) }}
		im.run, im.steps = w.repeat(func() (err error) {
			for _, o := range outs {
				f.Release(o)
			}
			outs, err = f.RunAll(w.args...)
			return err
		})
	case kilnFirst:
		if w.calls > 0 {
			return impl{}, false, nil
		}
		im = compileImpl(w)
		im.before = debug.FreeOSMemory
	default:
		return impl{}, false, nil
	}
	return im, true, err
}

// repeat makes run do w.calls calls when w times calls, not runs. For a
// workload timed per step it also times each call, into the log it
// returns (nil otherwise), which the run empties first.
func (w *workload) repeat(call func() error) (func() error, *stepLog) {
	if w.calls <= 0 {
		return call, nil
	}
	if w.perStep {
		log := &stepLog{}
		return func() error {
			log.d = log.d[:0]
			for range w.calls {
				start := time.Now()
				err := call()
				log.d = append(log.d, time.Since(start))
				if err != nil {
					return err
				}
			}
			return nil
		}, log
	}
	return func() error {
		for range w.calls {
			if err := call(); err != nil {
				return err
			}
		}
		return nil
	}, nil
}

// runIntoImpl runs a cached executable into outputs allocated once.
func runIntoImpl(w *workload, opts ...kiln.Option) (impl, error) {
	f := kiln.Jit(w.fn, append(w.opts[:len(w.opts):len(w.opts)], opts...)...)
	start := time.Now()
	outs, err := f.RunAll(w.args...)
	if err != nil {
		return impl{}, err
	}
	if len(opts) == 0 {
		w.cold = time.Since(start)
	}
	dst := make([]*tensor.Array, len(outs))
	for i, o := range outs {
		if dst[i], err = tensor.Zeros(o.DType(), o.Shape()...); err != nil {
			return impl{}, err
		}
	}
	im := impl{result: func() any { return w.joined(dst) }}
	im.run, im.steps = w.repeat(func() error { return f.RunInto(dst, w.args...) })
	if w.chain > 1 {
		im.run, im.steps = w.repeat(chained(f, w.chain, w.args[0], dst))
	}
	return im, nil
}

// chained is one call of a chain workload: n RunInto calls of f, the
// first on in, each later one on the previous one's output, ping-ponging
// between dst[0] and a second buffer so that the last writes dst[0].
func chained(f *kiln.Func, n int, in any, dst []*tensor.Array) func() error {
	other := dst[0].Clone()
	bufs := [2][]*tensor.Array{dst, {other}}
	return func() error {
		// Call i writes bufs[(n-1-i)%2]: the last (i = n-1) writes dst.
		var prev any = in
		for i := range n {
			out := bufs[(n-1-i)%2]
			if err := f.RunInto(out, prev); err != nil {
				return err
			}
			prev = out[0]
		}
		return nil
	}
}

// compileImpl times a fresh Jit and its first Run.
func compileImpl(w *workload, opts ...kiln.Option) impl {
	var outs []*tensor.Array
	return impl{
		run: func() (err error) {
			outs, err = kiln.Jit(w.fn, opts...).RunAll(w.args...)
			return err
		},
		result: func() any { return w.joined(outs) },
	}
}

// joined is a run's result to check: its first output's data, or, for a
// workload whose result is several f32 outputs (w.parts), their elements
// one after another.
func (w *workload) joined(outs []*tensor.Array) any {
	if len(w.parts) == 0 {
		return outs[0].Data()
	}
	var all []float32
	for _, o := range outs {
		d, ok := o.Data().([]float32)
		if !ok {
			return o.Data() // compare reports the type it cannot check
		}
		all = append(all, d...)
	}
	return all
}
