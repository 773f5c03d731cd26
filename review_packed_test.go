package kiln_test

import (
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/kiln-go/kiln"
	"github.com/kiln-go/kiln/internal/reference"
	"github.com/kiln-go/kiln/kernels/opencl"
	"github.com/kiln-go/kiln/tensor"
)

// reviewPackedCheck runs fn on args (packed) and on the same args
// unpacked, fused and not, and against the reference; it also checks the
// packed bytes are not written.
func reviewPackedCheck(t *testing.T, name string, fn any, args ...*tensor.Array) {
	t.Helper()
	un := make([]any, len(args))
	pk := make([]any, len(args))
	saved := make([][]byte, len(args))
	for i, a := range args {
		pk[i] = a
		un[i] = a.Unpack()
		saved[i] = slices.Clone(a.PackedBytes())
	}
	for _, fuse := range []bool{true, false} {
		var opts []kiln.Option
		if !fuse {
			opts = append(opts, kiln.NoFusion())
		}
		f := kiln.Jit(fn, opts...)
		want, err := f.RunAll(un...)
		if err != nil {
			t.Fatalf("%s fused=%v unpacked: %v", name, fuse, err)
		}
		for rep := range 2 {
			got, err := f.RunAll(pk...)
			if err != nil {
				t.Fatalf("%s fused=%v packed: %v", name, fuse, err)
			}
			for i := range want {
				if !tensor.Equal(got[i], want[i]) {
					t.Fatalf("%s fused=%v rep %d: output %d\n%v\nwant\n%v", name, fuse, rep, i, got[i], want[i])
				}
			}
		}
		if !fuse {
			continue // the reference was compared with the fused run
		}
		prog, err := f.Trace(pk...)
		if err != nil {
			t.Fatal(err)
		}
		ref, err := reference.Eval(prog, args, refOptions)
		if err != nil {
			t.Fatalf("%s reference: %v", name, err)
		}
		for i := range want {
			if !tensor.Equal(ref[i], want[i]) {
				t.Fatalf("%s: reference output %d %v, want %v", name, i, ref[i], want[i])
			}
		}
	}
	for i, a := range args {
		if !slices.Equal(a.PackedBytes(), saved[i]) {
			t.Fatalf("%s: input %d written", name, i)
		}
	}
}

func reviewPackedI8(m, n, seed int) *tensor.Array {
	x := make([]int8, m*n)
	for i := range x {
		x[i] = int8(i*seed + 7*i/5 + 3)
	}
	return tensor.Must(tensor.FromSlice(x, m, n))
}

