package stablehlo

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/kiln-go/kiln/lower"
	"github.com/kiln-go/kiln/tensor"
)

// VerifyStableHLO checks the export of m against StableHLO's typing rules
// for the ops it uses (operand and result types, attributes, reduce bodies)
// and SSA order — what upstream mlir-opt cannot check without the StableHLO
// dialect. It is exported to the lower_test package for its cases.
func VerifyStableHLO(m *lower.Module) error {
	f, err := build(m)
	if err != nil {
		return err
	}
	scope := map[*shloVal]bool{}
	for _, a := range f.body.args {
		scope[a] = true
	}
	if err := verifyBlock(f.body, scope, false); err != nil {
		return err
	}
	for i, v := range f.outs {
		if !scope[v] {
			return fmt.Errorf("result %d (%s) is not defined", i, v.ref())
		}
		if !sameType(v.typ, typeOf(m.Outputs[i])) {
			return fmt.Errorf("result %d is %s, the module's output is %s", i, v.typ, typeOf(m.Outputs[i]))
		}
	}
	return nil
}

func verifyBlock(blk *shloBlock, scope map[*shloVal]bool, region bool) error {
	for i, o := range blk.ops {
		if o.op == "" {
			continue
		}
		for _, a := range o.args {
			if !scope[a] {
				return fmt.Errorf("%s %s uses %s before its definition", o.name, o.op, a.ref())
			}
		}
		if o.op == "stablehlo.return" {
			if !region || i != len(blk.ops)-1 {
				return fmt.Errorf("stablehlo.return outside the end of a region")
			}
			continue
		}
		var err error
		switch o.op {
		case "stablehlo.while", "stablehlo.case":
			err = verifyControl(o, scope)
		default:
			err = verifyOp(o)
		}
		if err != nil {
			return fmt.Errorf("%s = %s: %w", o.name, o.op, err)
		}
		for _, r := range o.results {
			scope[r] = true
		}
	}
	if region && (len(blk.ops) == 0 || blk.ops[len(blk.ops)-1].op != "stablehlo.return") {
		return fmt.Errorf("a region does not end with stablehlo.return")
	}
	return nil
}

// attr returns the value of the attribute key ("" if absent).
func (o *shloOp) attr(key string) string {
	for _, a := range o.attrs {
		if k, v, ok := strings.Cut(a, " = "); ok && k == key {
			return v
		}
	}
	return ""
}

var intsRE = regexp.MustCompile(`-?[0-9]+`)

// ints reads the integers of array<i64: 1, 2>, [1, 2] or "3 : i64".
func ints(s string) []int {
	s = strings.TrimPrefix(strings.TrimSuffix(s, " : i64"), "array<i64")
	var out []int
	for _, m := range intsRE.FindAllString(s, -1) {
		n, _ := strconv.Atoi(m)
		out = append(out, n)
	}
	return out
}

var dotFieldRE = regexp.MustCompile(`(\w+) = \[([0-9, ]*)\]`)

var convFieldRE = regexp.MustCompile(`(\w+) = (\[[0-9, ]*\]|[0-9]+)`)

var (
	shloSameTypeBinary = []string{"add", "subtract", "multiply", "divide", "remainder", "power", "maximum", "minimum",
		"and", "or", "xor", "shift_left", "shift_right_arithmetic", "shift_right_logical"}
	shloSameTypeUnary = []string{"negate", "sign", "exponential", "log", "log_plus_one", "exponential_minus_one",
		"sqrt", "rsqrt", "sine", "cosine", "tan", "tanh", "logistic", "floor", "ceil", "round_nearest_even", "not"}
)

// chloUnary are the CHLO ops the export uses, elementwise and of the
// operand's type; chloReal are those defined on floats only.
var (
	chloUnary = []string{"asin", "acos", "atan", "sinh", "cosh", "asinh", "acosh", "atanh", "erf", "erfc", "erf_inv"}
	chloReal  = []string{"erf", "erfc", "erf_inv"}
)

