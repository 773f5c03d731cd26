package main

import (
	"github.com/kiln-go/kiln"
	"github.com/kiln-go/kiln/kernels/ort"
	"github.com/kiln-go/kiln/tensor"
)

// E9 (issue 24) runs E7's MLP training step (E9a) and E6k's convolution
// (E9b) on the ONNX Runtime backend (kernels/ort: the program exported to
// ONNX and run by ONNX Runtime's CPU execution provider, 2 intra-op
// threads) beside Kiln's CPU backend (kiln-fused). The ort column is
// missing when ONNX Runtime is not installed (KILN_ORT_LIBRARY names
// libonnxruntime.so.1 of the npm package onnxruntime-node@1.30.0).

func newE9(id string, base *workload) *workload {
	w := base
	w.id = id
	w.title = "on ONNX Runtime: " + base.title
	w.peers, w.why, w.files, w.ext = nil, nil, nil, ""
	b, err := ort.New(ort.Options{Threads: 2})
	if err != nil {
		w.lacks(ortPeer, err.Error())
		return w
	}
	w.add(ortPeer, func() (impl, error) {
		// One call per run: inProcess repeats it w.calls times, as Kiln's.
		f := kiln.Jit(w.fn, kiln.WithBackend(b))
		outs, err := f.RunAll(w.args...)
		if err != nil {
			return impl{}, err
		}
		dst := make([]*tensor.Array, len(outs))
		for i, o := range outs {
			if dst[i], err = tensor.Zeros(o.DType(), o.Shape()...); err != nil {
				return impl{}, err
			}
		}
		return impl{run: func() error { return f.RunInto(dst, w.args...) }, result: func() any { return dst[0].Data() }}, nil
	})
	return w
}
