package kiln_test

import (
	"math/rand/v2"
	"sort"
	"testing"

	"github.com/kiln-go/kiln"
	"github.com/kiln-go/kiln/kernels"
	"github.com/kiln-go/kiln/tensor"
)

// reviewUngrouped never groups: a ParallelMin of its own turns grouping
// off (groupCost) and one worker splits nothing, so it runs the kernels in
// program order.
var reviewUngrouped = kernels.NewCPU(kernels.CPUOptions{Workers: 1, ParallelMin: 1 << 40})

// reviewGroupBackends are the backends the review tests compare with
// reviewUngrouped: the op-by-op program and the default backend (both
// group kernels of some size), one worker (whose schedule groups too) and
// GroupAll.
var reviewGroupBackends = []struct {
	name string
	opt  kiln.Option
}{
	{"op-by-op (NoFusion)", kiln.NoFusion()},
	{"default", kiln.WithBackend(kernels.DefaultCPU())},
	{"one worker", kiln.WithBackend(kernels.NewCPU(kernels.CPUOptions{Workers: 1}))},
	{"grouped", kiln.WithBackend(kernels.NewCPU(kernels.CPUOptions{GroupAll: true, Workers: 3}))},
	{"grouped-tiny", kiln.WithBackend(kernels.NewCPU(kernels.CPUOptions{GroupAll: true, Workers: 3, ParallelMin: 1, Block: 7}))},
	{"grouped-2", kiln.WithBackend(kernels.NewCPU(kernels.CPUOptions{GroupAll: true, Workers: 2, Block: 5}))},
}

// reviewF32 is a random f32 array of the given shape.
func reviewF32(r *rand.Rand, shape ...int) *tensor.Array {
	n := 1
	for _, d := range shape {
		n *= d
	}
	v := make([]float32, n)
	for i := range v {
		v[i] = float32(r.NormFloat64())
	}
	return tensor.Must(tensor.FromSlice(v, shape...))
}

// checkGroupedBits runs fn on each argument set (one after another on one
// jitted function, so a state left over from an earlier Run shows) with
// every backend of reviewGroupBackends and fails unless every result has
// the bits of reviewUngrouped.
func checkGroupedBits(t *testing.T, fn func(a ...kiln.Value) []kiln.Value, argSets ...[]any) {
	t.Helper()
	ref := kiln.Jit(fn, kiln.WithBackend(reviewUngrouped))
	var fs []*kiln.Func
	for _, b := range reviewGroupBackends {
		fs = append(fs, kiln.Jit(fn, b.opt))
	}
	for si, args := range argSets {
		want, err := ref.RunAll(args...)
		if err != nil {
			t.Fatal(err)
		}
		for bi, f := range fs {
			got, err := f.RunAll(args...)
			if err != nil {
				t.Fatalf("args %d, %s: %v", si, reviewGroupBackends[bi].name, err)
			}
			if d := diffResults(got, want, true); d != "" {
				t.Errorf("args %d, %s: %s", si, reviewGroupBackends[bi].name, d)
			}
		}
	}
}

// Sibling sorts (lax.sort's results over the same operands) share one
// permutation: the first compiled sorts and keeps it in a scratch slot,
// the later ones only move their operand's elements by it (sort.go). The
// schedule knows nothing of the slot: here the first sibling's output
// reuses the buffer of a product a chain of products reads, which puts it
// levels after the second, so the second runs first and moves its
// elements by a permutation not yet computed (zeros on the first Run, the
// previous Run's after).
func TestReviewGroupsSortSiblings(t *testing.T) {
	fn := func(a ...kiln.Value) []kiln.Value {
		x, v, w := a[0], a[1], a[2]
		p3 := x.MatMul(w).MatMul(w).MatMul(w)
		srt := kiln.SortMany([]kiln.Value{x, v}, 1, 1, true)
		return []kiln.Value{p3.Sum(1), srt[0].Mul(kiln.Int(2)), srt[1], v.Sum(1)}
	}
	r := rand.New(rand.NewPCG(1, 2))
	var sets [][]any
	for range 3 {
		sets = append(sets, []any{reviewF32(r, 8, 16), reviewF32(r, 8, 16), reviewF32(r, 16, 16)})
	}
	checkGroupedBits(t, fn, sets...)
}

