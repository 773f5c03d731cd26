package kiln_test

import (
	"flag"
	"fmt"
	"math/rand"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/kiln-go/kiln"
	"github.com/kiln-go/kiln/internal/longtest"
	"github.com/kiln-go/kiln/internal/reference"
	"github.com/kiln-go/kiln/kernels"
	"github.com/kiln-go/kiln/kernels/conformance"
	"github.com/kiln-go/kiln/kernels/opencl"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// TestMovementPrograms draws random chains of data movement (rolls,
// slices, strided slices, concatenates, revs, transposes, broadcasts,
// pads, static takes) and iotas interleaved with elementwise arithmetic,
// on shapes small and large (rows longer than a block, an iota span and a
// mapVM tile), sometimes inside a fori_loop body — the programs the mapped
// loop fusions (lower.Regions) run — and checks the fused results against
// the reference evaluator, op by op (NoFusion) and the tiny-block parallel
// CPU, bit for bit (any NaN equals any NaN).
//
// Reproduce one failure with the command its report prints:
//
//	go test -run '^TestMovementPrograms$' -move.seed=N -v
var (
	moveN    = flag.Int("move.n", 0, "number of random programs of TestMovementPrograms (0: 5000 with KILN_LONG=1, else 500)")
	moveSeed = flag.Int64("move.seed", -1, "run only this seed of TestMovementPrograms")
	moveFrom = flag.Int64("move.from", 30_000_000, "first seed of TestMovementPrograms' corpus")
	moveCL   = flag.Bool("move.opencl", false, "also run TestMovementPrograms' programs on the OpenCL backend")
)

var (
	moveCLOnce    sync.Once
	moveCLBackend kernels.Backend
)

func TestMovementPrograms(t *testing.T) {
	n := *moveN
	if n <= 0 {
		n = longtest.Pick(5000, 500)
	}
	if *moveCL {
		moveCLOnce.Do(func() {
			b, err := opencl.New(opencl.Options{})
			if err != nil {
				t.Fatalf("-move.opencl: %v", err)
			}
			moveCLBackend = b
		})
	}
	moveUntraced.Store(0)
	var ran, i atomic.Int64
	next := func() (int64, bool) {
		k := i.Add(1) - 1
		if *moveSeed >= 0 {
			return *moveSeed, k == 0
		}
		return *moveFrom + k, k < int64(n)
	}
	forSeeds(t, next, func(seed int64) string {
		defer ran.Add(1)
		return runMovementProgram(seed)
	})
	t.Logf("%d programs, %d of them not traced", ran.Load(), moveUntraced.Load())
	if u := moveUntraced.Load(); u > ran.Load()/2 {
		t.Errorf("%d of %d programs did not trace", u, ran.Load())
	}
}

// moveUntraced counts the draws of a TestMovementPrograms run that do not
// trace (a shape rule refused a step); most must trace.
var moveUntraced atomic.Int64

// moveDTypes are the dtypes the programs compute in (f32 thrice as often).
var moveDTypes = []tensor.DType{tensor.F32, tensor.F32, tensor.F32, tensor.F64, tensor.F16, tensor.BF16, tensor.I32, tensor.U8, tensor.I8, tensor.C64, tensor.Bool, tensor.F8E4M3FN, tensor.I4}

// moveShape draws a shape: small dims mostly, sometimes one long row.
func moveShape(r *rand.Rand) []int {
	rank := 1 + r.Intn(3)
	shape := make([]int, rank)
	for j := range shape {
		shape[j] = 1 + r.Intn(6)
	}
	switch r.Intn(4) {
	case 0:
		shape[rank-1] = []int{255, 256, 257, 300, 1023, 1024, 1025, 3000, 4097, 5000, 9000}[r.Intn(11)]
	case 1:
		shape[0] = []int{17, 64, 100, 257, 600}[r.Intn(5)]
	}
	return shape
}

// moveGen builds one program from its own random source, replayed
// identically each time Fn is traced.
type moveGen struct {
	seed  int64
	dt    tensor.DType
	shape []int
	nIn   int
	loop  bool
	desc  []string
}

func (g *moveGen) fn(args []trace.Value) []trace.Value {
	r := rand.New(rand.NewSource(g.seed ^ 0x5eed))
	g.desc = g.desc[:0]
	body := func(vals []trace.Value) []trace.Value {
		pool := slicesClone(vals)
		steps := 2 + r.Intn(8)
		for range steps {
			pool = append(pool, g.step(r, pool))
		}
		// Results: the last value and another, shaped back if needed.
		out := pool[len(pool)-1]
		return []trace.Value{out, pool[len(vals)+r.Intn(len(pool)-len(vals))]}
	}
	if !g.loop {
		return body(args)
	}
	shapes := make([][]int, len(args))
	for i, a := range args {
		shapes[i] = a.Shape()
	}
	return trace.ForiLoop(trace.Int(0), trace.Int(2), func(_ trace.Value, c []trace.Value) []trace.Value {
		res := body(c)
		// The carry keeps its shapes and dtypes: each carry adds a
		// result reshaped back when it has the carry's shape.
		out := make([]trace.Value, len(c))
		for i := range c {
			out[i] = c[i]
			for _, v := range res {
				if shapeEq(v.Shape(), c[i].Shape()) && v.DType() == c[i].DType() {
					out[i] = v
					break
				}
			}
		}
		return out
	}, args...)
}

func slicesClone(v []trace.Value) []trace.Value { return append([]trace.Value(nil), v...) }

func shapeEq(a, b []int) bool { return slicesEqual(a, b) }

func (g *moveGen) log(f string, a ...any) { g.desc = append(g.desc, fmt.Sprintf(f, a...)) }

// step draws one value from the pool.
func (g *moveGen) step(r *rand.Rand, pool []trace.Value) trace.Value {
	x := pool[r.Intn(len(pool))]
	sh := x.Shape()
	rank := len(sh)
	ax := 0
	if rank > 0 {
		ax = r.Intn(rank)
	}
	// A value of x's shape and dtype from the pool, or x itself.
	same := func() trace.Value {
		var c []trace.Value
		for _, v := range pool {
			if shapeEq(v.Shape(), sh) && v.DType() == x.DType() {
				c = append(c, v)
			}
		}
		return c[r.Intn(len(c))]
	}
	switch k := r.Intn(16); {
	case k == 0 && rank > 0: // roll
		s := r.Intn(2*sh[ax]+1) - sh[ax]
		g.log("roll(%v, %d, %d)", sh, s, ax)
		return trace.Roll(x, s, ax)
	case k == 1 && rank > 0 && sh[ax] > 1: // slice, maybe strided
		lo := r.Intn(sh[ax])
		hi := lo + 1 + r.Intn(sh[ax]-lo)
		st := 1 + r.Intn(3)
		g.log("slice(%v, ax %d, %d:%d:%d)", sh, ax, lo, hi, st)
		return x.Slice(ax, lo, hi, st)
	case k == 2 && rank > 0: // concatenate with pieces of itself and same-shaped values
		a := same()
		cut := r.Intn(sh[ax] + 1)
		g.log("concat(%v, ax %d, cut %d)", sh, ax, cut)
		return trace.Concatenate(ax, a.Slice(ax, cut, sh[ax], 1), x, x.Slice(ax, 0, cut, 1))
	case k == 3 && rank > 0: // rev
		axes := []int{ax}
		if rank > 1 && r.Intn(2) == 0 {
			axes = append(axes, (ax+1)%rank)
		}
		g.log("rev(%v, %v)", sh, axes)
		return trace.Rev(x, axes...)
	case k == 4 && rank > 1: // transpose
		perm := r.Perm(rank)
		g.log("transpose(%v, %v)", sh, perm)
		return x.Transpose(perm...)
	case k == 5 && rank < 4: // broadcast along a new leading axis
		b := 1 + r.Intn(3)
		g.log("broadcast(%v, %d)", sh, b)
		return x.Reshape(append([]int{1}, sh...)...).BroadcastTo(append([]int{b}, sh...)...)
	case k == 6 && rank > 0: // iota of x's shape (or of a row of it), combined with x
		d := x.DType()
		if d == tensor.Bool {
			d = tensor.U8
		}
		var io trace.Value
		if r.Intn(3) == 0 && rank > 1 {
			row := slicesCloneInts(sh)
			row[0] = 1
			io = trace.Iota(d, row, r.Intn(rank)).BroadcastTo(sh...)
			g.log("iota(%v broadcast) op", row)
		} else {
			io = trace.Iota(d, sh, ax)
			g.log("iota(%v, %d) op", sh, ax)
		}
		if r.Intn(2) == 0 {
			return x.Mul(io)
		}
		return io.Sub(x)
	case k == 7 && rank > 0: // static take
		m := 1 + r.Intn(6)
		idx := make([]int32, m)
		for i := range idx {
			idx[i] = int32(r.Intn(2*sh[ax]) - sh[ax])
		}
		g.log("take(%v, %v, ax %d)", sh, idx, ax)
		return trace.Take(x, trace.Const(tensor.Must(tensor.FromSlice(idx))), ax)
	case k == 8 && rank > 0: // pad
		w := make([][2]int, rank)
		w[ax] = [2]int{r.Intn(3) - 1, r.Intn(3)}
		if sh[ax]+w[ax][0]+w[ax][1] <= 0 {
			w[ax][0] = 0
		}
		g.log("pad(%v, %v)", sh, w)
		return trace.Pad(x, w, trace.PadConstant, trace.Int(1))
	case k == 9 && rank > 0: // reshape to flat or back
		n := 1
		for _, e := range sh {
			n *= e
		}
		g.log("reshape(%v → [%d])", sh, n)
		return x.Reshape(n)
	case k == 10:
		g.log("neg")
		return x.Neg()
	case k == 11:
		g.log("convert f32")
		if x.DType() == tensor.F32 {
			return x.Astype(g.dt)
		}
		return x.Astype(tensor.F32)
	default: // binary with a same-shaped value or a scalar
		y := same()
		switch r.Intn(5) {
		case 0:
			g.log("add")
			return x.Add(y)
		case 1:
			g.log("sub")
			return y.Sub(x)
		case 2:
			g.log("mul")
			return x.Mul(y)
		case 3:
			g.log("mul scalar")
			return x.Mul(trace.Float(0.5)).Add(trace.Int(3))
		default:
			g.log("max")
			return x.Maximum(y)
		}
	}
}

func slicesCloneInts(s []int) []int { return append([]int(nil), s...) }

// runMovementProgram checks one seed; it returns a failure report, or "".
func runMovementProgram(seed int64) (msg string) {
	r := rand.New(rand.NewSource(seed))
	g := &moveGen{seed: seed, dt: moveDTypes[r.Intn(len(moveDTypes))], shape: moveShape(r), nIn: 1 + r.Intn(2), loop: r.Intn(4) == 0}
	repro := fmt.Sprintf("go test -run '^TestMovementPrograms$' -move.seed=%d -v .", seed)
	defer func() {
		if e := recover(); e != nil {
			msg = fmt.Sprintf("seed %d: panic: %v (reproduce: %s)\n%s\n%s", seed, e, repro, strings.Join(g.desc, "; "), debug.Stack())
		}
	}()
	arrays := make([]*tensor.Array, g.nIn)
	args := make([]any, g.nIn)
	for i := range arrays {
		arrays[i] = conformance.Input(g.dt, uint64(seed)*4+uint64(i), g.shape...)
		args[i] = arrays[i]
	}
	fused := kiln.Jit(g.fn, kiln.Verify())
	p, err := fused.Trace(args...)
	if err != nil {
		moveUntraced.Add(1)
		return "" // a draw that does not trace (a shape rule): not a fusion question
	}
	report := func(what string) string {
		var b strings.Builder
		fmt.Fprintf(&b, "seed %d: %s (reproduce: %s)\nsteps: %s\nprogram:\n%s\n", seed, what, repro, strings.Join(g.desc, "; "), p)
		if m, err := fused.Lower(args...); err == nil {
			fmt.Fprintf(&b, "fused plan:\n%s", m.FusedString())
		}
		return b.String()
	}
	got, err := fused.RunAll(args...)
	if err != nil {
		return report("fused run failed: " + err.Error())
	}
	want, err := reference.Eval(p, arrays, refOptions)
	if err != nil {
		return report("reference failed: " + err.Error())
	}
	if d := diffResults(got, want, true); d != "" {
		return report("fused result differs from the reference: " + d)
	}
	for _, v := range []struct {
		name string
		opt  kiln.Option
	}{{"op-by-op (NoFusion)", kiln.NoFusion()}, {"tiny-block parallel CPU", kiln.WithBackend(tinyCPU)}, {"grouped CPU", kiln.WithBackend(groupCPU)}} {
		other, err := kiln.Jit(g.fn, kiln.Verify(), v.opt).RunAll(args...)
		if err != nil {
			return report(v.name + " run failed: " + err.Error())
		}
		if d := diffResults(other, got, true); d != "" {
			return report(v.name + " result differs from the fused one: " + d)
		}
	}
	if moveCLBackend != nil {
		other, err := kiln.Jit(g.fn, kiln.WithBackend(moveCLBackend)).RunAll(args...)
		if err != nil {
			if opencl.IsKind(err, opencl.KindUnsupported) {
				return "" // a dtype or op the device lacks
			}
			return report("OpenCL run failed: " + err.Error())
		}
		if d := diffResults(other, got, true); d != "" {
			return report("OpenCL result differs from the CPU's: " + d)
		}
	}
	return ""
}