// TestReviewPackedGEMMShapes: the packed operand of the int8 GEMM read in
// place in every position: as rhs, as lhs, transposed, batched, reshaped
// from a flat input, twice in one product, and also read by another op.
func TestReviewPackedGEMMShapes(t *testing.T) {
	const m, k, n = 5, 35, 9
	i8 := tensor.I8
	pref := kiln.PreferredElementType(tensor.I32)
	for _, d := range []tensor.DType{tensor.I4, tensor.U4, tensor.I2, tensor.U2} {
		x := reviewPackedI8(m, k, 13)
		xt := reviewPackedI8(k, m, 11)
		wKN, _ := packedArg(t, d, k, n, 29)
		wNK, _ := packedArg(t, d, n, k, 31)
		wMK, _ := packedArg(t, d, m, k, 17)
		flat := tensor.Must(wKN.Reshape(k * n))
		cases := []struct {
			name string
			fn   any
			args []*tensor.Array
		}{
			{"rhs", func(x, w kiln.Value) kiln.Value { return kiln.MatMul(x, w.Astype(i8), pref) }, []*tensor.Array{x, wKN}},
			{"rhs transposed", func(x, w kiln.Value) kiln.Value { return kiln.MatMul(x, w.Transpose(1, 0).Astype(i8), pref) }, []*tensor.Array{x, wNK}},
			{"rhs transposed after astype", func(x, w kiln.Value) kiln.Value { return kiln.MatMul(x, w.Astype(i8).Transpose(1, 0), pref) }, []*tensor.Array{x, wNK}},
			{"lhs", func(w, x kiln.Value) kiln.Value { return kiln.MatMul(w.Astype(i8), x, pref) }, []*tensor.Array{wMK, reviewPackedI8(k, n, 3)}},
			{"lhs transposed", func(w, x kiln.Value) kiln.Value { return kiln.MatMul(w.Astype(i8).Transpose(1, 0), x, pref) }, []*tensor.Array{wKN, reviewPackedI8(k, 4, 3)}},
			{"reshaped flat", func(x, w kiln.Value) kiln.Value { return kiln.MatMul(x, w.Reshape(k, n).Astype(i8), pref) }, []*tensor.Array{x, flat}},
			{"also summed", func(x, w kiln.Value) []kiln.Value {
				return []kiln.Value{kiln.MatMul(x, w.Astype(i8), pref), w.Astype(tensor.I32).Sum()}
			}, []*tensor.Array{x, wKN}},
			{"also returned", func(x, w kiln.Value) []kiln.Value {
				return []kiln.Value{kiln.MatMul(x, w.Astype(i8), pref), w.Reshape(n, k)}
			}, []*tensor.Array{x, wKN}},
			{"also sliced", func(x, w kiln.Value) []kiln.Value {
				return []kiln.Value{kiln.MatMul(x, w.Astype(i8), pref), w.Astype(tensor.I32).Mul(kiln.Int(3))}
			}, []*tensor.Array{x, wKN}},
			{"also astype i8 returned", func(x, w kiln.Value) []kiln.Value {
				c := w.Astype(i8)
				return []kiln.Value{kiln.MatMul(x, c, pref), c}
			}, []*tensor.Array{x, wKN}},
			{"two products", func(x, w, v kiln.Value) []kiln.Value {
				return []kiln.Value{kiln.MatMul(x, w.Astype(i8), pref), kiln.MatMul(v.Astype(i8), w.Astype(i8), pref)}
			}, []*tensor.Array{x, wKN, wMK}},
			{"xt·w, x is i8 transposed", func(xt, w kiln.Value) kiln.Value { return kiln.MatMul(xt.Transpose(1, 0), w.Astype(i8), pref) }, []*tensor.Array{xt, wKN}},
			{"i8 result", func(x, w kiln.Value) kiln.Value {
				return kiln.MatMul(x, w.Astype(i8), kiln.PreferredElementType(tensor.I8))
			}, []*tensor.Array{x, wKN}},
			{"i16 result", func(x, w kiln.Value) kiln.Value {
				return kiln.MatMul(x, w.Astype(i8), kiln.PreferredElementType(tensor.I16))
			}, []*tensor.Array{x, wKN}},
			{"with epilogue", func(x, w kiln.Value) kiln.Value {
				return kiln.MatMul(x, w.Astype(i8), pref).Add(kiln.Int(1)).Mul(kiln.Int(2))
			}, []*tensor.Array{x, wKN}},
			{"same array twice", func(w, v kiln.Value) kiln.Value {
				return kiln.MatMul(w.Transpose(1, 0).Astype(i8), v.Astype(i8), pref)
			}, []*tensor.Array{wKN, wKN}},
			{"loop reads w", func(x, w kiln.Value) []kiln.Value {
				p := kiln.MatMul(x, w.Astype(i8), pref)
				r := kiln.ForiLoop(kiln.Int(0), kiln.Int(3), func(i kiln.Value, c []kiln.Value) []kiln.Value {
					return []kiln.Value{c[0].Add(w.Astype(tensor.I32))}
				}, kiln.Zeros([]int{k, n}, tensor.I32))
				return []kiln.Value{p, r[0]}
			}, []*tensor.Array{x, wKN}},
			{"product in loop", func(x, w kiln.Value) []kiln.Value {
				r := kiln.ForiLoop(kiln.Int(0), kiln.Int(3), func(i kiln.Value, c []kiln.Value) []kiln.Value {
					return []kiln.Value{c[0].Add(kiln.MatMul(x, w.Astype(i8), pref))}
				}, kiln.Zeros([]int{m, n}, tensor.I32))
				return r
			}, []*tensor.Array{x, wKN}},
		}
		for _, c := range cases {
			reviewPackedCheck(t, fmt.Sprintf("%v %s", d, c.name), c.fn, c.args...)
		}
		// batched: [B,M,K]·[B,K,N]
		const B = 3
		xb := tensor.Must(reviewPackedI8(B*m, k, 5).Reshape(B, m, k))
		wbP, _ := packedArg(t, d, B*k, n, 7)
		wb := tensor.Must(wbP.Reshape(B, k, n))
		reviewPackedCheck(t, fmt.Sprintf("%v batched", d), func(x, w kiln.Value) kiln.Value { return kiln.MatMul(x, w.Astype(i8), pref) }, xb, wb)
		reviewPackedCheck(t, fmt.Sprintf("%v batched x, shared w", d), func(x, w kiln.Value) kiln.Value { return kiln.MatMul(x, w.Astype(i8), pref) }, xb, wKN)
		reviewPackedCheck(t, fmt.Sprintf("%v vmap shared w", d), func(x, w kiln.Value) kiln.Value {
			return kiln.Vmap(func(x, w kiln.Value) kiln.Value { return kiln.MatMul(x, w.Astype(i8), pref) }, kiln.InAxes(0, kiln.NoAxis))(x, w)[0]
		}, xb, wKN)
		reviewPackedCheck(t, fmt.Sprintf("%v vmap batched w", d), func(x, w kiln.Value) kiln.Value {
			return kiln.Vmap(func(x, w kiln.Value) kiln.Value { return kiln.MatMul(x, w.Astype(i8), pref) })(x, w)[0]
		}, xb, wb)
		reviewPackedCheck(t, fmt.Sprintf("%v vmap over w axis 1", d), func(x, w kiln.Value) kiln.Value {
			return kiln.Vmap(func(x, w kiln.Value) kiln.Value { return kiln.MatMul(x, w.Astype(i8), pref) }, kiln.InAxes(kiln.NoAxis, 1))(x, w)[0]
		}, x, tensor.Must(wbP.Reshape(k, B, n)))
	}
}