func verifyOp(o *shloOp) error {
	if name, ok := strings.CutPrefix(o.op, "chlo."); ok {
		return verifyCHLO(o, name)
	}
	name := strings.TrimPrefix(o.op, "stablehlo.")
	var args []shloType
	for _, a := range o.args {
		args = append(args, a.typ)
	}
	if len(o.results) == 0 {
		return fmt.Errorf("no result")
	}
	res := o.results[0].typ
	d := res.dt
	if len(args) > 0 {
		d = args[0].dt
	}
	want := func(n int) error {
		if len(args) != n {
			return fmt.Errorf("%d operands, want %d", len(args), n)
		}
		return nil
	}
	allSame := func(ts ...shloType) error {
		for _, t := range ts {
			if !sameType(t, res) {
				return fmt.Errorf("operand %s differs from result %s", t, res)
			}
		}
		return nil
	}
	inexact := d.IsFloat() || d.IsComplex()
	switch {
	case slices.Contains(shloSameTypeBinary, name):
		if err := want(2); err != nil {
			return err
		}
		switch {
		case (name == "and" || name == "or" || name == "xor") && inexact,
			strings.HasPrefix(name, "shift") && !d.IsInteger(),
			(name == "subtract" || name == "divide" || name == "remainder" || name == "power") && d == tensor.Bool,
			(name == "maximum" || name == "minimum") && d.IsComplex():
			return fmt.Errorf("not defined on %s", d)
		}
		return allSame(args...)
	case slices.Contains(shloSameTypeUnary, name):
		if err := want(1); err != nil {
			return err
		}
		switch {
		case name == "not" && inexact,
			name == "negate" && d == tensor.Bool,
			name == "sign" && !(d.IsSigned() || inexact),
			(name == "floor" || name == "ceil" || name == "round_nearest_even") && !d.IsFloat(),
			name != "not" && name != "negate" && name != "sign" && !inexact:
			return fmt.Errorf("not defined on %s", d)
		}
		return allSame(args...)
	}
	switch name {
	case "abs", "real", "imag":
		if err := want(1); err != nil {
			return err
		}
		if name == "abs" && !(d.IsSigned() || inexact) || name != "abs" && !inexact {
			return fmt.Errorf("not defined on %s", d)
		}
		want := args[0]
		if d.IsComplex() {
			want = want.with(d.RealPart())
		}
		if !sameType(res, want) {
			return fmt.Errorf("result %s, want %s", res, want)
		}
	case "complex":
		if err := want(2); err != nil {
			return err
		}
		if !sameType(args[0], args[1]) || (d != tensor.F32 && d != tensor.F64) || !sameType(res, args[0].with(d.ComplexOf())) {
			return fmt.Errorf("(%s, %s) -> %s", args[0], args[1], res)
		}
	case "cbrt":
		if err := want(1); err != nil {
			return err
		}
		if !d.IsFloat() || !sameType(res, args[0]) {
			return fmt.Errorf("%s -> %s", args[0], res)
		}
	case "atan2":
		if err := want(2); err != nil {
			return err
		}
		if !(d.IsFloat() || d.IsComplex()) {
			return fmt.Errorf("not defined on %s", d)
		}
		return allSame(args...)
	case "is_finite":
		if err := want(1); err != nil {
			return err
		}
		if !d.IsFloat() || !sameType(res, args[0].with(tensor.Bool)) {
			return fmt.Errorf("%s -> %s", args[0], res)
		}
	case "compare":
		if err := want(2); err != nil {
			return err
		}
		if !sameType(args[0], args[1]) || !sameType(res, args[0].with(tensor.Bool)) {
			return fmt.Errorf("(%s, %s) -> %s", args[0], args[1], res)
		}
		kind := map[bool]string{true: "FLOAT", false: map[bool]string{true: "SIGNED", false: "UNSIGNED"}[d.IsSigned()]}[inexact]
		if o.attr("compare_type") != "#stablehlo<comparison_type "+kind+">" {
			return fmt.Errorf("compare_type %s on %s", o.attr("compare_type"), d)
		}
		dir := o.attr("comparison_direction")
		if d.IsComplex() && !strings.HasSuffix(dir, "EQ>") && !strings.HasSuffix(dir, "NE>") {
			return fmt.Errorf("%s on complex", dir)
		}
	case "select":
		if err := want(3); err != nil {
			return err
		}
		if !sameType(args[0], res.with(tensor.Bool)) {
			return fmt.Errorf("predicate %s for %s", args[0], res)
		}
		return allSame(args[1:]...)
	case "convert", "bitcast_convert":
		if err := want(1); err != nil {
			return err
		}
		if !slices.Equal(args[0].shape, res.shape) || name == "bitcast_convert" && args[0].dt.Size() != res.dt.Size() {
			return fmt.Errorf("%s -> %s", args[0], res)
		}
	case "constant":
		if err := want(0); err != nil {
			return err
		}
		if !strings.HasSuffix(o.attr("value"), " : "+res.String()) || !strings.HasPrefix(o.attr("value"), "dense<") {
			return fmt.Errorf("value %s for %s", o.attr("value"), res)
		}
	case "iota":
		if err := want(0); err != nil {
			return err
		}
		if dim := ints(o.attr("iota_dimension")); len(dim) != 1 || dim[0] >= len(res.shape) || res.dt == tensor.Bool {
			return fmt.Errorf("iota_dimension %s for %s", o.attr("iota_dimension"), res)
		}
	case "broadcast_in_dim":
		if err := want(1); err != nil {
			return err
		}
		dims := ints(o.attr("broadcast_dimensions"))
		if len(dims) != len(args[0].shape) || args[0].dt != res.dt {
			return fmt.Errorf("dimensions %v for %s -> %s", dims, args[0], res)
		}
		for i, r := range dims {
			if r >= len(res.shape) || slices.Contains(dims[:i], r) || args[0].shape[i] != 1 && args[0].shape[i] != res.shape[r] {
				return fmt.Errorf("dimensions %v for %s -> %s", dims, args[0], res)
			}
		}
	case "reshape":
		if err := want(1); err != nil {
			return err
		}
		if args[0].dt != res.dt || shapeSize(args[0].shape) != shapeSize(res.shape) {
			return fmt.Errorf("%s -> %s", args[0], res)
		}
	case "transpose":
		perm := ints(o.attr("permutation"))
		shape := make([]int, len(perm))
		for i, p := range perm {
			shape[i] = args[0].shape[p]
		}
		if !sameType(res, shloType{args[0].dt, shape}) {
			return fmt.Errorf("permutation %v of %s -> %s", perm, args[0], res)
		}
	case "slice":
		start, limit, stride := ints(o.attr("start_indices")), ints(o.attr("limit_indices")), ints(o.attr("strides"))
		shape := make([]int, len(args[0].shape))
		for i := range shape {
			if start[i] < 0 || limit[i] > args[0].shape[i] || start[i] > limit[i] || stride[i] < 1 {
				return fmt.Errorf("bad slice of %s", args[0])
			}
			shape[i] = (limit[i] - start[i] + stride[i] - 1) / stride[i]
		}
		if !sameType(res, shloType{args[0].dt, shape}) {
			return fmt.Errorf("slice of %s -> %s", args[0], res)
		}
	case "concatenate":
		dim := ints(o.attr("dimension"))[0]
		shape := slices.Clone(args[0].shape)
		shape[dim] = 0
		for _, a := range args {
			shape[dim] += a.shape[dim]
		}
		if !sameType(res, shloType{args[0].dt, shape}) {
			return fmt.Errorf("concatenate -> %s", res)
		}
	case "dot_general":
		fields := map[string][]int{}
		for _, m := range dotFieldRE.FindAllStringSubmatch(o.attr("dot_dimension_numbers"), -1) {
			fields[m[1]] = ints(m[2])
		}
		lb, rb := fields["lhs_batching_dimensions"], fields["rhs_batching_dimensions"]
		lc, rc := fields["lhs_contracting_dimensions"], fields["rhs_contracting_dimensions"]
		var shape []int
		for i := range lb {
			if args[0].shape[lb[i]] != args[1].shape[rb[i]] {
				return fmt.Errorf("batch dims differ")
			}
			shape = append(shape, args[0].shape[lb[i]])
		}
		for i := range lc {
			if args[0].shape[lc[i]] != args[1].shape[rc[i]] {
				return fmt.Errorf("contracting dims differ")
			}
		}
		for k, dims := range [][]int{append(slices.Clone(lb), lc...), append(slices.Clone(rb), rc...)} {
			for i, n := range args[k].shape {
				if !slices.Contains(dims, i) {
					shape = append(shape, n)
				}
			}
		}
		// bf16 operands may accumulate into an f32 result (JAX's
		// preferred_element_type=f32 form).
		wide := args[0].dt == tensor.BF16 && sameType(res, shloType{tensor.F32, shape})
		if args[0].dt != args[1].dt || !sameType(res, shloType{args[0].dt, shape}) && !wide {
			return fmt.Errorf("(%s, %s) -> %s", args[0], args[1], res)
		}
	case "convolution":
		f := map[string][]int{}
		for _, m := range convFieldRE.FindAllStringSubmatch(o.attr("dimension_numbers"), -1) {
			f[m[1]] = ints(m[2])
		}
		pad := ints(strings.Split(o.attr("padding"), ":")[0])
		st, ld, rd := ints(o.attr("window_strides")), ints(o.attr("lhs_dilation")), ints(o.attr("rhs_dilation"))
		g := ints(o.attr("feature_group_count"))[0]
		l, r := args[0].shape, args[1].shape
		shape := make([]int, len(l))
		ci, co := r[f["kernel_input_feature_dimension"][0]], r[f["kernel_output_feature_dimension"][0]]
		if l[f["input_feature_dimension"][0]] != ci*g || co%g != 0 {
			return fmt.Errorf("feature dims of %s and %s with %d groups", args[0], args[1], g)
		}
		shape[f["output_batch_dimension"][0]] = l[f["input_batch_dimension"][0]]
		shape[f["output_feature_dimension"][0]] = co
		for i, d := range f["input_spatial_dimensions"] {
			in := 0
			if l[d] > 0 {
				in = (l[d]-1)*ld[i] + 1
			}
			in += pad[2*i] + pad[2*i+1]
			k := (r[f["kernel_spatial_dimensions"][i]]-1)*rd[i] + 1
			n := 0
			if in >= k {
				n = (in-k)/st[i] + 1
			}
			shape[f["output_spatial_dimensions"][i]] = n
		}
		// bf16 operands may accumulate into an f32 result (JAX's
		// preferred_element_type=f32 form).
		wide := args[0].dt == tensor.BF16 && sameType(res, shloType{tensor.F32, shape})
		if args[0].dt != args[1].dt || !sameType(res, shloType{args[0].dt, shape}) && !wide {
			return fmt.Errorf("(%s, %s) -> %s", args[0], args[1], res)
		}
	case "reduce":
		n := len(o.results)
		if len(args) != 2*n || o.region == nil || len(o.region.args) != 2*n {
			return fmt.Errorf("%d operands and %d results", len(args), n)
		}
		dims := ints(o.attr("dimensions"))
		for k := range n {
			in, init, r := args[k], args[n+k], o.results[k].typ
			e := shloType{in.dt, nil}
			if !slices.Equal(in.shape, args[0].shape) || !sameType(init, e) ||
				!sameType(r, shloType{in.dt, dropAxes(in.shape, dims)}) ||
				!sameType(o.region.args[k].typ, e) || !sameType(o.region.args[n+k].typ, e) {
				return fmt.Errorf("input %d: %s, init %s, result %s", k, in, init, r)
			}
		}
		if err := verifyRegion(o); err != nil {
			return err
		}
		ret := o.region.ops[len(o.region.ops)-1]
		for k, a := range ret.args {
			if k >= n || !sameType(a.typ, shloType{args[k].dt, nil}) {
				return fmt.Errorf("the body returns %s", a.typ)
			}
		}
	case "reverse", "gather", "scatter", "dynamic_slice", "dynamic_update_slice":
		return verifyIndexOp(o, name, args, res)
	case "sort":
		return verifySort(o, args)
	default:
		return fmt.Errorf("the verifier does not know %s", o.op)
	}
	return nil
}

