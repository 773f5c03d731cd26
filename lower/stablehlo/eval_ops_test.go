package stablehlo

import (
	"fmt"
	"math"
	"slices"

	"github.com/kiln-go/kiln/tensor"
)

// The interpreter's non-elementwise ops, each by the StableHLO spec's
// definition.

type evalFn func(ev *shloEval, o *Op, args []ival) ([]ival, error)

// evalOps are the ops that are not elementwise.
var evalOps map[string]evalFn

func init() {
	evalOps = map[string]evalFn{
		"reshape": func(_ *shloEval, o *Op, a []ival) ([]ival, error) { return []ival{a[0]}, nil },
		"broadcast_in_dim": func(_ *shloEval, o *Op, a []ival) ([]ival, error) {
			dims := ints64(o, "broadcast_dimensions")
			return []ival{mapIndex(a[0], o.Results[0].Type.Shape, func(out, in []int) bool {
				for k, d := range dims {
					if a[0].shape[k] == 1 {
						in[k] = 0
					} else {
						in[k] = out[d]
					}
				}
				return true
			})}, nil
		},
		"transpose": func(_ *shloEval, o *Op, a []ival) ([]ival, error) {
			perm := ints64(o, "permutation")
			return []ival{mapIndex(a[0], o.Results[0].Type.Shape, func(out, in []int) bool {
				for i, p := range perm {
					in[p] = out[i]
				}
				return true
			})}, nil
		},
		"slice": func(_ *shloEval, o *Op, a []ival) ([]ival, error) {
			start, stride := ints64(o, "start_indices"), ints64(o, "strides")
			return []ival{mapIndex(a[0], o.Results[0].Type.Shape, func(out, in []int) bool {
				for i := range in {
					in[i] = start[i] + out[i]*stride[i]
				}
				return true
			})}, nil
		},
		"reverse": func(_ *shloEval, o *Op, a []ival) ([]ival, error) {
			dims := ints64(o, "dimensions")
			return []ival{mapIndex(a[0], o.Results[0].Type.Shape, func(out, in []int) bool {
				copy(in, out)
				for _, d := range dims {
					in[d] = a[0].shape[d] - 1 - out[d]
				}
				return true
			})}, nil
		},
		"concatenate": func(_ *shloEval, o *Op, a []ival) ([]ival, error) {
			dim := int(o.Attr("dimension").(*IntAttr).Value)
			t := o.Results[0].Type
			r := newIval(t.DType, t.Shape)
			for _, x := range a {
				if x.fb != nil && r.f != nil { // moved bits: signaling NaNs stay so
					r.fb = make([]uint64, len(r.f))
					break
				}
			}
			idx := make([]int, len(t.Shape))
			for j := range r.size() {
				unravel(j, t.Shape, idx)
				k, at := 0, idx[dim]
				for at >= a[k].shape[dim] {
					at -= a[k].shape[dim]
					k++
				}
				in := slices.Clone(idx)
				in[dim] = at
				r.put(j, a[k], ravel(in, a[k].shape))
			}
			return []ival{r}, nil
		},
		"iota": func(_ *shloEval, o *Op, _ []ival) ([]ival, error) {
			t := o.Results[0].Type
			dim := int(o.Attr("iota_dimension").(*IntAttr).Value)
			idx := make([]int, len(t.Shape))
			v := newIval(tensor.I64, t.Shape)
			for j := range v.size() {
				unravel(j, t.Shape, idx)
				v.i[j] = int64(idx[dim])
			}
			return []ival{convertIval(v, t.DType)}, nil
		},
		"dynamic_slice": func(_ *shloEval, o *Op, a []ival) ([]ival, error) {
			sizes := ints64(o, "slice_sizes")
			start := clampedStarts(a[0].shape, sizes, a[1:])
			return []ival{mapIndex(a[0], o.Results[0].Type.Shape, func(out, in []int) bool {
				for i := range in {
					in[i] = start[i] + out[i]
				}
				return true
			})}, nil
		},
		"dynamic_update_slice": func(_ *shloEval, o *Op, a []ival) ([]ival, error) {
			r := a[0].pick(seqN(a[0].size()), a[0].shape)
			start := clampedStarts(a[0].shape, a[1].shape, a[2:])
			idx := make([]int, len(a[1].shape))
			for j := range a[1].size() {
				unravel(j, a[1].shape, idx)
				for i := range idx {
					idx[i] += start[i]
				}
				r.put(ravel(idx, r.shape), a[1], j)
			}
			return []ival{r}, nil
		},
		"reduce":      (*shloEval).reduce,
		"sort":        (*shloEval).sort,
		"dot_general": (*shloEval).dot,
		"convolution": (*shloEval).convolution,
		"gather":      (*shloEval).gather,
		"scatter":     (*shloEval).scatter,
		"while":       (*shloEval).while,
		"case":        (*shloEval).caseOp,
	}
}