// TestReviewPackedRunEdges: zero-size packed inputs, checked mode,
// contexts, Eval of a packed Const, grad with a packed non-differentiated
// input, and an output that overlaps a packed input's bytes.
func TestReviewPackedRunEdges(t *testing.T) {
	for _, d := range []tensor.DType{tensor.I4, tensor.U4, tensor.I2, tensor.U2} {
		z := tensor.Must(tensor.FromPacked(d, []int{0, 3}, nil))
		x0 := tensor.Must(tensor.Zeros(tensor.I8, 4, 0))
		reviewPackedCheck(t, fmt.Sprintf("%v zero-size matmul", d), func(x, w kiln.Value) kiln.Value {
			return kiln.MatMul(x, w.Astype(tensor.I8), kiln.PreferredElementType(tensor.I32))
		}, x0, z)
		reviewPackedCheck(t, fmt.Sprintf("%v zero-size identity", d), func(w kiln.Value) []kiln.Value { return []kiln.Value{w, w.Astype(tensor.F32)} }, z)
		one := tensor.Must(tensor.FromPacked(d, nil, []byte{0xfe}))
		reviewPackedCheck(t, fmt.Sprintf("%v scalar", d), func(w kiln.Value) []kiln.Value { return []kiln.Value{w, w.Astype(tensor.F32).Add(kiln.Float(1))} }, one)

		wp, wu := packedArg(t, d, 7, 9, 3)
		x := reviewPackedI8(2, 7, 5)
		mm := func(x, w kiln.Value) kiln.Value {
			return kiln.MatMul(x, w.Astype(tensor.I8), kiln.PreferredElementType(tensor.I32))
		}
		want, err := kiln.Jit(mm).Run(x, wu)
		if err != nil {
			t.Fatal(err)
		}
		got, err := kiln.Jit(mm, kiln.Checked()).Run(x, wp)
		if err != nil || !tensor.Equal(got, want) {
			t.Fatalf("%v checked: %v %v", d, got, err)
		}
		got, err = kiln.Jit(mm).RunContext(t.Context(), x, wp)
		if err != nil || !tensor.Equal(got, want) {
			t.Fatalf("%v context: %v %v", d, got, err)
		}
		ev, err := kiln.Eval(mm(kiln.Const(x), kiln.Const(wp)))
		if err != nil || !tensor.Equal(ev, want) {
			t.Fatalf("%v Eval: %v %v", d, ev, err)
		}
		// grad with respect to a float input, the packed one a parameter
		xf := tensor.Must(tensor.Zeros(tensor.F32, 7, 9))
		g := func(x, w kiln.Value) kiln.Value {
			return kiln.Grad(func(x, w kiln.Value) kiln.Value { return x.Mul(w.Astype(tensor.F32)).Sum() }, 0)(x, w)[0]
		}
		gw, err := kiln.Jit(g).Run(xf, wu)
		if err != nil {
			t.Fatal(err)
		}
		gp, err := kiln.Jit(g).Run(xf, wp)
		if err != nil || !tensor.Equal(gp, gw) {
			t.Fatalf("%v grad: %v %v", d, gp, err)
		}
	}
}

