package kiln_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"
	"time"

	"github.com/kiln-go/kiln"
	"github.com/kiln-go/kiln/internal/simd"
	"github.com/kiln-go/kiln/kernels"
	"github.com/kiln-go/kiln/tensor"
)

// Kernels other than products keep no caller's array after a Run either:
// control flow (cond operands, a while's captured inputs), sorts, gathers,
// scatters, reductions, cumulative sums, f16 products and conv variants.
func TestS35OtherKernelsHoldNothing(t *testing.T) {
	conv := func(x, w kiln.Value, dn [3]string, opts ...kiln.DotOption) kiln.Value {
		return kiln.ConvGeneralDilated(x, w, kiln.ConvOptions{PaddingMode: "SAME", DimensionNumbers: dn}, opts...)
	}
	nhwc := [3]string{"NHWC", "HWIO", "NHWC"}
	nchw := [3]string{"NCHW", "OIHW", "NCHW"}
	i32 := kiln.PreferredElementType(tensor.I32)
	cases := []struct {
		name   string
		fn     func(a ...kiln.Value) []kiln.Value
		dtypes []tensor.DType
		shapes [][]int
	}{
		{"cond-operand", func(a ...kiln.Value) []kiln.Value {
			return kiln.Cond(a[1].Sum().Gt(kiln.Float(-1)),
				func(o []kiln.Value) []kiln.Value { return []kiln.Value{o[0].Mul(kiln.Float(2))} },
				func(o []kiln.Value) []kiln.Value { return []kiln.Value{o[0].Add(kiln.Float(2))} }, a[0])
		}, []tensor.DType{tensor.F32, tensor.F32}, [][]int{{64, 64}, {4}}},
		{"while-captured", func(a ...kiln.Value) []kiln.Value {
			return kiln.ForiLoop(kiln.Int(0), kiln.Int(3), func(i kiln.Value, c []kiln.Value) []kiln.Value {
				return []kiln.Value{c[0].MatMul(a[1]).Tanh()}
			}, a[0])
		}, []tensor.DType{tensor.F32, tensor.F32}, [][]int{{64, 64}, {64, 64}}},
		{"scan-xs", func(a ...kiln.Value) []kiln.Value {
			c, ys := kiln.Scan(func(c, x []kiln.Value) ([]kiln.Value, []kiln.Value) {
				n := c[0].Add(x[0].Mul(a[1]))
				return []kiln.Value{n}, []kiln.Value{n.Sum()}
			}, []kiln.Value{kiln.Float(0).Astype(tensor.F32).BroadcastTo(64)}, []kiln.Value{a[0]})
			return append(c, ys...)
		}, []tensor.DType{tensor.F32, tensor.F32}, [][]int{{16, 64}, {64}}},
		{"sort", func(a ...kiln.Value) []kiln.Value { return []kiln.Value{a[0].Sort(1), kiln.Argsort(a[0], 0)} },
			[]tensor.DType{tensor.F32}, [][]int{{64, 300}}},
		{"topk", func(a ...kiln.Value) []kiln.Value { v, i := kiln.TopK(a[0], 5); return []kiln.Value{v, i} },
			[]tensor.DType{tensor.F32}, [][]int{{64, 300}}},
		{"take", func(a ...kiln.Value) []kiln.Value { return []kiln.Value{kiln.Take(a[0], a[1], 0)} },
			[]tensor.DType{tensor.F32, tensor.I32}, [][]int{{64, 300}, {100}}},
		{"reduce", func(a ...kiln.Value) []kiln.Value {
			return []kiln.Value{a[0].Sum(1), a[0].Max(0), a[0].ArgMax(1), a[0].Var(0, 0), a[0].Std(0, 1)}
		}, []tensor.DType{tensor.F32}, [][]int{{64, 3000}}},
		{"cumsum", func(a ...kiln.Value) []kiln.Value { return []kiln.Value{a[0].Cumsum(1)} },
			[]tensor.DType{tensor.F32}, [][]int{{64, 3000}}},
		{"cumsum-small", func(a ...kiln.Value) []kiln.Value { return []kiln.Value{a[0].Cumsum(1)} },
			[]tensor.DType{tensor.F32}, [][]int{{4, 30}}},
		{"transpose", func(a ...kiln.Value) []kiln.Value { return []kiln.Value{a[0].Transpose(1, 0).Exp()} },
			[]tensor.DType{tensor.F32}, [][]int{{64, 300}}},
		{"concat", func(a ...kiln.Value) []kiln.Value { return []kiln.Value{kiln.Concatenate(0, a[0], a[0].Exp())} },
			[]tensor.DType{tensor.F32}, [][]int{{64, 300}}},
		{"mean0", func(a ...kiln.Value) []kiln.Value { return []kiln.Value{a[0].Mean(0)} },
			[]tensor.DType{tensor.F32}, [][]int{{64, 3000}}},
		{"sumsq0", func(a ...kiln.Value) []kiln.Value { return []kiln.Value{a[0].Mul(a[0]).Sum(0)} },
			[]tensor.DType{tensor.F32}, [][]int{{64, 3000}}},
		{"centered0", func(a ...kiln.Value) []kiln.Value { d := a[0].Sub(a[0].Sum(0)); return []kiln.Value{d.Mul(d).Sum(0)} },
			[]tensor.DType{tensor.F32}, [][]int{{64, 3000}}},
		{"reduce-f64", func(a ...kiln.Value) []kiln.Value { return []kiln.Value{a[0].Sum(0), a[0].Min(1)} },
			[]tensor.DType{tensor.F64}, [][]int{{3000, 10}}},
		{"f16-dot", func(a ...kiln.Value) []kiln.Value {
			return []kiln.Value{a[0].MatMul(a[1]), a[0].MatMul(a[1]).Add(kiln.Float(1))}
		},
			[]tensor.DType{tensor.F16, tensor.F16}, [][]int{{64, 96}, {96, 80}}},
		{"f64-dot-narrowN", func(a ...kiln.Value) []kiln.Value { return []kiln.Value{a[0].MatMul(a[1]).Exp()} },
			[]tensor.DType{tensor.F64, tensor.F64}, [][]int{{512, 96}, {96, 3}}},
		{"conv-nchw", func(a ...kiln.Value) []kiln.Value { return []kiln.Value{conv(a[0], a[1], nchw).Tanh()} },
			[]tensor.DType{tensor.F32, tensor.F32}, [][]int{{2, 16, 14, 14}, {32, 16, 3, 3}}},
		{"conv-f16", func(a ...kiln.Value) []kiln.Value { return []kiln.Value{conv(a[0], a[1], nhwc)} },
			[]tensor.DType{tensor.F16, tensor.F16}, [][]int{{2, 14, 14, 16}, {3, 3, 16, 32}}},
		{"conv-bf16-epi-nchw", func(a ...kiln.Value) []kiln.Value { return []kiln.Value{conv(a[0], a[1], nchw).Add(kiln.Float(1))} },
			[]tensor.DType{tensor.BF16, tensor.BF16}, [][]int{{2, 16, 14, 14}, {32, 16, 3, 3}}},
		{"conv-i8-nchw-epi", func(a ...kiln.Value) []kiln.Value { return []kiln.Value{conv(a[0], a[1], nchw, i32).Add(kiln.Int(1))} },
			[]tensor.DType{tensor.I8, tensor.I8}, [][]int{{2, 16, 14, 14}, {32, 16, 3, 3}}},
		{"conv-batch", func(a ...kiln.Value) []kiln.Value { return []kiln.Value{conv(a[0], a[1], nhwc).Add(kiln.Float(1))} },
			[]tensor.DType{tensor.F32, tensor.F32}, [][]int{{64, 6, 6, 16}, {3, 3, 16, 32}}},
		{"groups", func(a ...kiln.Value) []kiln.Value {
			var outs []kiln.Value
			for i := range 3 {
				outs = append(outs, a[0].Mul(kiln.Float(float64(i))).MatMul(a[1]).Sum(0), a[0].Add(kiln.Float(float64(i))).Max(1))
			}
			return outs
		}, []tensor.DType{tensor.F32, tensor.F32}, [][]int{{64, 96}, {96, 80}}},
	}
	for _, c := range cases {
		for _, workers := range []int{1, 3} {
			t.Run(fmt.Sprintf("%s/%d", c.name, workers), func(t *testing.T) {
				f := kiln.Jit(c.fn, kiln.WithBackend(kernels.NewCPU(kernels.CPUOptions{Workers: workers, ParallelMin: 1, GroupAll: true})))
				checkReleased(t, f, func(*rand.Rand) []any {
					args := make([]any, len(c.shapes))
					for i, s := range c.shapes {
						args[i] = tensor.Must(tensor.Zeros(c.dtypes[i], s...))
					}
					return args
				})
			})
		}
	}
	// Byte convolutions on the float GEMM (no VNNI: the AVX2 tier).
	for _, tier := range simd.Available() {
		restore := simd.SetLevel(tier)
		t.Run("conv-i8float/"+tier.String(), func(t *testing.T) {
			f := kiln.Jit(func(a, b kiln.Value) kiln.Value { return conv(a, b, nhwc, i32) },
				kiln.WithBackend(kernels.NewCPU(kernels.CPUOptions{Workers: 2, ParallelMin: 1})))
			checkReleased(t, f, func(*rand.Rand) []any {
				return []any{tensor.Must(tensor.Zeros(tensor.I8, 2, 14, 14, 16)), tensor.Must(tensor.Zeros(tensor.I8, 3, 3, 16, 32))}
			})
		})
		restore()
	}
}

