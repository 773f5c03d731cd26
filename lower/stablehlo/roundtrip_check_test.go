package stablehlo

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/kiln-go/kiln/lower"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// The checks of RoundTrip against a module's instructions: one
// instruction at a time, with the parsed ops the export wrote for it.

// instrCheck is one instruction with the parsed ops the export wrote for
// it: those named for it (%7) and its helpers (%t7_1, …).
type instrCheck struct {
	in    *lower.Instr
	val   *Value   // the instruction's parsed value
	args  []*Value // its operands' parsed values
	group []*Op
}

// wiring checks that the instruction's ops read exactly its operands'
// values from outside (every one of them, nothing else), or that an
// instruction without ops is one of its operands (an identity) or a
// result of a while or cond.
func (c *instrCheck) wiring() error {
	if len(c.group) == 0 {
		switch {
		case c.in.Op == trace.OpResult:
			if c.val.Def != c.args[0].Def || c.val.Index != c.in.Params.Control.Index {
				return fmt.Errorf("is %s, not result %d of %s", c.val.Ref(), c.in.Params.Control.Index, c.args[0].Ref())
			}
		case !slices.Contains(c.args, c.val):
			return fmt.Errorf("has no op and is %s, none of its operands", c.val.Ref())
		}
		return nil
	}
	if c.val.Def != c.group[len(c.group)-1] {
		return fmt.Errorf("is %s, not the last of its ops", c.val.Ref())
	}
	inside := map[*Value]bool{}
	used := map[*Value]bool{}
	var walk func(ops []*Op) error
	walk = func(ops []*Op) error {
		for _, o := range ops {
			for _, a := range o.Operands {
				switch {
				case inside[a]:
				case slices.Contains(c.args, a):
					used[a] = true
				default:
					return fmt.Errorf("%s reads %s, which is not an operand of the instruction", o.Name, a.Ref())
				}
			}
			for _, r := range o.Regions {
				for _, a := range r.Args {
					inside[a] = true
				}
				if err := walk(r.Ops); err != nil {
					return err
				}
			}
			for _, r := range o.Results {
				inside[r] = true
			}
		}
		return nil
	}
	if err := walk(c.group); err != nil {
		return err
	}
	for i, a := range c.args {
		if !used[a] && !c.ignores(i) {
			return fmt.Errorf("operand %d (%s) is not read", i, a.Ref())
		}
	}
	return nil
}

// ignores reports the operands an instruction's value does not depend on:
// the operand of isnan/isinf/isfinite of a type that is never NaN or
// infinite, of imag of a real number (0).
func (c *instrCheck) ignores(i int) bool {
	d := c.in.Args[i].DType
	switch c.in.Op {
	case trace.OpIsNaN, trace.OpIsInf, trace.OpIsPosInf, trace.OpIsNegInf, trace.OpIsFinite:
		return !d.IsFloat() && !d.IsComplex()
	case trace.OpImag:
		return !d.IsComplex()
	}
	return false
}

// constantResult checks the splat an instruction that ignores its operand
// is: false for isnan and isinf of an integer, true for isfinite, 0 for
// imag of a real number.
func (c *instrCheck) constantResult() error {
	o := c.group[0]
	d, ok := o.Attr("value").(*DenseAttr)
	if o.Name != "stablehlo.constant" || !ok || d.Splat == nil {
		return fmt.Errorf("is %s, not a splat constant", o.Name)
	}
	want := [2]uint64{}
	if c.in.Op == trace.OpIsFinite {
		want[0] = 1
	}
	if f, ok := c.in.DType.FloatFormat(); ok { // 0 in the format: f8e8m0fnu has none (NaN)
		want[0] = uint64(f.FromFloat64(0))
	}
	if got := elemBits(d.Splat)[0]; got != want {
		return fmt.Errorf("is the splat %v, want bits %v", d, want)
	}
	return nil
}

func refs(vs []*Value) string {
	s := make([]string, len(vs))
	for i, v := range vs {
		s[i] = v.Ref()
	}
	return "(" + strings.Join(s, ", ") + ")"
}

// single reports whether the instruction is one op reading its operands in
// order.
func (c *instrCheck) single() bool {
	return len(c.group) == 1 && slices.Equal(c.group[0].Operands, c.args)
}

