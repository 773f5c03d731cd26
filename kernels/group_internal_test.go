package kernels

import (
	"testing"

	"github.com/kiln-go/kiln/lower"
	"github.com/kiln-go/kiln/promote"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// mlpBackward is the backward pass of a 64 → 128 (ReLU) → 10 layer pair
// at batch 256 written out (E7's shape): after the logits' gradient dz,
// the hidden gradient dz·w2ᵀ through the ReLU, ∂w2 = hᵀ·dz and ∂b2 are
// independent of each other.
func mlpBackward(a []trace.Value) []trace.Value {
	x, w1, b1, w2, y := a[0], a[1], a[2], a[3], a[4]
	pre := x.MatMul(w1).Add(b1)
	h := trace.Where(pre.Gt(trace.Int(0)), pre, trace.Int(0))
	dz := h.MatMul(w2).Sub(y)
	dh := trace.Where(pre.Gt(trace.Int(0)), trace.Einsum("bo,ho->bh", dz, w2), trace.Int(0))
	return []trace.Value{trace.Einsum("bi,bh->ih", x, dh), dh.Sum(0), trace.Einsum("bh,bo->ho", h, dz), dz.Sum(0)}
}

var mlpShapes = [][]int{{256, 64}, {64, 128}, {128}, {128, 10}, {256, 10}}

// reuse computes two products one after the other, the second after the
// first's only reader: the buffer plan gives it the first's buffer, so
// only the write-after-read order keeps it from overwriting the product
// while its sum reads it.
func reuse(a []trace.Value) []trace.Value {
	p := a[0].MatMul(a[1])
	s := p.Sum(0)
	q := a[2].MatMul(a[1])
	return []trace.Value{s, q.Sum(0)}
}

var reuseShapes = [][]int{{256, 64}, {64, 128}, {256, 64}}

// compileFor traces fn over f32 inputs of the given shapes and compiles
// it for c with the given checks.
func compileFor(t *testing.T, c *CPU, checks CheckKind, shapes [][]int, fn func([]trace.Value) []trace.Value) *cpuExec {
	t.Helper()
	abs := make([]trace.Abstract, len(shapes))
	for i, s := range shapes {
		abs[i] = trace.Abstract{Type: promote.Strong(tensor.F32), Shape: s}
	}
	p, err := trace.Trace(promote.Config{}, abs, fn)
	if err != nil {
		t.Fatal(err)
	}
	mod, err := lower.Compile(p, lower.Options{})
	if err != nil {
		t.Fatal(err)
	}
	x, err := c.compile(mod, checks)
	if err != nil {
		t.Fatal(err)
	}
	return x
}

// checkSchedule fails unless x's stages run every kernel once and keep
// every pair of conflicting kernels (one writes a buffer the other reads
// or writes) in program order, in different stages.
func checkSchedule(t *testing.T, x *cpuExec) {
	t.Helper()
	at := map[kernel]int{}
	for i, k := range x.kernels {
		at[k] = i
	}
	stages := x.stages
	if stages == nil { // program order
		for _, k := range x.kernels {
			stages = append(stages, stage{k: k})
		}
	}
	stageOf := make([]int, len(x.kernels))
	seen := make([]int, len(x.kernels))
	for si, s := range stages {
		ks := s.group
		if ks == nil {
			ks = []kernel{s.k}
		}
		for _, k := range ks {
			i, ok := at[k]
			if !ok {
				t.Fatalf("stage %d runs a kernel the executable does not have", si)
			}
			stageOf[i] = si
			seen[i]++
		}
	}
	for i, n := range seen {
		if n != 1 {
			t.Fatalf("kernel %d runs %d times in the schedule", i, n)
		}
	}
	kfs := x.fusions
	bufs := func(ins []*lower.Instr) map[int]bool {
		m := map[int]bool{}
		for _, in := range ins {
			for in.Op == trace.OpReshape {
				in = in.Args[0]
			}
			if b, ok := x.m.Plan.Of[in]; ok {
				m[b] = true
			}
		}
		return m
	}
	for j := range x.kernels {
		for i := range j {
			ri, wi := bufs(kfs[i].Inputs), bufs(kfs[i].Outputs)
			rj, wj := bufs(kfs[j].Inputs), bufs(kfs[j].Outputs)
			conflict := false
			for b := range wi {
				conflict = conflict || rj[b] || wj[b]
			}
			for b := range ri {
				conflict = conflict || wj[b]
			}
			if conflict && stageOf[i] >= stageOf[j] {
				t.Errorf("kernels %d and %d share a buffer, but run in stages %d and %d", i, j, stageOf[i], stageOf[j])
			}
		}
	}
}

// TestScheduleGroups: on the default CPU, E7's backward pass groups its
// two small products with the bias gradient, and the schedule keeps every
// conflicting pair of kernels in order; checked mode keeps program order;
// GroupAll groups more; a backend that splits at a ParallelMin of its own
// groups nothing.
func TestScheduleGroups(t *testing.T) {
	x := compileFor(t, DefaultCPU(), 0, mlpShapes, mlpBackward)
	if x.stages == nil {
		t.Fatal("no group formed on E7's backward pass")
	}
	checkSchedule(t, x)
	fusionOf := map[kernel]*lower.Fusion{}
	for i, k := range x.kernels {
		fusionOf[k] = x.fusions[i]
	}
	var dots, groups int
	for _, s := range x.stages {
		if s.group == nil {
			continue
		}
		groups++
		var costs []int
		for i, k := range s.group {
			if _, ok := k.(*dotKernel); ok {
				dots++
			}
			c, _, _ := x.groupCost(k, fusionOf[k])
			costs = append(costs, c)
			if i > 0 && costs[i] > costs[i-1] {
				t.Errorf("group costs %v are not in decreasing order", costs)
			}
		}
	}
	if groups != 1 || dots != 2 {
		t.Errorf("got %d groups with %d products, want the one group of the two 256×128-by-10 products", groups, dots)
	}
	if x := compileFor(t, DefaultCPU(), CheckNaN, mlpShapes, mlpBackward); x.stages != nil {
		t.Error("checked mode grouped kernels; it must run them in program order")
	}
	if x := compileFor(t, NewCPU(CPUOptions{ParallelMin: 1}), 0, mlpShapes, mlpBackward); x.stages != nil {
		t.Error("a backend with its own ParallelMin grouped kernels")
	}
	all := compileFor(t, NewCPU(CPUOptions{GroupAll: true, Workers: 3}), 0, mlpShapes, mlpBackward)
	checkSchedule(t, all)
	r := compileFor(t, NewCPU(CPUOptions{GroupAll: true, Workers: 3}), 0, reuseShapes, reuse)
	if r.m.Plan.Of[r.fusions[0].Outputs[0]] != r.m.Plan.Of[r.fusions[2].Outputs[0]] {
		t.Errorf("the second product got a buffer of its own, not the first's; the plan:\n%s", r.m.FusedString())
	}
	checkSchedule(t, r)
	n := 0
	for _, s := range all.stages {
		n += len(s.group)
	}
	if n <= 3 {
		t.Errorf("GroupAll grouped %d kernels, want more than the default's 3", n)
	}
}