// SPEC §Cancellation: after a stopped run "nothing refers to the caller's
// arrays". A while loop whose body reads a caller's input array (a
// captured weight), stopped by its deadline, must let that array go.
func TestS35StoppedWhileHoldsCapturedInput(t *testing.T) {
	f := kiln.Jit(func(x, w kiln.Value) kiln.Value {
		return kiln.WhileLoop(func(c []kiln.Value) kiln.Value { return kiln.Bool(true) },
			func(c []kiln.Value) []kiln.Value { return []kiln.Value{c[0].Mul(w).Tanh()} }, x)[0]
	})
	collected := make(chan string, 4)
	func() {
		x := tensor.Must(tensor.Zeros(tensor.F32, 1<<16))
		w := tensor.Must(tensor.Zeros(tensor.F32, 1<<16))
		runtime.AddCleanup(&w.Data().([]float32)[0], func(s string) { collected <- s }, "w")
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		defer cancel()
		if _, err := f.RunContext(ctx, x, w); !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("RunContext = %v, want context.DeadlineExceeded", err)
		}
	}()
	for deadline := time.Now().Add(5 * time.Second); ; {
		if time.Now().After(deadline) {
			t.Fatal("the captured input w is still referenced after the stopped run")
		}
		runtime.GC()
		select {
		case <-collected:
			runtime.KeepAlive(f)
			return
		case <-time.After(10 * time.Millisecond):
		}
	}
}
