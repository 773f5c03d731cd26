package opencl

import (
	"reflect"
	"testing"

	"github.com/kiln-go/kiln"
	"github.com/kiln-go/kiln/tensor"
)

// kiln's Release on this backend: a released array passed back as an
// input (as input y, while output 0 passes x through) is neither written
// as an output nor changed, and the results are right.
func TestReleaseWithOpenCL(t *testing.T) {
	f := kiln.Jit(func(x, y kiln.Value) (kiln.Value, kiln.Value) { return x, y.Add(kiln.Int(1)) }, kiln.WithBackend(testBackend(t)))
	x := tensor.Must(tensor.Arange(tensor.F32, 8))
	outs, err := f.RunAll(x, x)
	if err != nil {
		t.Fatal(err)
	}
	f.Release(outs[0])
	y := outs[0] // used after Release: Run must not write it
	keep := y.Astype(tensor.F32)
	got, err := f.RunAll(x, y)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(y.Data(), keep.Data()) {
		t.Fatalf("input y changed from %v to %v", keep, y)
	}
	want := []float32{1, 2, 3, 4, 5, 6, 7, 8}
	if !reflect.DeepEqual(got[0].Data(), x.Data()) || !reflect.DeepEqual(got[1].Data(), want) {
		t.Errorf("got %v, %v; want %v, %v", got[0], got[1], x, want)
	}
}
