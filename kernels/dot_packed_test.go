package kernels

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"golang.org/x/sys/cpu"

	"github.com/kiln-go/kiln/internal/simd"
	"github.com/kiln-go/kiln/lower"
	"github.com/kiln-go/kiln/promote"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// compileShapes traces fn on inputs of the given dtypes and shapes,
// lowers it and compiles it on the default CPU backend.
func compileShapes(t testing.TB, fn func([]trace.Value) []trace.Value, dts []tensor.DType, shapes ...[]int) *cpuExec {
	t.Helper()
	abs := make([]trace.Abstract, len(shapes))
	for i, s := range shapes {
		abs[i] = trace.Abstract{Type: promote.Strong(dts[i]), Shape: s}
	}
	p, err := trace.Trace(promote.Config{}, abs, fn)
	if err != nil {
		t.Fatal(err)
	}
	mod, err := lower.Compile(p, lower.Options{Fold: Fold})
	if err != nil {
		t.Fatal(err)
	}
	exe, err := DefaultCPU().Compile(mod)
	if err != nil {
		t.Fatal(err)
	}
	return exe.(*cpuExec)
}

// An int8 product (preferred_element_type i32, or an i8 result) of an i8
// operand and an i4 or u4 program input the caller passes packed reads
// the packed bytes on the int8 GEMM (gemm.I4Call) wherever the tier has
// its VNNI kernel: the input is never unpacked when only such products
// read it (no unpack scratch exists after the run), and is unpacked for
// the other kernels when they read it too. Either way every output has
// the bits of the same program run on the unpacked input, and the packed
// bytes are not written.
func TestPackedInt4OnInt8GEMM(t *testing.T) {
	const m, k, n, bt = 13, 70, 37, 2
	vals := func(d tensor.DType, shape []int, seed int) *tensor.Array {
		f, _ := d.IntFormat()
		size := 1
		for _, s := range shape {
			size *= s
		}
		x := make([]int8, size)
		for i := range x {
			if d == tensor.I8 {
				x[i] = int8(i*seed + i/7)
			} else {
				x[i] = int8(f.Min() + int64((i*seed+i/7)%int(f.Max()-f.Min()+1)))
			}
		}
		return tensor.Must(tensor.FromSlice(x, shape...)).Astype(d)
	}
	pref := trace.PreferredElementType(tensor.I32)
	cases := []struct {
		name    string
		fn      func(v []trace.Value) []trace.Value
		shapes  [][]int
		w       int  // the index of the sub-byte input
		onlyDot bool // only the int8 product reads it
	}{
		{"x·w", func(v []trace.Value) []trace.Value {
			return []trace.Value{trace.MatMul(v[0], v[1].Astype(tensor.I8), pref)}
		}, [][]int{{m, k}, {k, n}}, 1, true},
		{"w·x", func(v []trace.Value) []trace.Value {
			return []trace.Value{trace.MatMul(v[1].Astype(tensor.I8), v[0], pref)}
		}, [][]int{{k, n}, {m, k}}, 1, true},
		{"x·wᵀ", func(v []trace.Value) []trace.Value { // w stored n×k, contracted on its dim 1
			dims := trace.DotDims{LhsContract: []int{1}, RhsContract: []int{1}}
			return []trace.Value{trace.DotGeneral(v[0], v[1].Astype(tensor.I8), dims, pref)}
		}, [][]int{{m, k}, {n, k}}, 1, true},
		{"wᵀ·x", func(v []trace.Value) []trace.Value { // w stored k×m as lhs, contracted on its dim 0
			dims := trace.DotDims{LhsContract: []int{0}, RhsContract: []int{0}}
			return []trace.Value{trace.DotGeneral(v[1].Astype(tensor.I8), v[0], dims, pref)}
		}, [][]int{{k, n}, {k, m}}, 1, true},
		{"x·w i8 result", func(v []trace.Value) []trace.Value {
			return []trace.Value{trace.MatMul(v[0], v[1].Astype(tensor.I8))}
		}, [][]int{{m, k}, {k, n}}, 1, true},
		{"batched x·w", func(v []trace.Value) []trace.Value {
			return []trace.Value{trace.MatMul(v[0], v[1].Astype(tensor.I8), pref)}
		}, [][]int{{bt, m, k}, {bt, k, n}}, 1, true},
		{"x·w and w elementwise", func(v []trace.Value) []trace.Value {
			return []trace.Value{trace.MatMul(v[0], v[1].Astype(tensor.I8), pref), v[1].Astype(tensor.I32).Sum()}
		}, [][]int{{m, k}, {k, n}}, 1, false},
		{"x·w and w returned", func(v []trace.Value) []trace.Value {
			return []trace.Value{trace.MatMul(v[0], v[1].Astype(tensor.I8), pref), v[1]}
		}, [][]int{{m, k}, {k, n}}, 1, false},
	}
	for _, mode := range simd.Modes() {
		restore := mode.Set()
		hidden := strings.HasSuffix(mode.String(), "-novnni")
		vnni := !hidden && (mode.Tier == simd.AVX512 && cpu.X86.HasAVX512VNNI || mode.Tier == simd.AVX2 && cpu.X86.HasAVXVNNI)
		for _, c := range cases {
			for _, wd := range []tensor.DType{tensor.I4, tensor.U4} {
				name := fmt.Sprintf("%v %s %v", mode, c.name, wd)
				dts := []tensor.DType{tensor.I8, tensor.I8}
				dts[c.w] = wd
				x := compileShapes(t, c.fn, dts, c.shapes...)
				wantOnly := vnni && c.onlyDot
				if got := len(x.packedOnly) > c.w && x.packedOnly[c.w]; got != wantOnly {
					t.Fatalf("%s: packedOnly %v, want %v", name, x.packedOnly, wantOnly)
				}
				in := []*tensor.Array{vals(tensor.I8, c.shapes[0], 29), vals(wd, c.shapes[1], 41)}
				want, err := x.Run(in)
				if err != nil {
					t.Fatal(err)
				}
				wp := tensor.Must(in[c.w].Pack())
				saved := slices.Clone(wp.PackedBytes())
				pin := slices.Clone(in)
				pin[c.w] = wp
				for rep := range 2 {
					got, err := x.Run(pin)
					if err != nil {
						t.Fatalf("%s: %v", name, err)
					}
					for i := range want {
						if !tensor.Equal(got[i], want[i]) {
							t.Fatalf("%s run %d: output %d differs from the unpacked run", name, rep, i)
						}
					}
					rs := x.idle.Load()
					unpacked := rs != nil && len(rs.unpacked) > c.w && rs.unpacked[c.w] != nil
					if rs != nil && unpacked == wantOnly {
						t.Fatalf("%s: an unpack scratch for the packed input exists: %v (only the GEMM reads it: %v)", name, unpacked, wantOnly)
					}
				}
				if !slices.Equal(wp.PackedBytes(), saved) {
					t.Fatalf("%s: the packed input was written", name)
				}
			}
		}
		restore()
	}
}

