package stablehlo_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kiln-go/kiln/internal/golden"
	"github.com/kiln-go/kiln/lower"
	"github.com/kiln-go/kiln/lower/stablehlo"
	"github.com/kiln-go/kiln/promote"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// shloCases cover every op at every dtype class it accepts; each prints to
// testdata/stablehlo_<name>.golden.
var shloCases = []struct {
	name   string
	inputs []trace.Abstract
	fn     func(a []trace.Value) []trace.Value
}{
	{"mixed", []trace.Abstract{abs(tensor.I8, 3), abs(tensor.F16, 3)}, func(a []trace.Value) []trace.Value {
		return []trace.Value{a[0].Mul(trace.Int(2)).Add(a[1]).Mul(trace.Float(0.5))}
	}},
	{"f32", []trace.Abstract{abs(tensor.F32, 3), abs(tensor.F32, 3)}, floatOps},
	{"control", []trace.Abstract{abs(tensor.F32, 3), abs(tensor.F32), abs(tensor.I32)}, func(a []trace.Value) []trace.Value {
		r := trace.ForiLoop(trace.Int(0), trace.Int(4), func(i trace.Value, c []trace.Value) []trace.Value {
			return []trace.Value{c[0].Mul(a[1]).Add(i.Astype(tensor.F32)), c[1].Add(c[0].Sum())}
		}, a[0], a[1])
		s := trace.Switch(a[2], []func([]trace.Value) []trace.Value{
			func(o []trace.Value) []trace.Value { return []trace.Value{o[0].Neg(), o[1]} },
			func(o []trace.Value) []trace.Value { return []trace.Value{o[0].Exp(), o[1].Mul(a[1])} },
			func(o []trace.Value) []trace.Value { return []trace.Value{o[0], o[1].Add(trace.Float(1))} },
		}, r[0], r[1])
		return s
	}},
	{"conv", []trace.Abstract{abs(tensor.F32, 2, 7, 6, 3), abs(tensor.F32, 2, 3, 3, 4), abs(tensor.BF16, 1, 2, 5), abs(tensor.BF16, 4, 1, 2)}, func(a []trace.Value) []trace.Value {
		return []trace.Value{
			trace.ConvGeneralDilated(a[0], a[1], trace.ConvOptions{WindowStrides: []int{2, 1}, Padding: [][2]int{{1, 2}, {0, -1}},
				LhsDilation: []int{1, 2}, RhsDilation: []int{2, 1}, DimensionNumbers: [3]string{"NHWC", "HWIO", "NHWC"}}),
			trace.ConvGeneralDilated(a[2], a[3], trace.ConvOptions{PaddingMode: "SAME", FeatureGroupCount: 2}),
		}
	}},
	{"f16", []trace.Abstract{abs(tensor.F16, 3), abs(tensor.F16, 3)}, floatOps},
	{"bf16_f64", []trace.Abstract{abs(tensor.BF16, 2), abs(tensor.BF16, 2), abs(tensor.F64, 2), abs(tensor.F64, 2)}, func(a []trace.Value) []trace.Value {
		return []trace.Value{a[0].Add(a[1]), a[0].FloorDiv(a[1]), a[0].Rem(a[1]), a[0].Maximum(a[1]), a[0].Sum(),
			a[2].FloorDiv(a[3]), a[2].Rem(a[3]), a[2].Sign(), a[2].Minimum(a[3])}
	}},
	{"i32", []trace.Abstract{abs(tensor.I32, 2, 2), abs(tensor.I32, 2, 2)}, func(a []trace.Value) []trace.Value {
		return append(intOps(a[0], a[1]), a[0].IsNaN(), a[0].IsFinite(), a[0].Real(), a[0].Imag(), a[0].Conj())
	}},
	{"u8", []trace.Abstract{abs(tensor.U8, 4), abs(tensor.U8, 4)}, func(a []trace.Value) []trace.Value {
		return intOps(a[0], a[1])
	}},
	{"bool", []trace.Abstract{abs(tensor.Bool, 3), abs(tensor.Bool, 3)}, func(a []trace.Value) []trace.Value {
		x, y := a[0], a[1]
		return []trace.Value{x.And(y), x.Or(y), x.Xor(y), x.Not(), x.Add(y), x.Mul(y), x.Maximum(y), x.Minimum(y),
			x.Eq(y), x.Ne(y), x.Lt(y), x.Ge(y), trace.Where(x, y, x.Not()), x.Abs(), x.IsNaN(), x.IsFinite(),
			x.Real(), x.Imag(), x.Conj()}
	}},
	{"c64", []trace.Abstract{abs(tensor.C64, 2), abs(tensor.C64, 2)}, func(a []trace.Value) []trace.Value {
		x, y := a[0], a[1]
		return []trace.Value{x.Neg(), x.Abs(), x.Sign(), x.Exp(), x.Log(), x.Log1p(), x.Expm1(), x.Sqrt(), x.Rsqrt(),
			x.Sin(), x.Cos(), x.Tan(), x.Tanh(), x.Logistic(), x.IsNaN(), x.IsFinite(), x.Real(), x.Imag(), x.Conj(),
			x.Add(y), x.Sub(y), x.Mul(y), x.Div(y), x.Pow(y), x.Eq(y), x.Ne(y)}
	}},
	{"convert", []trace.Abstract{abs(tensor.F32, 2), abs(tensor.F16, 2), abs(tensor.F64, 2), abs(tensor.C64, 2),
		abs(tensor.C128, 2), abs(tensor.I8, 2), abs(tensor.Bool, 2), abs(tensor.U8, 2), abs(tensor.I32, 2)}, func(a []trace.Value) []trace.Value {
		f32, f16, f64, c64, c128, i8, b, u8, i32 := a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8]
		return []trace.Value{f32.Astype(tensor.I8), f32.Astype(tensor.U32), f16.Astype(tensor.I32), f16.Astype(tensor.U16),
			f64.Astype(tensor.U64), f64.Astype(tensor.I64), c64.Astype(tensor.F32), c128.Astype(tensor.I16),
			f32.Astype(tensor.Bool), c64.Astype(tensor.Bool), i32.Astype(tensor.Bool), i8.Astype(tensor.F16),
			b.Astype(tensor.F32), u8.Astype(tensor.I8), i32.Astype(tensor.C64), f64.Astype(tensor.BF16), c128.Astype(tensor.C64)}
	}},
	{"math", []trace.Abstract{abs(tensor.F32, 3), abs(tensor.F32, 3), abs(tensor.I16, 3), abs(tensor.C64, 3), abs(tensor.BF16, 3)},
		func(a []trace.Value) []trace.Value {
			x, y, i, z, h := a[0], a[1], a[2], a[3], a[4]
			return []trace.Value{
				x.Asin(), x.Acos(), x.Atan(), x.Sinh(), x.Cosh(), x.Asinh(), x.Acosh(), x.Atanh(),
				x.Exp2(), x.Log2(), x.Log10(), x.Cbrt(), x.Erf(), x.Erfc(), x.ErfInv(),
				x.IsInf(), x.IsPosInf(), x.IsNegInf(), i.IsInf(), z.IsInf(),
				x.Atan2(y), x.Hypot(y), x.Copysign(y), h.Copysign(h), x.Nextafter(y), x.Fmod(y), i.Fmod(i),
				z.Asin(), z.Exp2(), z.Log2(), z.Log10(), trace.StopGradient(x).Add(y),
			}
		}},
	{"prng", []trace.Abstract{abs(tensor.U64, 2), abs(tensor.U64, 3, 2), abs(tensor.F16, 2)},
		func(a []trace.Value) []trace.Value {
			return []trace.Value{trace.Threefry2x32(a[0], a[1]), trace.Iota(tensor.F32, []int{2, 3}, 1),
				a[0].BitcastConvert(tensor.F64), a[2].BitcastConvert(tensor.BF16)}
		}},
	{"sort", []trace.Abstract{abs(tensor.F32, 2, 3), abs(tensor.C64, 3), abs(tensor.I8, 2, 3), abs(tensor.Bool, 3), abs(tensor.BF16, 3)},
		func(a []trace.Value) []trace.Value {
			x, z, i, b, h := a[0], a[1], a[2], a[3], a[4]
			vals, idx := trace.TopK(x, 2)
			return append([]trace.Value{trace.Sort(x, 0), trace.Argsort(z, 0), trace.Sort(b, 0), trace.Argsort(h, 0, trace.Descending()), vals, idx},
				trace.SortMany([]trace.Value{i, x, z.Real().Reshape(1, 3).BroadcastTo(2, 3)}, 1, 2, false)...)
		}},
	{"structural", []trace.Abstract{abs(tensor.F32, 2, 3), abs(tensor.F32, 3)}, func(a []trace.Value) []trace.Value {
		x := a[0]
		return []trace.Value{x.Reshape(3, 2), x.Transpose(1, 0), x.Slice(1, 0, 3, 2), trace.Concatenate(0, x, x),
			x.ExpandDims(0), x.BroadcastTo(4, 2, 3), x.Add(a[1]), x.Add(trace.Const(iota(tensor.F32, 2, 3)))}
	}},
	{"reduce", []trace.Abstract{abs(tensor.F32, 2, 3), abs(tensor.F16, 4), abs(tensor.I32, 3), abs(tensor.Bool, 3), abs(tensor.F32, 0, 2)},
		func(a []trace.Value) []trace.Value {
			x, h, i, b, e := a[0], a[1], a[2], a[3], a[4]
			return []trace.Value{x.Sum(1), x.Sum(), x.Prod(0), x.Max(1), x.Min(), x.Mean(0),
				trace.Reduce(trace.OpReduceSum, x, []int{1}, true), x.ArgMax(1), x.ArgMin(0), h.Sum(), h.Max(),
				i.ArgMax(0), i.Max(), i.Prod(), b.ArgMin(0), b.Max(), b.Min(), b.Sum(), e.Sum(0)}
		}},
	{"index", []trace.Abstract{abs(tensor.F32, 3, 4), abs(tensor.I32, 2), abs(tensor.U8, 2, 1), abs(tensor.I8), abs(tensor.F16, 2, 4), abs(tensor.Bool, 3, 4)},
		func(a []trace.Value) []trace.Value {
			x, i, u, s, h, b := a[0], a[1], a[2], a[3], a[4], a[5]
			gd := trace.GatherDims{OffsetDims: []int{1}, CollapsedSliceDims: []int{0}, StartIndexMap: []int{0}}
			return []trace.Value{x.Flip(1), x.Index(trace.All, trace.Step(-2)), x.Index(i), x.Index(s, trace.All),
				trace.Take(x, i, 1), trace.Gather(x, u, gd, []int{1, 4}, trace.WithMode(trace.ModeFill)),
				x.At(i).Set(h.Astype(tensor.F32)), x.At(i).Add(trace.Float(1), trace.WithMode(trace.ModeClip)),
				h.At(trace.All, u.Reshape(2)).Mul(trace.Float(2)), x.At(u).Min(trace.Float(0)), x.At(u).Max(x.Index(u)),
				b.At(i).Set(trace.Bool(true)), b.At(i).Add(trace.Bool(true)),
				trace.DynamicSlice(x, []trace.Value{s, trace.Int(1)}, []int{2, 2}),
				trace.DynamicUpdateSlice(x, h.Astype(tensor.F32), []trace.Value{s, s})}
		}},
	{"dot", []trace.Abstract{abs(tensor.F32, 2, 3), abs(tensor.F32, 3, 4), abs(tensor.F16, 5, 2, 3), abs(tensor.F16, 5, 3, 4),
		abs(tensor.I8, 3), abs(tensor.I8, 3, 2), abs(tensor.Bool, 2, 3), abs(tensor.Bool, 3, 2)}, func(a []trace.Value) []trace.Value {
		return []trace.Value{a[0].MatMul(a[1]), a[2].MatMul(a[3]), a[4].MatMul(a[5]), a[6].MatMul(a[7]),
			trace.DotGeneral(a[0], a[0], trace.DotDims{LhsContract: []int{0, 1}, RhsContract: []int{0, 1}}),
			trace.DotGeneral(a[4], a[4], trace.DotDims{})}
	}},
	// preferred_element_type: converts of the operands, then dot_general
	// of the wide type (lowering's expansion).
	{"dot_preferred", []trace.Abstract{abs(tensor.BF16, 2, 3), abs(tensor.BF16, 3, 4), abs(tensor.I8, 5, 2, 3), abs(tensor.I8, 5, 3, 4)},
		func(a []trace.Value) []trace.Value {
			return []trace.Value{trace.MatMul(a[0], a[1], trace.PreferredElementType(tensor.F32)),
				trace.MatMul(a[2], a[3], trace.PreferredElementType(tensor.I32)),
				trace.DotGeneral(a[2], a[2], trace.DotDims{LhsContract: []int{2}, RhsContract: []int{2}, LhsBatch: []int{0}, RhsBatch: []int{0}},
					trace.PreferredElementType(tensor.F32)),
				trace.ConvGeneralDilated(a[2].Reshape(1, 5, 2, 3), a[3].Reshape(4, 5, 3, 1), trace.ConvOptions{PaddingMode: "SAME"},
					trace.PreferredElementType(tensor.I32))}
		}},
}

