package kernels

import (
	"cmp"
	"slices"

	"github.com/kiln-go/kiln/lower"
	"github.com/kiln-go/kiln/trace"
)

// Kernels that do not depend on each other run side by side, as XLA's CPU
// thunk executor runs the independent thunks of its graph. A small kernel
// — a loop, reduction or product whose arrays have fewer than
// ParallelMin's elements, a product also under groupMaxWork multiply-adds
// — gains little from being split over the cores: each core then reads
// what the other wrote, and moving a cache line between the 2-core Xeon's
// cores costs 10-17 ns. Where two or more such kernels of some size are
// ready together, each runs whole on one worker instead, the workers
// taking them side by side. E7's backward pass has two after the logits'
// gradient — the hidden layer's gradient through the ReLU (256×128 by 10)
// and ∂w2 with its Adam step — which, with the bias gradient, took 36-40
// µs of its step one after another, each split, and 24-25 side by side
// (the bias gradient of the hidden layer after them, summing what one core
// wrote, 3.5-4 µs → 6); BenchmarkE7's step went from 132-148 µs to
// 117-130 (old and new binaries alternated).
//
// The schedule (compile time, see schedule) puts every kernel at a level
// one past the highest level of the earlier kernels it conflicts with:
// that write a buffer it reads or writes, or read a buffer it writes (the
// buffer plan reuses memory in program order, so a later kernel may
// overwrite an earlier one's input). The levels run in order, each
// level's kernels in program order but for its group. Two kernels of one
// level touch no buffer the other writes, so — in a program whose kernels
// touch no memory but their fusions' input and output buffers, the only
// programs schedule reorders (knownAccess) — neither the order of a
// level's kernels nor which worker runs which changes a result. A level's
// small kernels run as a group (runGroup) when at least two of them are of
// some size (groupMinWork, groupMinElems).
//
// A kernel of a group runs on a child run state of its own (runState.solo:
// it never forks, so a group is one fork deep, as fork requires), which
// shares the Run's buffers, inputs and stop flag and keeps its own
// workers, slots and job records from Run to Run. Checked mode keeps
// program order (a failed check reports the first failing kernel), and so
// do programs with a sort, a gather, a scatter, a convolution, a control
// kernel or any other kernel not audited for its memory access, a product
// that reads an operand past its convert, and the sub-programs of control
// kernels.
const (
	// groupMaxWork is the multiply-adds below which a product may run
	// whole in a group: a quarter of the size at which it always splits
	// (gemmParallelMin's 2^22). E7's 0.33M-step products (256×128 by 10)
	// qualify; its 2.1M-step layers run split.
	groupMaxWork = 1 << 20
	// groupMinWork and groupMinElems: a product of fewer multiply-adds, or
	// another kernel of fewer elements, does not make a group by itself
	// (it joins one that forms): E7's softmax kernels over 256×10 logits,
	// 1-3 µs each, were slower in pairs than one after another (a
	// hand-off, and their scalars read back by the other core).
	groupMinWork  = 1 << 16
	groupMinElems = 1 << 14
)

// stage is one step of a Run's schedule: a kernel, or a group of
// independent small kernels (gid: the group's index among the
// executable's groups, for its child states), in decreasing cost.
type stage struct {
	k     kernel
	group []kernel
	gid   int
}

// groupRun is one Run's record of a group: its kernels and their child
// states, handed to fork as the job, range i running kernel i. The
// workers take the kernels from fork's shared counter, longest first.
// (Dealing each worker its own kernels, so that a kernel ran on the same
// core Run after Run, measured the same on E7: 113-124 µs a step against
// 106-121 taken in turn.)
type groupRun struct {
	x    *cpuExec
	s    *stage
	kids []*runState
}

func (g *groupRun) runRange(_ *runState, _ *worker, lo, hi int) {
	for i := lo; i < hi; i++ {
		if !g.kids[i].stopped() {
			g.s.group[i].run(g.x, g.kids[i])
		}
	}
}