// verifySort is the StableHLO spec's sort: operands of one shape, results
// of their types, dimension in range, a comparator taking the (lhs, rhs)
// scalars of each operand in turn and returning one i1.
func verifySort(o *shloOp, args []shloType) error {
	n := len(args)
	if n == 0 || len(o.results) != n || o.region == nil || len(o.region.args) != 2*n {
		return fmt.Errorf("sort of %d operands, %d results", n, len(o.results))
	}
	if dim := ints(o.attr("dimension")); len(dim) != 1 || dim[0] < 0 || dim[0] >= len(args[0].shape) {
		return fmt.Errorf("sort dimension %s of %s", o.attr("dimension"), args[0])
	}
	for k, a := range args {
		e := shloType{a.dt, nil}
		if !slices.Equal(a.shape, args[0].shape) || !sameType(o.results[k].typ, a) ||
			!sameType(o.region.args[2*k].typ, e) || !sameType(o.region.args[2*k+1].typ, e) {
			return fmt.Errorf("sort operand %d: %s, result %s", k, a, o.results[k].typ)
		}
	}
	if err := verifyRegion(o); err != nil {
		return err
	}
	ret := o.region.ops[len(o.region.ops)-1]
	if len(ret.args) != 1 || !sameType(ret.args[0].typ, shloType{tensor.Bool, nil}) {
		return fmt.Errorf("the comparator returns %d values", len(ret.args))
	}
	return nil
}

