package kiln_test

import (
	"bufio"
	"flag"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/kiln-go/kiln"
	"github.com/kiln-go/kiln/internal/progen"
	"github.com/kiln-go/kiln/promote"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// The NumPy differential test: random programs restricted to what NumPy
// computes the same way, translated equation by equation into NumPy
// (numpy_translate_test.go), run by Debian's python3 in a few batches, and
// compared with Kiln's fused results bit for bit (NaN payloads aside).
//
// What is kept out of the programs, and why:
//   - bf16: NumPy has no bfloat16.
//   - transcendental functions and elementwise pow: their bits are each
//     library's own (docs/SPEC.md §3 bounds them; TestTranscendentalULP checks).
//   - abs, sign and sqrt of complex: NumPy uses hypot, the sign of the
//     real part (NumPy 1.x) and its own csqrt.
//   - complex multiplication: NumPy's AVX-512 loop fuses one product of
//     each part into the other (an FMA), Kiln rounds both products.
//   - nextafter of f16: NumPy's returns x, not y, when x == y.
//   - bitcast_convert_type to or from bf16.
//   - float → integer converts of NaN or out-of-range values: undefined in
//     NumPy; progen's SafeConverts clamps into range first.
//   - float and complex sums other than full or last-axis reductions of at
//     most 128 values (NumPy's pairwise leaf equals Kiln's only there),
//     complex sums of 4 or more values (NumPy's leaf interleaves the
//     parts), float products of 8 or more values (NumPy multiplies in
//     order) and complex products (NumPy starts from 1+0i, and
//     (1+0i)·(x+∞i) has a NaN real part).
//   - max, min, argmax and argmin of nothing: NumPy raises.

// numpyPython is Debian's interpreter (the PATH one may lack NumPy).
const numpyPython = "/usr/bin/python3"

// numpyOrSkip skips the test when NumPy is missing, or fails it when
// KILN_REQUIRE_NUMPY=1 (as CI sets).
func numpyOrSkip(t *testing.T) {
	t.Helper()
	err := exec.Command(numpyPython, "-c", "import numpy").Run()
	if err == nil {
		return
	}
	msg := fmt.Sprintf("NumPy differential test needs %s with NumPy (apt-get install python3-numpy): %v", numpyPython, err)
	if os.Getenv("KILN_REQUIRE_NUMPY") == "1" {
		t.Fatal(msg)
	}
	t.Skip(msg)
}

func numpyOptions() progen.Options {
	var dts []tensor.DType
	for _, d := range tensor.StandardDTypes() { // NumPy has no narrow dtypes (ml_dtypes is not installed)
		if d != tensor.BF16 {
			dts = append(dts, d)
		}
	}
	var ops []trace.Op
	for _, op := range trace.AllOps() {
		if !op.Info().Transcendental {
			ops = append(ops, op)
		}
	}
	return progen.Options{
		DTypes: dts, Ops: ops, SafeConverts: true, Control: true,
		Allow:     numpyAllow,
		LargeProb: 0.02, LargeMax: 4096,
	}
}

// numpyAllow refuses the equations NumPy computes differently (see the
// list at the top of this file).
func numpyAllow(e *trace.Eqn) bool {
	if len(e.Args) == 0 {
		return true
	}
	in := e.Args[0]
	d := in.Type.DType
	switch e.Op {
	case trace.OpAbs, trace.OpSign, trace.OpSqrt:
		return !d.IsComplex()
	case trace.OpMul: // NumPy's AVX-512 complex multiply fuses one product into the other (FMA); Kiln rounds both (SPEC §3)
		return !d.IsComplex()
	case trace.OpNextafter: // NumPy's f16 nextafter returns x, not y, when x == y (its f32/f64 are C99's)
		return d != tensor.F16
	case trace.OpBitcastConvert: // NumPy has no bf16 to view as
		return d != tensor.BF16 && e.Out.Type.DType != tensor.BF16
	case trace.OpReduceSum, trace.OpReduceProd:
		if !d.IsFloat() && !d.IsComplex() {
			return true
		}
		n, ax := reducedCount(e), e.Params.Axes
		contiguous := len(ax) == in.Rank() || len(ax) == 1 && ax[0] == in.Rank()-1
		switch {
		case !contiguous:
			return false
		case e.Op == trace.OpReduceSum && d.IsFloat():
			return n <= 128
		case e.Op == trace.OpReduceSum:
			return n < 4
		}
		return d.IsFloat() && n < 8
	case trace.OpReduceMax, trace.OpReduceMin, trace.OpArgMax, trace.OpArgMin:
		return reducedCount(e) > 0
	}
	return true
}

func reducedCount(e *trace.Eqn) int {
	n := 1
	for _, a := range e.Params.Axes {
		n *= e.Args[0].Shape[a]
	}
	return n
}

// numpyCase is one program for NumPy, with where it came from.
type numpyCase struct {
	name string
	c    *progen.Case
}

// fixedNumpyCases are hand-written programs, among them docs/SPEC.md's mixed
// expression (x*2 + y) * 0.5 with x int8 and y f16, over every int8 and
// random f16 bit patterns.
func fixedNumpyCases() []numpyCase {
	r := rand.New(rand.NewSource(7))
	i8 := make([]int8, 512)
	f16 := make([]tensor.Float16, 512)
	for i := range i8 {
		i8[i] = int8(i)
		f16[i] = tensor.Float16FromBits(uint16(r.Uint32()))
	}
	x, _ := tensor.FromSlice(i8)
	y, _ := tensor.FromSlice(f16)
	strong := func(a *tensor.Array) trace.Abstract {
		return trace.Abstract{Type: promote.Strong(a.DType()), Shape: a.Shape()}
	}
	mk := func(name string, x32 bool, fn func(x, y trace.Value) trace.Value) numpyCase {
		return numpyCase{name, &progen.Case{
			Config: promote.Config{X32: x32},
			Inputs: []trace.Abstract{strong(x), strong(y)},
			Arrays: []*tensor.Array{x, y},
			Fn:     func(a []trace.Value) []trace.Value { return []trace.Value{fn(a[0], a[1])} },
		}}
	}
	return append([]numpyCase{
		mk("(x*2 + y) * 0.5, x i8, y f16", false, func(x, y trace.Value) trace.Value {
			return x.Mul(kiln.Int(2)).Add(y).Mul(kiln.Float(0.5))
		}),
		mk("(x*2 + y) * 0.5, x32", true, func(x, y trace.Value) trace.Value {
			return x.Mul(kiln.Int(2)).Add(y).Mul(kiln.Float(0.5))
		}),
		mk("y/3 - x//7 % 5", false, func(x, y trace.Value) trace.Value {
			return y.Div(kiln.Int(3)).Sub(x.FloorDiv(kiln.Int(7)).Rem(kiln.Int(5)))
		}),
		mk("sum(y*y) in f32", false, func(x, y trace.Value) trace.Value {
			return y.Mul(y).Reshape(4, 128).Sum(1)
		}),
		mk("maximum(y, -y) and x << 3", false, func(x, y trace.Value) trace.Value {
			return y.Maximum(y.Neg()).Add(x.Shl(kiln.Int(3)).Astype(tensor.F16))
		}),
		// Control flow: a Python while loop and an if chain over nested
		// functions (numpy_translate_test.go's translateControl).
		mk("fori_loop, scan and switch in f16", false, func(x, y trace.Value) trace.Value {
			r := kiln.ForiLoop(kiln.Int(0), kiln.Int(3), func(i kiln.Value, c []kiln.Value) []kiln.Value {
				return []kiln.Value{c[0].Mul(kiln.Float(0.5)).Add(y), c[1].Add(x.Sum())}
			}, y, kiln.Int(0))
			c, ys := kiln.Scan(func(c, e []kiln.Value) ([]kiln.Value, []kiln.Value) {
				n := c[0].Add(e[0])
				return []kiln.Value{n}, []kiln.Value{n.Mul(n)}
			}, []kiln.Value{r[0].Reshape(64, 8).Index(0)}, []kiln.Value{r[0].Reshape(64, 8)}, kiln.ScanOptions{Reverse: true})
			s := kiln.Switch(r[1].Astype(tensor.I32), []func([]kiln.Value) []kiln.Value{
				func(o []kiln.Value) []kiln.Value { return []kiln.Value{o[0].Neg()} },
				func(o []kiln.Value) []kiln.Value { return []kiln.Value{o[0].Sub(y.Reshape(64, 8))} },
			}, ys[0])
			return s[0].Add(c[0]).Reshape(-1)
		}),
	}, preferredNumpyCases(r)...)
}

// preferredNumpyCases are matmuls and convolutions with a
// preferred_element_type: NumPy casts the operands to it and multiplies
// there. The int8 operands span
// the whole range, so an int8 product would wrap where int32 does not.
func preferredNumpyCases(r *rand.Rand) []numpyCase {
	fill := func(d tensor.DType, shape ...int) *tensor.Array {
		n := 1
		for _, s := range shape {
			n *= s
		}
		v := make([]float64, n)
		for i := range v {
			switch d {
			case tensor.I8:
				v[i] = float64(r.Intn(256) - 128)
			case tensor.U8:
				v[i] = float64(r.Intn(256))
			default:
				v[i] = r.NormFloat64() * 8
			}
		}
		a := tensor.Must(tensor.FromSlice(v)).Astype(d)
		return tensor.Must(a.Reshape(shape...))
	}
	var cs []numpyCase
	for _, p := range [][3]tensor.DType{
		{tensor.I8, tensor.I8, tensor.I32}, {tensor.U8, tensor.I8, tensor.I32}, {tensor.I8, tensor.I8, tensor.F32},
		{tensor.F16, tensor.F16, tensor.F32}, {tensor.F32, tensor.F32, tensor.F64}, {tensor.U8, tensor.U8, tensor.U16},
	} {
		x, y := fill(p[0], 3, 8, 40), fill(p[1], 40, 6)
		cs = append(cs, numpyCase{fmt.Sprintf("matmul %s @ %s, preferred %s", p[0], p[1], p[2]), &progen.Case{
			Inputs: []trace.Abstract{{Type: promote.Strong(p[0]), Shape: x.Shape()}, {Type: promote.Strong(p[1]), Shape: y.Shape()}},
			Arrays: []*tensor.Array{x, y},
			Fn: func(a []trace.Value) []trace.Value {
				return []trace.Value{trace.MatMul(a[0], a[1], trace.PreferredElementType(p[2])), a[0].MatMul(a[1])}
			},
		}})
	}
	for _, p := range [][2]tensor.DType{{tensor.I8, tensor.I32}, {tensor.F16, tensor.F32}, {tensor.U8, tensor.F64}} {
		x, w := fill(p[0], 2, 3, 9, 8), fill(p[0], 4, 3, 3, 3)
		cs = append(cs, numpyCase{fmt.Sprintf("conv %s, preferred %s", p[0], p[1]), &progen.Case{
			Inputs: []trace.Abstract{{Type: promote.Strong(p[0]), Shape: x.Shape()}, {Type: promote.Strong(p[0]), Shape: w.Shape()}},
			Arrays: []*tensor.Array{x, w},
			Fn: func(a []trace.Value) []trace.Value {
				o := trace.ConvOptions{PaddingMode: "SAME", WindowStrides: []int{2, 1}, RhsDilation: []int{1, 2}}
				return []trace.Value{trace.ConvGeneralDilated(a[0], a[1], o, trace.PreferredElementType(p[1])), trace.ConvGeneralDilated(a[0], a[1], o)}
			},
		}})
	}
	return cs
}

var (
	numpyN    = flag.Int("numpy.n", 400, "number of random programs of TestNumPy")
	numpyFrom = flag.Int64("numpy.from", 7_000_000, "first seed of TestNumPy's programs")
)

func TestNumPy(t *testing.T) {
	numpyOrSkip(t)
	cases := fixedNumpyCases()
	n := *numpyN
	if testing.Short() {
		n = min(n, 100)
	}
	opts := numpyOptions()
	for i := range n {
		seed := *numpyFrom + int64(i)
		cases = append(cases, numpyCase{fmt.Sprintf("seed %d", seed), progen.Generate(rand.New(rand.NewSource(seed)), opts)})
	}
	const batch = 100
	for lo := 0; lo < len(cases); lo += batch {
		runNumPyBatch(t, cases[lo:min(lo+batch, len(cases))])
	}
}

// runNumPyBatch translates, runs and compares one batch of cases.
func runNumPyBatch(t *testing.T, cases []numpyCase) {
	t.Helper()
	var script strings.Builder
	script.WriteString(numpyPrelude)
	progs := traceCases(t, cases)
	for i, nc := range cases {
		p := progs[i]
		if err := translate(&script, fmt.Sprintf("case%d", i), p, nc.c.Arrays); err != nil {
			t.Fatalf("%s: %v\n%s", nc.name, err, p)
		}
	}
	for i := range cases {
		fmt.Fprintf(&script, "run(%d, case%d)\n", i, i)
	}
	runNumPyScript(t, script.String(), cases, progs)
}

// traceCases traces every case's program.
func traceCases(t *testing.T, cases []numpyCase) []*trace.Program {
	t.Helper()
	progs := make([]*trace.Program, len(cases))
	for i, nc := range cases {
		p, err := nc.c.Trace()
		if err != nil {
			t.Fatalf("%s: %v", nc.name, err)
		}
		progs[i] = p
	}
	return progs
}

// runNumPyScript runs a script of cases (the prelude, then one function
// and one run line per case), and compares its outputs with Kiln's.
func runNumPyScript(t *testing.T, script string, cases []numpyCase, progs []*trace.Program) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "numpy_case.py")
	if err := os.WriteFile(path, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(numpyPython, path).Output()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", numpyPython, path, err, out)
	}
	results, err := parseNumPy(string(out), progs)
	if err != nil {
		t.Fatal(err)
	}
	for i, nc := range cases {
		res := results[i]
		fail := func(format string, args ...any) {
			t.Errorf("%s: %s\ncase:\n%s\nprogram:\n%s\nNumPy:\n%s", nc.name, fmt.Sprintf(format, args...), nc.c, progs[i], numpyFunc(script, i))
		}
		if res.err != "" {
			fail("NumPy raised %s", res.err)
			continue
		}
		got, err := kiln.Jit(nc.c.Fn, caseOptions(nc.c)...).RunAll(caseArgs(nc.c)...)
		if err != nil {
			fail("Kiln: %v", err)
			continue
		}
		if d := diffResults(got, res.outs, true); d != "" {
			fail("Kiln and NumPy differ: %s\nKiln:  %s\nNumPy: %s", d, formatResults(got), formatResults(res.outs))
		}
	}
}

