package opencl

import (
	"context"
	"errors"
	"math"
	"testing"
	"time"

	"github.com/kiln-go/kiln/lower"
	"github.com/kiln-go/kiln/promote"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// An endless while on the device stops under a 200 ms deadline within a
// second of it (the host looks at the context on every iteration), with
// an error errors.Is matches to context.DeadlineExceeded, and the
// executable then runs a finite loop correctly; an un-cancelled
// RunContext gives Run's result.
func TestRunContextStopsWhile(t *testing.T) {
	b := testBackend(t)
	i32 := trace.Abstract{Type: promote.Strong(tensor.I32)}
	p, err := trace.Trace(promote.Config{}, []trace.Abstract{i32, i32}, func(a []trace.Value) []trace.Value {
		return trace.WhileLoop(func(c []trace.Value) trace.Value { return c[0].Lt(a[1]) },
			func(c []trace.Value) []trace.Value { return []trace.Value{c[0].Add(trace.Int(1))} }, a[0])
	})
	if err != nil {
		t.Fatal(err)
	}
	m, err := lower.Compile(p, lower.Options{Verify: true})
	if err != nil {
		t.Fatal(err)
	}
	e, err := b.CompileModule(m)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	zero := tensor.Scalar(int32(0))
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	out, err := e.RunContext(ctx, []*tensor.Array{zero, tensor.Scalar(int32(math.MaxInt32))})
	took := time.Since(start)
	if !errors.Is(err, context.DeadlineExceeded) || out != nil {
		t.Fatalf("RunContext = %v, %v after %v; want context.DeadlineExceeded", out, err, took)
	}
	if took > 1200*time.Millisecond {
		t.Errorf("RunContext returned %v after it started, deadline 200ms", took)
	}
	ctx2, cancel2 := context.WithCancel(context.Background())
	defer cancel2()
	got, err := e.RunContext(ctx2, []*tensor.Array{zero, tensor.Scalar(int32(37))})
	if err != nil {
		t.Fatal(err)
	}
	if v := got[0].Data().([]int32)[0]; v != 37 {
		t.Fatalf("the next run = %d, want 37", v)
	}
}
