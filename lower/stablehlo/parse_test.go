package stablehlo

import (
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/kiln-go/kiln/lower"
	"github.com/kiln-go/kiln/promote"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// mutationModule has the attributes the round trip checks: a constant with
// a NaN payload, a broadcast, a comparison, a transpose, a slice, a reduce
// and a dot_general.
func mutationModule(t *testing.T) *lower.Module {
	t.Helper()
	nan := tensor.Must(tensor.FromSlice([]float32{math.Float32frombits(0x7FC00123), 1, float32(math.Copysign(0, -1))}))
	inputs := []trace.Abstract{{Type: promote.Strong(tensor.F32), Shape: []int{2, 3}}, {Type: promote.Strong(tensor.F32), Shape: []int{3}}}
	p, err := trace.Trace(promote.Config{}, inputs, func(a []trace.Value) []trace.Value {
		x, y := a[0], a[1]
		s := x.Sub(y.Add(trace.Const(nan)))
		return []trace.Value{
			s.Lt(y), s.Transpose(1, 0), s.Slice(1, 0, 3, 2),
			trace.Reduce(trace.OpReduceSum, s, []int{1}, false), trace.Dot(x, y),
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	m, err := lower.Lower(p)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// The round trip fails where the export's ops disagree with the module:
// each mutation changes one op Export built (the text still parses and
// matches the built ops), and the check against the instructions must
// find it.
func TestRoundTripFindsMismatches(t *testing.T) {
	if _, err := roundTrip(mutationModule(t), mustBuild(t, mutationModule(t)), mustBuild(t, mutationModule(t)).String()); err == nil {
		// not the same build: the built values differ, so this must fail too
		t.Fatal("a text matched ops it was not printed from")
	}
	m := mutationModule(t)
	f := mustBuild(t, m)
	if _, err := roundTrip(m, f, f.String()); err != nil {
		t.Fatalf("the unmutated export: %v", err)
	}
	find := func(f *shloFunc, op string) *shloOp {
		for _, o := range f.body.ops {
			if o.op == "stablehlo."+op {
				return o
			}
		}
		t.Fatalf("no %s in the export", op)
		return nil
	}
	mutations := map[string]func(f *shloFunc){
		"nan payload": func(f *shloFunc) {
			o := find(f, "constant")
			o.attrs[0] = strings.Replace(o.attrs[0], "0x7FC00123", "0x7FC00124", 1)
		},
		"broadcast dims": func(f *shloFunc) {
			o := find(f, "broadcast_in_dim")
			o.attrs[0] = "broadcast_dimensions = array<i64: 0>"
			o.results[0].typ = shloType{tensor.F32, []int{3, 3}}
		},
		"operand order": func(f *shloFunc) { o := find(f, "subtract"); o.args[0], o.args[1] = o.args[1], o.args[0] },
		"compare direction": func(f *shloFunc) {
			o := find(f, "compare")
			o.attrs[0] = strings.Replace(o.attrs[0], "LT", "LE", 1)
		},
		"compare type": func(f *shloFunc) {
			o := find(f, "compare")
			o.attrs[1] = strings.Replace(o.attrs[1], "FLOAT", "TOTALORDER", 1)
		},
		"permutation": func(f *shloFunc) { find(f, "transpose").attrs[0] = "permutation = array<i64: 0, 1>" },
		"slice stride": func(f *shloFunc) {
			o := find(f, "slice")
			o.attrs[2] = "strides = array<i64: 1, 1>"
		},
		"reduce dims": func(f *shloFunc) { find(f, "reduce").attrs[0] = "dimensions = array<i64: 0>" },
		"reduce body": func(f *shloFunc) { find(f, "reduce").region.ops[0].op = "stablehlo.maximum" },
		"dot dims": func(f *shloFunc) {
			o := find(f, "dot_general")
			o.attrs[0] = strings.Replace(o.attrs[0], "rhs_contracting_dimensions = [0]", "rhs_batching_dimensions = [0]", 1)
		},
		"op kind": func(f *shloFunc) { find(f, "add").op = "stablehlo.multiply" },
		"result type": func(f *shloFunc) {
			o := find(f, "compare")
			o.results[0].typ = o.results[0].typ.with(tensor.I8)
		},
	}
	for name, mutate := range mutations {
		t.Run(name, func(t *testing.T) {
			m := mutationModule(t)
			f := mustBuild(t, m)
			mutate(f)
			if _, err := roundTrip(m, f, f.String()); err == nil {
				t.Errorf("the mutated export passes the round trip:\n%s", f)
			} else {
				t.Log(err)
			}
		})
	}
}

// A text that differs from the ops it was printed from fails the
// comparison with them (the printer and the parser must agree).
func TestRoundTripFindsTextEdits(t *testing.T) {
	edits := [][2]string{
		{"[0x7FC00123", "[0x7FC00125"},
		{"comparison_direction LT", "comparison_direction GT"},
		{"is_stable = true", "is_stable = false"},
		{`"stablehlo.subtract"`, `"stablehlo.add"`},
		{"strides = array<i64: 1, 2>", "strides = array<i64: 1, 1>"},
	}
	for _, e := range edits {
		m := mutationModule(t)
		f := mustBuild(t, m)
		text := f.String()
		if !strings.Contains(text, e[0]) {
			if e[0] == "is_stable = true" {
				continue // no sort in this module
			}
			t.Fatalf("%q is not in the export", e[0])
		}
		if _, err := roundTrip(m, f, strings.Replace(text, e[0], e[1], 1)); err == nil {
			t.Errorf("%q → %q passes the round trip", e[0], e[1])
		}
	}
}

func mustBuild(t *testing.T, m *lower.Module) *shloFunc {
	t.Helper()
	f, err := build(m)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// Parse reads what the exporter writes and reports bad text as a
// *ParseError at the right line and column.
func TestParse(t *testing.T) {
	const text = `// a comment
module @m {
  func.func public @main(%0: tensor<2xf32>, %1: tensor<bf16>) -> (tensor<2xf32>, tensor<2x2xcomplex<f64>>) {
    %2 = "stablehlo.constant"() {value = dense<[0x7FC00001, -0.0]> : tensor<2xf32>} : () -> tensor<2xf32>
    %3:2 = "stablehlo.sort"(%0, %2) ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>, %c: tensor<f32>, %d: tensor<f32>):
      %4 = "stablehlo.compare"(%a, %b) {comparison_direction = #stablehlo<comparison_direction LT>} : (tensor<f32>, tensor<f32>) -> tensor<i1>
      "stablehlo.return"(%4) : (tensor<i1>) -> ()
    }) {dimension = 0 : i64, is_stable = true} : (tensor<2xf32>, tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>)
    %5 = "stablehlo.constant"() {value = dense<(1.5, 0xFFF0000000000000)> : tensor<2x2xcomplex<f64>>} : () -> tensor<2x2xcomplex<f64>>
    %6 = "stablehlo.dot_general"(%0, %0) {dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [0], rhs_contracting_dimensions = [0]>} : (tensor<2xf32>, tensor<2xf32>) -> tensor<f32>
    func.return %3#1, %5 : tensor<2xf32>, tensor<2x2xcomplex<f64>>
  }
}
`
	m, err := Parse(text)
	if err != nil {
		t.Fatal(err)
	}
	f := m.Funcs[0]
	if m.Name != "@m" || f.Name != "@main" || len(f.Body.Args) != 2 || f.Body.Args[1].Type.DType != tensor.BF16 {
		t.Fatalf("parsed %+v %+v", m, f)
	}
	ops := f.Body.Ops
	c := ops[0].Attr("value").(*DenseAttr)
	if bits, _ := tensor.Data[float32](c.Value); math.Float32bits(bits[0]) != 0x7FC00001 || math.Float32bits(bits[1]) != 0x80000000 {
		t.Errorf("constant bits %x", bits)
	}
	sort := ops[1]
	if len(sort.Results) != 2 || sort.Operands[1] != ops[0].Results[0] || len(sort.Regions[0].Args) != 4 ||
		sort.Regions[0].Ops[0].Operands[0] != sort.Regions[0].Args[0] || sort.Attr("is_stable") != BoolAttr(true) {
		t.Errorf("sort parsed as %+v", sort)
	}
	cx, _ := tensor.Data[complex128](ops[2].Attr("value").(*DenseAttr).Value)
	if len(cx) != 4 || real(cx[3]) != 1.5 || !math.IsInf(imag(cx[3]), -1) {
		t.Errorf("complex splat %v", cx)
	}
	dot := ops[3].Attr("dot_dimension_numbers").(*StructAttr)
	if fl, ok := dot.Field("rhs_contracting_dimensions"); !ok || len(fl.Values) != 1 || dot.String() != "#stablehlo.dot<lhs_contracting_dimensions = [0], rhs_contracting_dimensions = [0]>" {
		t.Errorf("dot dims %v", dot)
	}
	ret := ops[len(ops)-1]
	if ret.Name != "func.return" || ret.Operands[0] != sort.Results[1] || ret.Operands[0].Ref() != "%3#1" {
		t.Errorf("return %+v", ret)
	}

	bad := []struct {
		text string
		pos  Pos
		msg  string
	}{
		{"module {\n  func.func @f(%0: tensor<2xf32>) -> tensor<2xf32> {\n    func.return %1 : tensor<2xf32>\n  }\n}", Pos{3, 17}, "%1 is not defined"},
		{"func.func @f(%0: tensor<2xf32>) -> tensor<2xf32> {\n  func.return %0 : tensor<3xf32>\n}", Pos{2, 20}, "used as tensor<3xf32>"},
		{"func.func @f(%0: tensor<2xf33>) {\n}", Pos{1, 27}, "expected an element type"},
		{"func.func @f(%0: tensor<2xf32>) {\n  %1 = stablehlo.add %0, %0 : tensor<2xf32>\n}", Pos{2, 8}, "generic form"},
		{`func.func @f() -> tensor<2xi8> {
  %1 = "stablehlo.constant"() {value = dense<[1, 300]> : tensor<2xi8>} : () -> tensor<2xi8>
  func.return %1 : tensor<2xi8>
}`, Pos{2, 50}, `literal "300" is not a i8`},
		{`func.func @f() {
  %1 = "stablehlo.constant"() {value = dense<[1, 2, 3]> : tensor<2xi8>} : () -> tensor<2xi8>
  func.return
}`, Pos{2, 46}, "dimension 0 of tensor<2xi8> has 2 elements, the literal 3"},
		{`func.func @f() {
  %1 = "stablehlo.constant"() {value = dense<1.0> : tensor<65536x65536xf32>} : () -> tensor<65536x65536xf32>
  func.return
}`, Pos{2, 40}, "MaxSplatElements"},
		{`func.func @f() {
  %1 = "stablehlo.constant"() {value = dense<0x7FC0> : tensor<f32>} : () -> tensor<f32>
  func.return
}`, Pos{2, 46}, `literal "0x7FC0" is not a f32`},
		{"func.func @f(%0: tensor<f32>, %0: tensor<f32>) {\n  func.return\n}", Pos{1, 31}, "%0 is defined twice"},
		{`func.func @f(%0: tensor<f32>) {
  %1:2 = "stablehlo.negate"(%0) : (tensor<f32>) -> tensor<f32>
  func.return
}`, Pos{2, 3}, "defines 2 results, its type lists 1"},
		{`func.func @f(%0: tensor<f32>) {
  %1 = "stablehlo.reduce"(%0) ({
  ^bb0(%a: tensor<f32>):
    %2 = "stablehlo.negate"(%a) : (tensor<f32>) -> tensor<f32>
  }) : (tensor<f32>) -> tensor<f32>
  func.return
}`, Pos{5, 3}, "does not end with stablehlo.return"},
		{"func.func @f(%0: tensor<?xf32>) {}", Pos{1, 25}, "dynamic"},
		{"module {", Pos{1, 9}, "expected func.func"},
		{"func.func @f() {\n  func.return\n  func.return\n}", Pos{2, 3}, "func.return before the end of @f"},
		{"func.func @f() {\n  %1 = \"stablehlo.constant\"() {value = dense<" + strings.Repeat("[", 300), Pos{2, 302}, "nested more than 256 deep"},
	}
	for _, b := range bad {
		_, err := Parse(b.text)
		var pe *ParseError
		if !errors.As(err, &pe) {
			t.Errorf("%q: error %v, want a *ParseError", b.text, err)
			continue
		}
		if pe.Pos != b.pos || !strings.Contains(pe.Msg, b.msg) {
			t.Errorf("%q:\n got %v\nwant %v: …%s…", b.text, err, b.pos, b.msg)
		}
	}
}

// Random bytes, and random edits of a real export, are errors or a
// module, never a panic.
func FuzzParse(f *testing.F) {
	f.Add("")
	f.Add("module {}")
	f.Add(`func.func @f(%0: tensor<2xf32>) -> tensor<2xf32> { func.return %0 : tensor<2xf32> }`)
	f.Add(`func.func @f() { %1 = "stablehlo.constant"() {value = dense<[[1, 2]]> : tensor<1x2xi8>} : () -> tensor<1x2xi8>
  func.return }`)
	for _, name := range []string{"control", "conv", "index", "sort", "c64"} {
		if b, err := os.ReadFile("testdata/stablehlo_" + name + ".golden"); err == nil {
			f.Add(string(b))
		}
	}
	f.Add(`func.func @f() { %1 = "a.b"() {x = #stablehlo.conv<raw a = 1, b = [2]>, y = #stablehlo<k V>, z = array<i64: 1>} : () -> tensor<f32> }`)
	f.Fuzz(func(t *testing.T, text string) {
		m, err := Parse(text)
		var pe *ParseError
		if err != nil && !errors.As(err, &pe) {
			t.Fatalf("error %v is not a *ParseError", err)
		}
		if err == nil && m == nil {
			t.Fatal("no module and no error")
		}
	})
}

// The interpreter runs what the text says: an export whose text differs
// in one operand, one attribute or one constant's bits computes different
// results (so TestConformanceInterpreted checks the text's semantics).
func TestInterpreterReadsTheText(t *testing.T) {
	m := mutationModule(t)
	x := tensor.Must(tensor.FromSlice([]float32{1, 2, 3, 4, 5, 6}, 2, 3))
	y := tensor.Must(tensor.FromSlice([]float32{0.5, -1, 8}))
	rng := rand.New(rand.NewPCG(1, 1))
	text := mustBuild(t, m).String()
	want, err := evalText(text, []*tensor.Array{x, y}, rng, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range [][2]string{
		{`"stablehlo.subtract"(%0, %4)`, `"stablehlo.subtract"(%4, %0)`},
		{"comparison_direction LT", "comparison_direction GT"},
		{"[0x7FC00123, 1.0, -0.0]", "[0x7FC00123, 2.0, -0.0]"},
		{"strides = array<i64: 1, 2>", "strides = array<i64: 1, 1>"},
		{"rhs_contracting_dimensions = [0]", "rhs_contracting_dimensions = [0]"}, // unchanged: must agree
	} {
		if !strings.Contains(text, e[0]) {
			t.Fatalf("%q is not in the export:\n%s", e[0], text)
		}
		got, err := evalText(strings.Replace(text, e[0], e[1], 1), []*tensor.Array{x, y}, rng, nil)
		if err != nil {
			t.Fatal(err)
		}
		same := true
		for i := range want {
			same = same && tensor.Equal(got[i], want[i])
		}
		if same != (e[0] == e[1]) {
			t.Errorf("%q → %q: results unchanged %v", e[0], e[1], same)
		}
	}
}