// The same with two independent products of E7's backward size (256×128
// by 10), which make a group on the default backend: the schedule is made
// at compile time whatever Workers is and whether or not the group later
// runs side by side, so the default backend, one worker and the op-by-op
// program (NoFusion compiles each op to a kernel of the same backend) all
// run the sibling sorts out of order.
func TestReviewGroupsSortSiblingsDefault(t *testing.T) {
	fn := func(a ...kiln.Value) []kiln.Value {
		x, v, w, h, g, d := a[0], a[1], a[2], a[3], a[4], a[5]
		p3 := x.MatMul(w).MatMul(w).MatMul(w)
		srt := kiln.SortMany([]kiln.Value{x, v}, 1, 1, true)
		return []kiln.Value{p3.Sum(1), srt[0].Mul(kiln.Int(2)), srt[1], h.MatMul(d), g.MatMul(d)}
	}
	r := rand.New(rand.NewPCG(3, 4))
	var sets [][]any
	for range 2 {
		sets = append(sets, []any{reviewF32(r, 8, 16), reviewF32(r, 8, 16), reviewF32(r, 16, 16), reviewF32(r, 256, 128), reviewF32(r, 256, 128), reviewF32(r, 128, 10)})
	}
	// The reference's sorted v is v's rows ordered by x's (stable).
	got, err := kiln.Jit(fn, kiln.WithBackend(reviewUngrouped)).RunAll(sets[0]...)
	if err != nil {
		t.Fatal(err)
	}
	xs, vs, sorted := sets[0][0].(*tensor.Array).Data().([]float32), sets[0][1].(*tensor.Array).Data().([]float32), got[2].Data().([]float32)
	for row := range 8 {
		idx := make([]int, 16)
		for i := range idx {
			idx[i] = i
		}
		sort.SliceStable(idx, func(a, b int) bool { return xs[row*16+idx[a]] < xs[row*16+idx[b]] })
		for i, j := range idx {
			if sorted[row*16+i] != vs[row*16+j] {
				t.Fatalf("the ungrouped reference's sorted v is wrong at row %d, element %d", row, i)
			}
		}
	}
	checkGroupedBits(t, fn, sets...)
}

// A loop body's carry updated in place by a dynamic_update_slice (scan's
// stacked outputs, inPlaceCarries in control.go) has two buffers in the
// body's plan, the parameter's and the output's, which the control kernel
// points at one memory. inPlaceCarries allows it when every other reader
// of the carry runs in an earlier kernel; the schedule sees two buffer IDs
// and no conflict, and may run the update before such a reader.
func TestReviewGroupsInPlaceCarry(t *testing.T) {
	fn := func(a ...kiln.Value) []kiln.Value {
		body := func(i kiln.Value, c []kiln.Value) []kiln.Value {
			acc, tt := c[0], c[1]
			ra := tt.Sum(1)                         // level 0
			rb := tt.Sum(0)                         // level 0: a group with ra
			q := tt.Mul(ra.Reshape(8, 1)).Sum(0)    // level 1
			r := acc.Mul(q.Reshape(1, 1, 8)).Sum(0) // reads the carry, level 2
			z := i.Mul(kiln.Int(0))
			na := kiln.DynamicUpdateSlice(acc, tt.Reshape(1, 8, 8), []kiln.Value{i, z, z}) // level 0
			nt := tt.Add(r.Mul(kiln.Float(0.5))).Add(rb)
			return []kiln.Value{na, nt}
		}
		return kiln.ForiLoop(kiln.Int(0), kiln.Int(4), body, a[0], a[1])
	}
	r := rand.New(rand.NewPCG(5, 6))
	checkGroupedBits(t, fn, []any{reviewF32(r, 4, 8, 8), reviewF32(r, 8, 8)}, []any{reviewF32(r, 4, 8, 8), reviewF32(r, 8, 8)})
}

// The same on the default backend: two products of E7's backward size in
// the body make a group there, so the body runs by level.
func TestReviewGroupsInPlaceCarryDefault(t *testing.T) {
	fn := func(a ...kiln.Value) []kiln.Value {
		body := func(i kiln.Value, c []kiln.Value) []kiln.Value {
			acc, tt, h, g, d := c[0], c[1], c[2], c[3], c[4] // c[5], c[6]: the products
			ra := tt.Sum(1)
			q := tt.Mul(ra.Reshape(8, 1)).Sum(0)
			r := acc.Mul(q.Reshape(1, 1, 8)).Sum(0) // reads the carry
			z := i.Mul(kiln.Int(0))
			na := kiln.DynamicUpdateSlice(acc, tt.Reshape(1, 8, 8), []kiln.Value{i, z, z})
			nt := tt.Add(r.Mul(kiln.Float(0.5)))
			return []kiln.Value{na, nt, h, g, d, h.MatMul(d), g.MatMul(d)}
		}
		return kiln.ForiLoop(kiln.Int(0), kiln.Int(4), body, a...)
	}
	r := rand.New(rand.NewPCG(7, 8))
	checkGroupedBits(t, fn, []any{reviewF32(r, 4, 8, 8), reviewF32(r, 8, 8), reviewF32(r, 256, 128), reviewF32(r, 256, 128), reviewF32(r, 128, 10), reviewF32(r, 256, 10), reviewF32(r, 256, 10)})
}

