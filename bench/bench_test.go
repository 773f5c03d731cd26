package main

import (
	"flag"
	"syscall"
	"testing"
	"time"

	"github.com/kiln-go/kiln"
	"github.com/kiln-go/kiln/tensor"
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
	w := newWorkload(id, *benchN, fullMatrices)
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

func BenchmarkE1(b *testing.B)  { benchWorkload(b, "E1") }
func BenchmarkE2(b *testing.B)  { benchWorkload(b, "E2") }
func BenchmarkE3(b *testing.B)  { benchWorkload(b, "E3") }
func BenchmarkE4(b *testing.B)  { benchWorkload(b, "E4") }
func BenchmarkE10(b *testing.B) { benchWorkload(b, "E10") }

// BenchmarkE6p and BenchmarkE6pb time the max_pool rows (3×3 stride 2
// SAME on f32 [8, 56, 56, 64]; E6pb its forward and backward pass) in
// process, for profiling: go test -run '^$' -bench 'E6pb/kiln-fused'
// -cpuprofile p.out ./bench
func BenchmarkE6p(b *testing.B)  { benchWorkload(b, "E6p") }
func BenchmarkE6pb(b *testing.B) { benchWorkload(b, "E6pb") }

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

// BenchmarkE6 times the E6 family's square matmuls at issue 12's sizes
// (f32 at 1024, 2048, 256, 128 and 64; f64 at 1024) with every in-process
// peer, reporting GFLOP/s: BenchmarkE6/E6a/kiln-fused, … OpenBLAS and
// NumPy run as subprocesses, in the report only (go run ./bench -only E6).
func BenchmarkE6(b *testing.B) {
	for _, id := range []string{"E6a", "E6b", "E6c", "E6d", "E6e", "E6f"} {
		b.Run(id, func(b *testing.B) {
			w := newWorkload(id, 0, fullMatrices)
			w.calls = 0 // one call per benchmark op
			for _, peer := range []string{kilnFused, kilnOpByOp, gonumPeer, gorgoniaPeer, goLoop, gomlxPeer} {
				b.Run(peer, func(b *testing.B) {
					loop(b, prepare(b, w, peer))
					b.ReportMetric(w.flops*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
				})
			}
		})
	}
}

// BenchmarkE6Dense is issue 12's dense-layer target: E6g, `tanh(x @ w +
// b)` with x f32[4096×1024] and w f32[1024×1024], fused (kiln-fused) and
// op by op, and E6h, the bare `x @ w`, each reporting the GEMM's GFLOP/s;
// "ratio" alternates the fused layer and the bare GEMM in one loop, so
// that load on the machine falls on both alike, and reports the layer's
// time over the GEMM's (layer/gemm; the target is ≤ 1.1).
func BenchmarkE6Dense(b *testing.B) {
	layer, bare := newWorkload("E6g", 0, fullMatrices), newWorkload("E6h", 0, fullMatrices)
	for _, c := range []struct {
		name string
		w    *workload
		peer string
	}{{"layer", layer, kilnFused}, {"layer-opbyop", layer, kilnOpByOp}, {"gemm", bare, kilnFused}} {
		b.Run(c.name, func(b *testing.B) {
			loop(b, prepare(b, c.w, c.peer))
			b.ReportMetric(c.w.flops*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
	}
	b.Run("ratio", func(b *testing.B) {
		tl, tg := alternate(b, prepare(b, layer, kilnFused), prepare(b, bare, kilnFused))
		b.ReportMetric(tl.Seconds()/tg.Seconds(), "layer/gemm")
	})
}

// alternate warms x and y up, then runs them in turn in one benchmark
// loop, so that load on the machine falls on both alike, and returns
// their total times.
func alternate(b *testing.B, x, y impl) (tx, ty time.Duration) {
	b.Helper()
	for _, run := range []func() error{x.run, y.run} {
		if err := run(); err != nil {
			b.Fatal(err)
		}
	}
	for b.Loop() {
		t0 := time.Now()
		err := x.run()
		t1 := time.Now()
		if err == nil {
			err = y.run()
		}
		if err != nil {
			b.Fatal(err)
		}
		tx, ty = tx+t1.Sub(t0), ty+time.Since(t1)
	}
	return tx, ty
}

// BenchmarkE6Promoted is issue 12's bf16, int8 and conv rows (E6i, E6l,
// E6j, E6k) at full size: each alone (Kiln fused, GFLOP/s), then "vs-E6a"
// alternates it with Kiln's f32 1024 GEMM (E6a) in one loop and reports
// the row's time over the GEMM's (E6i, E6l: target ≤ 0.6, E6j: ≤ 0.35) and
// its GFLOP/s over the GEMM's (E6k: target ≥ 0.8). For a CPU profile of
// the int8 path: go test -run '^$' -bench 'E6Promoted/E6j/kiln' -cpuprofile p.out ./bench
func BenchmarkE6Promoted(b *testing.B) {
	for _, id := range []string{"E6i", "E6l", "E6j", "E6k"} {
		b.Run(id, func(b *testing.B) {
			w := newWorkload(id, 0, fullMatrices)
			b.Run(kilnFused, func(b *testing.B) {
				loop(b, prepare(b, w, kilnFused))
				b.ReportMetric(w.flops*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
			})
			b.Run("vs-E6a", func(b *testing.B) {
				tr, tg := alternate(b, prepare(b, w, kilnFused), prepare(b, w.pair, kilnFused))
				b.ReportMetric(tr.Seconds()/tg.Seconds(), "time/E6a")
				b.ReportMetric(w.flops/tr.Seconds()/(w.pair.flops/tg.Seconds()), "gflops/E6a")
			})
		})
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

// BenchmarkE10OutputWrite is E10's floor on this machine: writing its
// 9.8 MB of per-example gradients, nothing computed, zeroed by the
// runtime's memclr on 2 goroutines (as the kernels run). E10's 10× target over the go-loop is below it when
// the loop takes less than 10× this time. On a CPU with ERMS (Zen 5)
// memclr is REP STOSQ, which may skip the read for ownership; the
// outer-product kernel's vector stores wrote E10's 8 MiB w1 gradient at
// the same 35-67 GB/s on one goroutine (internal/simd BenchmarkOuter),
// and streaming (non-temporal) stores at 9-27 GB/s: the output, reused
// run after run, stays in L3, which they bypass (see
// internal/simd/_asm/outer.go).
func BenchmarkE10OutputWrite(b *testing.B) {
	out := make([]float32, e10OutputElems)
	b.SetBytes(int64(4 * len(out)))
	for b.Loop() {
		parallel(len(out), func(lo, hi int) { clear(out[lo:hi]) }) // the runtime's memclr
	}
}

// BenchmarkE6kb is E6k's backward pass (input and kernel cotangents) at
// full size: alone (Kiln fused, GFLOP/s), each cotangent alone (input-ct,
// kernel-ct: half the flops each), then "vs-E6k" alternates it with the
// forward convolution E6k in one loop and reports its GFLOP/s over the
// forward's. Each also reports the process's CPU time per op (cpu-ms/op):
// with GOMAXPROCS=1 a measure of the work that load on a shared machine
// disturbs less than wall time. For a CPU profile:
// go test -run '^$' -bench 'E6kb/kiln' -cpuprofile p.out ./bench
func BenchmarkE6kb(b *testing.B) {
	w := newWorkload("E6kb", 0, fullMatrices)
	f := newWorkload("E6k", 0, fullMatrices)
	b.Run(kilnFused, func(b *testing.B) {
		im := prepare(b, w, kilnFused)
		c0 := cpuTime()
		loop(b, im)
		b.ReportMetric(w.flops*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		b.ReportMetric((cpuTime()-c0).Seconds()*1e3/float64(b.N), "cpu-ms/op")
	})
	for i, name := range []string{"input-ct", "kernel-ct"} {
		b.Run(name, func(b *testing.B) {
			fn := kiln.Jit(func(x, k, g kiln.Value) kiln.Value {
				_, pull := kiln.VJP(convNHWC, x, k)
				return pull(g)[i]
			})
			out, err := fn.Run(w.args...)
			if err != nil {
				b.Fatal(err)
			}
			outs := []*tensor.Array{out}
			c0 := cpuTime()
			for b.Loop() {
				if err := fn.RunInto(outs, w.args...); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(w.flops/2*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
			b.ReportMetric((cpuTime()-c0).Seconds()*1e3/float64(b.N), "cpu-ms/op")
		})
	}
	b.Run("vs-E6k", func(b *testing.B) {
		tr, tf := alternate(b, prepare(b, w, kilnFused), prepare(b, f, kilnFused))
		b.ReportMetric(w.flops/tr.Seconds()/(f.flops/tf.Seconds()), "gflops/E6k")
	})
}

// cpuTime is the process's user and system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
