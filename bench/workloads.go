package main

import (
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/kiln-go/kiln"
	"github.com/kiln-go/kiln/tensor"
)

// E1's scalars: weak literals in Kiln, Python floats in NumPy, float
// constants in C (peers/peer.c and peers/peer.py spell the same values).
const e1A, e1B = 1.7, 0.3

// workload is one docs/SPEC.md §8 row: its Kiln function and inputs, the data the
// other peers need, and how its time is turned into a rate.
type workload struct {
	id, title string
	size      int           // elements per input, or the matrix order for E6
	ext       string        // the workload's name in peer.c and peer.py ("": its id)
	dtype     tensor.DType  // the element type of a flops workload (for the machine's peak)
	bytes     float64       // bytes per run counted for GB/s (0: no GB/s)
	flops     float64       // flops per run, for GFLOP/s (0: none)
	calls     int           // calls per timed run; the reported time is per call
	perStep   bool          // the time is the median of single calls (see stepLog), not of runs
	tol       float64       // peers' relative tolerance against Kiln (0: bit-exact)
	parts     []int         // the result is these outputs' elements one after another, each checked on its own (nil: one output)
	compile   bool          // E5b: the Kiln time is a fresh Jit's trace, compile and first Run
	cold      time.Duration // the first Run of the process's first Jit of fn (set by kiln-fused)

	pair *workload // E6g: its bare GEMM; E6i–E6l: E6a; E6n: E6i; E6o: E6j; E8: E8s; its Kiln fused time is measured in the same rounds
	// chain > 1: a Kiln run is chain RunInto calls of fn, each but the
	// first reading the previous call's output (E8s: E8's loop as 1,000
	// jitted calls of its step); fn has one argument and one result of
	// the same type.
	chain int

	fn   any           // the traced function
	args []any         // Kiln's arguments (*tensor.Array)
	opts []kiln.Option // the Jit options of every Kiln variant (E7c: Checked)

	files map[string][]byte // input files for external peers (native byte order)
	peers map[string]func() (impl, error)
	why   map[string]string // peer → why it has no implementation
}

// impl is one prepared implementation of a workload.
type impl struct {
	before func()       // untimed, before every run (may be nil)
	run    func() error // the timed work
	result func() any   // the output to check: a typed slice
	steps  *stepLog     // each call's time, when the workload is timed per step (else nil)
}

// stepLog holds the time of each call that one timed run of a perStep
// workload made (w.repeat records them).
type stepLog struct{ d []time.Duration }

// workloadIDs lists the report rows in order.
var workloadIDs = []string{"E1", "E2", "E3", "E4", "E5a", "E5b", "E6a", "E6b", "E6c", "E6d", "E6e", "E6f", "E6g", "E6h", "E6i", "E6j", "E6k", "E6kb", "E6p", "E6pb", "E6l", "E6m", "E6n", "E6o", "E7", "E7c", "E7i", "E8", "E9a", "E9b", "E10"}

// matrixSizes are the E6 family's matrix orders.
type matrixSizes struct {
	a, b, c, d, e int       // E6a–E6e: f32 square matmuls
	f             int       // E6f: f64 square matmul
	dense         [3]int    // E6g and E6h: x is dense[0]×dense[1], w dense[1]×dense[2]
	conv          convSizes // E6k (E6i, E6j, E6l, E6n and E6o are of order a, as their pair E6a)
	complex       int       // E6m: c64 square matmul
	pool          poolSizes // E6p and E6pb
}

// The E6 sizes of issue 12's targets, and -quick's.
var (
	fullMatrices = matrixSizes{a: 1024, b: 2048, c: 256, d: 128, e: 64, f: 1024, dense: [3]int{4096, 1024, 1024},
		conv: convSizes{n: 8, h: 56, cin: 64, cout: 64, k: 3}, complex: 512, pool: fullPool}
	quickMatrices = matrixSizes{a: 64, b: 128, c: 32, d: 16, e: 8, f: 64, dense: [3]int{128, 64, 64},
		conv: convSizes{n: 1, h: 8, cin: 8, cout: 8, k: 3}, complex: 32, pool: quickPool}
)

