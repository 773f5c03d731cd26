package main

import (
	"github.com/gomlx/gomlx/backends/simplego"
	"github.com/gomlx/gomlx/pkg/core/graph"
	"github.com/gomlx/gomlx/pkg/core/tensors"
)

// e6GoMLX is a square matmul of order m as a one-node GoMLX graph
// (graph.MatMul, a DotGeneral) executed by a cached Exec on the pure-Go
// simplego backend.
func e6GoMLX[T float32 | float64](a, b []T, m int) (impl, error) {
	backend, err := simplego.New("")
	if err != nil {
		return impl{}, err
	}
	exec, err := graph.NewExec(backend, func(in []*graph.Node) []*graph.Node {
		return []*graph.Node{graph.MatMul(in[0], in[1])}
	})
	if err != nil {
		return impl{}, err
	}
	args := []any{tensors.FromFlatDataAndDimensions(a, m, m), tensors.FromFlatDataAndDimensions(b, m, m)}
	var last *tensors.Tensor
	return impl{
		run: func() error {
			outs, err := exec.Exec(args...)
			if err != nil {
				return err
			}
			if last != nil {
				last.FinalizeAll()
			}
			last = outs[0]
			return nil
		},
		result: func() any {
			out, err := tensors.CopyFlatData[T](last)
			if err != nil {
				return err.Error()
			}
			return out
		},
	}, nil
}
