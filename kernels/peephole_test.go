package kernels

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/kiln-go/kiln/internal/numerics"
	"github.com/kiln-go/kiln/lower"
	"github.com/kiln-go/kiln/promote"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// The peephole pass (peephole.go): each case shows the merged steps, counts
// them against the unmerged body, and checks that the outputs are the
// same bits (NaNs equal, as everywhere in the package's contract) on
// inputs full of specials, with default and tiny blocks, one and several
// workers, and the non-temporal path forced on.

type fuseCase struct {
	name   string
	dtypes []tensor.DType
	fn     func(a []trace.Value) []trace.Value
	labels []string // labels of steps that must appear once fused
	saved  int      // steps the pass removes in all
}

func fuseCases() []fuseCase {
	f := trace.Float
	return []fuseCase{
		{"axpb-f32", []tensor.DType{tensor.F32}, func(a []trace.Value) []trace.Value {
			return []trace.Value{a[0].Mul(f(1.5)).Add(f(0.25))}
		}, []string{"affine-nt.f32"}, 1},
		{"axmb-f64", []tensor.DType{tensor.F64}, func(a []trace.Value) []trace.Value {
			return []trace.Value{a[0].Mul(f(-3)).Sub(f(0.1))}
		}, []string{"affine-nt.f64"}, 1},
		{"b-ax-f32", []tensor.DType{tensor.F32}, func(a []trace.Value) []trace.Value {
			return []trace.Value{f(2).Sub(a[0].Mul(f(0.7)))}
		}, []string{"affine-nt.f32"}, 1},
		{"b+a*x-f64", []tensor.DType{tensor.F64}, func(a []trace.Value) []trace.Value {
			return []trace.Value{f(math.Copysign(0, -1)).Add(f(1e-300).Mul(a[0]))}
		}, []string{"affine-nt.f64"}, 1},
		{"nan-scalars-f32", []tensor.DType{tensor.F32}, func(a []trace.Value) []trace.Value {
			return []trace.Value{f(math.NaN()).Sub(a[0].Mul(f(math.Inf(-1)))), a[0].Mul(f(math.NaN())).Sub(f(math.NaN()))}
		}, []string{"affine-nt.f32"}, 2},
		{"inner-affine-f32", []tensor.DType{tensor.F32}, func(a []trace.Value) []trace.Value {
			return []trace.Value{a[0].Mul(f(3)).Sub(f(1)).Exp()}
		}, []string{"affine.f32", "exp.f32"}, 1},
		{"shared-product-f32", []tensor.DType{tensor.F32}, func(a []trace.Value) []trace.Value {
			y := a[0].Mul(f(3))
			return []trace.Value{y.Add(f(1)).Mul(y)} // y is read twice: no merge
		}, []string{"mul.f32"}, 0},
		{"e2-f16", []tensor.DType{tensor.I8, tensor.F16}, func(a []trace.Value) []trace.Value {
			return []trace.Value{a[0].Mul(trace.Int(2)).Add(a[1]).Mul(f(0.5))}
		}, []string{"mul.i8+widen.f32", "add+round+widen.f16", "mul+store-nt.f16"}, 2}, // y read as f16 bits by the add
		{"u8-sub-widen", []tensor.DType{tensor.U8, tensor.U8}, func(a []trace.Value) []trace.Value {
			return []trace.Value{a[0].Sub(a[1]).Astype(tensor.F32).Mul(f(0.5))}
		}, []string{"sub.u8+widen.f32"}, 1},
		{"i8-read-twice", []tensor.DType{tensor.I8}, func(a []trace.Value) []trace.Value {
			y := a[0].Mul(trace.Int(3))
			// y feeds a convert and an add: only the add's result merges.
			return []trace.Value{y.Astype(tensor.F32).Add(y.Add(trace.Int(1)).Astype(tensor.F32))}
		}, []string{"mul.i8", "add.i8+widen.f32"}, 1},
		{"chain-f16", []tensor.DType{tensor.F16, tensor.F16}, func(a []trace.Value) []trace.Value {
			x, y := a[0], a[1]
			return []trace.Value{f(3).Div(x.Sub(y).Mul(x).Div(y).Sub(f(0.25))).Add(f(1))}
		}, []string{"sub+round.f16", "mul+round.f16", "div+round.f16", "sub+round.f16", "rdiv+round.f16", "add+store-nt.f16"}, 0},
		{"chain-bf16", []tensor.DType{tensor.BF16, tensor.BF16}, func(a []trace.Value) []trace.Value {
			x, y := a[0], a[1]
			return []trace.Value{f(3).Sub(x.Add(y).Div(x).Mul(f(1.5)).Div(f(7))).Exp()}
		}, []string{"widen.bf16", "add+round+widen.bf16", "div+round.bf16", "mul+round.bf16", "div+round.bf16", "rsub+round.bf16", "exp.bf16"}, 1}, // x is read twice: widened once
		{"store-bf16", []tensor.DType{tensor.BF16, tensor.BF16}, func(a []trace.Value) []trace.Value {
			return []trace.Value{a[0].Mul(a[1]).Sub(f(1)), f(0.1).Div(a[0]), a[1].Sub(a[0])}
		}, []string{"mul+round+widen.bf16", "sub+store-nt.bf16", "rdiv+store+widen.bf16", "sub+store+widen.bf16"}, 5},
		{"f16-to-f32", []tensor.DType{tensor.F16}, func(a []trace.Value) []trace.Value {
			return []trace.Value{a[0].Mul(f(0.3)).Astype(tensor.F32)} // the rounding before the convert stays
		}, []string{"mul+round+widen.f16"}, 1},
		{"product-f16", []tensor.DType{tensor.F16, tensor.F16}, func(a []trace.Value) []trace.Value {
			return []trace.Value{a[0].Mul(a[1])} // one step streaming both inputs' bits
		}, []string{"mul+store+widen.f16"}, 2},
		{"scaled-bf16", []tensor.DType{tensor.BF16}, func(a []trace.Value) []trace.Value {
			return []trace.Value{f(2).Sub(a[0]), a[0].Div(f(3)).Add(a[0])}
		}, []string{"rsub+store+widen.bf16", "widen.bf16", "div+round.bf16"}, 1}, // the second reads x twice: widened once
		{"variance-f64", []tensor.DType{tensor.F64}, func(a []trace.Value) []trace.Value {
			x := a[0]
			return []trace.Value{x.Sub(x.Mean()).Pow(trace.Int(2)).Sum()}
		}, nil, 0},
		{"sums-f32-f16", []tensor.DType{tensor.F32, tensor.F16}, func(a []trace.Value) []trace.Value {
			return []trace.Value{a[0].Sum(), a[1].Mul(f(2)).Sum()}
		}, []string{"mul+round+widen.f16"}, 1},
	}
}

