package trace_test

import (
	"errors"
	"math"
	"math/big"
	"slices"
	"strings"
	"testing"

	"github.com/kiln-go/kiln/promote"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// TestHugeShapes: before every result shape was checked, a broadcast to
// [2^40, 2^40, 2, 3] traced (its size wrapped to 0) and its sum ran to
// f32[] 0.
func TestHugeShapes(t *testing.T) {
	f32 := func(shape ...int) trace.Abstract {
		return trace.Abstract{Type: promote.Strong(tensor.F32), Shape: shape}
	}
	for _, c := range []struct {
		name   string
		inputs []trace.Abstract
		fn     func(a []trace.Value) trace.Value
		op     string
		shape  []int // the shape the *tensor.SizeError names
	}{
		{"broadcast then sum", []trace.Abstract{f32()}, func(a []trace.Value) trace.Value {
			return a[0].BroadcastTo(1<<40, 1<<40, 2, 3).Sum()
		}, "broadcast_in_dim", []int{1 << 40, 1 << 40, 2, 3}},
		{"reshape", []trace.Abstract{f32(0)}, func(a []trace.Value) trace.Value { return a[0].Reshape(0, 1<<40, 1<<40) }, "reshape", []int{0, 1 << 40, 1 << 40}},
		{"outer product", []trace.Abstract{f32(1<<40, 1), f32(1, 1<<40)}, func(a []trace.Value) trace.Value { return a[0].MatMul(a[1]) }, "dot_general", []int{1 << 40, 1 << 40}},
		{"broadcasting add", []trace.Abstract{f32(1<<40, 1), f32(1 << 40)}, func(a []trace.Value) trace.Value { return a[0].Add(a[1]) }, "add", []int{1 << 40, 1 << 40}},
		// The element count fits, the bytes of the result's dtype do not.
		{"widening convert", []trace.Abstract{{Type: promote.Strong(tensor.Bool), Shape: []int{1 << 61}}}, func(a []trace.Value) trace.Value {
			return a[0].Astype(tensor.F64)
		}, "convert", []int{1 << 61}},
		{"input", []trace.Abstract{f32(1<<32, 1<<32)}, func(a []trace.Value) trace.Value { return a[0] }, "param", []int{1 << 32, 1 << 32}},
		{"concatenate", []trace.Abstract{{Type: promote.Strong(tensor.Bool), Shape: []int{math.MaxInt / 2}}, {Type: promote.Strong(tensor.Bool), Shape: []int{math.MaxInt / 2}}},
			func(a []trace.Value) trace.Value { return trace.Concatenate(0, a[0], a[1], a[1]) }, "concatenate", nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := trace.Trace(promote.Config{}, c.inputs, func(a []trace.Value) []trace.Value { return []trace.Value{c.fn(a)} })
			var se *trace.ShapeError
			var ze *tensor.SizeError
			if !errors.As(err, &se) || !errors.As(err, &ze) || se.Op != c.op || !slices.Equal(ze.Shape, c.shape) {
				t.Fatalf("%v; want a *trace.ShapeError from %s wrapping a *tensor.SizeError naming %v", err, c.op, c.shape)
			}
			if c.op != "param" && !strings.Contains(err.Error(), "trace/size_test.go:") {
				t.Errorf("%q does not give the caller's line", err)
			}
		})
	}
	// A huge step is fine: the result has one element.
	p, err := trace.Trace(promote.Config{}, []trace.Abstract{f32(5)}, func(a []trace.Value) []trace.Value {
		return []trace.Value{a[0].Slice(0, 1, 5, math.MaxInt)}
	})
	if err != nil || !slices.Equal(p.Outputs[0].Shape, []int{1}) {
		t.Errorf("slice with step MaxInt: %v, %v", p, err)
	}
}

