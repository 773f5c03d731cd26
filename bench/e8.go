package main

import (
	"fmt"

	"github.com/kiln-go/kiln"
)

// E8 is issue 14's loop: an explicit heat-equation stencil on a periodic
// f32 rod of e8N cells, e8Steps steps of
//
//	u ← u + α·((roll(u, 1) + roll(u, −1)) − 2·u)
//
// as one fori_loop traced once (Kiln), the same loop in NumPy, and in
// plain Go. Its checked output is the final u. bench_test.go's
// BenchmarkE8Trace/steps=N shows trace+compile time independent of the step
// count and BenchmarkE8PerStep a loop step's time against one fused step's.
const (
	e8N     = 1 << 20
	e8Steps = 1000
	e8Alpha = 0.25
)

// e8Step is one step of the stencil (the loop's body); the rolls are
// jnp.roll's slices and concatenation.
func e8Step(u kiln.Value) kiln.Value {
	l := kiln.Concatenate(0, u.Slice(0, e8N-1, e8N, 1), u.Slice(0, 0, e8N-1, 1)) // roll(u, 1)
	r := kiln.Concatenate(0, u.Slice(0, 1, e8N, 1), u.Slice(0, 0, 1, 1))         // roll(u, -1)
	return u.Add(kiln.Float(e8Alpha).Mul(l.Add(r).Sub(u.Mul(kiln.Float(2)))))
}

// e8Loop is E8's program for a given number of steps.
func e8Loop(steps int) func(u kiln.Value) kiln.Value {
	return func(u kiln.Value) kiln.Value {
		return kiln.ForiLoop(kiln.Int(0), kiln.Int(int64(steps)), func(_ kiln.Value, c []kiln.Value) []kiln.Value {
			return []kiln.Value{e8Step(c[0])}
		}, u)[0]
	}
}

// e8Input is a rod with a hot interval and noise.
func e8Input() []float32 {
	r := rng(8)
	u := make([]float32, e8N)
	for i := range u {
		u[i] = float32(r.Float64())
		if i > e8N/3 && i < e8N/2 {
			u[i] += 10
		}
	}
	return u
}

// e8GoStep is one step in plain Go over cells [lo, hi), rounding as Kiln
// and NumPy do: every op one f32 rounding (the conversions keep Go from
// fusing a multiply and an add). The two end cells wrap around; the rest
// index their neighbours directly.
func e8GoStep(dst, u []float32, lo, hi int) {
	n := len(u)
	a := float32(e8Alpha)
	cell := func(i int, l, r float32) { dst[i] = u[i] + float32(a*(float32(l+r)-float32(2*u[i]))) }
	if lo == 0 {
		cell(0, u[n-1], u[1])
		lo = 1
	}
	last := hi == n
	if last {
		hi = n - 1
	}
	for i := lo; i < hi; i++ {
		cell(i, u[i-1], u[i+1])
	}
	if last {
		cell(n-1, u[n-2], u[0])
	}
}

func newE8() *workload {
	u := e8Input()
	w := &workload{id: "E8", title: fmt.Sprintf("%d-step `fori_loop` heat stencil, f32[%d] (periodic, α = %g)", e8Steps, e8N, e8Alpha),
		size: e8N, bytes: 2 * 4 * float64(e8N) * e8Steps, fn: e8Loop(e8Steps), args: []any{mustArray(u)},
		files: map[string][]byte{"x.bin": bytesOf(u)}}
	w.add(goLoop, func() (impl, error) {
		a, b := make([]float32, e8N), make([]float32, e8N)
		run := func() error {
			copy(a, u)
			for range e8Steps {
				parallel(e8N, func(lo, hi int) { e8GoStep(b, a, lo, hi) })
				a, b = b, a
			}
			return nil
		}
		return impl{run: run, result: func() any { return a }}, nil
	})
	// E8's pair: the same 1,000 steps as 1,000 jitted calls of one fused
	// step, timed in the same rounds — the loop should add nothing per step.
	w.pair = &workload{id: "E8s", title: "E8's step as 1,000 chained `RunInto` calls", size: e8N,
		fn: e8Step, args: w.args, chain: e8Steps}
	w.lacks(gonumPeer, "gonum has no stencil or roll; the plain Go loop is the Go column")
	w.lacks(gorgoniaPeer, "gorgonia.org/tensor has no roll; the plain Go loop is the Go column")
	return w
}