// verifyRegion verifies an op's region, whose scope is its arguments.
func verifyRegion(o *shloOp) error {
	scope := map[*shloVal]bool{}
	for _, a := range o.region.args {
		scope[a] = true
	}
	return verifyBlock(o.region, scope, true)
}

func shapeSize(s []int) int {
	n := 1
	for _, d := range s {
		n *= d
	}
	return n
}

// verifyCHLO checks the CHLO ops the export uses against their
// definitions in the CHLO dialect.
func verifyCHLO(o *shloOp, name string) error {
	if len(o.results) != 1 {
		return fmt.Errorf("%d results", len(o.results))
	}
	res := o.results[0].typ
	var args []shloType
	for _, a := range o.args {
		args = append(args, a.typ)
	}
	d := args[0].dt
	switch {
	case slices.Contains(chloUnary, name):
		if len(args) != 1 || !sameType(res, args[0]) || !(d.IsFloat() || d.IsComplex() && !slices.Contains(chloReal, name)) {
			return fmt.Errorf("%v -> %s", args, res)
		}
	case name == "is_inf" || name == "is_pos_inf" || name == "is_neg_inf":
		if len(args) != 1 || !d.IsFloat() || !sameType(res, args[0].with(tensor.Bool)) {
			return fmt.Errorf("%v -> %s", args, res)
		}
	case name == "next_after":
		if len(args) != 2 || !d.IsFloat() || !sameType(args[0], args[1]) || !sameType(res, args[0]) {
			return fmt.Errorf("%v -> %s", args, res)
		}
	default:
		return fmt.Errorf("the verifier does not know %s", o.op)
	}
	return nil
}