// groupCost reports whether kernel k of fusion f may run in a group (ok:
// one of the kernels known to keep all their run-time state in their run
// state, and small: under ParallelMin's elements read or written, a
// product also under groupMaxWork — E10's per-example ∂w2, 256 outer
// products of 128 by 10, writes 1.3 MB and ran 10% slower whole), whether it is of the size that forms a group (big),
// and its cost: its multiply-adds plus the elements it reads and writes.
// A backend with CPUOptions.GroupAll groups every such kernel.
func (x *cpuExec) groupCost(k kernel, f *lower.Fusion) (cost int, ok, big bool) {
	elems := 0
	for _, in := range f.Inputs {
		elems = max(elems, in.Size())
		cost += in.Size()
	}
	for _, o := range f.Outputs {
		elems = max(elems, o.Size())
		cost += o.Size()
	}
	ok, big = elems < x.cpu.opts.ParallelMin, elems >= groupMinElems
	switch k := k.(type) {
	case *dotKernel:
		if k.int8 || k.bf16 || k.fp8 || !gemmDType(computeDType(k.dtype)) {
			return 0, false, false
		}
		work := k.b * k.m * k.n * max(k.kk, 1)
		cost += work
		ok, big = ok && work < groupMaxWork, work >= groupMinWork
	case *loopKernel, *multiLoopKernel, *mappedKernel, *reduceKernel, *colSumKernel[float32], *colSumKernel[float64]:
	default:
		return 0, false, false
	}
	if x.cpu.opts.GroupAll {
		return cost, true, true
	}
	// A backend whose ParallelMin is not the default splits kernels at
	// it exactly (the tests' 1 splits every kernel).
	return cost, ok && x.cpu.opts.ParallelMin == defaultParallelMin, big
}

// schedule orders the kernels ks (of fusions fs) by level and groups each
// level's small kernels (see the top of this file). It returns nil — run
// ks in program order — when no group forms, and in checked mode. It
// reorders only programs whose kernels all read and write nothing but
// their fusions' input and output buffers (knownAccess): a sort shares a
// permutation slot with its siblings (sort.go), a product may read an
// operand's source past its convert (bypass), a control kernel's
// sub-programs alias a carry's two buffers (compileControl keeps those in
// program order), and other kernels were not audited for such access.
func (x *cpuExec) schedule(ks []kernel, fs []*lower.Fusion) []stage {
	if x.checks != 0 || len(ks) < 2 {
		return nil
	}
	for i, k := range ks {
		if !x.knownAccess(k, fs[i]) {
			return nil
		}
	}
	// level: one past the last writer of a buffer the kernel reads or
	// writes, and past the readers since of one it writes — the highest
	// level of the earlier kernels it conflicts with, in one pass.
	lastW := make([]int, len(x.m.Plan.Buffers))
	maxR := make([]int, len(x.m.Plan.Buffers))
	for b := range lastW {
		lastW[b], maxR[b] = -1, -1
	}
	level := make([]int, len(ks))
	top := 0
	for i, f := range fs {
		reads, writes := x.accessOf(f)
		l := 0
		for _, b := range reads {
			l = max(l, lastW[b]+1)
		}
		for _, b := range writes {
			l = max(l, lastW[b]+1, maxR[b]+1)
		}
		for _, b := range reads {
			maxR[b] = max(maxR[b], l)
		}
		for _, b := range writes {
			lastW[b], maxR[b] = l, -1
		}
		level[i], top = l, max(top, l)
	}
	byLevel := make([][]int, top+1)
	for i, l := range level {
		byLevel[l] = append(byLevel[l], i)
	}
	var stages []stage
	groups := 0
	for _, at := range byLevel {
		type member struct {
			i, cost int
		}
		var grp []member
		bigs := 0
		for _, i := range at {
			if cost, ok, big := x.groupCost(ks[i], fs[i]); ok {
				grp = append(grp, member{i, cost})
				if big {
					bigs++
				}
			}
		}
		if bigs < 2 {
			grp = nil
		}
		slices.SortStableFunc(grp, func(a, b member) int { return cmp.Compare(b.cost, a.cost) })
		in := map[int]bool{}
		for _, m := range grp {
			in[m.i] = true
		}
		for _, i := range at {
			if !in[i] {
				stages = append(stages, stage{k: ks[i]})
				continue
			}
			if grp == nil {
				continue // placed already
			}
			s := stage{gid: groups}
			for _, m := range grp {
				s.group = append(s.group, ks[m.i])
			}
			stages, grp = append(stages, s), nil
			groups++
		}
	}
	if groups == 0 {
		return nil
	}
	return stages
}