// find returns the last op of the group named stablehlo.<name>.
func (c *instrCheck) find(name string) (*Op, error) {
	for i := len(c.group) - 1; i >= 0; i-- {
		if c.group[i].Name == "stablehlo."+name {
			return c.group[i], nil
		}
	}
	return nil, fmt.Errorf("no stablehlo.%s among its %d ops", name, len(c.group))
}

// singleKinds are the ops an instruction lowered to one op may be, by
// Kiln op name: its StableHLO (or CHLO) twin, or what Kiln's definition
// is on some dtype (bool add is or, sign of unsigned is min(x, 1), real of
// complex is the real part).
var singleKinds = map[string][]string{
	"convert": {"convert", "real"}, "neg": {"negate"}, "abs": {"abs"}, "sign": {"sign"},
	"exp": {"exponential"}, "log": {"log"}, "log1p": {"log_plus_one"}, "expm1": {"exponential_minus_one"},
	"sqrt": {"sqrt"}, "rsqrt": {"rsqrt"}, "sin": {"sine"}, "cos": {"cosine"}, "tan": {"tan"}, "tanh": {"tanh"},
	"logistic": {"logistic"}, "floor": {"floor"}, "ceil": {"ceil"}, "round": {"round_nearest_even"},
	"isnan": {"compare"}, "isfinite": {"is_finite"}, "real": {"real"}, "imag": {"imag"}, "not": {"not"},
	"asin": {"chlo.asin"}, "acos": {"chlo.acos"}, "atan": {"chlo.atan"}, "sinh": {"chlo.sinh"}, "cosh": {"chlo.cosh"},
	"asinh": {"chlo.asinh"}, "acosh": {"chlo.acosh"}, "atanh": {"chlo.atanh"}, "erf": {"chlo.erf"},
	"erfc": {"chlo.erfc"}, "erf_inv": {"chlo.erf_inv"}, "isinf": {"chlo.is_inf"}, "isposinf": {"chlo.is_pos_inf"},
	"isneginf": {"chlo.is_neg_inf"}, "cbrt": {"cbrt"}, "atan2": {"atan2"}, "nextafter": {"chlo.next_after"},
	"fmod": {"remainder"}, "add": {"add", "or"}, "sub": {"subtract"}, "mul": {"multiply", "and"},
	"div": {"divide"}, "pow": {"power"}, "max": {"maximum", "or"}, "min": {"minimum", "and"},
	"and": {"and"}, "or": {"or"}, "xor": {"xor"}, "eq": {"compare"}, "ne": {"compare"}, "lt": {"compare"},
	"le": {"compare"}, "gt": {"compare"}, "ge": {"compare"}, "select": {"select"},
	"broadcast_in_dim": {"broadcast_in_dim"}, "reshape": {"reshape"}, "transpose": {"transpose"},
	"slice": {"slice"}, "concatenate": {"concatenate"}, "dot_general": {"dot_general"},
	"conv_general_dilated": {"convolution"}, "rev": {"reverse"}, "gather": {"gather"},
	"dynamic_slice": {"dynamic_slice"}, "dynamic_update_slice": {"dynamic_update_slice"},
	"const": {"constant"}, "iota": {"iota"}, "sort": {"sort"}, "while": {"while"}, "cond": {"case"},
	"bitcast_convert_type": {"bitcast_convert"}, "scatter": {"scatter"}, "scatter_add": {"scatter"},
	"scatter_mul": {"scatter"}, "scatter_min": {"scatter"}, "scatter_max": {"scatter"},
}

var compareDir = map[trace.Op]string{
	trace.OpEq: "EQ", trace.OpNe: "NE", trace.OpLt: "LT", trace.OpLe: "LE", trace.OpGt: "GT", trace.OpGe: "GE",
}