// BenchmarkPackedInt4Dot runs x·w (i8 × i4 → i32, m=16, k=n=2048) with
// the weight passed unpacked (one byte an element) and packed (half a
// byte: the int8 GEMM reads it packed, nothing is unpacked).
func BenchmarkPackedInt4Dot(b *testing.B) {
	const m, k, n = 16, 2048, 2048
	x := compileShapes(b, func(v []trace.Value) []trace.Value {
		return []trace.Value{trace.MatMul(v[0], v[1].Astype(tensor.I8), trace.PreferredElementType(tensor.I32))}
	}, []tensor.DType{tensor.I8, tensor.I4}, []int{m, k}, []int{k, n})
	xs := make([]int8, m*k)
	ws := make([]int8, k*n)
	for i := range xs {
		xs[i] = int8(i * 7)
	}
	for i := range ws {
		ws[i] = int8(i%16 - 8)
	}
	in := tensor.Must(tensor.FromSlice(xs, m, k))
	wu := tensor.Must(tensor.FromSlice(ws, k, n)).Astype(tensor.I4)
	wp := tensor.Must(wu.Pack())
	outs := []*tensor.Array{tensor.Must(tensor.Zeros(tensor.I32, m, n))}
	for _, c := range []struct {
		name string
		w    *tensor.Array
	}{{"unpacked", wu}, {"packed", wp}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(c.w.NBytes()))
			for b.Loop() {
				if err := x.RunInto(outs, []*tensor.Array{in, c.w}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
