package kiln_test

import (
	"errors"
	"fmt"
	"runtime"
	"slices"
	"testing"

	"github.com/kiln-go/kiln"
	"github.com/kiln-go/kiln/internal/reference"
	"github.com/kiln-go/kiln/internal/simd"
	"github.com/kiln-go/kiln/kernels"
	"github.com/kiln-go/kiln/tensor"
)

// packedArg is an m×n array of dtype d (a sub-byte integer) holding every
// value of the format in a scrambled order, packed and unpacked.
func packedArg(t *testing.T, d tensor.DType, m, n, seed int) (packed, unpacked *tensor.Array) {
	t.Helper()
	f, _ := d.IntFormat()
	span := int(f.Max() - f.Min() + 1)
	x := make([]int8, m*n)
	for i := range x {
		x[i] = int8(f.Min() + int64((i*seed+i/3)%span))
	}
	unpacked = tensor.Must(tensor.FromSlice(x, m, n)).Astype(d)
	packed, err := unpacked.Pack()
	if err != nil {
		t.Fatal(err)
	}
	return packed, unpacked
}

// A compiled program (fused, and op by op) run on packed sub-byte inputs
// gives the bits it gives on the same values unpacked, and the reference
// evaluator's: an i8 × i4 matmul with preferred_element_type i32 (the
// int8 GEMM reads the i4 operand past its convert), a u4 × u4 one,
// elementwise arithmetic, a reduction, and a program returning a packed
// input itself. The packed bytes (padding bits included) are not written.
func TestPackedInputsRun(t *testing.T) {
	const m, k, n = 13, 37, 11 // odd sizes: every packed operand ends mid-byte
	x8 := make([]int8, m*k)
	for i := range x8 {
		x8[i] = int8(i*53 + 7)
	}
	x := tensor.Must(tensor.FromSlice(x8, m, k))
	progs := []struct {
		name string
		fn   func(x, w kiln.Value) []kiln.Value
	}{
		{"matmul i8×w→i32", func(x, w kiln.Value) []kiln.Value {
			return []kiln.Value{kiln.MatMul(x, w.Astype(tensor.I8), kiln.PreferredElementType(tensor.I32))}
		}},
		{"matmul w×w→i32", func(x, w kiln.Value) []kiln.Value {
			return []kiln.Value{kiln.MatMul(w.Transpose(1, 0), w, kiln.PreferredElementType(tensor.I32))}
		}},
		{"elementwise and sum", func(x, w kiln.Value) []kiln.Value {
			v := w.Astype(tensor.F32).Mul(kiln.Float(0.5)).Add(kiln.Float(1))
			return []kiln.Value{v, w.Astype(tensor.I32).Sum(), w.Add(w)}
		}},
		{"identity", func(x, w kiln.Value) []kiln.Value { return []kiln.Value{w, x} }},
	}
	for _, d := range []tensor.DType{tensor.I4, tensor.U4, tensor.I2, tensor.U2} {
		wp, wu := packedArg(t, d, k, n, 29)
		if d == tensor.I4 || d == tensor.U4 {
			if got, want := wp.NBytes(), (k*n+1)/2; got != want {
				t.Fatalf("%v weight: %d bytes, want %d", d, got, want)
			}
		}
		// Garbage in the unused high bits of the last byte must be ignored.
		raw := slices.Clone(wp.PackedBytes())
		f, _ := d.IntFormat()
		if pad := (k * n * f.Bits()) % 8; pad != 0 {
			raw[len(raw)-1] |= 0xff << pad
		}
		wp = tensor.Must(tensor.FromPacked(d, []int{k, n}, raw))
		saved := slices.Clone(raw)
		for _, pr := range progs {
			for _, fuse := range []bool{true, false} {
				name := fmt.Sprintf("%v %s fused=%v", d, pr.name, fuse)
				var opts []kiln.Option
				if !fuse {
					opts = append(opts, kiln.NoFusion())
				}
				fn := kiln.Jit(pr.fn, opts...)
				want, err := fn.RunAll(x, wu)
				if err != nil {
					t.Fatalf("%s unpacked: %v", name, err)
				}
				for rep := range 2 { // the second run reuses the unpack scratch
					got, err := fn.RunAll(x, wp)
					if err != nil {
						t.Fatalf("%s packed: %v", name, err)
					}
					for i := range want {
						if got[i].IsPacked() || !tensor.Equal(got[i], want[i]) {
							t.Fatalf("%s run %d: output %d %v, want %v", name, rep, i, got[i], want[i])
						}
					}
					outs := make([]*tensor.Array, len(want))
					for i, w := range want {
						outs[i] = tensor.Must(tensor.Zeros(w.DType(), w.Shape()...))
					}
					if err := fn.RunInto(outs, x, wp); err != nil {
						t.Fatalf("%s RunInto: %v", name, err)
					}
					for i := range want {
						if !tensor.Equal(outs[i], want[i]) {
							t.Fatalf("%s RunInto output %d %v, want %v", name, i, outs[i], want[i])
						}
					}
				}
				prog, err := fn.Trace(x, wp)
				if err != nil {
					t.Fatalf("%s trace: %v", name, err)
				}
				ref, err := reference.Eval(prog, []*tensor.Array{x, wp}, refOptions)
				if err != nil {
					t.Fatalf("%s reference: %v", name, err)
				}
				for i := range want {
					if !tensor.Equal(ref[i], want[i]) {
						t.Fatalf("%s: reference output %d %v, want %v", name, i, ref[i], want[i])
					}
				}
				if !slices.Equal(wp.PackedBytes(), saved) {
					t.Fatalf("%s: the packed input was written", name)
				}
			}
		}
	}
}

