package kiln_test

import (
	"errors"
	"math"
	"math/rand"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"unsafe"

	"github.com/kiln-go/kiln"
	"github.com/kiln-go/kiln/internal/progen"
	"github.com/kiln-go/kiln/kernels"
	"github.com/kiln-go/kiln/nn"
	"github.com/kiln-go/kiln/tensor"
)

// line is the caller's line, for the positions a CheckError must name.
func line() int {
	_, _, l, _ := runtime.Caller(1)
	return l
}

// wantCheck asserts err is a *kiln.CheckError of kind k at this file's
// line l, and returns it.
func wantCheck(t *testing.T, err error, k kiln.CheckKind, l int) *kiln.CheckError {
	t.Helper()
	var ce *kiln.CheckError
	if !errors.As(err, &ce) {
		t.Fatalf("got error %v (%T), want a *kiln.CheckError", err, err)
	}
	if ce.Kind != k {
		t.Errorf("kind %v, want %v (%v)", ce.Kind, k, ce)
	}
	if filepath.Base(ce.Pos.File) != "check_test.go" || ce.Pos.Line != l {
		t.Errorf("position %s, want check_test.go:%d (%v)", ce.Pos, l, ce)
	}
	if !strings.Contains(ce.Error(), ce.Pos.String()) {
		t.Errorf("message %q does not name the position", ce.Error())
	}
	return ce
}

