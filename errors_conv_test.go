package kiln_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/kiln-go/kiln"
	"github.com/kiln-go/kiln/nn"
	"github.com/kiln-go/kiln/promote"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// Bad convolutions and pools are typed errors naming the op, the shapes
// or dtypes and the caller's line; nothing panics.
func TestBadConv(t *testing.T) {
	f32 := func(shape ...int) trace.Abstract {
		return trace.Abstract{Type: promote.Strong(tensor.F32), Shape: shape}
	}
	of := func(d tensor.DType, shape ...int) trace.Abstract {
		return trace.Abstract{Type: promote.Strong(d), Shape: shape}
	}
	var (
		shapeErr *trace.ShapeError
		dtypeErr *trace.DTypeError
	)
	conv := func(o kiln.ConvOptions) func(a []trace.Value) []trace.Value {
		return func(a []trace.Value) []trace.Value { return []trace.Value{kiln.ConvGeneralDilated(a[0], a[1], o)} }
	}
	cases := []struct {
		name   string
		in     []trace.Abstract
		fn     func(a []trace.Value) []trace.Value
		target any
		msg    string
	}{
		{"ranks differ", []trace.Abstract{f32(1, 2, 3, 3), f32(2, 2, 3)}, conv(kiln.ConvOptions{}), &shapeErr,
			"lhs and rhs must have the same rank, got 4 and 3 (lhs [1,2,3,3], rhs [2,2,3])"},
		{"features differ", []trace.Abstract{f32(1, 3, 5, 5), f32(2, 2, 3, 3)}, conv(kiln.ConvOptions{}), &shapeErr,
			"lhs feature dimension 3 / feature_group_count=1 must equal the rhs input feature dimension 2"},
		{"groups do not divide", []trace.Abstract{f32(1, 4, 5, 5), f32(3, 2, 3, 3)}, conv(kiln.ConvOptions{FeatureGroupCount: 2}), &shapeErr,
			"rhs output feature dimension 3 is not a multiple of feature_group_count=2"},
		{"batch groups", []trace.Abstract{f32(2, 2, 5, 5), f32(2, 2, 3, 3)}, conv(kiln.ConvOptions{BatchGroupCount: 2}), &shapeErr,
			"batch_group_count=2 is not supported (only 1)"},
		{"bad dimension numbers", []trace.Abstract{f32(1, 5, 5, 2), f32(3, 3, 2, 4)}, conv(kiln.ConvOptions{DimensionNumbers: [3]string{"NHWC", "HWIX", "NHWC"}}), &shapeErr,
			"the rhs spec must contain O and I exactly once"},
		{"spatial letters differ", []trace.Abstract{f32(1, 5, 5, 2), f32(3, 3, 2, 4)}, conv(kiln.ConvOptions{DimensionNumbers: [3]string{"NHWC", "HDIO", "NHWC"}}), &shapeErr,
			"the spatial letters of the three specs differ"},
		{"strides length", []trace.Abstract{f32(1, 2, 5, 5), f32(2, 2, 3, 3)}, conv(kiln.ConvOptions{WindowStrides: []int{1}}), &shapeErr,
			"window_strides has 1 entries for 2 spatial dims"},
		{"zero stride", []trace.Abstract{f32(1, 2, 5, 5), f32(2, 2, 3, 3)}, conv(kiln.ConvOptions{WindowStrides: []int{1, 0}}), &shapeErr,
			"window_strides must be ≥ 1, got [1 0]"},
		{"negative padding too large", []trace.Abstract{f32(1, 2, 5, 5), f32(2, 2, 3, 3)}, conv(kiln.ConvOptions{Padding: [][2]int{{-3, -3}, {0, 0}}}), &shapeErr,
			"negative padding -3, -3 larger than spatial dim 0 of size 5"},
		{"unknown padding", []trace.Abstract{f32(1, 2, 5, 5), f32(2, 2, 3, 3)}, conv(kiln.ConvOptions{PaddingMode: "FULL"}), &shapeErr,
			`unknown padding "FULL"`},
		{"rank 1", []trace.Abstract{f32(5), f32(3)}, conv(kiln.ConvOptions{}), &shapeErr,
			"operands need rank ≥ 2 (batch and feature dims), got 1"},
		{"bool", []trace.Abstract{of(tensor.Bool, 1, 2, 5), of(tensor.Bool, 2, 2, 3)}, conv(kiln.ConvOptions{}), &dtypeErr,
			"convolution of bool operands is not supported"},
		{"complex", []trace.Abstract{of(tensor.C64, 1, 2, 5), f32(2, 2, 3)}, conv(kiln.ConvOptions{}), &dtypeErr,
			"convolution of c64 operands is not supported yet"},
		{"pool window rank", []trace.Abstract{f32(1, 5, 5, 2)}, func(a []trace.Value) []trace.Value {
			return []trace.Value{nn.MaxPool(a[0], []int{2}, nil, "VALID")}
		}, &shapeErr, "must have one entry per spatial dim"},
		{"pool padding", []trace.Abstract{f32(1, 5, 5, 2)}, func(a []trace.Value) []trace.Value {
			return []trace.Value{nn.AvgPool(a[0], []int{2, 2}, nil, "FULL", true)}
		}, &shapeErr, `unknown padding "FULL"`},
		{"reduce_window strides", []trace.Abstract{f32(4, 4)}, func(a []trace.Value) []trace.Value {
			return []trace.Value{trace.ReduceWindowMax(a[0], []int{2, 2}, trace.WindowOptions{Strides: []int{0, 1}})}
		}, &shapeErr, "strides must be ≥ 1, got [0 1]"},
		{"reduce_window bool", []trace.Abstract{of(tensor.Bool, 4, 4)}, func(a []trace.Value) []trace.Value {
			return []trace.Value{trace.ReduceWindowSum(a[0], []int{2, 2}, trace.WindowOptions{})}
		}, &dtypeErr, "reduce_window_sum of bool is not supported"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := trace.Trace(promote.Config{}, c.in, c.fn)
			if err == nil {
				t.Fatal("no error")
			}
			if !errors.As(err, c.target) {
				t.Fatalf("%T %v, want %T", err, err, c.target)
			}
			msg := err.Error()
			if !strings.Contains(msg, c.msg) || !strings.Contains(msg, "errors_conv_test.go:") {
				t.Errorf("%q\nwant it to contain %q and this file's line", msg, c.msg)
			}
			named := false
			for _, op := range []string{"conv_general_dilated at", "max_pool at", "avg_pool at", "reduce_window_max at", "reduce_window_sum at"} {
				named = named || strings.Contains(msg, op)
			}
			if !named {
				t.Errorf("%q names no op", msg)
			}
		})
	}
}