type numpyResult struct {
	outs []*tensor.Array
	err  string
}

// parseNumPy reads the script's output: "OK i n" and n lines of dtype,
// shape and hex bytes, or "ERR i message".
func parseNumPy(out string, progs []*trace.Program) ([]numpyResult, error) {
	res := make([]numpyResult, len(progs))
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 3 {
			return nil, fmt.Errorf("numpy: bad line %q", sc.Text())
		}
		i, err := strconv.Atoi(f[1])
		if err != nil || i < 0 || i >= len(progs) {
			return nil, fmt.Errorf("numpy: bad case index in %q", sc.Text())
		}
		if f[0] == "ERR" {
			res[i].err = strings.Join(f[2:], " ")
			continue
		}
		n, _ := strconv.Atoi(f[2])
		for k := 0; k < n && sc.Scan(); k++ {
			a, err := parseNumPyArray(sc.Text(), progs[i].Outputs[k])
			if err != nil {
				return nil, fmt.Errorf("numpy case %d output %d: %v", i, k, err)
			}
			res[i].outs = append(res[i].outs, a)
		}
	}
	return res, sc.Err()
}

// parseNumPyArray decodes "dtype shape hex", checking NumPy's dtype
// against the traced output's.
func parseNumPyArray(line string, want *trace.Var) (*tensor.Array, error) {
	f := strings.Fields(line)
	if len(f) != 3 {
		return nil, fmt.Errorf("bad array line %q", line)
	}
	d := want.Type.DType
	if np := strings.NewReplacer("|b1", "?", "|", "<").Replace(f[0]); np != numpyDType[d] {
		return nil, fmt.Errorf("NumPy computed %s, Kiln's program says %s", f[0], d)
	}
	var shape []int
	if dims := strings.TrimPrefix(f[1], "s"); dims != "" {
		for _, s := range strings.Split(dims, ",") {
			n, err := strconv.Atoi(s)
			if err != nil {
				return nil, err
			}
			shape = append(shape, n)
		}
	}
	h := f[2]
	if h == "-" {
		h = ""
	}
	return arrayFromHex(d, shape, h)
}

// numpyFunc extracts case i's Python function from the script.
func numpyFunc(script string, i int) string {
	start := strings.Index(script, fmt.Sprintf("def case%d():", i))
	if start < 0 {
		return ""
	}
	rest := script[start:]
	if end := strings.Index(rest[1:], "\ndef "); end >= 0 {
		rest = rest[:end+1]
	}
	if len(rest) > 4000 {
		rest = rest[:4000] + "…"
	}
	return rest
}

func formatResults(as []*tensor.Array) string {
	parts := make([]string, len(as))
	for i, a := range as {
		parts[i] = formatArray(a)
	}
	return strings.Join(parts, " | ")
}