// newWorkload builds the inputs of workload id for element count n and
// matrix orders mm. It returns nil for an unknown id.
func newWorkload(id string, n int, mm matrixSizes) *workload {
	switch id {
	case "E1":
		return newE1(n)
	case "E2":
		return newE2(n)
	case "E3":
		return newE3(n)
	case "E4":
		return newE4(n)
	case "E5a":
		return newE5a()
	case "E5b":
		return newE5b()
	case "E6a":
		return newE6[float32](id, mm.a)
	case "E6b":
		return newE6[float32](id, mm.b)
	case "E6c":
		return newE6[float32](id, mm.c)
	case "E6d":
		return newE6[float32](id, mm.d)
	case "E6e":
		return newE6[float32](id, mm.e)
	case "E6f":
		return newE6[float64](id, mm.f)
	case "E6g":
		w := newDense(id, mm.dense, true)
		w.pair = newDense("E6h", mm.dense, false)
		return w
	case "E6h":
		return newDense(id, mm.dense, false)
	case "E6i":
		return withF32Pair(newE6BF16(id, mm.a, false), mm.a)
	case "E6l":
		return withF32Pair(newE6BF16(id, mm.a, true), mm.a)
	case "E6j":
		return withF32Pair(newE6I8(id, mm.a), mm.a)
	case "E6m":
		return newE6C64(id, mm.complex)
	case "E6n":
		return withPair(newE6FP8(id, mm.a), newE6BF16("E6i", mm.a, false))
	case "E6o":
		return withPair(newE6I4(id, mm.a), newE6I8("E6j", mm.a))
	case "E6k":
		return withF32Pair(newConvRow(id, mm.conv), mm.a)
	case "E6kb":
		return newConvGradRow(id, mm.conv)
	case "E6p":
		return newPoolRow(id, mm.pool)
	case "E6pb":
		return newPoolGradRow(id, mm.pool)
	case "E7":
		return newE7()
	case "E7c":
		return newE7Idx(id, true)
	case "E7i":
		return newE7Idx(id, false)
	case "E8":
		return newE8()
	case "E9a":
		return newE9(id, newE7())
	case "E9b":
		return newE9(id, newConvRow(id, mm.conv))
	case "E10":
		return newE10()
	}
	return nil
}

// rng is a deterministic source: seed picks the stream.
func rng(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(2024, seed)) }

func mustArray[T tensor.Elem](data []T, shape ...int) *tensor.Array {
	a, err := tensor.FromSlice(data, shape...)
	if err != nil {
		panic(err) // shapes here are built to match
	}
	return a
}

// uniform32 returns n float32 values uniform in [lo, hi) from stream seed.
func uniform32(seed uint64, n int, lo, hi float64) []float32 {
	return uniform[float32](seed, n, lo, hi)
}

// uniform returns n values uniform in [lo, hi) from stream seed.
func uniform[T float32 | float64](seed uint64, n int, lo, hi float64) []T {
	r := rng(seed)
	x := make([]T, n)
	for i := range x {
		x[i] = T(lo + (hi-lo)*r.Float64())
	}
	return x
}

func e1Kiln(x kiln.Value) kiln.Value { return x.Mul(kiln.Float(e1A)).Add(kiln.Float(e1B)) }

func newE1(n int) *workload {
	x := uniform32(1, n, -1, 1)
	w := &workload{id: "E1", title: fmt.Sprintf("`a*x + b`, x f32[%d], a b weak scalars", n), size: n, bytes: 8 * float64(n),
		fn: e1Kiln, args: []any{mustArray(x)}, files: map[string][]byte{"x.bin": bytesOf(x)}}
	e1Peers(w, x)
	return w
}

func e2Kiln(x, y kiln.Value) kiln.Value {
	return x.Mul(kiln.Int(2)).Add(y).Mul(kiln.Float(0.5))
}