// specialInput is n values of d: mostly ordinary numbers of mixed
// magnitudes, with NaNs, infinities, zeros of both signs, subnormals and
// values near the f16 and bf16 limits.
func specialInput(d tensor.DType, seed uint64, n int) *tensor.Array {
	r := rand.New(rand.NewPCG(seed, uint64(d)))
	specials := []float64{math.NaN(), math.Inf(1), math.Inf(-1), 0, math.Copysign(0, -1), 1e-40, -1e-310, 5e-324,
		65504, 65520, -65519, 6e-8, 3e-38, 3.4e38, 1e300, 1, -1, 0.5}
	vals := make([]float64, n)
	for i := range vals {
		switch k := r.IntN(10); {
		case d.IsInteger():
			vals[i] = float64(r.IntN(256) - 128)
		case k == 0:
			vals[i] = specials[r.IntN(len(specials))]
		default:
			vals[i] = r.NormFloat64() * math.Pow(10, float64(r.IntN(9)-4))
		}
	}
	a, _ := tensor.FromSlice(vals, n)
	return a.Astype(d)
}

func compileWith(t testing.TB, cpu *CPU, dts []tensor.DType, n int, fn func(a []trace.Value) []trace.Value) *cpuExec {
	t.Helper()
	abs := make([]trace.Abstract, len(dts))
	for i, d := range dts {
		abs[i] = trace.Abstract{Type: promote.Strong(d), Shape: []int{n}}
	}
	p, err := trace.Trace(promote.Config{}, abs, fn)
	if err != nil {
		t.Fatal(err)
	}
	m, err := lower.Compile(p, lower.Options{Fold: Fold, NoSiblings: true}) // each result's own loop, streaming stores and all
	if err != nil {
		t.Fatal(err)
	}
	exe, err := cpu.Compile(m)
	if err != nil {
		t.Fatal(err)
	}
	return exe.(*cpuExec)
}