// A packed array is no RunInto output (the kernels write one element a
// byte): an *ArgError, not a silently lost result. Release ignores it.
func TestPackedOutputRefused(t *testing.T) {
	wp, wu := packedArg(t, tensor.I4, 3, 5, 7)
	fn := kiln.Jit(func(w kiln.Value) kiln.Value { return w.Neg() })
	out, err := wu.Pack()
	if err != nil {
		t.Fatal(err)
	}
	var ae *kiln.ArgError
	var ke *kernels.ArgError
	err = fn.RunInto([]*tensor.Array{out}, wp)
	if err == nil || !errors.As(err, &ae) && !errors.As(err, &ke) {
		t.Fatalf("RunInto a packed output: %v, want an *ArgError", err)
	}
	fn.Release(out)
	got, err := fn.Run(wp)
	if err != nil || got == out || got.IsPacked() {
		t.Fatalf("Run after releasing a packed array: %v (%p, packed %v), %v", got, got, got.IsPacked(), err)
	}
	want, _ := fn.Run(wu)
	if !tensor.Equal(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
}

// A packed array captured as a constant is a constant of its values.
func TestPackedConst(t *testing.T) {
	wp, wu := packedArg(t, tensor.U4, 4, 7, 3)
	run := func(w *tensor.Array) *tensor.Array {
		out, err := kiln.Jit(func(x kiln.Value) kiln.Value { return x.Add(kiln.Const(w)) }).Run(wu)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	if got, want := run(wp), run(wu); !tensor.Equal(got, want) {
		t.Fatalf("packed const: %v, want %v", got, want)
	}
}

// A packed 4-bit weight goes into a compiled program without a full-size
// unpacked copy where only the int8 GEMM reads it: the first Run on a
// packed 2048×2048 i4 weight (4 MiB unpacked, 2 MiB packed) allocates
// less than half the 4 MiB an unpack would (measured with runtime.MemStats
// around that Run, the program compiled and run once on the unpacked
// weight before). Where the GEMM is not the VNNI one, the weight is
// unpacked into scratch and the run's allocation is at least its size.
func TestPackedWeightNotUnpacked(t *testing.T) {
	const m, k, n = 4, 2048, 2048
	fn := kiln.Jit(func(x, w kiln.Value) kiln.Value {
		return kiln.MatMul(x, w.Astype(tensor.I8), kiln.PreferredElementType(tensor.I32))
	})
	x := tensor.Must(tensor.Zeros(tensor.I8, m, k))
	wp, wu := packedArg(t, tensor.I4, k, n, 5)
	out := tensor.Must(tensor.Zeros(tensor.I32, m, n))
	if err := fn.RunInto([]*tensor.Array{out}, x, wu); err != nil {
		t.Fatal(err)
	}
	want := out.Clone()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before) // no runtime.GC first: it empties the GEMM's sync.Pool workspaces
	if err := fn.RunInto([]*tensor.Array{out}, x, wp); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	if !tensor.Equal(out, want) {
		t.Fatalf("packed run differs from the unpacked one")
	}
	alloc := after.TotalAlloc - before.TotalAlloc
	if _, fast := simd.GemmI8(); fast {
		if alloc > k*n/2 { // the GEMM's panels and whatever else runs meanwhile: far below the copy
			t.Errorf("the run on the packed weight allocated %d bytes; an unpacked copy is %d", alloc, k*n)
		}
	} else if alloc < k*n {
		t.Errorf("without the VNNI GEMM the packed weight is unpacked into scratch, yet the run allocated only %d bytes (< %d)", alloc, k*n)
	}
}
