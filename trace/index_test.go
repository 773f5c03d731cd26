package trace_test

import (
	"strings"
	"testing"

	"github.com/kiln-go/kiln/promote"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// The dtype and weak-flag rules of the indexing ops (JAX's): reads keep the
// operand's type, weak flag included; updates are computed in the
// promotion of x and v and give x's type; one_hot gives the default float,
// strong. And the primitives each builder emits, as JAX's jaxprs show
// them: static indices slice, scalar array indices dynamic_slice, array
// indices gather, updates scatter.
func TestIndexTypesAndPrimitives(t *testing.T) {
	x32 := promote.Config{X32: true}
	ints := func(v ...int64) trace.Value { a, _ := tensor.FromSlice(v); return trace.Const(a) }
	cases := []struct {
		name   string
		cfg    promote.Config
		inputs []string
		fn     func(a []trace.Value) trace.Value
		want   string // result type and shape
		ops    string // the primitives emitted, in order (converts and consts left out)
	}{
		{"static index keeps weak", promote.Config{}, []string{"f32*[4,3]"}, func(a []trace.Value) trace.Value { return a[0].Index(1, trace.Step(-1)) },
			"f32*[3]", "slice rev reshape"},
		{"array index keeps weak", promote.Config{}, []string{"f32*[4,3]", "u8[2]"}, func(a []trace.Value) trace.Value { return a[0].Index(a[1]) },
			"f32*[2,3]", "reshape gather"},
		{"scalar array index: dynamic_slice", promote.Config{}, []string{"i16[4,3]", "i32[]"}, func(a []trace.Value) trace.Value { return a[0].Index(trace.All, a[1]) },
			"i16[4]", "lt add select dynamic_slice reshape"},
		{"take", promote.Config{}, []string{"bf16[5]", "i64[2,2]"}, func(a []trace.Value) trace.Value { return trace.Take(a[0], a[1], 0) },
			"bf16[2,2]", "lt add select reshape gather"},
		{"take_along_axis", promote.Config{}, []string{"f64[2,5]", "i32[2,3]"}, func(a []trace.Value) trace.Value { return trace.TakeAlongAxis(a[0], a[1], 1) },
			"f64[2,3]", "lt add select reshape gather"},
		{"set a weak literal", promote.Config{}, []string{"i8[4]", "i32[2]"}, func(a []trace.Value) trace.Value { return a[0].At(a[1]).Set(trace.Int(-3)) },
			"i8[4]", "lt add select reshape broadcast_in_dim scatter"},
		{"add a float into ints: computed in f32, back to i8", promote.Config{}, []string{"i8[4]", "i32[2]", "f32[2]"}, func(a []trace.Value) trace.Value {
			return a[0].At(a[1]).Add(a[2])
		}, "i8[4]", "lt add select reshape scatter_add"},
		{"weak x keeps its type", promote.Config{}, []string{"f32*[4]", "i32[2]", "f16[2]"}, func(a []trace.Value) trace.Value {
			return a[0].At(a[1]).Max(a[2])
		}, "f32*[4]", "lt add select reshape scatter_max"},
		{"dynamic_update_slice takes a weak update", promote.Config{}, []string{"f16[4]", "f64*[2]"}, func(a []trace.Value) trace.Value {
			return trace.DynamicUpdateSlice(a[0], a[1], []trace.Value{trace.Int(1)})
		}, "f16[4]", "dynamic_update_slice"},
		{"one_hot", promote.Config{}, []string{"u8[3]"}, func(a []trace.Value) trace.Value { return trace.OneHot(a[0], 4) },
			"f64[3,4]", "reshape iota eq"}, // an iota op, as jax.nn.one_hot's broadcasted_iota: no constant

		{"one_hot x32", x32, []string{"i8[3]"}, func(a []trace.Value) trace.Value { return trace.OneHot(a[0], 4) },
			"f32[3,4]", "reshape iota eq"},
		{"flip", promote.Config{}, []string{"c64*[2,3]"}, func(a []trace.Value) trace.Value { return a[0].Flip() },
			"c64*[2,3]", "rev"},
		{"constant index", promote.Config{}, []string{"f32[5]"}, func(a []trace.Value) trace.Value { return a[0].Index(ints(4, -1)) },
			"f32[2]", "lt add select reshape gather"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := traceOne(t, c.cfg, c.inputs, c.fn)
			if err != nil {
				t.Fatal(err)
			}
			if got := p.Outputs[0].TypeString(); got != c.want {
				t.Errorf("result %s, want %s\n%s", got, c.want, p)
			}
			var ops []string
			for _, e := range p.Eqns {
				if e.Op != trace.OpConvert && e.Op != trace.OpConst {
					ops = append(ops, e.Op.String())
				}
			}
			if got := strings.Join(ops, " "); got != c.ops {
				t.Errorf("primitives %q, want %q\n%s", got, c.ops, p)
			}
		})
	}
}