func floatOps(a []trace.Value) []trace.Value {
	x, y := a[0], a[1]
	return []trace.Value{x.Neg(), x.Abs(), x.Sign(), x.Exp(), x.Log(), x.Log1p(), x.Expm1(), x.Sqrt(), x.Rsqrt(),
		x.Sin(), x.Cos(), x.Tan(), x.Tanh(), x.Logistic(), x.Floor(), x.Ceil(), x.Round(), x.IsNaN(), x.IsFinite(),
		x.Real(), x.Imag(), x.Conj(), x.Add(y), x.Sub(y), x.Mul(y), x.Div(y), x.FloorDiv(y), x.Rem(y), x.Pow(y),
		x.Maximum(y), x.Minimum(y), x.Eq(y), x.Ne(y), x.Lt(y), x.Le(y), x.Gt(y), x.Ge(y), trace.Where(x.Lt(y), x, y)}
}

func intOps(x, y trace.Value) []trace.Value {
	return []trace.Value{x.Neg(), x.Abs(), x.Sign(), x.Add(y), x.Sub(y), x.Mul(y), x.FloorDiv(y), x.Rem(y), x.Pow(y),
		x.Maximum(y), x.Minimum(y), x.And(y), x.Or(y), x.Xor(y), x.Not(), x.Shl(y), x.Shr(y),
		x.Eq(y), x.Ne(y), x.Lt(y), x.Le(y), x.Gt(y), x.Ge(y)}
}

