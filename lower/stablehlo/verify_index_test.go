package stablehlo

import (
	"fmt"
	"regexp"
	"slices"

	"github.com/kiln-go/kiln/trace"
)

var vectorDimRE = regexp.MustCompile(`index_vector_dim = ([0-9]+)`)

// dimFields reads the [..] fields and index_vector_dim of a
// #stablehlo.gather<…> or #stablehlo.scatter<…> attribute.
func dimFields(attr string) (map[string][]int, int, error) {
	fields := map[string][]int{}
	for _, m := range dotFieldRE.FindAllStringSubmatch(attr, -1) {
		fields[m[1]] = ints(m[2])
	}
	m := vectorDimRE.FindStringSubmatch(attr)
	if m == nil {
		return nil, 0, fmt.Errorf("no index_vector_dim in %s", attr)
	}
	return fields, ints(m[1])[0], nil
}

// verifyIndexOp checks reverse, gather, scatter and the dynamic slices
// against StableHLO's typing rules, reusing Kiln's own shape rules (whose
// index vector dim is the last one, as the export's always is).
func verifyIndexOp(o *shloOp, name string, args []shloType, res shloType) error {
	switch name {
	case "reverse":
		for _, d := range ints(o.attr("dimensions")) {
			if d < 0 || d >= len(args[0].shape) {
				return fmt.Errorf("dimensions %s of %s", o.attr("dimensions"), args[0])
			}
		}
		if !sameType(res, args[0]) {
			return fmt.Errorf("%s -> %s", args[0], res)
		}
	case "gather":
		f, vdim, err := dimFields(o.attr("dimension_numbers"))
		if err != nil {
			return err
		}
		if len(args) != 2 || !args[1].dt.IsInteger() || vdim != len(args[1].shape)-1 {
			return fmt.Errorf("operands %v, index_vector_dim %d", args, vdim)
		}
		d := trace.GatherDims{OffsetDims: f["offset_dims"], CollapsedSliceDims: f["collapsed_slice_dims"], StartIndexMap: f["start_index_map"],
			OperandBatchingDims: f["operand_batching_dims"], StartIndicesBatchingDims: f["start_indices_batching_dims"]}
		out, msg := trace.GatherShape(args[0].shape, args[1].shape, d, ints(o.attr("slice_sizes")))
		if msg != "" || !sameType(res, shloType{args[0].dt, out}) {
			return fmt.Errorf("%s%s -> %s", msg, args, res)
		}
	case "scatter":
		f, vdim, err := dimFields(o.attr("scatter_dimension_numbers"))
		if err != nil {
			return err
		}
		if len(args) != 3 || !args[1].dt.IsInteger() || vdim != len(args[1].shape)-1 || args[2].dt != args[0].dt {
			return fmt.Errorf("operands %v, index_vector_dim %d", args, vdim)
		}
		d := trace.ScatterDims{UpdateWindowDims: f["update_window_dims"], InsertedWindowDims: f["inserted_window_dims"],
			ScatterDimsToOperandDims: f["scatter_dims_to_operand_dims"], OperandBatchingDims: f["input_batching_dims"],
			ScatterIndicesBatchingDims: f["scatter_indices_batching_dims"]}
		if msg := trace.ScatterCheck(args[0].shape, args[1].shape, args[2].shape, d); msg != "" || !sameType(res, args[0]) {
			return fmt.Errorf("%s%v -> %s", msg, args, res)
		}
		e := shloType{args[0].dt, nil}
		if o.region == nil || len(o.region.args) != 2 || !sameType(o.region.args[0].typ, e) || !sameType(o.region.args[1].typ, e) {
			return fmt.Errorf("the update computation must take two %s", e)
		}
		scope := map[*shloVal]bool{o.region.args[0]: true, o.region.args[1]: true}
		if err := verifyBlock(o.region, scope, true); err != nil {
			return err
		}
		if ret := o.region.ops[len(o.region.ops)-1]; len(ret.args) != 1 || !sameType(ret.args[0].typ, e) {
			return fmt.Errorf("the update computation returns %v", ret.args)
		}
	case "dynamic_slice", "dynamic_update_slice":
		first := 1
		window := ints(o.attr("slice_sizes"))
		if name == "dynamic_update_slice" {
			first, window = 2, args[1].shape
			if args[1].dt != args[0].dt || !sameType(res, args[0]) {
				return fmt.Errorf("%v -> %s", args, res)
			}
		} else if !sameType(res, shloType{args[0].dt, window}) {
			return fmt.Errorf("slice_sizes %v of %s -> %s", window, args[0], res)
		}
		starts := args[first:]
		if len(starts) != len(args[0].shape) || len(window) != len(args[0].shape) {
			return fmt.Errorf("%d start indices for %s", len(starts), args[0])
		}
		for i, s := range starts {
			if len(s.shape) != 0 || !s.dt.IsInteger() || s.dt != starts[0].dt || window[i] > args[0].shape[i] {
				return fmt.Errorf("start index %d: %s (window %v of %s)", i, s, window, args[0])
			}
		}
	}
	if slices.Contains([]string{"gather", "scatter"}, name) && len(args[1].shape) == 0 {
		return fmt.Errorf("indices of rank 0")
	}
	return nil
}
