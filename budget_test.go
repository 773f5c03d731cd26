package kiln_test

import (
	"errors"
	"math"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/kiln-go/kiln"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// allocatedBy runs fn and returns the bytes it allocated.
func allocatedBy(fn func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	fn()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestMemoryLimit: three 400 MB results fit the allocation limit one by
// one but not a 1 GiB budget together: Jit refuses the program when it
// compiles — a *kiln.BudgetError naming an op of this file's line, the
// bytes needed and the limit — having allocated none of them.
func TestMemoryLimit(t *testing.T) {
	f := kiln.Jit(func(x kiln.Value) []kiln.Value {
		a := x.BroadcastTo(100_000_000)
		return []kiln.Value{a.Exp(), a.Sin(), a.Cos()}
	}, kiln.MemoryLimit(1<<30))
	var err error
	n := allocatedBy(func() { _, err = f.RunAll([]float32{1}) })
	var be *kiln.BudgetError
	if !errors.As(err, &be) || !slices.Contains([]string{"exp", "sin", "cos"}, be.Op) || be.Limit != 1<<30 ||
		be.Need != 3*400_000_000+4 || !strings.Contains(err.Error(), "budget_test.go:") {
		t.Fatalf("%v; want a *kiln.BudgetError at an op of this file needing %d of %d bytes", err, 3*400_000_000+4, 1<<30)
	}
	if n > 16<<20 {
		t.Errorf("the refused Run allocated %d bytes", n)
	}
	// Two of the results fit.
	g := kiln.Jit(func(x kiln.Value) []kiln.Value {
		a := x.BroadcastTo(100_000_000)
		return []kiln.Value{a.Exp(), a.Sin()}
	}, kiln.MemoryLimit(1<<30))
	if _, err := g.Lower([]float32{1}); err != nil {
		t.Errorf("two results under the budget: %v", err)
	}
}

// TestSizeEscapes: the programs of issue 25 that crashed the process or
// panicked are typed errors, allocating next to nothing: one_hot over
// 2**31 classes and repeat of (10**9, 1) under a 1 GiB budget (a size or
// budget error, depending on the machine's allocation limit), one_hot
// over 2**62 classes (was a *PanicError from tensor.Arange, with no op or
// line) and repeat over counts past the int range (grew a slice until the
// OS killed it) under the defaults.
func TestSizeEscapes(t *testing.T) {
	i3 := []int64{0, 1, 2}
	x2 := []float32{1, 2}
	for _, c := range []struct {
		name string
		fn   any
		arg  any
		opts []kiln.Option
		op   string
	}{
		{"one_hot 2**31", func(i kiln.Value) kiln.Value { return kiln.OneHot(i, 1<<31) }, i3, []kiln.Option{kiln.MemoryLimit(1 << 30)}, ""},
		{"repeat (10**9, 1)", func(x kiln.Value) kiln.Value { return trace.Repeat(x, []int{1_000_000_000, 1}, 0) }, x2, []kiln.Option{kiln.MemoryLimit(1 << 30)}, "repeat"},
		{"one_hot 2**62", func(i kiln.Value) kiln.Value { return kiln.OneHot(i, 1<<62) }, i3, nil, "one_hot"},
		{"repeat (2**62, 2**62)", func(x kiln.Value) kiln.Value { return trace.Repeat(x, []int{1 << 62, 1 << 62}, 0) }, x2, nil, "repeat"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var err error
			n := allocatedBy(func() { _, err = kiln.Jit(c.fn, c.opts...).Run(c.arg) })
			var be *kiln.BudgetError
			var ze *tensor.SizeError
			var pe *kiln.PanicError
			if errors.As(err, &pe) || !errors.As(err, &be) && !errors.As(err, &ze) || !strings.Contains(err.Error(), "budget_test.go:") {
				t.Fatalf("%v; want a budget or size error naming this file's line", err)
			}
			if c.op != "" && !strings.Contains(err.Error(), "trace: "+c.op+" at ") {
				t.Errorf("%v does not name %s", err, c.op)
			}
			if n > 16<<20 {
				t.Errorf("the refused Run allocated %d bytes", n)
			}
		})
	}
}

// TestArangeInt64Limits: kiln.Arange's values at the int64 extremes are
// NumPy's (np.arange(-2**63, 2**63-1, 2**62) has 4 elements; it had 0).
func TestArangeInt64Limits(t *testing.T) {
	const lo, hi = math.MinInt64, math.MaxInt64
	for _, c := range []struct {
		start, stop, step int
		want              []int64
	}{
		{lo, hi, 1 << 62, []int64{lo, -1 << 62, 0, 1 << 62}},
		{0, hi, 1 << 62, []int64{0, 1 << 62}},
		{hi, lo, lo, []int64{hi, -1}},
		{hi, lo, -(1 << 62), []int64{hi, 1<<62 - 1, -1, -1<<62 - 1}},
		{lo, hi, hi, []int64{lo, -1, hi - 1}},
	} {
		a, err := kiln.Eval(kiln.Arange(c.start, c.stop, c.step))
		if err != nil || !slices.Equal(a.Data().([]int64), c.want) {
			t.Errorf("arange(%d, %d, %d) = %v, %v; want %v", c.start, c.stop, c.step, a, err, c.want)
		}
	}
}