// check checks the instruction's ops against its kind and parameters.
func (c *instrCheck) check() error {
	in, p := c.in, c.in.Params
	op := in.Op
	if len(c.group) == 0 {
		return nil // an identity or a result: wiring checked it
	}
	if len(c.group) == 1 {
		// One op: its kind's twin, reading the operands in order (isnan
		// is x != x; a case reads the branch index).
		o := c.group[0]
		if len(c.args) == 1 && c.ignores(0) {
			return c.constantResult()
		}
		kinds := singleKinds[op.String()]
		if name := strings.TrimPrefix(o.Name, "stablehlo."); !slices.Contains(kinds, name) {
			return fmt.Errorf("is one %s, want one of %v", o.Name, kinds)
		}
		want := c.args
		switch op {
		case trace.OpIsNaN:
			want = []*Value{c.args[0], c.args[0]}
		case trace.OpCond:
			want = c.args[:1] // the branches read the rest (wiring checks that they do)
		}
		if !slices.Equal(o.Operands, want) {
			return fmt.Errorf("%s reads %s, want %s", o.Name, refs(o.Operands), refs(want))
		}
	}
	switch {
	case op == trace.OpConst:
		o, err := c.find("constant")
		if err != nil || len(c.group) != 1 {
			return fmt.Errorf("not one constant: %v", err)
		}
		return sameBits(o.Attr("value"), p.Value)
	case compareDir[op] != "" && c.single():
		return checkCompare(c.group[0], compareDir[op], in.Args[0].DType)
	case op == trace.OpIsNaN && c.single():
		return checkCompare(c.group[0], "NE", in.Args[0].DType)
	case op == trace.OpBroadcastInDim:
		return c.attrs("broadcast_in_dim", "broadcast_dimensions", p.Dims)
	case op == trace.OpTranspose:
		return c.attrs("transpose", "permutation", p.Perm)
	case op == trace.OpSlice:
		return c.attrs("slice", "start_indices", p.Start, "limit_indices", p.Limit, "strides", p.Stride)
	case op == trace.OpRev:
		return c.attrs("reverse", "dimensions", p.Axes)
	case op == trace.OpConcat:
		return c.ints("concatenate", "dimension", p.Axis)
	case op == trace.OpIota:
		return c.ints("iota", "iota_dimension", p.Axis)
	case op == trace.OpReduceSum || op == trace.OpReduceProd || op == trace.OpReduceMax || op == trace.OpReduceMin:
		if err := c.attrs("reduce", "dimensions", p.Axes); err != nil {
			return err
		}
		o, _ := c.find("reduce")
		body := o.Regions[0].Ops[0].Name
		want := map[trace.Op][]string{trace.OpReduceSum: {"add", "or"}, trace.OpReduceProd: {"multiply", "and"},
			trace.OpReduceMax: {"maximum", "or"}, trace.OpReduceMin: {"minimum", "and"}}[op]
		if len(o.Regions[0].Ops) != 2 || !slices.Contains(want, strings.TrimPrefix(body, "stablehlo.")) {
			return fmt.Errorf("the reduce body is %s, want one of %v", body, want)
		}
	case op == trace.OpArgMax || op == trace.OpArgMin:
		if err := c.attrs("reduce", "dimensions", p.Axes); err != nil {
			return err
		}
		return c.ints("iota", "iota_dimension", p.Axes[0])
	case op == trace.OpDot:
		return c.fields("dot_general", "dot_dimension_numbers", map[string][]int{
			"lhs_batching_dimensions": p.Dot.LhsBatch, "rhs_batching_dimensions": p.Dot.RhsBatch,
			"lhs_contracting_dimensions": p.Dot.LhsContract, "rhs_contracting_dimensions": p.Dot.RhsContract})
	case op == trace.OpConv:
		return c.conv()
	case op == trace.OpGather:
		g := p.Index.Gather
		if err := c.attrs("gather", "slice_sizes", p.Index.SliceSizes); err != nil {
			return err
		}
		return c.fields("gather", "dimension_numbers", map[string][]int{
			"offset_dims": g.OffsetDims, "collapsed_slice_dims": g.CollapsedSliceDims, "start_index_map": g.StartIndexMap,
			"operand_batching_dims": g.OperandBatchingDims, "start_indices_batching_dims": g.StartIndicesBatchingDims,
			"index_vector_dim": {len(in.Args[1].Shape) - 1}})
	case op.IsScatter():
		if trace.ShapeSize(in.Args[0].Shape) == 0 {
			return nil // the operand itself (wiring checked it)
		}
		s := p.Index.Scatter
		return c.fields("scatter", "scatter_dimension_numbers", map[string][]int{
			"update_window_dims": s.UpdateWindowDims, "inserted_window_dims": s.InsertedWindowDims,
			"scatter_dims_to_operand_dims": s.ScatterDimsToOperandDims, "input_batching_dims": s.OperandBatchingDims,
			"scatter_indices_batching_dims": s.ScatterIndicesBatchingDims, "index_vector_dim": {len(in.Args[1].Shape) - 1}})
	case op == trace.OpDynamicSlice:
		return c.attrs("dynamic_slice", "slice_sizes", p.Index.SliceSizes)
	case op == trace.OpSort:
		if err := c.ints("sort", "dimension", p.Axis); err != nil {
			return err
		}
		o, _ := c.find("sort")
		if len(o.Operands) != len(c.args) || o.Attr("is_stable") != BoolAttr(true) {
			return fmt.Errorf("a sort of %d operands, is_stable %v", len(o.Operands), o.Attr("is_stable"))
		}
	case op == trace.OpWhile || op == trace.OpCond:
		kind := map[trace.Op]string{trace.OpWhile: "while", trace.OpCond: "case"}[op]
		if o, err := c.find(kind); err != nil || o != c.val.Def {
			return fmt.Errorf("not a stablehlo.%s: %v", kind, err)
		}
	case !c.single() && singleKinds[op.String()] == nil && op != trace.OpThreefry2x32 &&
		op.Info().Class != trace.ClassUnary && op.Info().Class != trace.ClassBinary:
		return fmt.Errorf("no check for %s", op)
	}
	return nil
}

