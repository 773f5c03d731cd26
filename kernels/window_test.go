package kernels

import (
	"bytes"
	"math"
	"reflect"
	"testing"
	"unsafe"

	"github.com/kiln-go/kiln/lower"
	"github.com/kiln-go/kiln/promote"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// TestWithoutFirstChosen: a max or min pooling's forward pass, which the
// CPU computes as the window's extremum alone (lower.WithoutFirstChosen),
// gives the bits of the whole composition (the CPU with the shortcut off)
// — NaNs with their payloads, zeros with their signs, infinities — for
// every dtype pooling takes, with strides, SAME, explicit and negative
// padding and window dilation, on several block sizes and worker counts.
// Each case must take the shortcut, or it would test nothing.
func TestWithoutFirstChosen(t *testing.T) {
	shape := []int{2, 7, 6, 5}
	n := trace.ShapeSize(shape)
	cases := []struct {
		name string
		fn   func(x trace.Value) trace.Value
	}{
		{"max-same-s2", func(x trace.Value) trace.Value {
			return trace.ReduceWindowMax(x, []int{1, 3, 3, 1}, trace.WindowOptions{Strides: []int{1, 2, 2, 1}, PaddingMode: "SAME"})
		}},
		{"min-dilated-negpad", func(x trace.Value) trace.Value {
			return trace.ReduceWindowMin(x, []int{1, 2, 2, 1}, trace.WindowOptions{WindowDilation: []int{1, 2, 1, 1}, Padding: [][2]int{{0, 0}, {1, -1}, {2, 0}, {0, 0}}})
		}},
		{"max-valid-2x2", func(x trace.Value) trace.Value {
			return trace.ReduceWindowMax(x, []int{1, 2, 2, 1}, trace.WindowOptions{Strides: []int{1, 2, 2, 1}})
		}},
		{"max-channels-window", func(x trace.Value) trace.Value {
			return trace.ReduceWindowMax(x, []int{1, 1, 2, 3}, trace.WindowOptions{Padding: [][2]int{{0, 0}, {0, 0}, {1, 1}, {1, 0}}})
		}},
	}
	for _, d := range []tensor.DType{tensor.F32, tensor.F64, tensor.F16, tensor.BF16, tensor.I8, tensor.U8, tensor.I32, tensor.I64} {
		x := payloadInput(t, d, n, shape)
		for _, c := range cases {
			p, err := trace.Trace(promote.Config{}, []trace.Abstract{{Type: promote.Strong(d), Shape: shape}},
				func(a []trace.Value) []trace.Value { return []trace.Value{c.fn(a[0])} })
			if err != nil {
				t.Fatal(err)
			}
			m, err := lower.Compile(p, lower.Options{Fold: Fold})
			if err != nil {
				t.Fatal(err)
			}
			took := 0
			for _, f := range m.Fusions {
				if lower.WithoutFirstChosen(f) != nil {
					took++
				}
			}
			if took != 1 {
				t.Fatalf("%s %s: %d fusions take the shortcut, want 1:\n%s", c.name, d, took, m.FusedString())
			}
			run := func(cpu *CPU) []byte {
				exe, err := cpu.Compile(m)
				if err != nil {
					t.Fatal(err)
				}
				out, err := exe.Run([]*tensor.Array{x})
				if err != nil {
					t.Fatal(err)
				}
				return rawOf(out[0])
			}
			want := run(&CPU{opts: NewCPU(CPUOptions{}).opts, noFuse: true})
			for _, o := range []CPUOptions{{}, {Block: 5, ParallelMin: 1, Workers: 3}, {Block: 3, ParallelMin: 1, Workers: 2}} {
				if got := run(NewCPU(o)); !bytes.Equal(got, want) {
					t.Errorf("%s %s block %d: the extremum alone differs from the composition's bits", c.name, d, o.Block)
				}
			}
		}
	}
}

// payloadInput is n values of dtype d: specials (NaNs with distinct
// payloads and signs where d is a float, ±0, ±∞) among random values,
// zeros often so that ±0 ties are common.
func payloadInput(t *testing.T, d tensor.DType, n int, shape []int) *tensor.Array {
	a := specialInput(d, 7, n)
	vals := a.Data()
	switch v := vals.(type) {
	case []float32:
		for i := range v {
			switch i % 11 {
			case 3:
				v[i] = math.Float32frombits(0x7fc00000 | uint32(i))
			case 5:
				v[i] = math.Float32frombits(0xffc00000 | uint32(i*7))
			case 7:
				v[i] = float32(math.Copysign(0, float64(i%2*2-1)))
			}
		}
	case []float64:
		for i := range v {
			switch i % 11 {
			case 3:
				v[i] = math.Float64frombits(0x7ff8000000000000 | uint64(i))
			case 5:
				v[i] = math.Float64frombits(0xfff8000000000000 | uint64(i*7))
			case 7:
				v[i] = math.Copysign(0, float64(i%2*2-1))
			}
		}
	}
	r, err := a.Reshape(shape...)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// rawOf is a's storage bytes.
func rawOf(a *tensor.Array) []byte {
	v := reflect.ValueOf(a.Data())
	size := v.Len() * int(v.Type().Elem().Size())
	return bytes.Clone(unsafe.Slice((*byte)(v.UnsafePointer()), size))
}
