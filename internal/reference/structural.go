package reference

import (
	"fmt"

	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// Every structural op, select and broadcasting are index maps: for each
// result element in row-major order, which operand element it is. Building
// the map explicitly keeps each op a few lines of index arithmetic.

// strides returns the row-major strides of shape: the reference's own
// copy of internal/numerics.RowMajorStrides, on purpose (package doc).
func strides(shape []int) []int {
	s := make([]int, len(shape))
	n := 1
	for i := len(shape) - 1; i >= 0; i-- {
		s[i] = n
		n *= shape[i]
	}
	return s
}

// forEach calls f with every multi-index of shape in row-major order. The
// slice passed to f is reused between calls.
func forEach(shape []int, f func(idx []int)) {
	if trace.ShapeSize(shape) == 0 {
		return
	}
	idx := make([]int, len(shape))
	for {
		f(idx)
		i := len(shape) - 1
		for ; i >= 0; i-- {
			idx[i]++
			if idx[i] < shape[i] {
				break
			}
			idx[i] = 0
		}
		if i < 0 {
			return
		}
	}
}

// broadcastIndex maps each element of a result of shape out to the element
// of an operand of shape in that NumPy broadcasting reads: shapes align on
// the right and a dimension of size 1 is read at index 0.
func broadcastIndex(in, out []int) ([]int, error) {
	off := len(out) - len(in)
	if off < 0 {
		return nil, fmt.Errorf("operand %v has a higher rank than the result %v", in, out)
	}
	for i, d := range in {
		if d != 1 && d != out[off+i] {
			return nil, fmt.Errorf("operand %v does not broadcast to %v", in, out)
		}
	}
	st := strides(in)
	m := make([]int, 0, trace.ShapeSize(out))
	forEach(out, func(idx []int) {
		flat := 0
		for i, d := range in {
			if d != 1 {
				flat += idx[off+i] * st[i]
			}
		}
		m = append(m, flat)
	})
	return m, nil
}

// broadcastShape is the NumPy broadcast of the shapes of args: aligned on
// the right, each dimension is the one size other than 1 (or 1).
func broadcastShape(args []*tensor.Array) ([]int, error) {
	rank := 0
	for _, a := range args {
		rank = max(rank, a.Rank())
	}
	out := make([]int, rank)
	for i := range out {
		out[i] = 1
	}
	for _, a := range args {
		s := a.Shape()
		off := rank - len(s)
		for i, d := range s {
			switch {
			case d == out[off+i] || d == 1:
			case out[off+i] == 1:
				out[off+i] = d
			default:
				return nil, fmt.Errorf("operand shapes do not broadcast: %v against %v", s, out)
			}
		}
	}
	return out, nil
}

// gather builds an array of dtype d and the given shape whose element i is
// element idx[i] of srcs[from[i]] (of srcs[0] when from is nil).
func gather(d tensor.DType, shape []int, srcs []*tensor.Array, from, idx []int) (*tensor.Array, error) {
	var data any
	switch d {
	case tensor.Bool:
		data = gatherT[bool](srcs, from, idx)
	case tensor.U8:
		data = gatherT[uint8](srcs, from, idx)
	case tensor.U16:
		data = gatherT[uint16](srcs, from, idx)
	case tensor.U32:
		data = gatherT[uint32](srcs, from, idx)
	case tensor.U64:
		data = gatherT[uint64](srcs, from, idx)
	case tensor.I8:
		data = gatherT[int8](srcs, from, idx)
	case tensor.I16:
		data = gatherT[int16](srcs, from, idx)
	case tensor.I32:
		data = gatherT[int32](srcs, from, idx)
	case tensor.I64:
		data = gatherT[int64](srcs, from, idx)
	case tensor.BF16:
		data = gatherT[tensor.BFloat16](srcs, from, idx)
	case tensor.F16:
		data = gatherT[tensor.Float16](srcs, from, idx)
	case tensor.F32:
		data = gatherT[float32](srcs, from, idx)
	case tensor.F64:
		data = gatherT[float64](srcs, from, idx)
	case tensor.C64:
		data = gatherT[complex64](srcs, from, idx)
	case tensor.C128:
		data = gatherT[complex128](srcs, from, idx)
	default:
		if d.IsNarrow() { // one byte each: gather the bytes
			u8 := make([]*tensor.Array, len(srcs))
			for i, s := range srcs {
				b, _, _ := tensor.NarrowBytes(s.Data())
				u8[i] = tensor.Must(tensor.FromSlice(b))
			}
			var err error
			if data, err = tensor.NarrowSlice(d, gatherT[uint8](u8, from, idx)); err != nil {
				return nil, err
			}
			break
		}
		return nil, fmt.Errorf("invalid dtype %v", d)
	}
	return tensor.New(d, shape, data)
}

func gatherT[T tensor.Elem](srcs []*tensor.Array, from, idx []int) []T {
	data := make([][]T, len(srcs))
	for i, s := range srcs {
		data[i] = s.Data().([]T) // the caller checked every dtype
	}
	out := make([]T, len(idx))
	for i, j := range idx {
		k := 0
		if from != nil {
			k = from[i]
		}
		out[i] = data[k][j]
	}
	return out
}

// selectOp is select(pred, a, b) with NumPy broadcasting of all three.
func selectOp(args []*tensor.Array) (*tensor.Array, error) {
	pred, a, b := args[0], args[1], args[2]
	if pred.DType() != tensor.Bool || a.DType() != b.DType() {
		return nil, fmt.Errorf("select wants (bool, T, T), got (%s, %s, %s)", pred.DType(), a.DType(), b.DType())
	}
	shape, err := broadcastShape(args)
	if err != nil {
		return nil, err
	}
	ip, err1 := broadcastIndex(pred.Shape(), shape)
	ia, err2 := broadcastIndex(a.Shape(), shape)
	ib, err3 := broadcastIndex(b.Shape(), shape)
	if err := firstErr(err1, err2, err3); err != nil {
		return nil, err
	}
	p := pred.Data().([]bool)
	from, idx := make([]int, len(ip)), make([]int, len(ip))
	for i := range ip {
		if p[ip[i]] {
			from[i], idx[i] = 0, ia[i]
		} else {
			from[i], idx[i] = 1, ib[i]
		}
	}
	return gather(a.DType(), shape, []*tensor.Array{a, b}, from, idx)
}

func firstErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// structural evaluates broadcast_in_dim, reshape, transpose, slice and
// concatenate by building the index map of the result. The result shape
// comes from the parameters, not from the traced result, so that step can
// check the two agree.
func structural(e *trace.Eqn, args []*tensor.Array) (*tensor.Array, error) {
	x, p := args[0], e.Params
	in := x.Shape()
	var out, idx []int
	switch e.Op {
	case trace.OpBroadcastInDim:
		out = p.Shape
		if len(p.Dims) != len(in) || !validShape(out) {
			return nil, fmt.Errorf("dims %v and shape %v do not fit operand %v", p.Dims, out, in)
		}
		for i, d := range p.Dims {
			if d < 0 || d >= len(out) || (in[i] != 1 && in[i] != out[d]) {
				return nil, fmt.Errorf("operand dim %d (size %d) cannot go to result dim %d of %v", i, in[i], d, out)
			}
		}
		st := strides(in)
		forEach(out, func(o []int) {
			flat := 0
			for i, d := range p.Dims {
				if in[i] != 1 {
					flat += o[d] * st[i]
				}
			}
			idx = append(idx, flat)
		})
	case trace.OpReshape:
		out = p.Shape
		if trace.ShapeSize(in) != trace.ShapeSize(out) || !validShape(out) {
			return nil, fmt.Errorf("cannot reshape %v to %v", in, out)
		}
		idx = make([]int, trace.ShapeSize(out))
		for i := range idx {
			idx[i] = i // row-major order is kept
		}
	case trace.OpTranspose:
		if !isPerm(p.Perm, len(in)) {
			return nil, fmt.Errorf("perm %v is not a permutation of the axes of %v", p.Perm, in)
		}
		out = permute(in, p.Perm)
		st := strides(in)
		forEach(out, func(o []int) {
			flat := 0
			for i, a := range p.Perm {
				flat += o[i] * st[a] // result dim i walks operand dim Perm[i]
			}
			idx = append(idx, flat)
		})
	case trace.OpSlice:
		var err error
		if out, err = sliceShape(p, in); err != nil {
			return nil, err
		}
		st := strides(in)
		forEach(out, func(o []int) {
			flat := 0
			for i := range o {
				flat += (p.Start[i] + o[i]*p.Stride[i]) * st[i]
			}
			idx = append(idx, flat)
		})
	case trace.OpConcat:
		return concat(args, p.Axis)
	case trace.OpRev:
		return rev(p.Axes, x)
	default:
		return nil, fmt.Errorf("%s is not structural", e.Op)
	}
	return gather(x.DType(), out, args[:1], nil, idx)
}

func validShape(shape []int) bool {
	for _, d := range shape {
		if d < 0 {
			return false
		}
	}
	return true
}

func isPerm(perm []int, n int) bool {
	if len(perm) != n {
		return false
	}
	seen := make([]bool, n)
	for _, a := range perm {
		if a < 0 || a >= n || seen[a] {
			return false
		}
		seen[a] = true
	}
	return true
}

func permute(shape, perm []int) []int {
	out := make([]int, len(perm))
	for i, a := range perm {
		out[i] = shape[a]
	}
	return out
}

// sliceShape checks start, limit and stride against the operand shape
// and returns the result shape.
func sliceShape(p trace.Params, in []int) ([]int, error) {
	r := len(in)
	if len(p.Start) != r || len(p.Limit) != r || len(p.Stride) != r {
		return nil, fmt.Errorf("slice parameters %v %v %v do not fit rank %d", p.Start, p.Limit, p.Stride, r)
	}
	out := make([]int, r)
	for i := range in {
		lo, hi, s := p.Start[i], p.Limit[i], p.Stride[i]
		if s <= 0 || lo < 0 || hi > in[i] || lo > hi {
			return nil, fmt.Errorf("slice %d:%d:%d of dim %d (size %d) is out of range", lo, hi, s, i, in[i])
		}
		out[i] = (hi - lo + s - 1) / s
	}
	return out, nil
}

// concat joins args along axis: result element o comes from the operand
// whose range of the axis holds o[axis].
func concat(args []*tensor.Array, axis int) (*tensor.Array, error) {
	if len(args) == 0 || axis < 0 || axis >= args[0].Rank() {
		return nil, fmt.Errorf("concatenate of %d operands along axis %d", len(args), axis)
	}
	out := args[0].Shape()
	starts := make([]int, len(args)) // the first result index of each operand
	total := 0
	for k, a := range args {
		s := a.Shape()
		if a.DType() != args[0].DType() || len(s) != len(out) {
			return nil, fmt.Errorf("operand %d is %s%v, operand 0 is %s%v", k, a.DType(), s, args[0].DType(), out)
		}
		for i := range s {
			if i != axis && s[i] != out[i] {
				return nil, fmt.Errorf("operand %d has shape %v, operand 0 %v: they differ outside axis %d", k, s, out, axis)
			}
		}
		starts[k] = total
		total += s[axis]
	}
	out[axis] = total
	var from, idx []int
	forEach(out, func(o []int) {
		k := len(args) - 1
		for k > 0 && o[axis] < starts[k] {
			k--
		}
		s := args[k].Shape()
		st := strides(s)
		flat := 0
		for i := range o {
			j := o[i]
			if i == axis {
				j -= starts[k]
			}
			flat += j * st[i]
		}
		from, idx = append(from, k), append(idx, flat)
	})
	return gather(args[0].DType(), out, args, from, idx)
}
