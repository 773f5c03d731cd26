package kiln_test

import (
	"flag"
	"fmt"
	"math/rand"
	"reflect"
	"runtime/debug"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kiln-go/kiln"
	"github.com/kiln-go/kiln/internal/longtest"
	"github.com/kiln-go/kiln/internal/progen"
	"github.com/kiln-go/kiln/internal/reference"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// The vmap property test: for random programs f (package progen), random
// in and out axes among 0, 1, -1 and NoAxis and batch sizes 1 to 4,
// Vmap(f) on a batch equals f run on every example, stacked, bit for bit
// (two NaNs are equal whatever their payload, as in TestDifferential) —
// through the fused CPU pipeline, op by op (NoFusion), and through the
// reference evaluator. A quarter of the seeds draw loops and branches of
// every kind (progen's all-control mode).
//
// Reproduce one failure with the command its report prints:
//
//	go test -run '^TestVmapProperty$' -vmap.seed=N -v .

var (
	vmapN    = flag.Int("vmap.n", 0, "number of random programs of TestVmapProperty (0: 10000 with KILN_LONG=1, else 1000)")
	vmapSeed = flag.Int64("vmap.seed", -1, "run only this seed of TestVmapProperty")
	vmapFrom = flag.Int64("vmap.from", 20_000_000, "first seed of TestVmapProperty's corpus")
	vmapMode = flag.String("vmap.mode", "", "the generator mode of every TestVmapProperty program (genModes); empty: all-control for seeds ≡ 0 mod 4, plain for the others")
)

func TestVmapProperty(t *testing.T) {
	n := *vmapN
	if n <= 0 {
		n = longtest.Pick(10000, 1000)
	}
	var ran, i atomic.Int64
	next := func() (int64, bool) {
		k := i.Add(1) - 1
		if *vmapSeed >= 0 {
			return *vmapSeed, k == 0
		}
		return *vmapFrom + k, k < int64(n)
	}
	start := time.Now()
	forSeeds(t, next, func(seed int64) string {
		defer ran.Add(1)
		return runVmapProperty(seed)
	})
	t.Logf("%d programs in %v", ran.Load(), time.Since(start).Round(time.Millisecond))
}

// runVmapProperty checks one seed; it returns a failure report, or "".
func runVmapProperty(seed int64) (msg string) {
	r := rand.New(rand.NewSource(seed))
	mode := "plain"
	if seed%4 == 0 {
		mode = "all-control"
	}
	if *vmapMode != "" {
		mode = *vmapMode
	}
	c := progen.Generate(r, withMode(progen.Options{}, mode))
	repro := fmt.Sprintf("go test -run '^TestVmapProperty$' -vmap.seed=%d -v .", seed)
	if *vmapMode != "" {
		repro = fmt.Sprintf("go test -run '^TestVmapProperty$' -vmap.seed=%d -vmap.mode=%s -v .", seed, *vmapMode)
	}
	var detail strings.Builder
	defer func() {
		if e := recover(); e != nil {
			msg = fmt.Sprintf("seed %d: panic: %v (reproduce: %s)\n%s\n%s\n%s", seed, e, repro, c, detail.String(), debug.Stack())
		}
	}()
	p, err := c.Trace()
	if err != nil {
		return fmt.Sprintf("seed %d: progen drew a program that does not trace: %v (reproduce: %s)\n%s", seed, err, repro, c)
	}

	// The batch: example 0 is the case's arrays, the others new draws.
	size := 1 + r.Intn(4)
	inAxes := make([]int, len(c.Inputs))
	for i, in := range c.Inputs {
		choices := []int{0, -1, kiln.NoAxis}
		if len(in.Shape) >= 1 {
			choices = append(choices, 1)
		}
		inAxes[i] = choices[r.Intn(len(choices))]
	}
	examples := [][]*tensor.Array{c.Arrays}
	for range size - 1 {
		examples = append(examples, c.DrawArrays(r))
	}
	batch := make([]*tensor.Array, len(c.Inputs))
	for i := range c.Inputs {
		if inAxes[i] == kiln.NoAxis {
			for b := range examples {
				examples[b][i] = c.Arrays[i]
			}
			batch[i] = c.Arrays[i]
			continue
		}
		col := make([]*tensor.Array, size)
		for b := range examples {
			col[b] = examples[b][i]
		}
		batch[i] = stackAxis(col, normAxis(inAxes[i], len(c.Inputs[i].Shape)+1))
	}
	// A result may be asked for with NoAxis only when it does not depend
	// on a batched argument.
	dep := dependsOnBatched(p, inAxes)
	outAxes := make([]int, len(p.Outputs))
	for k, v := range p.Outputs {
		choices := []int{0, -1}
		if v.Rank() >= 1 {
			choices = append(choices, 1)
		}
		if !dep[k] {
			choices = append(choices, kiln.NoAxis)
		}
		outAxes[k] = choices[r.Intn(len(choices))]
	}
	vopts := []kiln.VmapOption{kiln.InAxes(inAxes...), kiln.OutAxes(outAxes...)}
	if !slices.ContainsFunc(inAxes, func(a int) bool { return a != kiln.NoAxis }) {
		vopts = append(vopts, kiln.AxisSize(size))
	}
	fmt.Fprintf(&detail, "batch size %d, in_axes %s, out_axes %s\n", size, axesString(inAxes), axesString(outAxes))

	args := func(arrays []*tensor.Array) []any {
		out := make([]any, len(arrays))
		for i, a := range arrays {
			out[i] = a
			if c.Inputs[i].Type.Weak {
				out[i] = kiln.Weak(a)
			}
		}
		return out
	}
	report := func(what string) string {
		return fmt.Sprintf("seed %d: %s (reproduce: %s)\ncase:\n%s\n%sprogram:\n%s", seed, what, repro, c, detail.String(), p)
	}
	opts := caseOptions(c)
	vf := kiln.Vmap(c.Fn, vopts...)
	fused := kiln.Jit(vf, opts...)
	got, err := fused.RunAll(args(batch)...)
	if err != nil {
		return report("vmap failed: " + err.Error())
	}
	if pv, err := fused.Trace(args(batch)...); err == nil {
		fmt.Fprintf(&detail, "vmapped program:\n%s\n", pv)
	}
	// Per example, fused; the vmapped program op by op.
	single := kiln.Jit(c.Fn, opts...)
	for b, ex := range examples {
		want, err := single.RunAll(args(ex)...)
		if err != nil {
			return report(fmt.Sprintf("example %d failed: %v", b, err))
		}
		if d := compareExample(got, want, outAxes, b); d != "" {
			return report(fmt.Sprintf("fused: example %d: %s", b, d))
		}
	}
	unfused, err := kiln.Jit(vf, append(opts, kiln.NoFusion())...).RunAll(args(batch)...)
	if err != nil {
		return report("vmap op by op failed: " + err.Error())
	}
	if d := diffResults(unfused, got, true); d != "" {
		return report("vmap op by op differs from fused: " + d)
	}
	// The reference evaluator, vmapped program and per example.
	pv, err := fused.Trace(args(batch)...)
	if err != nil {
		return report("vmap trace failed: " + err.Error())
	}
	refGot, err := reference.Eval(pv, batch, refOptions)
	if err != nil {
		return report("reference of the vmapped program failed: " + err.Error())
	}
	for b, ex := range examples {
		want, err := reference.Eval(p, ex, refOptions)
		if err != nil {
			return report(fmt.Sprintf("reference of example %d failed: %v", b, err))
		}
		if d := compareExample(refGot, want, outAxes, b); d != "" {
			return report(fmt.Sprintf("reference: example %d: %s", b, d))
		}
	}
	return ""
}

// compareExample compares example b of batched results (along outAxes)
// with that example's own results.
func compareExample(got, want []*tensor.Array, outAxes []int, b int) string {
	if len(got) != len(want) {
		return fmt.Sprintf("%d results, want %d", len(got), len(want))
	}
	for k := range got {
		g := got[k]
		if outAxes[k] != kiln.NoAxis {
			g = takeAxis(g, normAxis(outAxes[k], g.Rank()), b)
		}
		if d := diffArrays(g, want[k], true); d != "" {
			return fmt.Sprintf("result %d: %s\ngot  %s\nwant %s", k, d, formatArray(g), formatArray(want[k]))
		}
	}
	return ""
}

// dependsOnBatched reports which of p's outputs depend on an input whose
// axis is not NoAxis: the results Vmap may batch.
func dependsOnBatched(p *trace.Program, inAxes []int) []bool {
	dep := map[*trace.Var]bool{}
	for i, v := range p.Inputs[:len(inAxes)] {
		dep[v] = inAxes[i] != kiln.NoAxis
	}
	for _, e := range p.Eqns {
		for _, a := range e.Args {
			dep[e.Out] = dep[e.Out] || dep[a]
		}
	}
	out := make([]bool, len(p.Outputs))
	for k, v := range p.Outputs {
		out[k] = dep[v]
	}
	return out
}

func normAxis(a, rank int) int {
	if a < 0 {
		return a + rank
	}
	return a
}

func axesString(axes []int) string {
	s := make([]string, len(axes))
	for i, a := range axes {
		s[i] = fmt.Sprint(a)
		if a == kiln.NoAxis {
			s[i] = "None"
		}
	}
	return "(" + strings.Join(s, ", ") + ")"
}

// stackAxis stacks arrays of one dtype and shape along a new axis.
func stackAxis(xs []*tensor.Array, axis int) *tensor.Array {
	shape := xs[0].Shape()
	outer, inner := 1, 1
	for _, d := range shape[:axis] {
		outer *= d
	}
	for _, d := range shape[axis:] {
		inner *= d
	}
	n := len(xs)
	dst := reflect.MakeSlice(reflect.TypeOf(xs[0].Data()), outer*n*inner, outer*n*inner)
	for o := range outer {
		for b, x := range xs {
			src := reflect.ValueOf(x.Data())
			reflect.Copy(dst.Slice((o*n+b)*inner, (o*n+b+1)*inner), src.Slice(o*inner, (o+1)*inner))
		}
	}
	out := slices.Insert(shape, axis, n)
	return tensor.Must(tensor.New(xs[0].DType(), out, dst.Interface()))
}

// takeAxis is a's slice at index i of axis, that axis removed.
func takeAxis(a *tensor.Array, axis, i int) *tensor.Array {
	shape := a.Shape()
	outer, inner := 1, 1
	for _, d := range shape[:axis] {
		outer *= d
	}
	for _, d := range shape[axis+1:] {
		inner *= d
	}
	src := reflect.ValueOf(a.Data())
	dst := reflect.MakeSlice(src.Type(), outer*inner, outer*inner)
	for o := range outer {
		at := o*shape[axis] + i
		reflect.Copy(dst.Slice(o*inner, (o+1)*inner), src.Slice(at*inner, (at+1)*inner))
	}
	return tensor.Must(tensor.New(a.DType(), slices.Delete(shape, axis, axis+1), dst.Interface()))
}