// verifyControl checks a stablehlo.while (two regions over the operands'
// types, the cond returning one i1 scalar, the body the operands' types;
// results of those types) or a stablehlo.case (an i32 scalar index, each
// branch a region without arguments that may read the enclosing scope
// and returns the results' types).
func verifyControl(o *shloOp, scope map[*shloVal]bool) error {
	regions := append([]*shloBlock{o.region}, o.extra...)
	if o.region == nil {
		return fmt.Errorf("no regions")
	}
	types := func(vs []*shloVal) []shloType {
		out := make([]shloType, len(vs))
		for i, v := range vs {
			out[i] = v.typ
		}
		return out
	}
	same := func(what string, a, b []shloType) error {
		if len(a) != len(b) {
			return fmt.Errorf("%s: %d values, want %d", what, len(a), len(b))
		}
		for i := range a {
			if !sameType(a[i], b[i]) {
				return fmt.Errorf("%s %d is %s, want %s", what, i, a[i], b[i])
			}
		}
		return nil
	}
	ret := func(r *shloBlock) []shloType {
		if len(r.ops) == 0 {
			return nil
		}
		return types(r.ops[len(r.ops)-1].args)
	}
	switch o.op {
	case "stablehlo.while":
		in := types(o.args)
		if len(regions) != 2 {
			return fmt.Errorf("%d regions, want cond and body", len(regions))
		}
		if err := same("result", types(o.results), in); err != nil {
			return err
		}
		for _, r := range regions {
			if err := same("region argument", types(r.args), in); err != nil {
				return err
			}
			own := map[*shloVal]bool{} // while regions read only their arguments
			for _, a := range r.args {
				own[a] = true
			}
			if err := verifyBlock(r, own, true); err != nil {
				return err
			}
		}
		if err := same("cond's result", ret(regions[0]), []shloType{{dt: tensor.Bool}}); err != nil {
			return err
		}
		return same("body's result", ret(regions[1]), in)
	default:
		if len(o.args) != 1 || !sameType(o.args[0].typ, shloType{dt: tensor.I32}) {
			return fmt.Errorf("the index must be one tensor<i32>")
		}
		for i, r := range regions {
			if len(r.args) != 0 {
				return fmt.Errorf("branch %d has arguments", i)
			}
			inner := maps.Clone(scope)
			if err := verifyBlock(r, inner, true); err != nil {
				return fmt.Errorf("branch %d: %w", i, err)
			}
			if err := same(fmt.Sprintf("branch %d's result", i), ret(r), types(o.results)); err != nil {
				return err
			}
		}
	}
	return nil
}