// iota is 0, 1, 2, … of dtype d and the given shape.
func iota(d tensor.DType, shape ...int) *tensor.Array {
	a, err := tensor.Must(tensor.Arange(d, trace.ShapeSize(shape))).Reshape(shape...)
	if err != nil {
		panic(err)
	}
	return a
}

// edgeModule holds instructions the tracer never emits but a module may
// hold (integer floor, bool round, an identity convert, an f16 sum without
// the f32 widening, isnan of bool), built by hand.
func edgeModule() *lower.Module {
	m := &lower.Module{}
	add := func(in *lower.Instr) *lower.Instr {
		in.ID = len(m.Instrs)
		m.Instrs = append(m.Instrs, in)
		return in
	}
	i := add(&lower.Instr{Op: trace.OpParam, DType: tensor.I32, Shape: []int{2}, Param: 0})
	b := add(&lower.Instr{Op: trace.OpParam, DType: tensor.Bool, Shape: []int{2}, Param: 1})
	h := add(&lower.Instr{Op: trace.OpParam, DType: tensor.F16, Shape: []int{2, 2}, Param: 2})
	m.Params = []*lower.Instr{i, b, h}
	m.Outputs = []*lower.Instr{
		add(&lower.Instr{Op: trace.OpFloor, DType: tensor.I32, Shape: []int{2}, Args: []*lower.Instr{i}}),
		add(&lower.Instr{Op: trace.OpRound, DType: tensor.Bool, Shape: []int{2}, Args: []*lower.Instr{b}}),
		add(&lower.Instr{Op: trace.OpConvert, DType: tensor.I32, Shape: []int{2}, Args: []*lower.Instr{i}, Params: trace.Params{DType: tensor.I32}}),
		add(&lower.Instr{Op: trace.OpReduceSum, DType: tensor.F16, Shape: []int{2, 1}, Args: []*lower.Instr{h}, Params: trace.Params{Axes: []int{1}, KeepDims: true}}),
		add(&lower.Instr{Op: trace.OpIsNaN, DType: tensor.Bool, Shape: []int{2}, Args: []*lower.Instr{b}}),
	}
	return m
}