func newE2(n int) *workload {
	r := rng(2)
	x := make([]int8, n)
	y := make([]tensor.Float16, n)
	for i := range x {
		x[i] = int8(r.IntN(256) - 128) // the full range, so x*2 wraps
		y[i] = tensor.Float32ToF16(float32(200*r.Float64() - 100))
	}
	w := &workload{id: "E2", title: fmt.Sprintf("`(x*2 + y) * 0.5`, x i8[%d], y f16[%d] → f16", n, n), size: n, bytes: 5 * float64(n),
		fn: e2Kiln, args: []any{mustArray(x), mustArray(y)},
		files: map[string][]byte{"x.bin": bytesOf(x), "y.bin": bytesOf(y)}}
	e2Peers(w, x, y)
	return w
}

// e3Kiln is E3's chain of 10 ops, 6 of them transcendental:
// log(2 + tanh(sin(exp(x*x)) + cos(x))) * logistic(x), for x in [-1, 1]
// (every intermediate stays in a range where f32 keeps ~7 digits, and the
// result is bounded away from 0, so a relative check is meaningful).
func e3Kiln(x kiln.Value) kiln.Value {
	t := x.Mul(x).Exp().Sin().Add(x.Cos()).Tanh()
	return t.Add(kiln.Float(2)).Log().Mul(x.Logistic())
}

// e3Elem is E3 for one element in float64 math, rounded once.
func e3Elem(v float32) float32 {
	x := float64(v)
	t := math.Tanh(math.Sin(math.Exp(x*x)) + math.Cos(x))
	return float32(math.Log(2+t) / (1 + math.Exp(-x)))
}

func newE3(n int) *workload {
	x := uniform32(1, n, -1, 1)
	w := &workload{id: "E3", title: fmt.Sprintf("10-op chain `log(2 + tanh(sin(exp(x*x)) + cos(x))) * logistic(x)`, x f32[%d]", n), size: n,
		tol: 1e-5, fn: e3Kiln, args: []any{mustArray(x)}, files: map[string][]byte{"x.bin": bytesOf(x)}}
	e3Peers(w, x)
	return w
}

func e4Kiln(x kiln.Value) kiln.Value { return x.Sub(x.Mean()).Pow(kiln.Int(2)).Sum() }

func newE4(n int) *workload {
	r := rng(4)
	x := make([]float64, n)
	for i := range x {
		x[i] = 3 + r.NormFloat64()
	}
	w := &workload{id: "E4", title: fmt.Sprintf("`sum((x - mean(x))**2)`, x f64[%d]", n), size: n, bytes: 8 * float64(n), tol: 1e-9,
		fn: e4Kiln, args: []any{mustArray(x)}, files: map[string][]byte{"x.bin": bytesOf(x)}}
	e4Peers(w, x)
	return w
}

// e5Calls is the number of calls per timed E5a run.
const e5Calls = 2000

func newE5a() *workload {
	x := []float32{0.625}
	w := &workload{id: "E5a", title: "cached call of `a*x + b` on f32[1] (time per call)", size: 1, calls: e5Calls,
		fn: e1Kiln, args: []any{mustArray(x)}, files: map[string][]byte{"x.bin": bytesOf(x)}}
	e5Peers(w, x)
	return w
}

// e5bLen is the length of E5b's input; e5bOps the length of its chain.
const e5bLen, e5bOps = 16, 100

// chain100 is E5b's program: 100 elementwise ops cycling through
// multiply and subtract by literals, add the input, sin and tanh.
func chain100(x kiln.Value) kiln.Value {
	v := x
	for i := range e5bOps {
		switch i % 5 {
		case 0:
			v = v.Mul(kiln.Float(0.9))
		case 1:
			v = v.Add(x)
		case 2:
			v = v.Sin()
		case 3:
			v = v.Sub(kiln.Float(0.1))
		default:
			v = v.Tanh()
		}
	}
	return v
}

