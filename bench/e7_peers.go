package main

import (
	"github.com/gomlx/gomlx/backends"
	"github.com/gomlx/gomlx/backends/simplego"
	"github.com/gomlx/gomlx/pkg/core/dtypes"
	"github.com/gomlx/gomlx/pkg/core/graph"
	"github.com/gomlx/gomlx/pkg/core/tensors"
)

// gomlxPeer is GoMLX's pure-Go backend (E6a–E6f and E7).
const gomlxPeer = "gomlx"

func init() {
	peerNames = append(peerNames, gomlxPeer)
	peerDesc[gomlxPeer] = "GoMLX " + gomlxVersion + " with its pure-Go `simplego` backend: the same step built as a GoMLX graph, its `Gradient` for the backward pass, executed by a cached `Exec` (E7); for E6a–E6f a one-node `graph.MatMul` (a DotGeneral) graph on the same backend"
}

// gomlxVersion is the GoMLX module bench/go.mod requires.
const gomlxVersion = "v0.26.0"

func e7Peers(w *workload, d e7Data) {
	for _, p := range []string{gorgoniaPeer, gonumPeer, goLoop} {
		w.lacks(p, "no autodiff: the hand-written backward pass is NumPy's column")
	}
	w.add(gomlxPeer, func() (impl, error) { return e7GoMLX(d) })
}

// e7GoMLX builds E7 as a GoMLX graph on the simplego backend.
func e7GoMLX(d e7Data) (impl, error) {
	backend, err := simplego.New("")
	if err != nil {
		return impl{}, err
	}
	step := func(in []*graph.Node) []*graph.Node {
		params, m, v, t, x, y := in[:4], in[4:8], in[8:12], in[12], in[13], in[14]
		w1, b1, w2, b2 := params[0], params[1], params[2], params[3]
		pre := graph.Add(graph.MatMul(x, w1), graph.Reshape(b1, 1, e7Hidden))
		zero := graph.ZerosLike(pre)
		h := graph.Where(graph.GreaterThan(pre, zero), pre, zero)
		z := graph.Add(graph.MatMul(h, w2), graph.Reshape(b2, 1, e7Classes))
		mx := graph.ReduceMax(z, 1)
		lse := graph.Add(graph.Log(graph.ReduceSum(graph.Exp(graph.Sub(z, graph.Reshape(mx, e7Batch, 1))), 1)), mx)
		loss := graph.ReduceAllMean(graph.Sub(lse, graph.ReduceSum(graph.Mul(z, y), 1)))
		grads := graph.Gradient(loss, w1, b1, w2, b2)
		t1 := graph.AddScalar(t, 1)
		c1 := graph.OneMinus(graph.Pow(graph.Scalar(t.Graph(), dtypes.Float32, 0.9), t1))
		c2 := graph.OneMinus(graph.Pow(graph.Scalar(t.Graph(), dtypes.Float32, 0.999), t1))
		var newP, newM, newV []*graph.Node
		for i, p := range params {
			g := grads[i]
			mi := graph.Add(graph.MulScalar(m[i], 0.9), graph.MulScalar(g, 0.1))
			vi := graph.Add(graph.MulScalar(v[i], 0.999), graph.MulScalar(graph.Square(g), 0.001))
			u := graph.Div(graph.Div(mi, c1), graph.AddScalar(graph.Sqrt(graph.Div(vi, c2)), 1e-8))
			newP, newM, newV = append(newP, graph.Sub(p, graph.MulScalar(u, e7LR))), append(newM, mi), append(newV, vi)
		}
		out := append([]*graph.Node{newM[0]}, newP...)
		out = append(append(append(out, newM[1:]...), newV...), t1, loss)
		return out
	}
	exec, err := graph.NewExec(backend, step)
	if err != nil {
		return impl{}, err
	}
	zeros := func(n int) []float32 { return make([]float32, n) }
	args := []any{
		tensors.FromFlatDataAndDimensions(d.w1, e7In, e7Hidden), tensors.FromFlatDataAndDimensions(d.b1, e7Hidden),
		tensors.FromFlatDataAndDimensions(d.w2, e7Hidden, e7Classes), tensors.FromFlatDataAndDimensions(d.b2, e7Classes),
	}
	for range 2 {
		args = append(args, tensors.FromFlatDataAndDimensions(zeros(e7In*e7Hidden), e7In, e7Hidden), tensors.FromFlatDataAndDimensions(zeros(e7Hidden), e7Hidden),
			tensors.FromFlatDataAndDimensions(zeros(e7Hidden*e7Classes), e7Hidden, e7Classes), tensors.FromFlatDataAndDimensions(zeros(e7Classes), e7Classes))
	}
	args = append(args, tensors.FromScalar(float32(0)), tensors.FromFlatDataAndDimensions(d.x, e7Batch, e7In), tensors.FromFlatDataAndDimensions(d.y, e7Batch, e7Classes))
	var first *tensors.Tensor
	return impl{
		run: func() error {
			outs, err := exec.Exec(args...)
			if err != nil {
				return err
			}
			if first != nil {
				first.FinalizeAll()
			}
			for _, o := range outs[1:] {
				o.FinalizeAll()
			}
			first = outs[0]
			return nil
		},
		result: func() any {
			out, err := tensors.CopyFlatData[float32](first)
			if err != nil {
				return err.Error()
			}
			return out
		},
	}, nil
}

var _ backends.Backend // the simplego backend is a backends.Backend