// bodies lists the step lists of x's loop and reduce kernels.
func bodies(x *cpuExec) []*body {
	var bs []*body
	for _, k := range x.kernels {
		switch k := k.(type) {
		case *loopKernel:
			bs = append(bs, k.body)
		case *multiLoopKernel:
			for _, s := range k.subs {
				bs = append(bs, s.body)
			}
		case *reduceKernel:
			bs = append(bs, k.body)
		}
	}
	return bs
}

func stepCount(x *cpuExec) (n int, labels []string) {
	for _, b := range bodies(x) {
		n += len(b.steps)
		for _, s := range b.steps {
			labels = append(labels, s.label)
		}
	}
	return n, labels
}

func TestPeepholeSteps(t *testing.T) {
	const n = 5000
	defer func(c int) { streamChunk = c }(streamChunk)
	streamChunk = 777 // streaming loops make several calls per worker
	for _, c := range fuseCases() {
		t.Run(c.name, func(t *testing.T) {
			var ins []*tensor.Array
			for i, d := range c.dtypes {
				ins = append(ins, specialInput(d, uint64(i+1), n))
			}
			ref := compileWith(t, &CPU{opts: NewCPU(CPUOptions{}).opts, noFuse: true, ntMin: 0}, c.dtypes, n, c.fn)
			want, err := ref.Run(ins)
			if err != nil {
				t.Fatal(err)
			}
			for _, cpu := range []*CPU{
				{opts: NewCPU(CPUOptions{}).opts, ntMin: 0}, // every output streams
				{opts: NewCPU(CPUOptions{}).opts, ntMin: ntMinBytes},
				{opts: NewCPU(CPUOptions{Block: 5, ParallelMin: 1, Workers: 3}).opts, ntMin: 0},
				{opts: NewCPU(CPUOptions{Block: 100, ParallelMin: 1, Workers: 2}).opts, ntMin: 0},
			} {
				x := compileWith(t, cpu, c.dtypes, n, c.fn)
				got, err := x.Run(ins)
				if err != nil {
					t.Fatal(err)
				}
				for i := range want {
					sameArrays(t, got[i], want[i])
				}
				nf, labels := stepCount(x)
				nu, _ := stepCount(ref)
				if nu-nf != c.saved {
					t.Errorf("block %d: %d steps fused, %d unfused; want %d fewer", cpu.opts.Block, nf, nu, c.saved)
				}
				if cpu.ntMin != 0 {
					continue
				}
				all := strings.Join(labels, " ")
				for _, l := range c.labels {
					if !strings.Contains(" "+all+" ", " "+l+" ") {
						t.Errorf("no step %q in %s", l, all)
					}
				}
			}
			if testing.Verbose() {
				x := compileWith(t, NewCPU(CPUOptions{}), c.dtypes, n, c.fn)
				for _, b := range bodies(x) {
					t.Logf("fused:\n%s", b)
				}
				for _, b := range bodies(ref) {
					t.Logf("unfused:\n%s", b)
				}
			}
		})
	}
}

// sameArrays: same dtype, shape and bits, any two NaNs equal.
func sameArrays(t *testing.T, got, want *tensor.Array) {
	t.Helper()
	if got.DType() != want.DType() || !got.HasShape(want.Shape()) {
		t.Fatalf("got %s%v, want %s%v", got.DType(), got.Shape(), want.DType(), want.Shape())
	}
	size := got.DType().Size()
	gb := view[byte](dataPtr(got.Data()), got.Size()*size)
	wb := view[byte](dataPtr(want.Data()), want.Size()*size)
	g64, w64 := got.Astype(tensor.F64), want.Astype(tensor.F64)
	gv, _ := tensor.Data[float64](g64)
	wv, _ := tensor.Data[float64](w64)
	for i := range got.Size() {
		if string(gb[i*size:(i+1)*size]) == string(wb[i*size:(i+1)*size]) || (gv[i] != gv[i] && wv[i] != wv[i]) {
			continue
		}
		t.Fatalf("element %d: got %s (% x), want %s (% x)", i, got.FormatElem(i), gb[i*size:(i+1)*size], want.FormatElem(i), wb[i*size:(i+1)*size])
	}
}