// FuzzTraceShapes traces ops over fuzzer-chosen shapes and parameters:
// never a panic; either a typed error or a program whose every value has
// a shape whose size is exactly right and fits.
func FuzzTraceShapes(f *testing.F) {
	f.Add(uint8(0), int64(1), int64(1), int64(1<<40), int64(1<<40), int64(2), int64(3), uint8(0x21))
	f.Add(uint8(2), int64(math.MaxInt64/2), int64(3), int64(0), int64(0), int64(0), int64(0), uint8(0x11))
	f.Add(uint8(3), int64(7), int64(0), int64(1), int64(math.MaxInt64), int64(2), int64(3), uint8(0x10))
	f.Add(uint8(4), int64(1<<40), int64(1), int64(1), int64(1<<40), int64(0), int64(0), uint8(0x22))
	f.Add(uint8(1), int64(0), int64(5), int64(-1), int64(1<<62), int64(4), int64(0), uint8(0x22))
	f.Fuzz(func(t *testing.T, op uint8, d0, d1, d2, d3, p0, p1 int64, ranks uint8) {
		dims := []int{int(d0), int(d1), int(d2), int(d3)}
		xr, yr := int(ranks&0xf)%3, int(ranks>>4)%3
		x := trace.Abstract{Type: promote.Strong(tensor.F32), Shape: dims[:xr]}
		y := trace.Abstract{Type: promote.Strong(tensor.F32), Shape: dims[2 : 2+yr]}
		target := []int{int(p0), int(p1)}
		fns := []func(a []trace.Value) trace.Value{
			func(a []trace.Value) trace.Value { return a[0].BroadcastTo(dims[2:]...).Sum() },
			func(a []trace.Value) trace.Value { return a[0].Reshape(dims[1:]...) },
			func(a []trace.Value) trace.Value { return trace.Concatenate(int(p0%3), a[0], a[1], a[0]) },
			func(a []trace.Value) trace.Value { return a[0].Slice(int(p0%3), int(p1), int(d3), int(d2)) },
			func(a []trace.Value) trace.Value { return a[0].MatMul(a[1]) },
			func(a []trace.Value) trace.Value { return a[0].Add(a[1]).Mean(int(p0 % 3)) },
			func(a []trace.Value) trace.Value { return a[0].ExpandDims(int(p0 % 3)).Transpose() },
			func(a []trace.Value) trace.Value {
				return trace.DotGeneral(a[0], a[1], trace.DotDims{})
			},
			func(a []trace.Value) trace.Value { return a[1].Reshape(target...).Astype(tensor.C128) },
		}
		p, err := trace.Trace(promote.Config{}, []trace.Abstract{x, y}, func(a []trace.Value) []trace.Value {
			return []trace.Value{fns[int(op)%len(fns)](a)}
		})
		if err != nil {
			var se *trace.ShapeError
			var de *trace.DTypeError
			var oe *trace.OpError
			if !errors.As(err, &se) && !errors.As(err, &de) && !errors.As(err, &oe) {
				t.Fatalf("untyped error %T: %v", err, err)
			}
			return
		}
		vars := slices.Clone(p.Inputs)
		for _, e := range p.Eqns {
			vars = append(vars, e.Out)
		}
		for _, v := range vars {
			exact := big.NewInt(int64(v.Type.DType.Size()))
			zero := false
			for _, d := range v.Shape {
				if d < 0 {
					t.Fatalf("%s has a negative dimension", v.TypeString())
				}
				zero = zero || d == 0
				if d > 0 {
					exact.Mul(exact, big.NewInt(int64(d)))
				}
			}
			if !exact.IsInt64() || exact.Int64() > math.MaxInt {
				t.Fatalf("%s: %s bytes do not fit an int", v.TypeString(), exact)
			}
			want := exact.Int64() / int64(v.Type.DType.Size())
			if zero {
				want = 0
			}
			if int64(v.Size()) != want {
				t.Fatalf("%s: size %d, want %d", v.TypeString(), v.Size(), want)
			}
		}
	})
}
