package progen

import (
	"fmt"
	"strings"

	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// Steps of the indexing ops: flip, NumPy indexing with an index array,
// take, x.at[…] updates and the dynamic slices. Index arrays are integer
// values of the program (any dtype, any values: out-of-bounds behaviour
// is defined) or small constants that reach past both ends.

// indexOperand draws an index array for a dim of size n: an integer value
// of the program of at most maxRank dims and 64 elements, or a constant.
func (g *gen) indexOperand(n, maxRank int) operand {
	var cands []int
	for i, t := range g.types {
		if t.DType.IsInteger() && len(g.shapes[i]) <= maxRank && trace.ShapeSize(g.shapes[i]) <= 64 {
			cands = append(cands, i)
		}
	}
	if len(cands) > 0 && g.r.Intn(2) == 0 {
		return operand{ref: cands[g.r.Intn(len(cands))]}
	}
	k := g.r.Intn(6)
	if maxRank == 0 {
		k = 1
	}
	vals := make([]int64, k)
	for i := range vals {
		vals[i] = int64(g.r.Intn(2*n+5) - n - 2)
	}
	a, _ := tensor.FromSlice(vals)
	if maxRank == 0 {
		a, _ = a.Reshape()
	}
	d := []tensor.DType{tensor.I32, tensor.I64, tensor.I8, tensor.U8}[g.r.Intn(4)]
	if d.IsUnsigned() {
		for i := range vals {
			vals[i] = max(vals[i], 0)
		}
	}
	return operand{ref: -1, konst: a.Astype(d)}
}

var indexModes = []trace.IndexMode{trace.ModePromiseInBounds, trace.ModeClip, trace.ModeFill}

// pickIndexStep fills an indexing step drawn for the value s.args[0].
func (g *gen) pickIndexStep(s step) (step, bool) {
	r := g.r
	t, shape := g.types[s.args[0].ref], g.shapes[s.args[0].ref]
	rank := len(shape)
	if rank == 0 && s.kind != kDynSlice && s.kind != kDynUpdate {
		return s, false
	}
	switch s.kind {
	case kFlip:
		for i := range rank {
			if r.Intn(2) == 0 {
				s.ints = append(s.ints, i-rank*r.Intn(2))
			}
		}
	case kIndex, kTake, kScatter:
		s.axis = r.Intn(rank)
		s.args = append(s.args, g.indexOperand(shape[s.axis], 2))
		s.mode = indexModes[r.Intn(len(indexModes))]
		s.swap = s.axis+1 < rank && r.Intn(2) == 0 // a negative-step span after the index
		if s.kind == kTake && r.Intn(4) == 0 {
			s.axis = trace.AxisNone
		}
		if s.kind == kScatter {
			var ops []trace.Op
			for op := trace.OpScatter; op <= trace.OpScatterMax; op++ {
				if g.ops[op] && !(t.DType.IsComplex() && (op == trace.OpScatterMin || op == trace.OpScatterMax)) {
					ops = append(ops, op)
				}
			}
			if len(ops) == 0 {
				return s, false
			}
			s.op = ops[r.Intn(len(ops))]
			s.mode = indexModes[r.Intn(2)]
			l := g.literal(t.DType)
			common, err := g.c.Config.ResultType(t, g.operandType(operand{ref: -1, lit: l}))
			if g.o.SafeConverts && (t.DType.IsInteger() || t.DType == tensor.Bool) && (err != nil || common.DType.IsInexact()) {
				// The result converts back to the operand's dtype: keep the
				// update's kind, so that convert is never out of range.
				l = lit{kind: tensor.KindBool, b: r.Intn(2) == 0}
			}
			// The update is x[idx] itself now and then, but for scatter_mul,
			// whose derivative in the updates is refused (as JAX's without
			// unique indices): programs stay differentiable.
			if r.Intn(3) == 0 && s.op != trace.OpScatterMul {
				s.args = append(s.args, operand{ref: s.args[0].ref}) // the update: x[idx] itself
			} else {
				s.args = append(s.args, operand{ref: -1, lit: l})
			}
		}
	case kDynSlice, kDynUpdate:
		for _, n := range shape {
			s.ints = append(s.ints, r.Intn(n+1))
			for range 2 {
				s.args = append(s.args, g.startOperand(n))
			}
		}
	}
	return s, true
}

// startOperand is a start index of a dynamic slice: a literal reaching
// past both ends or a scalar index.
func (g *gen) startOperand(n int) operand {
	if g.r.Intn(2) == 0 {
		return operand{ref: -1, lit: lit{kind: tensor.KindInt, i: int64(g.r.Intn(2*n+5) - n - 2)}}
	}
	return g.indexOperand(n, 0)
}

// applyIndex makes an indexing step's builder call.
func (s *step) applyIndex(vals []trace.Value) trace.Value {
	a := s.args[0].value(vals)
	items := func() []any {
		var out []any
		for range max(s.axis, 0) {
			out = append(out, trace.All)
		}
		out = append(out, s.args[1].value(vals))
		if s.swap {
			out = append(out, trace.Step(-1))
		}
		return out
	}
	switch s.kind {
	case kFlip:
		return a.Flip(s.ints...)
	case kIndex:
		return a.At(items()...).Get(trace.WithMode(s.mode))
	case kTake:
		if s.mode == trace.ModePromiseInBounds {
			return trace.Take(a, s.args[1].value(vals), s.axis)
		}
		return trace.Take(a, s.args[1].value(vals), s.axis, trace.WithMode(s.mode))
	case kScatter:
		ref := a.At(items()...)
		upd := s.args[2].value(vals)
		if s.args[2].ref >= 0 {
			upd = ref.Get()
		}
		opts := []trace.IndexOption{trace.WithMode(s.mode)}
		switch s.op {
		case trace.OpScatter:
			return ref.Set(upd, opts...)
		case trace.OpScatterAdd:
			return ref.Add(upd, opts...)
		case trace.OpScatterMul:
			return ref.Mul(upd, opts...)
		case trace.OpScatterMin:
			return ref.Min(upd, opts...)
		}
		return ref.Max(upd, opts...)
	}
	starts := func(k int) []trace.Value {
		var out []trace.Value
		for i := range s.ints {
			out = append(out, s.args[1+2*i+k].value(vals))
		}
		return out
	}
	if s.kind == kDynSlice {
		return trace.DynamicSlice(a, starts(0), s.ints)
	}
	return trace.DynamicUpdateSlice(a, trace.DynamicSlice(a, starts(0), s.ints), starts(1))
}

func (s *step) indexString(args []string) string {
	switch s.kind {
	case kFlip:
		return fmt.Sprintf("flip(%s, %v)", args[0], s.ints)
	case kIndex, kTake, kScatter:
		lead := strings.Repeat(":, ", max(s.axis, 0))
		tail := ""
		if s.swap {
			tail = ", ::-1"
		}
		switch s.kind {
		case kIndex:
			return fmt.Sprintf("%s.at[%s%s%s].get(mode=%s)", args[0], lead, args[1], tail, s.mode)
		case kTake:
			return fmt.Sprintf("take(%s, %s, axis=%d, mode=%s)", args[0], args[1], s.axis, s.mode)
		}
		upd := args[2]
		if s.args[2].ref >= 0 {
			upd = "itself"
		}
		return fmt.Sprintf("%s.at[%s%s%s].%s(%s, mode=%s)", args[0], lead, args[1], tail, s.op, upd, s.mode)
	case kDynSlice:
		return fmt.Sprintf("dynamic_slice(%s, %v, sizes=%v)", args[0], args[1:], s.ints)
	}
	return fmt.Sprintf("dynamic_update_slice(%s, dynamic_slice(…), %v, sizes=%v)", args[0], args[1:], s.ints)
}