func ints64(o *Op, key string) []int {
	if a, ok := o.Attr(key).(I64Array); ok {
		return a
	}
	return nil
}

func seqN(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = i
	}
	return s
}

func unravel(j int, shape, idx []int) {
	for d := len(shape) - 1; d >= 0; d-- {
		idx[d] = j % shape[d]
		j /= shape[d]
	}
}

func ravel(idx, shape []int) int {
	j := 0
	for d := range shape {
		j = j*shape[d] + idx[d]
	}
	return j
}

// mapIndex builds a value of shape whose element at out is a's element at
// the index f writes (f returning false leaves it zero).
func mapIndex(a ival, shape []int, f func(out, in []int) bool) ival {
	r := newIval(a.d, shape)
	if a.fb != nil {
		r.fb = make([]uint64, len(r.f))
	}
	out, in := make([]int, len(shape)), make([]int, len(a.shape))
	for j := range r.size() {
		unravel(j, shape, out)
		if f(out, in) {
			r.put(j, a, ravel(in, a.shape))
		}
	}
	return r
}

// index reads a scalar integer value.
func index(v ival, k int) int64 {
	switch {
	case v.i != nil:
		return v.i[k]
	case v.u != nil:
		if v.u[k] > math.MaxInt64 {
			return math.MaxInt64
		}
		return int64(v.u[k])
	}
	panic("interpreter: a non-integer index")
}

// clampedStarts clamps dynamic_slice starts into [0, dim − size].
func clampedStarts(shape, sizes []int, starts []ival) []int {
	out := make([]int, len(shape))
	for i := range shape {
		out[i] = int(min(max(index(starts[i], 0), 0), int64(shape[i]-sizes[i])))
	}
	return out
}

// combine runs a region on scalars and returns its results.
func (ev *shloEval) combine(region *Block, args []ival) ([]ival, error) {
	return ev.run(region, args)
}

// reduce combines the elements of each output position with the inits,
// two at a time, picking the pair at random each time.
func (ev *shloEval) reduce(o *Op, args []ival) ([]ival, error) {
	n := len(o.Results)
	dims := ints64(o, "dimensions")
	in := args[0].shape
	var kept []int
	for d := range in {
		if !slices.Contains(dims, d) {
			kept = append(kept, d)
		}
	}
	outs := make([]ival, n)
	for k := range n {
		outs[k] = newIval(o.Results[k].Type.DType, o.Results[k].Type.Shape)
	}
	groups := map[int][]int{} // output position → input positions
	idx := make([]int, len(in))
	oidx := make([]int, len(kept))
	oshape := o.Results[0].Type.Shape
	for j := range shapeSize(in) {
		unravel(j, in, idx)
		for i, d := range kept {
			oidx[i] = idx[d]
		}
		p := ravel(oidx, oshape)
		groups[p] = append(groups[p], j)
	}
	for p := range shapeSize(oshape) {
		var pool [][]ival
		for _, j := range groups[p] {
			e := make([]ival, n)
			for k := range n {
				e[k] = args[k].scalar(j)
			}
			pool = append(pool, e)
		}
		pool = append(pool, args[n:2*n])
		for len(pool) > 1 {
			i := ev.rng.IntN(len(pool))
			x := pool[i]
			pool[i] = pool[len(pool)-1]
			pool = pool[:len(pool)-1]
			j := ev.rng.IntN(len(pool))
			y, err := ev.combine(o.Regions[0], append(slices.Clone(x), pool[j]...))
			if err != nil {
				return nil, err
			}
			pool[j] = y
		}
		for k := range n {
			outs[k].put(p, pool[0][k], 0)
		}
	}
	return outs, nil
}