// shloModules builds every case's module, by name.
func shloModules(t *testing.T) map[string]*lower.Module {
	t.Helper()
	mods := map[string]*lower.Module{"edge": edgeModule()}
	for _, c := range shloCases {
		mods[c.name] = compile(t, c.inputs, lower.Options{}, c.fn)
	}
	return mods
}

func TestStableHLOGolden(t *testing.T) {
	for name, m := range shloModules(t) {
		t.Run(name, func(t *testing.T) {
			text, err := stablehlo.Export(m)
			if err != nil {
				t.Fatal(err)
			}
			if err := stablehlo.VerifyStableHLO(m); err != nil {
				t.Error(err)
			}
			golden.Check(t, "testdata/stablehlo_"+name+".golden", text)
		})
	}
}

// Every op of the table is exported by some case: a new op needs a
// lowering and a golden.
func TestStableHLOCoversEveryOp(t *testing.T) {
	seen := map[trace.Op]bool{}
	for _, m := range shloModules(t) {
		for _, in := range m.Instrs {
			seen[in.Op] = true
		}
	}
	for _, op := range trace.AllOps() {
		if !seen[op] && op != trace.OpStopGradient { // lowering drops stop_gradient
			t.Errorf("no StableHLO case exercises %s", op)
		}
	}
}