func checkCompare(o *Op, dir string, d tensor.DType) error {
	kind := "UNSIGNED"
	switch {
	case d.IsFloat() || d.IsComplex():
		kind = "FLOAT"
	case d.IsSigned():
		kind = "SIGNED"
	}
	got, _ := o.Attr("comparison_direction").(*EnumAttr)
	typ, _ := o.Attr("compare_type").(*EnumAttr)
	if got == nil || typ == nil || got.Kind != "comparison_direction" || got.Value != dir || typ.Kind != "comparison_type" || typ.Value != kind {
		return fmt.Errorf("compares %v as %v, want %s as %s", o.Attr("comparison_direction"), o.Attr("compare_type"), dir, kind)
	}
	return nil
}

// attrs checks i64 array attributes of the group's op (key, want, …).
func (c *instrCheck) attrs(op string, kv ...any) error {
	o, err := c.find(op)
	if err != nil {
		return err
	}
	for i := 0; i < len(kv); i += 2 {
		got, ok := o.Attr(kv[i].(string)).(I64Array)
		if want := kv[i+1].([]int); !ok || !slices.Equal([]int(got), want) && len(got)+len(want) > 0 {
			return fmt.Errorf("%s %s = %v, want %v", o.Name, kv[i], o.Attr(kv[i].(string)), want)
		}
	}
	return nil
}

// ints checks an integer attribute of the group's op.
func (c *instrCheck) ints(op, key string, want int) error {
	o, err := c.find(op)
	if err != nil {
		return err
	}
	if got, ok := o.Attr(key).(*IntAttr); !ok || got.Value != int64(want) || got.Type != "i64" {
		return fmt.Errorf("%s %s = %v, want %d : i64", o.Name, key, o.Attr(key), want)
	}
	return nil
}

// fields checks a struct attribute: every field present where the wanted
// list is not empty, and nothing else.
func (c *instrCheck) fields(op, key string, want map[string][]int) error {
	o, err := c.find(op)
	if err != nil {
		return err
	}
	s, ok := o.Attr(key).(*StructAttr)
	if !ok {
		return fmt.Errorf("%s has no struct attribute %s", o.Name, key)
	}
	for _, f := range s.Fields {
		if _, known := want[f.Name]; !known {
			return fmt.Errorf("%s %s has an unexpected field %s", o.Name, key, f.Name)
		}
	}
	for name, w := range want {
		f, ok := s.Field(name)
		if len(w) == 0 && !ok {
			continue
		}
		if !ok || !slices.Equal(f.Values, w) {
			return fmt.Errorf("%s %s.%s = %v, want %v", o.Name, key, name, f.Values, w)
		}
	}
	return nil
}