// reviewF16 is a random f16 array of the given shape.
func reviewF16(r *rand.Rand, shape ...int) *tensor.Array {
	n := 1
	for _, d := range shape {
		n *= d
	}
	v := make([]tensor.Float16, n)
	for i := range v {
		v[i] = tensor.Float32ToF16(float32(r.NormFloat64()))
	}
	return tensor.Must(tensor.FromSlice(v, shape...))
}

// An f32 product of an f16 value widened by a convert reads the f16
// source past the convert (halfOperand), a buffer that is not among its
// fusion's inputs. When the fusion's epilogue reads the widened value
// too, bypass (dot_int8.go) returns without recording it in x.bypassed,
// so schedule does not fall back to program order; keptUntil only made
// sure no kernel between the convert and the product (in program order)
// overwrites the source. Here the sort after the product gets the f16
// source's buffer; the product's other operand comes from a chain of four
// products, which puts it a level after that sort, and the sort
// overwrites the source before the product reads it.
func TestReviewGroupsHalfOperandPastConvert(t *testing.T) {
	fn := func(a ...kiln.Value) []kiln.Value {
		a16, b16, z := a[0], a[1], a[2]
		x32 := a16.Sort(1).Astype(tensor.F32)
		w := z.MatMul(z).MatMul(z).MatMul(z)
		y := x32.MatMul(w).Add(x32) // the epilogue reads x32 too
		g16 := b16.Sort(1)          // gets the buffer of a16.Sort(1)
		return []kiln.Value{y, g16.Astype(tensor.F32).Mul(z), z.Sum(0)}
	}
	r := rand.New(rand.NewPCG(9, 10))
	checkGroupedBits(t, fn, []any{reviewF16(r, 16, 16), reviewF16(r, 16, 16), reviewF32(r, 16, 16)})
}

// The same on the default backend, whose schedule two products of E7's
// backward size turn on.
func TestReviewGroupsHalfOperandPastConvertDefault(t *testing.T) {
	fn := func(a ...kiln.Value) []kiln.Value {
		a16, b16, z, h, g, d := a[0], a[1], a[2], a[3], a[4], a[5]
		x32 := a16.Sort(1).Astype(tensor.F32)
		w := z.MatMul(z).MatMul(z).MatMul(z)
		y := x32.MatMul(w).Add(x32)
		g16 := b16.Sort(1)
		return []kiln.Value{y, g16.Astype(tensor.F32).Mul(z), h.MatMul(d), g.MatMul(d)}
	}
	r := rand.New(rand.NewPCG(11, 12))
	checkGroupedBits(t, fn, []any{reviewF16(r, 16, 16), reviewF16(r, 16, 16), reviewF32(r, 16, 16),
		reviewF32(r, 256, 128), reviewF32(r, 256, 128), reviewF32(r, 128, 10)})
}

// RunInto outputs that are adjacent views of one backing array (disjoint,
// so CheckDisjoint accepts them): the kernels of a group writing them side
// by side stay within their own elements (-race would see an overlap),
// and every output has the ungrouped bits.
func TestReviewGroupsAdjacentOutputs(t *testing.T) {
	fn := func(a ...kiln.Value) []kiln.Value {
		x, y, w := a[0], a[1], a[2]
		return []kiln.Value{x.Exp().Sum(1), y.Mul(y).Sum(1), x.MatMul(w).Sum(1), y.MatMul(w).Tanh().Sum(1), x.Sub(y).Max(1)}
	}
	r := rand.New(rand.NewPCG(13, 14))
	args := []any{reviewF32(r, 37, 29), reviewF32(r, 37, 29), reviewF32(r, 29, 29)}
	want, err := kiln.Jit(fn, kiln.WithBackend(reviewUngrouped)).RunAll(args...)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range reviewGroupBackends {
		f := kiln.Jit(fn, b.opt)
		for range 20 {
			back := make([]float32, 5*37+3)
			outs := make([]*tensor.Array, 5)
			for i := range outs {
				outs[i] = tensor.Must(tensor.FromSlice(back[i*37:(i+1)*37:(i+1)*37+3], 37))
			}
			if err := f.RunInto(outs, args...); err != nil {
				t.Fatal(err)
			}
			if d := diffResults(outs, want, true); d != "" {
				t.Fatalf("%s: %s", b.name, d)
			}
			for _, v := range back[5*37:] {
				if v != 0 {
					t.Fatalf("%s: a kernel wrote past the last output", b.name)
				}
			}
		}
	}
}
