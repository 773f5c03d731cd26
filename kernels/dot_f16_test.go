package kernels

import (
	"fmt"
	"math"
	"testing"

	"github.com/kiln-go/kiln/internal/simd"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// An f16 dot reads its operands as stored — transposed ones in place —
// on the f32 GEMM, with no widened copy of either: its kernel is the f16
// GEMM path with raw operands, and after a run its operand scratch holds
// nothing (or, for an operand whose dims do not merge, only the f16
// gather). Its epilogue runs on the GEMM's blocks, and a steady run on
// the vector tiers allocates nothing. Before the GEMM widened while packing, every f16
// operand took n·(2+4) bytes of scratch for its gathered and widened
// copies.
func TestF16DotReadsOperandsAsStored(t *testing.T) {
	const m, k, n = 37, 300, 53
	cases := []struct {
		name         string
		s0, s1       [2]int
		fn           func(a []trace.Value) []trace.Value
		lhsGather    bool
		wantEpilogue bool
	}{
		{"a@b", [2]int{m, k}, [2]int{k, n}, func(a []trace.Value) []trace.Value { return []trace.Value{a[0].MatMul(a[1])} }, false, false},
		{"aT@b", [2]int{k, m}, [2]int{k, n}, func(a []trace.Value) []trace.Value {
			return []trace.Value{trace.DotGeneral(a[0], a[1], trace.DotDims{LhsContract: []int{0}, RhsContract: []int{0}})}
		}, false, false},
		{"a@bT+relu", [2]int{m, k}, [2]int{n, k}, func(a []trace.Value) []trace.Value {
			p := trace.DotGeneral(a[0], a[1], trace.DotDims{LhsContract: []int{1}, RhsContract: []int{1}})
			return []trace.Value{p.Maximum(trace.Float(0))}
		}, false, true},
		// [k, m] reshaped to [k/4, 4, m] contracting dims 0 and 1 merges;
		// contracting 1 and 0 (in that order) does not: gathered.
		{"unmerged-lhs", [2]int{k, m}, [2]int{k, n}, func(a []trace.Value) []trace.Value {
			l := a[0].Reshape(k/4, 4, m)
			r := a[1].Reshape(4, k/4, n)
			return []trace.Value{trace.DotGeneral(l, r, trace.DotDims{LhsContract: []int{1, 0}, RhsContract: []int{0, 1}})}
		}, true, false},
	}
	for _, tier := range simd.Available() {
		restore := simd.SetLevel(tier)
		for _, c := range cases {
			name := fmt.Sprintf("%v %s", tier, c.name)
			x := compileMatrices(t, c.fn, c.s0, tensor.F16, c.s1, tensor.F16)
			dk := dotKernelOf(t, name, x)
			if !dk.f16 || !dk.lhs.raw || !dk.rhs.raw || dk.lhs.widen() != nil || dk.rhs.widen() != nil || dk.rhs.gather != nil ||
				(dk.lhs.gather != nil) != c.lhsGather {
				t.Fatalf("%s: dot kernel f16=%v raw=%v,%v gathers=%v,%v: want the f16 GEMM reading operands as stored",
					name, dk.f16, dk.lhs.raw, dk.rhs.raw, dk.lhs.gather != nil, dk.rhs.gather != nil)
			}
			if c.wantEpilogue && (dk.epi == nil || !dk.epi.perBlock) {
				t.Fatalf("%s: the epilogue does not run on the GEMM's blocks", name)
			}
			inputs := []*tensor.Array{halfInput(1, c.s0[:]...), halfInput(2, c.s1[:]...)}
			outs, err := x.Run(inputs)
			if err != nil {
				t.Fatal(err)
			}
			rs := x.idle.Load()
			for part := range 2 {
				want := 0
				if part == 0 && c.lhsGather {
					want = m * k * 2 // the f16 gather, no widened copy
				}
				got := 0
				if dk.slot < len(rs.slots) {
					got = cap(rs.slots[dk.slot][part])
				}
				if got != want {
					t.Errorf("%s: operand %d scratch is %d bytes, want %d", name, part, got, want)
				}
			}
			// (The generic tier's Go micro-kernel is a closure made on each
			// look-up, simd.GemmTileGo, for f32 products as well.)
			if tier == simd.Generic {
				continue
			}
			if a := testing.AllocsPerRun(3, func() {
				if err := x.RunInto(outs, inputs); err != nil {
					t.Fatal(err)
				}
			}); a != 0 && !raceOn {
				t.Errorf("%s: %v allocations per steady run", name, a)
			}
		}
		restore()
	}
}

// halfInput is an f16 array of small values, with a subnormal, an Inf and
// a NaN.
func halfInput(seed int, shape ...int) *tensor.Array {
	v := make([]float64, trace.ShapeSize(shape))
	for i := range v {
		v[i] = float64((i*7+seed*13)%23-11) / 8
	}
	v[0], v[1], v[2] = 0x1p-20, math.Inf(1), math.NaN()
	a, err := tensor.FromSlice(v, shape...)
	if err != nil {
		panic(err)
	}
	return a.Astype(tensor.F16)
}

// An f32 dot of f16 operands widened by converts — preferred_element_type
// f32, or f16 mixed with f32 — reads them as stored, past the converts,
// whose kernels (full f32 copies) are dropped; a convert the epilogue
// reads too is kept. The conformance cases f16-dot/mixed-* and
// f16-dot/preferred-* hold the results to the reference.
func TestF16DotReadsPastConverts(t *testing.T) {
	const m, k, n = 37, 300, 53
	cases := []struct {
		name        string
		d1          tensor.DType
		fn          func(a []trace.Value) []trace.Value
		kernels     int
		lhsF16, rhs bool
	}{
		{"preferred-f32", tensor.F16, func(a []trace.Value) []trace.Value {
			return []trace.Value{trace.MatMul(a[0], a[1], trace.PreferredElementType(tensor.F32))}
		}, 1, true, true},
		{"mixed-f32", tensor.F32, func(a []trace.Value) []trace.Value { return []trace.Value{a[0].MatMul(a[1])} }, 1, true, false},
		// x·w + x, w square: the epilogue reads x widened.
		{"mixed-f32-epilogue-reads-operand", tensor.F32, func(a []trace.Value) []trace.Value {
			return []trace.Value{a[0].MatMul(a[1]).Add(a[0])}
		}, 2, true, false},
	}
	for _, c := range cases {
		s1 := [2]int{k, n}
		if c.kernels == 2 {
			s1 = [2]int{k, k}
		}
		x := compileMatrices(t, c.fn, [2]int{m, k}, tensor.F16, s1, c.d1)
		dk := dotKernelOf(t, c.name, x)
		if len(x.kernels) != c.kernels || dk.f16 || (dk.lhs.dtype == tensor.F16) != c.lhsF16 || (dk.rhs.dtype == tensor.F16) != c.rhs ||
			dk.lhs.raw != c.lhsF16 || dk.rhs.raw != c.rhs {
			t.Errorf("%s: %d kernels, operands %v (raw %v), %v (raw %v); want %d kernels, f16 operands read as stored: lhs %v, rhs %v",
				c.name, len(x.kernels), dk.lhs.dtype, dk.lhs.raw, dk.rhs.dtype, dk.rhs.raw, c.kernels, c.lhsF16, c.rhs)
		}
	}
}

// dotKernelOf is x's (last) dot_general kernel; the test fails without one.
func dotKernelOf(t *testing.T, name string, x *cpuExec) *dotKernel {
	t.Helper()
	var dk *dotKernel
	for _, k := range x.kernels {
		if d, ok := k.(*dotKernel); ok {
			dk = d
		}
	}
	if dk == nil {
		t.Fatalf("%s: no dot kernel", name)
	}
	return dk
}
