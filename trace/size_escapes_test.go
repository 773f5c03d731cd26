package trace_test

import (
	"errors"
	"math"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/kiln-go/kiln/promote"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// TestArangeLengthAtInt64Limits: arange's length is NumPy's
// ⌈(stop − start)/step⌉ over the whole int64 range (the lengths below are
// Python's len(range(start, stop, step)), which is NumPy's for ints).
// Computed in int, arange(MinInt64, MaxInt64, 2**62) had 0 elements and
// arange(0, MaxInt64, 2**62) a negative dimension.
func TestArangeLengthAtInt64Limits(t *testing.T) {
	const lo, hi = math.MinInt64, math.MaxInt64
	for _, c := range []struct{ start, stop, step, n int }{
		{lo, hi, 1 << 62, 4},
		{0, hi, 1 << 62, 2},
		{hi, lo, -(1 << 62), 4},
		{hi, lo, lo, 2},
		{lo, hi, hi, 3},
		{lo, lo + 5, 2, 3},
		{hi, hi - 7, -3, 3},
		{-5, hi, 1<<61 + 1, 4},
		{5, 1, 1, 0},
		{1, 5, -1, 0},
		{0, 10, 3, 4},
	} {
		p, err := trace.Trace(promote.Config{}, nil, func([]trace.Value) []trace.Value {
			return []trace.Value{trace.Arange(c.start, c.stop, c.step)}
		})
		if err != nil || !slices.Equal(p.Outputs[0].Shape, []int{c.n}) {
			t.Errorf("arange(%d, %d, %d): %v, %v; want %d elements", c.start, c.stop, c.step, p, err, c.n)
		}
	}
	// 2**64 − 1 elements do not fit an int: a size error, not a wrapped length.
	_, err := trace.Trace(promote.Config{}, nil, func([]trace.Value) []trace.Value {
		return []trace.Value{trace.Arange(lo, hi, 1)}
	})
	var se *trace.ShapeError
	var ze *tensor.SizeError
	if !errors.As(err, &se) || !errors.As(err, &ze) || se.Op != "arange" || !strings.Contains(err.Error(), "size_escapes_test.go:") {
		t.Errorf("arange(MinInt64, MaxInt64, 1): %v; want a size error at arange naming this line", err)
	}
}

// allocated runs fn and returns the bytes it allocated.
func allocated(fn func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	fn()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestTraceTimeConstantsChecked: the constants helpers build while
// tracing are size-checked before they are built — a typed error naming
// the op and the caller's line, allocating next to nothing, never a
// panic, a hang or an out-of-memory crash. Before: repeat over counts
// summing past the int range grew a slice until the OS killed it (and
// repeat(x, (10**9, 1)) built 8 GB of indices, three times), one_hot(i,
// 2**62) panicked inside tensor.Arange, pad's reflected indices had no
// check, float arange allowed 2**40 elements (8 TiB).
func TestTraceTimeConstantsChecked(t *testing.T) {
	old := tensor.SetMaxAlloc(1 << 30)
	defer tensor.SetMaxAlloc(old)
	f32 := func(shape ...int) trace.Abstract {
		return trace.Abstract{Type: promote.Strong(tensor.F32), Shape: shape}
	}
	i64 := func(shape ...int) trace.Abstract {
		return trace.Abstract{Type: promote.Strong(tensor.I64), Shape: shape}
	}
	for _, c := range []struct {
		name  string
		in    trace.Abstract
		fn    func(x trace.Value) trace.Value
		op    string
		limit bool // the allocation limit refuses it (else: it does not fit an int)
	}{
		{"repeat counts past the int range", f32(2), func(x trace.Value) trace.Value { return trace.Repeat(x, []int{1 << 62, 1 << 62}, 0) }, "repeat", false},
		{"repeat counts over the limit", f32(2), func(x trace.Value) trace.Value { return trace.Repeat(x, []int{1_000_000_000, 1}, 0) }, "repeat", true},
		{"one_hot of 2**62 classes", i64(3), func(x trace.Value) trace.Value { return trace.OneHot(x, 1<<62) }, "one_hot", false},
		{"pad reflect past the int range", f32(2), func(x trace.Value) trace.Value {
			return trace.Pad(x, [][2]int{{1 << 62, 1 << 62}}, trace.PadReflect, trace.Value{})
		}, "pad", false},
		{"pad reflect over the limit", f32(2), func(x trace.Value) trace.Value {
			return trace.Pad(x, [][2]int{{1 << 30, 1}}, trace.PadReflect, trace.Value{})
		}, "pad", true},
		{"float arange over the limit", f32(), func(trace.Value) trace.Value { return trace.ArangeFloat(0, 1e12, 1) }, "arange", true},
		{"float arange past the int range", f32(), func(trace.Value) trace.Value { return trace.ArangeFloat(0, 1e300, 1) }, "arange", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			var err error
			n := allocated(func() {
				_, err = trace.Trace(promote.Config{}, []trace.Abstract{c.in}, func(a []trace.Value) []trace.Value { return []trace.Value{c.fn(a[0])} })
			})
			var se *trace.ShapeError
			var ze *tensor.SizeError
			if !errors.As(err, &se) || !errors.As(err, &ze) || se.Op != c.op || !strings.Contains(err.Error(), "size_escapes_test.go:") {
				t.Fatalf("%v; want a *trace.ShapeError from %s wrapping a *tensor.SizeError, at this file's line", err, c.op)
			}
			if got := ze.Limit == 1<<30; got != c.limit {
				t.Errorf("%v: the allocation limit in the error is %d", err, ze.Limit)
			}
			if n > 16<<20 {
				t.Errorf("tracing allocated %d bytes before failing", n)
			}
		})
	}
}

// TestTraceWithinBudget: under TraceWithin's budget a trace-time constant
// over it is a *BudgetError before it is built, though the allocation
// limit would allow it; Trace checks none.
func TestTraceWithinBudget(t *testing.T) {
	in := []trace.Abstract{{Type: promote.Strong(tensor.F32), Shape: []int{2}}}
	fn := func(a []trace.Value) []trace.Value { return []trace.Value{trace.Repeat(a[0], []int{1 << 20, 1}, 0)} }
	var err error
	n := allocated(func() { _, err = trace.TraceWithin(promote.Config{}, 1<<20, in, fn) })
	var be *trace.BudgetError
	if !errors.As(err, &be) || be.Op != "repeat" || be.Limit != 1<<20 || be.Need != 8*(1<<20+1) || !strings.Contains(err.Error(), "size_escapes_test.go:") {
		t.Fatalf("%v; want a *trace.BudgetError at repeat needing %d of 1 MiB", err, 8*(1<<20+1))
	}
	if n > 1<<20 {
		t.Errorf("tracing allocated %d bytes before failing", n)
	}
	if _, err := trace.Trace(promote.Config{}, in, fn); err != nil {
		t.Errorf("without a budget: %v", err)
	}
}