// sort sorts every 1-D slice along the dimension, stably, by the
// comparator (element i before j when it returns true for (i, j)).
func (ev *shloEval) sort(o *Op, args []ival) ([]ival, error) {
	dim := int(o.Attr("dimension").(*IntAttr).Value)
	shape := args[0].shape
	outs := make([]ival, len(args))
	for k, a := range args {
		outs[k] = a.pick(seqN(a.size()), shape)
	}
	idx := make([]int, len(shape))
	var err error
	for j := range shapeSize(shape) {
		unravel(j, shape, idx)
		if idx[dim] != 0 {
			continue
		}
		line := make([]int, shape[dim])
		for i := range line {
			idx[dim] = i
			line[i] = ravel(idx, shape)
		}
		idx[dim] = 0
		less := func(x, y int) bool {
			var cargs []ival
			for _, a := range args {
				cargs = append(cargs, a.scalar(x), a.scalar(y))
			}
			r, e := ev.combine(o.Regions[0], cargs)
			if e != nil {
				err = e
				return false
			}
			return r[0].b[0]
		}
		order := slices.Clone(line)
		slices.SortStableFunc(order, func(x, y int) int {
			switch {
			case less(x, y):
				return -1
			case less(y, x):
				return 1
			}
			return 0
		})
		for k, a := range args {
			for i, src := range order {
				outs[k].put(line[i], a, src)
			}
		}
	}
	return outs, err
}

// dot is dot_general: sums in float64 (complex128, wrapping integers)
// rounded once to the result type.
func (ev *shloEval) dot(o *Op, args []ival) ([]ival, error) {
	dn := o.Attr("dot_dimension_numbers").(*StructAttr)
	field := func(name string) []int { f, _ := dn.Field(name); return f.Values }
	lb, rb := field("lhs_batching_dimensions"), field("rhs_batching_dimensions")
	lc, rc := field("lhs_contracting_dimensions"), field("rhs_contracting_dimensions")
	l, r := args[0], args[1]
	free := func(rank int, b, c []int) []int {
		var f []int
		for d := range rank {
			if !slices.Contains(b, d) && !slices.Contains(c, d) {
				f = append(f, d)
			}
		}
		return f
	}
	lf, rf := free(len(l.shape), lb, lc), free(len(r.shape), rb, rc)
	t := o.Results[0].Type
	out := newIval(t.DType, t.Shape)
	csizes := make([]int, len(lc))
	for i, d := range lc {
		csizes[i] = l.shape[d]
	}
	oidx := make([]int, len(t.Shape))
	li, ri := make([]int, len(l.shape)), make([]int, len(r.shape))
	cidx := make([]int, len(lc))
	for j := range out.size() {
		unravel(j, t.Shape, oidx)
		at := 0
		for i := range lb {
			li[lb[i]], ri[rb[i]] = oidx[at], oidx[at]
			at++
		}
		for _, d := range lf {
			li[d] = oidx[at]
			at++
		}
		for _, d := range rf {
			ri[d] = oidx[at]
			at++
		}
		var sf float64
		var sc complex128
		var si int64
		var su uint64
		for k := range shapeSize(csizes) {
			unravel(k, csizes, cidx)
			for i := range lc {
				li[lc[i]], ri[rc[i]] = cidx[i], cidx[i]
			}
			x, y := ravel(li, l.shape), ravel(ri, r.shape)
			switch {
			case l.f != nil:
				sf += l.f[x] * r.f[y]
			case l.c != nil:
				sc += l.c[x] * r.c[y]
			case l.i != nil:
				si += l.i[x] * r.i[y]
			case l.u != nil:
				su += l.u[x] * r.u[y]
			default:
				return nil, fmt.Errorf("dot_general of bool")
			}
		}
		switch {
		case out.f != nil:
			out.f[j] = sf
		case out.c != nil:
			out.c[j] = sc
		case out.i != nil:
			out.i[j] = wrap(t.DType, si)
		case out.u != nil:
			out.u[j] = wrapU(t.DType, su)
		}
	}
	if out.f != nil {
		out.f = round(t.DType, out.f)
	}
	if out.c != nil {
		out.c = roundC(t.DType, out.c)
	}
	return []ival{out}, nil
}