// TestReviewPackedConcurrent: one compiled function, many goroutines,
// each with its own packed inputs (some read by the GEMM only, some
// unpacked): every result is its own.
func TestReviewPackedConcurrent(t *testing.T) {
	const k, n = 33, 17
	fn := kiln.Jit(func(x, w, v kiln.Value) []kiln.Value {
		return []kiln.Value{kiln.MatMul(x, w.Astype(tensor.I8), kiln.PreferredElementType(tensor.I32)), v.Astype(tensor.I32).Sum(0)}
	})
	type job struct {
		x, w, v *tensor.Array
		want    []*tensor.Array
	}
	var jobs []job
	for s := range 8 {
		x := reviewPackedI8(3, k, 3+s)
		w, wu := packedArg(t, tensor.I4, k, n, 5+2*s)
		v, vu := packedArg(t, tensor.U2, k, n, 7+2*s)
		want, err := fn.RunAll(x, wu, vu)
		if err != nil {
			t.Fatal(err)
		}
		jobs = append(jobs, job{x, w, v, want})
	}
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for g := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := range 20 {
				j := jobs[(g+r)%len(jobs)]
				got, err := fn.RunAll(j.x, j.w, j.v)
				if err != nil {
					errs <- err
					return
				}
				for i := range got {
					if !tensor.Equal(got[i], j.want[i]) {
						errs <- fmt.Errorf("goroutine %d run %d output %d differs", g, r, i)
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

// TestReviewPackedOverlap: RunInto into an output sharing the packed
// input's bytes is refused (an *ArgError) or correct; the packed input
// must not be half-overwritten mid-run.
func TestReviewPackedOverlap(t *testing.T) {
	wp, wu := packedArg(t, tensor.I4, 8, 8, 3)
	f := kiln.Jit(func(w kiln.Value) kiln.Value { return w.Astype(tensor.U8).Sum(0).Reshape(2, 4) })
	want, err := f.Run(wu)
	if err != nil {
		t.Fatal(err)
	}
	b := slices.Clone(wp.PackedBytes())
	in := tensor.Must(tensor.FromPacked(tensor.I4, []int{8, 8}, b))
	out := tensor.Must(tensor.FromSlice(b[:8], 2, 4))
	err = f.RunInto([]*tensor.Array{out}, in)
	var ae *kiln.ArgError
	if err == nil {
		if !tensor.Equal(out, want) {
			t.Fatalf("overlapping RunInto: %v, want %v", out, want)
		}
	} else if !errors.As(err, &ae) {
		t.Logf("overlap refused with %T: %v", err, err)
	}
}

// TestReviewPackedBackends: OpenCL takes a packed input or refuses it
// with a typed error.
func TestReviewPackedBackends(t *testing.T) {
	b, err := opencl.New(opencl.Options{})
	if err != nil {
		t.Skipf("no OpenCL: %v", err)
	}
	wp, wu := packedArg(t, tensor.I4, 5, 7, 3)
	fn := func(w kiln.Value) []kiln.Value { return []kiln.Value{w.Astype(tensor.F32).Mul(kiln.Float(2)), w} }
	want, err := kiln.Jit(fn).RunAll(wu)
	if err != nil {
		t.Fatal(err)
	}
	f := kiln.Jit(fn, kiln.WithBackend(b))
	gotU, errU := f.RunAll(wu)
	got, err := f.RunAll(wp)
	t.Logf("unpacked on OpenCL: %v", errU)
	if err != nil {
		if errU == nil {
			t.Fatalf("OpenCL runs the unpacked input but refuses the packed one: %v", err)
		}
		t.Logf("refused: %T %v", err, err)
		return
	}
	for i := range want {
		if !tensor.Equal(got[i], want[i]) || errU == nil && !tensor.Equal(gotU[i], want[i]) {
			t.Fatalf("OpenCL output %d: %v, want %v", i, got[i], want[i])
		}
	}
}

// TestReviewPackedOutputs: a packed RunInto output is refused for every
// program form, including those no kernel computes (a returned input, a
// constant), never filled into a lost copy.
func TestReviewPackedOutputs(t *testing.T) {
	for _, d := range []tensor.DType{tensor.I4, tensor.U2} {
		wp, wu := packedArg(t, d, 3, 5, 7)
		c := wu.Clone()
		progs := map[string]any{
			"identity": func(w kiln.Value) kiln.Value { return w },
			"reshape":  func(w kiln.Value) kiln.Value { return w.Reshape(3, 5) },
			"const":    func(w kiln.Value) kiln.Value { return kiln.Const(c) },
			"neg":      func(w kiln.Value) kiln.Value { return w.Neg() },
		}
		for name, fn := range progs {
			for _, opts := range [][]kiln.Option{nil, {kiln.NoFusion()}, {kiln.Checked()}} {
				out := tensor.Must(tensor.FromPacked(d, []int{3, 5}, make([]byte, wp.NBytes())))
				err := kiln.Jit(fn, opts...).RunInto([]*tensor.Array{out}, wp)
				if err == nil {
					t.Errorf("%v %s %d opts: RunInto a packed output succeeded (out %v)", d, name, len(opts), out)
				}
			}
		}
	}
}

// TestReviewPackedMixedGEMM: u8 × packed i4, and packed i4 × packed u4,
// zero-width products.
func TestReviewPackedMixedGEMM(t *testing.T) {
	pref := kiln.PreferredElementType(tensor.I32)
	u := tensor.Must(tensor.FromSlice(func() []uint8 {
		s := make([]uint8, 6*21)
		for i := range s {
			s[i] = uint8(i*37 + 200)
		}
		return s
	}(), 6, 21))
	w, _ := packedArg(t, tensor.I4, 21, 5, 3)
	v, _ := packedArg(t, tensor.U4, 6, 21, 5)
	reviewPackedCheck(t, "u8×i4", func(x, w kiln.Value) kiln.Value { return kiln.MatMul(x, w.Astype(tensor.I8), pref) }, u, w)
	reviewPackedCheck(t, "u4×i4", func(v, w kiln.Value) kiln.Value { return kiln.MatMul(v.Astype(tensor.I8), w.Astype(tensor.I8), pref) }, v, w)
	reviewPackedCheck(t, "u4 as u8 × i4", func(v, w kiln.Value) kiln.Value { return kiln.MatMul(v.Astype(tensor.U8), w.Astype(tensor.I8), pref) }, v, w)
	e, _ := tensor.FromPacked(tensor.I4, []int{21, 0}, nil)
	reviewPackedCheck(t, "n=0", func(v, w kiln.Value) kiln.Value { return kiln.MatMul(v.Astype(tensor.I8), w.Astype(tensor.I8), pref) }, v, e)
	e2, _ := tensor.FromPacked(tensor.U4, []int{0, 21}, nil)
	reviewPackedCheck(t, "m=0", func(v, w kiln.Value) kiln.Value { return kiln.MatMul(v.Astype(tensor.I8), w.Astype(tensor.I8), pref) }, e2, w)
	// dot_general with batch dims in the middle and contracting first
	wb, _ := packedArg(t, tensor.I4, 4*3, 5, 9) // [4,3,5] viewed
	wb3 := tensor.Must(wb.Reshape(4, 3, 5))
	xb := tensor.Must(reviewPackedI8(3*2, 4, 11).Reshape(3, 2, 4))
	reviewPackedCheck(t, "dot_general batch mid", func(x, w kiln.Value) kiln.Value {
		return kiln.DotGeneral(x, w.Astype(tensor.I8), kiln.DotDims{LhsBatch: []int{0}, RhsBatch: []int{1}, LhsContract: []int{2}, RhsContract: []int{0}}, pref)
	}, xb, wb3)
}

// TestReviewPackedEpilogueReadsWeight: the int8 product's fused epilogue
// reads the packed weight too (square shapes), and a two-dim contraction.
func TestReviewPackedEpilogueReadsWeight(t *testing.T) {
	const k = 19
	pref := kiln.PreferredElementType(tensor.I32)
	for _, d := range []tensor.DType{tensor.I4, tensor.U4} {
		x := reviewPackedI8(k, k, 7)
		w, _ := packedArg(t, d, k, k, 5)
		reviewPackedCheck(t, fmt.Sprintf("%v epilogue", d), func(x, w kiln.Value) kiln.Value {
			return kiln.MatMul(x, w.Astype(tensor.I8), pref).Add(w.Astype(tensor.I32))
		}, x, w)
		reviewPackedCheck(t, fmt.Sprintf("%v epilogue transposed", d), func(x, w kiln.Value) kiln.Value {
			return kiln.MatMul(x, w.Astype(tensor.I8), pref).Mul(w.Transpose(1, 0).Astype(tensor.I32))
		}, x, w)
		w3p, _ := packedArg(t, d, 3*5, 7, 3)
		w3 := tensor.Must(w3p.Reshape(3, 5, 7))
		x3 := tensor.Must(reviewPackedI8(2, 15, 3).Reshape(2, 3, 5))
		reviewPackedCheck(t, fmt.Sprintf("%v two contracting dims", d), func(x, w kiln.Value) kiln.Value {
			return kiln.DotGeneral(x, w.Astype(tensor.I8), kiln.DotDims{LhsContract: []int{1, 2}, RhsContract: []int{0, 1}}, pref)
		}, x3, w3)
		reviewPackedCheck(t, fmt.Sprintf("%v two contracting dims reversed", d), func(x, w kiln.Value) kiln.Value {
			return kiln.DotGeneral(x, w.Astype(tensor.I8), kiln.DotDims{LhsContract: []int{2, 1}, RhsContract: []int{1, 0}}, pref)
		}, x3, w3)
		reviewPackedCheck(t, fmt.Sprintf("%v broadcast weight", d), func(x, w kiln.Value) kiln.Value {
			return kiln.MatMul(x, w.Reshape(k, 1).BroadcastTo(k, 3).Astype(tensor.I8), pref)
		}, x, reviewPackedVec(t, d, k))
	}
}

func reviewPackedVec(t *testing.T, d tensor.DType, n int) *tensor.Array {
	p, _ := packedArg(t, d, 1, n, 3)
	return tensor.Must(p.Reshape(n))
}

// TestReviewPackedIndexing: a packed constant index array, and packed
// inputs read by gathers, slices and dynamic slices.
func TestReviewPackedIndexing(t *testing.T) {
	idx, _ := packedArg(t, tensor.U2, 2, 3, 1)
	x := tensor.Must(tensor.FromSlice([]float32{1, 2, 3, 4, 5, 6, 7, 8}, 2, 4))
	f := kiln.Jit(func(x kiln.Value) kiln.Value { return x.Index(1, idx) })
	got, err := f.Run(x)
	if err != nil {
		t.Fatal(err)
	}
	want, err := kiln.Jit(func(x kiln.Value) kiln.Value { return x.Index(1, idx.Unpack()) }).Run(x)
	if err != nil || !tensor.Equal(got, want) {
		t.Fatalf("packed index: %v, want %v (%v)", got, want, err)
	}
	w, _ := packedArg(t, tensor.I4, 6, 9, 5)
	reviewPackedCheck(t, "slice", func(w kiln.Value) kiln.Value { return w.Slice(1, 1, 8, 3) }, w)
	reviewPackedCheck(t, "gather", func(w, i kiln.Value) kiln.Value { return w.Index(i) }, w, tensor.Must(tensor.Must(tensor.FromSlice([]int8{0, 5, 2, 1})).Astype(tensor.U2).Pack()))
	reviewPackedCheck(t, "dynamic", func(w kiln.Value) kiln.Value { return w.Index(kiln.Int(3)) }, w)
}

// TestReviewPackedControl: packed inputs as a scan's xs, a cond's
// operands and a while loop's carry, with an int8 product on the same
// weight outside and inside.
func TestReviewPackedControl(t *testing.T) {
	pref := kiln.PreferredElementType(tensor.I32)
	for _, d := range []tensor.DType{tensor.I4, tensor.U4, tensor.U2} {
		w, _ := packedArg(t, d, 9, 7, 5)
		x := reviewPackedI8(3, 9, 7)
		reviewPackedCheck(t, fmt.Sprintf("%v scan xs", d), func(x, w kiln.Value) []kiln.Value {
			c, ys := kiln.Scan(func(c, xs []kiln.Value) ([]kiln.Value, []kiln.Value) {
				return []kiln.Value{c[0].Add(xs[0].Astype(tensor.I32))}, []kiln.Value{xs[0].Astype(tensor.I32).Mul(kiln.Int(2))}
			}, []kiln.Value{kiln.Zeros([]int{7}, tensor.I32)}, []kiln.Value{w})
			return []kiln.Value{c[0], ys[0], kiln.MatMul(x, w.Astype(tensor.I8), pref)}
		}, x, w)
		reviewPackedCheck(t, fmt.Sprintf("%v cond", d), func(x, w kiln.Value) []kiln.Value {
			r := kiln.Cond(x.Astype(tensor.I32).Sum().Gt(kiln.Int(0)), func(o []kiln.Value) []kiln.Value {
				return []kiln.Value{kiln.MatMul(o[0], o[1].Astype(tensor.I8), pref)}
			}, func(o []kiln.Value) []kiln.Value {
				return []kiln.Value{kiln.MatMul(o[0], o[1].Astype(tensor.I8), pref).Neg()}
			}, x, w)
			return r
		}, x, w)
		reviewPackedCheck(t, fmt.Sprintf("%v while carry", d), func(w kiln.Value) []kiln.Value {
			r := kiln.WhileLoop(func(c []kiln.Value) kiln.Value { return c[1].Lt(kiln.Int(3)) },
				func(c []kiln.Value) []kiln.Value { return []kiln.Value{c[0].Add(c[0]), c[1].Add(kiln.Int(1))} }, w, kiln.Int(0))
			return r[:1]
		}, w)
	}
}

// TestReviewPackedGEMMLarge: products big enough to split over workers,
// odd sizes everywhere (pieces start mid-byte), the packed operand as
// lhs and rhs, plain and transposed, i4 and u4.
func TestReviewPackedGEMMLarge(t *testing.T) {
	const m, k, n = 37, 301, 517
	pref := kiln.PreferredElementType(tensor.I32)
	for _, d := range []tensor.DType{tensor.I4, tensor.U4} {
		x := reviewPackedI8(m, k, 13)
		wKN, _ := packedArg(t, d, k, n, 29)
		wNK, _ := packedArg(t, d, n, k, 31)
		reviewPackedCheck(t, fmt.Sprintf("%v large rhs", d), func(x, w kiln.Value) kiln.Value { return kiln.MatMul(x, w.Astype(tensor.I8), pref) }, x, wKN)
		reviewPackedCheck(t, fmt.Sprintf("%v large rhs transposed", d), func(x, w kiln.Value) kiln.Value {
			return kiln.MatMul(x, w.Astype(tensor.I8).Transpose(1, 0), pref)
		}, x, wNK)
		reviewPackedCheck(t, fmt.Sprintf("%v large lhs", d), func(w, x kiln.Value) kiln.Value {
			return kiln.MatMul(w.Astype(tensor.I8), x.Transpose(1, 0), pref)
		}, wNK, x)
		reviewPackedCheck(t, fmt.Sprintf("%v large lhs transposed", d), func(w, x kiln.Value) kiln.Value {
			return kiln.MatMul(w.Astype(tensor.I8).Transpose(1, 0), x.Transpose(1, 0), pref)
		}, wKN, x)
	}
}

type reviewPackedTree[T any] struct {
	W T
	B T
}

// TestReviewPackedWrappers: a packed array as a Weak argument, a tree
// leaf, and the input of a checked-NaN run whose blame reads the
// unpacked input, each as its unpacked twin.
func TestReviewPackedWrappers(t *testing.T) {
	wp, wu := packedArg(t, tensor.I4, 4, 6, 5)
	f := kiln.Jit(func(w kiln.Value) kiln.Value { return w.Add(kiln.Int(3)) })
	a, errA := f.Run(kiln.Weak(wp))
	b, errB := f.Run(kiln.Weak(wu))
	if (errA == nil) != (errB == nil) || errA == nil && !tensor.Equal(a, b) {
		t.Fatalf("weak packed %v %v, unpacked %v %v", a, errA, b, errB)
	}
	ft := kiln.Jit(func(p reviewPackedTree[kiln.Value]) kiln.Value {
		return p.W.Astype(tensor.F32).Add(p.B.Astype(tensor.F32))
	})
	for _, tr := range []reviewPackedTree[*tensor.Array]{{wp, wp}, {wu, wp}, {wu, wu}} {
		var out *tensor.Array
		if err := ft.RunTree([]any{&out}, &tr); err != nil {
			t.Fatal(err)
		}
		want := tensor.Must(tensor.Zeros(tensor.F32, 4, 6))
		if err := ft.RunTreeInto([]any{&want}, &tr); err != nil || !tensor.Equal(out, want) {
			t.Fatalf("tree: %v vs %v (%v)", out, want, err)
		}
	}
	g := kiln.Jit(func(w kiln.Value) kiln.Value {
		return w.Astype(tensor.F32).Sub(kiln.Float(3)).Sqrt().Mul(kiln.Float(2))
	}, kiln.Checked(kiln.CheckNaN))
	_, e1 := g.Run(wp)
	_, e2 := g.Run(wu)
	if e1 == nil || e2 == nil || e1.Error() != e2.Error() {
		t.Fatalf("checked NaN: packed %v, unpacked %v", e1, e2)
	}
}

// TestReviewPackedVectors: packed 1-D operands of int8 products
// (matrix·vector, vector·matrix, vector·vector) and an unused packed input.
func TestReviewPackedVectors(t *testing.T) {
	pref := kiln.PreferredElementType(tensor.I32)
	for _, d := range []tensor.DType{tensor.I4, tensor.U4} {
		v := reviewPackedVec(t, d, 23)
		u := reviewPackedVec(t, d, 23)
		x := reviewPackedI8(5, 23, 3)
		reviewPackedCheck(t, fmt.Sprintf("%v mat·vec", d), func(x, v kiln.Value) kiln.Value { return kiln.MatMul(x, v.Astype(tensor.I8), pref) }, x, v)
		reviewPackedCheck(t, fmt.Sprintf("%v vec·mat", d), func(x, v kiln.Value) kiln.Value {
			return kiln.MatMul(v.Astype(tensor.I8), x.Transpose(1, 0), pref)
		}, x, v)
		reviewPackedCheck(t, fmt.Sprintf("%v vec·vec", d), func(u, v kiln.Value) kiln.Value {
			return kiln.MatMul(u.Astype(tensor.I8), v.Astype(tensor.I8), pref)
		}, u, v)
		reviewPackedCheck(t, fmt.Sprintf("%v unused", d), func(x, v kiln.Value) kiln.Value { return x.Astype(tensor.I32).Sum() }, x, v)
	}
}

// TestReviewPackedDotDims: packed operands read in place with a column
// stride other than 1 (dot_general contracting the lhs's first dim, or
// the rhs's last), where the GEMM walks the nibbles across rows.
func TestReviewPackedDotDims(t *testing.T) {
	pref := kiln.PreferredElementType(tensor.I32)
	for _, d := range []tensor.DType{tensor.I4, tensor.U4} {
		wKM, _ := packedArg(t, d, 35, 9, 3)
		wNK, _ := packedArg(t, d, 7, 35, 5)
		x := reviewPackedI8(35, 7, 11)
		reviewPackedCheck(t, fmt.Sprintf("%v lhs contract 0", d), func(w, x kiln.Value) kiln.Value {
			return kiln.DotGeneral(w.Astype(tensor.I8), x, kiln.DotDims{LhsContract: []int{0}, RhsContract: []int{0}}, pref)
		}, wKM, x)
		reviewPackedCheck(t, fmt.Sprintf("%v rhs contract 1", d), func(x, w kiln.Value) kiln.Value {
			return kiln.DotGeneral(x.Transpose(1, 0), w.Astype(tensor.I8), kiln.DotDims{LhsContract: []int{1}, RhsContract: []int{1}}, pref)
		}, x, wNK)
		reviewPackedCheck(t, fmt.Sprintf("%v both transposed", d), func(a, b kiln.Value) kiln.Value {
			return kiln.DotGeneral(a.Astype(tensor.I8), b.Astype(tensor.I8), kiln.DotDims{LhsContract: []int{0}, RhsContract: []int{1}}, pref)
		}, wKM, wNK)
	}
}