func f32s(t *testing.T, v []float32, shape ...int) *tensor.Array {
	t.Helper()
	a, err := tensor.FromSlice(v, shape...)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func i32s(t *testing.T, v ...int32) *tensor.Array {
	t.Helper()
	a, err := tensor.FromSlice(v)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// The case: a cross-entropy whose labels index the log-softmax.
// An out-of-range label is silently a NaN (take_along_axis fills) without
// checks; checked, it is a CheckError naming the label, in the forward
// pass and in the gradient's.
func TestCheckedCrossEntropyLabel(t *testing.T) {
	var at int
	loss := func(logits, labels kiln.Value) kiln.Value {
		lp := nn.LogSoftmax(logits, -1)
		at = line() + 1
		picked := kiln.TakeAlongAxis(lp, labels.Reshape(4, 1), 1)
		return picked.Mean().Neg()
	}
	logits := f32s(t, []float32{1, 2, 3, 0, 1, 0, 2, 2, 2, 3, 1, 0}, 4, 3)
	good, bad := i32s(t, 2, 1, 0, 0), i32s(t, 2, 1, 5, 0)

	plain := kiln.Jit(loss)
	out, err := plain.Run(logits, bad)
	if err != nil || !math.IsNaN(float64(out.Data().([]float32)[0])) {
		t.Fatalf("unchecked: %v, %v; want NaN (JAX's fill)", out, err)
	}
	checked := kiln.Jit(loss, kiln.Checked())
	_, err = checked.Run(logits, bad)
	ce := wantCheck(t, err, kiln.CheckIndex, at)
	if ce.Index != 5 || ce.Element != 2 || ce.Axis != 1 || ce.AxisSize != 3 || ce.Op != "gather" {
		t.Errorf("got %+v, want index 5 at element 2 for axis 1 of size 3 in a gather", ce)
	}
	if !strings.Contains(err.Error(), "index 5 is out of bounds for axis 1 with size 3") {
		t.Errorf("message %q", err)
	}
	// The Func stays usable, and a passing run gives unchecked's bits.
	want, _ := plain.Run(logits, good)
	got, err := checked.Run(logits, good)
	if err != nil || got.String() != want.String() || got.Data().([]float32)[0] != want.Data().([]float32)[0] {
		t.Fatalf("checked %v, %v; unchecked %v", got, err, want)
	}

	grad := kiln.Jit(kiln.Grad(loss), kiln.Checked())
	_, err = grad.Run(logits, bad)
	wantCheck(t, err, kiln.CheckIndex, at)
	g1, err1 := grad.Run(logits, good)
	g0, err0 := kiln.Jit(kiln.Grad(loss)).Run(logits, good)
	if err0 != nil || err1 != nil || !sameBits(g0, g1) {
		t.Fatalf("gradients: checked %v (%v), unchecked %v (%v)", g1, err1, g0, err0)
	}
}

func sameBits(a, b *tensor.Array) bool {
	if a.DType() != b.DType() || !a.HasShape(b.Shape()) {
		return false
	}
	x, y := reflect.ValueOf(a.Data()), reflect.ValueOf(b.Data())
	n := x.Len() * int(x.Type().Elem().Size())
	return n == y.Len()*int(y.Type().Elem().Size()) &&
		string(unsafe.Slice((*byte)(x.UnsafePointer()), n)) == string(unsafe.Slice((*byte)(y.UnsafePointer()), n))
}

func TestCheckedIndexOps(t *testing.T) {
	x := f32s(t, []float32{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, 10)
	cases := []struct {
		name  string
		fn    func(x, i kiln.Value) kiln.Value
		idx   *tensor.Array
		index int64
		elem  int
		op    string
	}{
		{"index", func(x, i kiln.Value) kiln.Value { return x.Index(i) }, i32s(t, 1, 10, 3), 10, 1, "gather"},
		{"take clip", func(x, i kiln.Value) kiln.Value { return kiln.Take(x, i, 0, kiln.WithMode(kiln.ModeClip)) }, i32s(t, 12), 12, 0, "gather"},
		{"scatter add", func(x, i kiln.Value) kiln.Value { return x.At(i).Add(kiln.Float(1)) }, i32s(t, 0, 0, 11), 11, 2, "scatter_add"},
		{"set", func(x, i kiln.Value) kiln.Value { return x.At(i).Set(kiln.Float(1)) }, i32s(t, 10), 10, 0, "scatter"},
		{"dynamic_slice", func(x, i kiln.Value) kiln.Value { return kiln.DynamicSlice(x, []kiln.Value{i.Index(0)}, []int{4}) }, i32s(t, 7), 7, 0, "dynamic_slice"},
		{"dynamic_update_slice", func(x, i kiln.Value) kiln.Value {
			return kiln.DynamicUpdateSlice(x, kiln.Zeros([]int{3}, tensor.F32), []kiln.Value{i.Index(0)})
		}, i32s(t, -1), 9, 0, "dynamic_update_slice"}, // -1 is normalized to 9, as lax does,
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := kiln.Jit(c.fn, kiln.Checked(kiln.CheckIndex))
			_, err := f.Run(x, c.idx)
			var ce *kiln.CheckError
			if !errors.As(err, &ce) {
				t.Fatalf("got %v, want a CheckError", err)
			}
			if ce.Kind != kiln.CheckIndex || ce.Index != c.index || ce.Element != c.elem || ce.Op != c.op || ce.AxisSize != 10 {
				t.Errorf("got %+v (%v), want index %d at element %d of %s", ce, ce, c.index, c.elem, c.op)
			}
			if filepath.Base(ce.Pos.File) != "check_test.go" {
				t.Errorf("position %s is not the caller's", ce.Pos)
			}
			// Without checks the same program runs (clamping, filling or
			// dropping as JAX does).
			if _, err := kiln.Jit(c.fn).Run(x, c.idx); err != nil {
				t.Errorf("unchecked: %v", err)
			}
		})
	}
}

func TestCheckedDivide(t *testing.T) {
	var at int
	fns := map[string]func(x, y kiln.Value) kiln.Value{
		"floordiv": func(x, y kiln.Value) kiln.Value {
			at = line() + 1
			return x.FloorDiv(y).Add(kiln.Int(1))
		},
		"rem": func(x, y kiln.Value) kiln.Value {
			at = line() + 1
			return x.Rem(y)
		},
		"computed divisor": func(x, y kiln.Value) kiln.Value {
			at = line() + 1
			return x.FloorDiv(y.Sub(kiln.Int(1))).Mul(kiln.Int(3))
		},
	}
	x := i32s(t, 7, 8, 9, 10, 11)
	for name, fn := range fns {
		t.Run(name, func(t *testing.T) {
			y := i32s(t, 2, 3, 4, 0, 0)
			if name == "computed divisor" {
				y = i32s(t, 3, 4, 5, 1, 1)
			}
			f := kiln.Jit(fn, kiln.Checked())
			_, err := f.Run(x, y)
			ce := wantCheck(t, err, kiln.CheckDivide, at)
			if ce.Element != 3 {
				t.Errorf("element %d, want 3 (%v)", ce.Element, ce)
			}
			if !strings.Contains(err.Error(), "division by zero") {
				t.Errorf("message %q", err)
			}
			// Index checks alone do not look at divisors.
			if _, err := kiln.Jit(fn, kiln.Checked(kiln.CheckIndex)).Run(x, y); err != nil {
				t.Errorf("index checks only: %v", err)
			}
		})
	}
	// A loop-invariant divisor (a scalar argument) is tested too.
	f := kiln.Jit(func(x, y kiln.Value) kiln.Value { return x.FloorDiv(y) }, kiln.Checked())
	zero := tensor.Scalar(int32(0))
	if _, err := f.Run(x, zero); !errors.As(err, new(*kiln.CheckError)) {
		t.Errorf("scalar zero divisor: %v", err)
	}
	// Float division by zero is IEEE's, never a check.
	g := kiln.Jit(func(x, y kiln.Value) kiln.Value { return x.FloorDiv(y) }, kiln.Checked())
	if _, err := g.Run(f32s(t, []float32{1}, 1), f32s(t, []float32{0}, 1)); err != nil {
		t.Errorf("float divisor: %v", err)
	}
}

// Checks inside loop bodies and branches: the sub-programs report to the
// Run that runs them.
func TestCheckedInsideLoops(t *testing.T) {
	var at int
	f := kiln.Jit(func(x, ids kiln.Value) kiln.Value {
		out := kiln.ForiLoop(kiln.Int(0), kiln.Int(3), func(i kiln.Value, c []kiln.Value) []kiln.Value {
			at = line() + 1
			row := c[0].Index(ids.Index(i))
			return []kiln.Value{c[0].Add(row)}
		}, x)
		return out[0]
	}, kiln.Checked())
	x := f32s(t, []float32{1, 2, 3, 4}, 4)
	if _, err := f.Run(x, i32s(t, 0, 3, 2)); err != nil {
		t.Fatalf("in bounds: %v", err)
	}
	_, err := f.Run(x, i32s(t, 0, 3, 4))
	ce := wantCheck(t, err, kiln.CheckIndex, at)
	if ce.Index != 4 {
		t.Errorf("index %d, want 4", ce.Index)
	}
	// The same Func runs again after the failure.
	if _, err := f.Run(x, i32s(t, 1, 1, 1)); err != nil {
		t.Fatalf("after a failure: %v", err)
	}
}

func TestCheckedNaN(t *testing.T) {
	var at int
	fn := func(x kiln.Value) kiln.Value {
		at = line() + 1
		return x.Log().Mul(kiln.Float(2))
	}
	neg := f32s(t, []float32{1, 2, -3, 4}, 4)
	if _, err := kiln.Jit(fn, kiln.Checked()).Run(neg); err != nil {
		t.Fatalf("NaN checks are opt-in, got %v", err)
	}
	_, err := kiln.Jit(fn, kiln.Checked(kiln.CheckNaN)).Run(neg)
	ce := wantCheck(t, err, kiln.CheckNaN, at)
	if ce.Element != 2 {
		t.Errorf("element %d, want 2", ce.Element)
	}
	// A NaN that comes in is propagated, not made.
	in := f32s(t, []float32{1, float32(math.NaN()), 3, 4}, 4)
	if _, err := kiln.Jit(fn, kiln.Checked(kiln.CheckNaN)).Run(in); err != nil {
		t.Errorf("an input NaN: %v", err)
	}
}

// Checked programs share nothing with unchecked ones in the cache, and a
// backend without checks refuses them.
func TestCheckedOptionIsPartOfTheKey(t *testing.T) {
	fn := func(x, i kiln.Value) kiln.Value { return x.Index(i) }
	x := f32s(t, []float32{1, 2, 3}, 3)
	i := i32s(t, 5)
	a, err := kiln.Jit(fn).Run(x, i)
	if err != nil || a.Data().([]float32)[0] != 3 {
		t.Fatalf("unchecked: %v, %v (JAX clamps to the last row)", a, err)
	}
	if _, err := kiln.Jit(fn, kiln.Checked()).Run(x, i); err == nil {
		t.Fatal("checked run passed")
	}
	// Eval takes the option too.
	_, err = kiln.Eval(kiln.Const(x).Index(kiln.Const(i)), kiln.Checked())
	if !errors.As(err, new(*kiln.CheckError)) {
		t.Errorf("Eval: %v", err)
	}
	var _ kernels.CheckKind = kiln.CheckNaN
}

// Random programs run checked (every kind, on the default CPU and on one
// that splits every kernel over three workers in blocks of 7) give the
// unchecked program's bits whenever their checks pass, and a
// *CheckError otherwise: checks never change a result.
func TestCheckedPrograms(t *testing.T) {
	n := 600
	if testing.Short() {
		n = 150
	}
	all := kiln.Checked(kiln.CheckIndex, kiln.CheckDivide, kiln.CheckNaN)
	var passed, failed [2]int
	for seed := int64(7_000_000); seed < 7_000_000+int64(n); seed++ {
		c := progen.Generate(rand.New(rand.NewSource(seed)), progen.Options{})
		args := caseArgs(c)
		opts := caseOptions(c)
		want, err := kiln.Jit(c.Fn, opts...).RunAll(args...)
		if err != nil {
			t.Fatalf("seed %d: unchecked run: %v\n%s", seed, err, c)
		}
		for v, backend := range []kiln.Option{kiln.WithBackend(kernels.DefaultCPU()), kiln.WithBackend(tinyCPU)} {
			got, err := kiln.Jit(c.Fn, append(opts, all, backend)...).RunAll(args...)
			var ce *kiln.CheckError
			switch {
			case errors.As(err, &ce):
				failed[v]++
			case err != nil:
				t.Fatalf("seed %d: checked run: %v\n%s", seed, err, c)
			default:
				passed[v]++
				if d := diffResults(got, want, true); d != "" {
					t.Fatalf("seed %d (reproduce: go test -run TestCheckedPrograms): checked result differs: %s\n%s", seed, d, c)
				}
			}
		}
	}
	t.Logf("%d programs: %v passed their checks, %v failed one (default CPU, tiny-block CPU)", n, passed, failed)
	if passed != [2]int{passed[0], passed[0]} {
		t.Errorf("the two CPUs disagree on which programs fail a check: passed %v", passed)
	}
	if passed[0] == 0 || failed[0] == 0 {
		t.Errorf("the corpus should have programs that pass and programs that fail: %v passed, %v failed", passed, failed)
	}
}

// A narrow float's NaN is found in its encodings: log of a negative
// f8e4m3fn is reported; an f8e4m3fn NaN that comes in is not.
func TestCheckedNaNNarrow(t *testing.T) {
	var at int
	fn := func(x kiln.Value) kiln.Value {
		at = line() + 1
		return x.Log().Mul(kiln.Float(2))
	}
	neg := f32s(t, []float32{1, 2, -3, 4}, 4).Astype(tensor.F8E4M3FN)
	_, err := kiln.Jit(fn, kiln.Checked(kiln.CheckNaN)).Run(neg)
	ce := wantCheck(t, err, kiln.CheckNaN, at)
	if ce.Element != 2 {
		t.Errorf("element %d, want 2", ce.Element)
	}
	in := f32s(t, []float32{1, float32(math.NaN()), 3, 4}, 4).Astype(tensor.F8E4M3FN)
	if _, err := kiln.Jit(fn, kiln.Checked(kiln.CheckNaN)).Run(in); err != nil {
		t.Errorf("an input NaN: %v", err)
	}
}