// TestLeafSumMatchesDefinition: the float leaves (internal/simd's vector
// leaf) give the generic definition's bits, NaNs equal, on every length of
// a leaf and at every tier the simd package runs.
func TestLeafSumMatchesDefinition(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	for m := 0; m <= leafElems; m++ {
		for trial := range 20 {
			x64 := make([]float64, m)
			x32 := make([]float32, m)
			for i := range x64 {
				v := r.NormFloat64() * math.Pow(2, float64(r.IntN(60)-30))
				if trial%4 == 0 && r.IntN(20) == 0 {
					v = []float64{math.NaN(), math.Inf(1), math.Inf(-1), math.Copysign(0, -1), 5e-324, 1e-40}[r.IntN(6)]
				}
				if trial == 1 {
					v = math.Copysign(0, -1)
				}
				x64[i], x32[i] = v, float32(v)
			}
			g64, w64 := leafSum(x64), numerics.SumLeaf(x64)
			if math.Float64bits(g64) != math.Float64bits(w64) && !(g64 != g64 && w64 != w64) {
				t.Fatalf("f64 m=%d: %v, the definition gives %v", m, g64, w64)
			}
			g32, w32 := leafSum(x32), numerics.SumLeaf(x32)
			if math.Float32bits(g32) != math.Float32bits(w32) && !(g32 != g32 && w32 != w32) {
				t.Fatalf("f32 m=%d: %v, the definition gives %v", m, g32, w32)
			}
		}
	}
}

// BenchmarkAffineNT measures E1 (x*a + b, f32) with and without streaming
// stores by output size, the measurement behind ntMinBytes:
//
//	go test ./kernels -run '^$' -bench AffineNT -count 10 | benchstat -col /nt -
func BenchmarkAffineNT(b *testing.B) {
	for _, n := range []int{1 << 18, 1 << 20, 1 << 21, 1 << 22, 1 << 23, 1 << 24} {
		x := specialInput(tensor.F32, 1, n)
		for _, nt := range []string{"off", "on"} {
			b.Run(fmt.Sprintf("MiB=%d/nt=%s", n*4>>20, nt), func(b *testing.B) {
				cpu := NewCPU(CPUOptions{})
				if nt == "off" {
					cpu.ntMin = math.MaxInt
				} else {
					cpu.ntMin = 0
				}
				exe := compileWith(b, cpu, []tensor.DType{tensor.F32}, n, func(a []trace.Value) []trace.Value {
					return []trace.Value{a[0].Mul(trace.Float(1.5)).Add(trace.Float(0.25))}
				})
				outs, err := exe.Run([]*tensor.Array{x})
				if err != nil {
					b.Fatal(err)
				}
				b.SetBytes(int64(8 * n))
				for b.Loop() {
					if err := exe.RunInto(outs, []*tensor.Array{x}); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// treeDef is the package doc's tree over leaves of the definition's leaf.
func treeDef[T float32 | float64](x []T, lo, n int) T {
	if n == 1 {
		return numerics.SumLeaf(x[lo*leafElems : min((lo+1)*leafElems, len(x))])
	}
	p := splitPoint(n)
	return treeDef(x, lo, p) + treeDef(x, lo+p, n-p)
}

// TestTreeReduceMatchesDefinition: sums that compute their leaves first
// with the vector kernels give the tree's bits (NaNs equal) for every
// length up to a group and beyond.
func TestTreeReduceMatchesDefinition(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	for n := 1; n <= groupElems+300; n += 1 + n/50 {
		x64 := make([]float64, n)
		x32 := make([]float32, n)
		for i := range x64 {
			v := r.NormFloat64() * math.Pow(2, float64(r.IntN(60)-30))
			if r.IntN(5000) == 0 {
				v = []float64{math.NaN(), math.Inf(1), math.Inf(-1), math.Copysign(0, -1), 5e-324, 1e-40}[r.IntN(6)]
			}
			x64[i], x32[i] = v, float32(v)
		}
		nl := (n + leafElems - 1) / leafElems
		g64, w64 := treeReduce(x64, false), treeDef(x64, 0, nl)
		if math.Float64bits(g64) != math.Float64bits(w64) && !(g64 != g64 && w64 != w64) {
			t.Fatalf("f64 n=%d: %v, the tree gives %v", n, g64, w64)
		}
		g32, w32 := treeReduce(x32, false), treeDef(x32, 0, nl)
		if math.Float32bits(g32) != math.Float32bits(w32) && !(g32 != g32 && w32 != w32) {
			t.Fatalf("f32 n=%d: %v, the tree gives %v", n, g32, w32)
		}
	}
}