func TestStableHLOErrors(t *testing.T) {
	c := &lower.Instr{ID: 0, Op: trace.OpParam, DType: tensor.C64, Shape: []int{2}}
	f := &lower.Instr{ID: 1, Op: trace.OpParam, DType: tensor.F32, Shape: []int{2, 2}, Param: 1}
	for _, tc := range []struct {
		in   *lower.Instr
		want string
	}{
		{&lower.Instr{Op: trace.OpMax, DType: tensor.C64, Shape: []int{2}, Args: []*lower.Instr{c, c}}, "%2 = c64[2] max: complex numbers have no order"},
		{&lower.Instr{Op: trace.OpLt, DType: tensor.Bool, Shape: []int{2}, Args: []*lower.Instr{c, c}}, "complex numbers have no order"},
		{&lower.Instr{Op: trace.OpReduceMin, DType: tensor.C64, Shape: nil, Args: []*lower.Instr{c}, Params: trace.Params{Axes: []int{0}}}, "complex numbers have no order"},
		{&lower.Instr{Op: trace.OpArgMax, DType: tensor.I64, Shape: nil, Args: []*lower.Instr{f}, Params: trace.Params{Axes: []int{0, 1}, DType: tensor.I64}}, "argmax over 2 axes (want one)"},
		{&lower.Instr{Op: trace.OpShl, DType: tensor.F32, Shape: []int{2, 2}, Args: []*lower.Instr{f, f}}, "no StableHLO lowering for shl on f32"},
		{&lower.Instr{Op: trace.OpExp, DType: tensor.F32, Shape: []int{2, 2}, Args: []*lower.Instr{f}}, ""},
		{&lower.Instr{Op: trace.OpReal, DType: tensor.F64, Shape: []int{2, 2}, Args: []*lower.Instr{f}}, "internal error: the export computed tensor<2x2xf32>"},
	} {
		tc.in.ID = 2
		m := &lower.Module{Params: []*lower.Instr{c, f}, Instrs: []*lower.Instr{c, f, tc.in}, Outputs: []*lower.Instr{tc.in}}
		_, err := stablehlo.Export(m)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", tc.in, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "stablehlo: ")):
			t.Errorf("%s: error %v, want one containing %q", tc.in, err, tc.want)
		}
	}
}

// mlirOpt finds an upstream mlir-opt: $KILN_MLIR_OPT, mlir-opt or
// mlir-opt-N on the PATH, or LLVM's install directory (Debian's
// mlir-N-tools package).
func mlirOpt() string {
	if p := os.Getenv("KILN_MLIR_OPT"); p != "" {
		return p
	}
	if p, err := exec.LookPath("mlir-opt"); err == nil {
		return p
	}
	var found []string
	for _, dir := range filepath.SplitList(os.Getenv("PATH")) {
		m, _ := filepath.Glob(filepath.Join(dir, "mlir-opt-*"))
		found = append(found, m...)
	}
	m, _ := filepath.Glob("/usr/lib/llvm-*/bin/mlir-opt")
	found = append(found, m...)
	if len(found) == 0 {
		return ""
	}
	slices.Sort(found)
	return found[len(found)-1]
}