func (c *instrCheck) conv() error {
	p := c.in.Params.Conv
	if err := c.fields("convolution", "dimension_numbers", map[string][]int{
		"input_batch_dimension": {p.LhsSpec[0]}, "input_feature_dimension": {p.LhsSpec[1]}, "input_spatial_dimensions": p.LhsSpec[2:],
		"kernel_output_feature_dimension": {p.RhsSpec[0]}, "kernel_input_feature_dimension": {p.RhsSpec[1]}, "kernel_spatial_dimensions": p.RhsSpec[2:],
		"output_batch_dimension": {p.OutSpec[0]}, "output_feature_dimension": {p.OutSpec[1]}, "output_spatial_dimensions": p.OutSpec[2:]}); err != nil {
		return err
	}
	if err := c.attrs("convolution", "window_strides", p.Strides, "lhs_dilation", p.LhsDilation, "rhs_dilation", p.RhsDilation); err != nil {
		return err
	}
	if err := c.ints("convolution", "feature_group_count", p.FeatureGroupCount); err != nil {
		return err
	}
	if err := c.ints("convolution", "batch_group_count", 1); err != nil {
		return err
	}
	o, _ := c.find("convolution")
	pad, ok := o.Attr("padding").(*DenseAttr)
	var want []int64
	for i := range p.PadLo {
		want = append(want, int64(p.PadLo[i]), int64(p.PadHi[i]))
	}
	if !ok || pad.Type.DType != tensor.I64 || !slices.Equal(pad.Type.Shape, []int{len(p.PadLo), 2}) {
		return fmt.Errorf("padding %v, want %v", o.Attr("padding"), want)
	}
	if got, _ := tensor.Data[int64](pad.Value); !slices.Equal(got, want) && len(got)+len(want) > 0 {
		return fmt.Errorf("padding %v, want %v", got, want)
	}
	return nil
}

// sameBits checks a constant's parsed value against the instruction's:
// dtype, shape and every element's bits.
func sameBits(attr AttrValue, want *tensor.Array) error {
	d, ok := attr.(*DenseAttr)
	if !ok {
		return fmt.Errorf("value %v is not a dense literal", attr)
	}
	got := d.Value
	if got.DType() != want.DType() || !trace.ShapeEqual(got.Shape(), want.Shape()) {
		return fmt.Errorf("constant %s%v, want %s%v", got.DType(), got.Shape(), want.DType(), want.Shape())
	}
	g, w := elemBits(got), elemBits(want)
	for i := range w {
		if g[i] != w[i] {
			return fmt.Errorf("element %d has bits %#x, want %#x", i, g[i], w[i])
		}
	}
	return nil
}

// elemBits returns each element's bit pattern (a complex element's as
// its real and imaginary parts' bits).
func elemBits(a *tensor.Array) [][2]uint64 {
	out := make([][2]uint64, a.Size())
	for i := range out {
		switch x := tensor.Index(a.Data(), i).(type) {
		case bool:
			if x {
				out[i][0] = 1
			}
		case tensor.Float16:
			out[i][0] = uint64(x.Bits())
		case tensor.BFloat16:
			out[i][0] = uint64(x.Bits())
		case float32:
			out[i][0] = uint64(math.Float32bits(x))
		case float64:
			out[i][0] = math.Float64bits(x)
		case complex64:
			out[i] = [2]uint64{uint64(math.Float32bits(real(x))), uint64(math.Float32bits(imag(x)))}
		case complex128:
			out[i] = [2]uint64{math.Float64bits(real(x)), math.Float64bits(imag(x))}
		default:
			out[i][0] = intBits(x)
		}
	}
	return out
}

func intBits(x any) uint64 {
	switch v := x.(type) {
	case int8:
		return uint64(v)
	case int16:
		return uint64(v)
	case int32:
		return uint64(v)
	case int64:
		return uint64(v)
	case uint8:
		return uint64(v)
	case uint16:
		return uint64(v)
	case uint32:
		return uint64(v)
	case uint64:
		return v
	case tensor.Int4:
		return uint64(v)
	case tensor.Uint4:
		return uint64(v)
	case tensor.Int2:
		return uint64(v)
	case tensor.Uint2:
		return uint64(v)
	}
	if _, b, ok := tensor.NarrowFloatBits(x); ok {
		return uint64(b)
	}
	panic(fmt.Sprintf("elemBits: %T", x))
}