// knownAccess reports whether kernel k of fusion f reads and writes only
// its fusion's input and output buffers (see schedule).
func (x *cpuExec) knownAccess(k kernel, f *lower.Fusion) bool {
	if x.readsPast[f] {
		return false
	}
	switch k.(type) {
	case *dotKernel, *loopKernel, *multiLoopKernel, *mappedKernel, *reduceKernel, *colSumKernel[float32], *colSumKernel[float64]:
		return true
	}
	return false
}

// accessOf returns the buffers fusion f's kernel reads and writes.
func (x *cpuExec) accessOf(f *lower.Fusion) (reads, writes []int) {
	for _, in := range f.Inputs {
		for in.Op == trace.OpReshape {
			in = in.Args[0]
		}
		if b, ok := x.m.Plan.Of[in]; ok {
			reads = append(reads, b)
		}
	}
	for _, o := range f.Outputs {
		if b, ok := x.m.Plan.Of[o]; ok {
			writes = append(writes, b)
		}
	}
	return reads, writes
}

// runStages runs the schedule's stages in order, each group's kernels
// side by side; it stops early when the Run's stop flag is set.
func (x *cpuExec) runStages(rs *runState) {
	for i := range x.stages {
		if rs.stopped() {
			return
		}
		s := &x.stages[i]
		if s.group == nil {
			s.k.run(x, rs)
			continue
		}
		x.runGroup(rs, s)
	}
}

// runGroup runs group s: on several workers while a pool helper is
// spinning and helping (or always, GroupAll), each kernel whole on one of
// them in its child state; one after another on the calling goroutine
// otherwise.
func (x *cpuExec) runGroup(rs *runState, s *stage) {
	for len(rs.groups) <= s.gid {
		rs.groups = append(rs.groups, nil)
	}
	g := rs.groups[s.gid]
	if g == nil {
		g = &groupRun{x: x, s: s, kids: make([]*runState, len(s.group))}
		for i := range g.kids {
			g.kids[i] = &runState{solo: true}
		}
		rs.groups[s.gid] = g
	}
	for _, c := range g.kids {
		c.srcs, c.in, c.packed, c.stop = rs.srcs, rs.in, rs.packed, rs.stop
	}
	nw := min(x.cpu.workers(), len(s.group))
	if nw < 2 || !x.cpu.opts.GroupAll && !helping() {
		for i, k := range s.group {
			if rs.stopped() {
				break
			}
			k.run(x, g.kids[i])
		}
		warm(nw)
		return
	}
	for len(rs.workers) < nw {
		rs.workers = append(rs.workers, &worker{})
	}
	rs.stamp++
	x.fork(rs, len(s.group), nw, g, len(s.group))
}

// releaseGroups drops what the child states of rs's groups hold of the
// Run: its buffers', inputs' and stop flag's pointers (see putState).
func (rs *runState) releaseGroups() {
	for _, g := range rs.groups {
		if g == nil {
			continue
		}
		for _, c := range g.kids {
			c.srcs, c.in, c.packed, c.stop = nil, nil, nil, nil
		}
	}
}