func newE5b() *workload {
	x := uniform32(1, e5bLen, -1, 1)
	return &workload{id: "E5b", title: fmt.Sprintf("trace + compile + first Run of a %d-op chain on f32[%d]", e5bOps, e5bLen),
		size: e5bLen, compile: true, fn: chain100, args: []any{mustArray(x)}, peers: map[string]func() (impl, error){}}
}

func e6Kiln(a, b kiln.Value) kiln.Value { return a.MatMul(b) }

// e6Tol is the E6 peers' tolerance: a BLAS sums k products in its own
// order (blocked, vectorised), so it differs from Kiln's k-order FMA
// chain by a few roundings of the largest terms.
func e6Tol[T float32 | float64]() float64 {
	var z T
	if _, ok := any(z).(float64); ok {
		return 1e-12
	}
	return 1e-4
}

// newE6 is a square matmul of order m in T (f32: E6a–E6e, f64: E6f).
func newE6[T float32 | float64](id string, m int) *workload {
	a := uniform[T](6, m*m, -1, 1)
	b := uniform[T](7, m*m, -1, 1)
	dt, ext := tensor.F32, "E6"
	if _, ok := any(a).([]float64); ok {
		dt, ext = tensor.F64, "E6f64"
	}
	w := &workload{id: id, title: fmt.Sprintf("matmul %s %d×%d", dt, m, m), size: m, ext: ext, dtype: dt,
		flops: 2 * float64(m) * float64(m) * float64(m), tol: e6Tol[T](), fn: e6Kiln, args: []any{mustArray(a, m, m), mustArray(b, m, m)},
		files: map[string][]byte{"a.bin": bytesOf(a), "b.bin": bytesOf(b)}}
	w.calls = e6Calls(m)
	e6Peers(w, a, b, m)
	return w
}

// e6Calls is how many calls of an order-m matmul one timed run of the
// in-process peers makes (0: one, no batching). Small matmuls take a few
// microseconds, and the collection that precedes every timed run (see
// measureTogether) would leave them cold caches each time, while the
// subprocess peers loop hot; batches of about 2^27 flops (capped at 256
// calls) make the in-process peers loop hot too. The time is per call.
func e6Calls(m int) int {
	calls := (1 << 27) / (2 * m * m * m)
	if calls < 2 {
		return 0
	}
	return min(calls, 256)
}

// denseKiln is E6g, a dense layer: tanh(x @ w + b), the bias broadcast
// over rows.
func denseKiln(x, w, b kiln.Value) kiln.Value { return x.MatMul(w).Add(b).Tanh() }

// bareKiln is E6h: E6g's GEMM alone (b is an unused argument, so both
// rows take the same inputs).
func bareKiln(x, w, _ kiln.Value) kiln.Value { return x.MatMul(w) }

// newDense is E6g (layer: the fused dense layer) or E6h (its bare GEMM)
// with x f32[m×k], w f32[k×n], b f32[n]. Both count the GEMM's 2·m·k·n
// flops. They are Kiln-only rows: issue 12's target compares Kiln's fused
// epilogue with Kiln's own GEMM.
func newDense(id string, dims [3]int, layer bool) *workload {
	m, k, n := dims[0], dims[1], dims[2]
	x := uniform32(8, m*k, -1, 1)
	wt := uniform32(9, k*n, -1/math.Sqrt(float64(k)), 1/math.Sqrt(float64(k)))
	b := uniform32(10, n, -0.5, 0.5)
	fn, title := any(bareKiln), fmt.Sprintf("E6g's bare GEMM `x @ w`, x f32[%d×%d], w f32[%d×%d]", m, k, k, n)
	if layer {
		fn, title = denseKiln, fmt.Sprintf("dense layer `tanh(x @ w + b)`, x f32[%d×%d], w f32[%d×%d], b f32[%d]", m, k, k, n, n)
	}
	w := &workload{id: id, title: title, size: m, dtype: tensor.F32, flops: 2 * float64(m) * float64(k) * float64(n),
		fn: fn, args: []any{mustArray(x, m, k), mustArray(wt, k, n), mustArray(b, n)}}
	return w
}