// TestStableHLOParses runs every golden through upstream mlir-opt, which
// parses the generic syntax without the StableHLO dialect and checks SSA
// dominance, that every use of a value has the type it was defined with,
// the dense literals against their types and func.return against the
// signature. It is skipped where no mlir-opt is installed (Debian's
// mlir-19-tools provides one); CI installs it and sets KILN_REQUIRE_MLIR=1. Typing rules that need
// the StableHLO dialect are VerifyStableHLO's, run by TestStableHLOGolden.
func TestStableHLOParses(t *testing.T) {
	opt := requireMLIROpt(t)
	for name, m := range shloModules(t) {
		t.Run(name, func(t *testing.T) {
			text, err := stablehlo.Export(m)
			if err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(opt, "--allow-unregistered-dialect", "-")
			cmd.Stdin = strings.NewReader(text)
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Errorf("%s rejects the export: %v\n%s", opt, err, out)
			}
		})
	}
}

// An example for the README of the export: docs/SPEC.md's mixed expression.
func ExampleExport() {
	p, _ := trace.Trace(promote.Config{}, []trace.Abstract{
		{Type: promote.Strong(tensor.I32), Shape: []int{3}},
		{Type: promote.Strong(tensor.I32), Shape: []int{3}},
	}, func(a []trace.Value) []trace.Value {
		return []trace.Value{a[0].Add(a[1])}
	})
	m, _ := lower.Compile(p, lower.Options{})
	text, _ := stablehlo.Export(m)
	_, body, _ := strings.Cut(text, "module @kiln {\n")
	os.Stdout.WriteString(body)
	// Output:
	//   func.func public @main(%0: tensor<3xi32>, %1: tensor<3xi32>) -> (tensor<3xi32>) {
	//     %2 = "stablehlo.add"(%0, %1) : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>
	//     func.return %2 : tensor<3xi32>
	//   }
	// }
}

func compile(t *testing.T, inputs []trace.Abstract, opts lower.Options, fn func(a []trace.Value) []trace.Value) *lower.Module {
	t.Helper()
	p, err := trace.Trace(promote.Config{}, inputs, fn)
	if err != nil {
		t.Fatal(err)
	}
	m, err := lower.Compile(p, opts)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func abs(d tensor.DType, shape ...int) trace.Abstract {
	return trace.Abstract{Type: promote.Strong(d), Shape: shape}
}

// The golden programs (every op at every dtype class, and the hand-built
// edge module) parse back and match their modules op for op, as the
// conformance programs do (TestConformanceRoundTrip).
func TestGoldenModulesRoundTrip(t *testing.T) {
	for name, m := range shloModules(t) {
		if _, _, err := stablehlo.RoundTrip(m); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// Parse reads an export back: every operand points at the op that
// computes it.
func ExampleParse() {
	p, _ := trace.Trace(promote.Config{}, []trace.Abstract{
		{Type: promote.Strong(tensor.F32), Shape: []int{2, 3}},
	}, func(a []trace.Value) []trace.Value {
		return []trace.Value{a[0].Exp().Transpose(1, 0)}
	})
	m, _ := lower.Compile(p, lower.Options{})
	text, _ := stablehlo.Export(m)
	mod, err := stablehlo.Parse(text)
	if err != nil {
		panic(err)
	}
	for _, op := range mod.Funcs[0].Body.Ops {
		var args []string
		for _, v := range op.Operands {
			from := "an argument"
			if v.Def != nil {
				from = v.Def.Name
			}
			args = append(args, v.Ref()+" ("+from+")")
		}
		fmt.Println(op.Name, op.Attrs, args)
	}
	_, err = stablehlo.Parse(strings.Replace(text, "tensor<2x3xf32>", "tensor<2x3xf31>", 1))
	fmt.Println(err)
	// Output:
	// stablehlo.exponential [] [%0 (an argument)]
	// stablehlo.transpose [{permutation array<i64: 1, 0>}] [%1 (stablehlo.exponential)]
	// func.return [] [%2 (stablehlo.transpose)]
	// stablehlo: parse: 7:41: expected an element type (i1, i8…i64, ui8…ui64, f16, bf16, f32, f64, complex<f32|f64>), found "f31>) -> (tensor<3x2xf32…"
}
