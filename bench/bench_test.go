package main

import (
	"flag"
	"fmt"
	"testing"
)

// The docs/SPEC.md §8 workloads as go test benchmarks, with benchstat-friendly
// names (BenchmarkE1/kiln-fused, BenchmarkE6/gonum-512, …). They share
// their implementations with the report generator; C and NumPy are only
// in the report. Sizes: go test -bench . ./bench -args -bench.n 1048576
var benchN = flag.Int("bench.n", 1<<24, "elements per input for BenchmarkE1–E4")

// benchPeers are the in-process peers, in benchmark order.
var benchPeers = []string{kilnFused, kilnRun, kilnRelease, kilnOpByOp, gorgoniaPeer, gonumPeer, goLoop}

// prepare builds peer's implementation of w, or skips the benchmark.
func prepare(b *testing.B, w *workload, peer string) impl {
	b.Helper()
	im, status, err := inProcess(w, peer)
	if err != nil {
		b.Fatal(err)
	}
	if status != "" {
		b.Skipf("%s %s: %s", w.id, peer, status)
	}
	return im
}

// loop times im.run, after a warm-up run.
func loop(b *testing.B, im impl) {
	b.Helper()
	if err := im.run(); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if im.before != nil {
			b.StopTimer()
			im.before()
			b.StartTimer()
		}
		if err := im.run(); err != nil {
			b.Fatal(err)
		}
	}
}

// benchWorkload runs every in-process peer of workload id.
func benchWorkload(b *testing.B, id string) {
	w := newWorkload(id, *benchN, [2]int{512, 1024})
	for _, peer := range benchPeers {
		if _, ok := w.peers[peer]; !ok && !isKiln(peer) {
			continue // gonum and gorgonia lack some ops: no empty benchmarks
		}
		b.Run(peer, func(b *testing.B) {
			im := prepare(b, w, peer)
			b.SetBytes(int64(w.bytes))
			loop(b, im)
		})
	}
}

func BenchmarkE1(b *testing.B) { benchWorkload(b, "E1") }
func BenchmarkE2(b *testing.B) { benchWorkload(b, "E2") }
func BenchmarkE3(b *testing.B) { benchWorkload(b, "E3") }
func BenchmarkE4(b *testing.B) { benchWorkload(b, "E4") }

// BenchmarkE5 times one cached call on a 1-element input per op
// (run-1elem is RunInto, run-1elem-alloc is Run) and a fresh Jit's trace,
// compile and first Run of a 100-op chain.
func BenchmarkE5(b *testing.B) {
	w := newE5a()
	w.calls = 0 // one call per benchmark op
	for _, c := range []struct{ name, peer string }{
		{"run-1elem", kilnFused}, {"run-1elem-alloc", kilnRun}, {"run-1elem-opbyop", kilnOpByOp},
		{"gorgonia-1elem", gorgoniaPeer}, {"gonum-1elem", gonumPeer}, {"go-loop-1elem", goLoop},
	} {
		b.Run(c.name, func(b *testing.B) { loop(b, prepare(b, w, c.peer)) })
	}
	c := newE5b()
	b.Run("trace-compile-100op", func(b *testing.B) { loop(b, prepare(b, c, kilnFused)) })
	b.Run("trace-compile-100op-opbyop", func(b *testing.B) { loop(b, prepare(b, c, kilnOpByOp)) })
}

// BenchmarkE6 times f32 matmul at 512 and 1024, reporting GFLOP/s.
func BenchmarkE6(b *testing.B) {
	for i, m := range []int{512, 1024} {
		w := newE6([]string{"E6a", "E6b"}[i], m)
		for _, c := range []struct{ name, peer string }{
			{"kiln", kilnFused}, {"kiln-opbyop", kilnOpByOp}, {"gonum", gonumPeer}, {"gorgonia", gorgoniaPeer}, {"go-loop", goLoop},
		} {
			b.Run(fmt.Sprintf("%s-%d", c.name, m), func(b *testing.B) {
				loop(b, prepare(b, w, c.peer))
				b.ReportMetric(w.flops*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
			})
		}
	}
}

// BenchmarkE7 times one MLP training step (forward, backward, Adam) at
// batch 256: Kiln with RunInto into outputs allocated once (its allocs/op
// are the steady state's heap allocations per step), Kiln op by op, and
// GoMLX's simplego backend.
func BenchmarkE7(b *testing.B) {
	w := newE7()
	for _, peer := range []string{kilnFused, kilnRelease, kilnOpByOp, gomlxPeer} {
		b.Run(peer, func(b *testing.B) {
			im := prepare(b, w, peer)
			loop(b, im)
			b.ReportMetric(w.flops*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
	}
}
