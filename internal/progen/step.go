package progen

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// A program is a recipe: a list of steps, each applying one builder call of
// package trace to earlier values (inputs first, then step results, named
// v0, v1, …) or to weak literals. Replaying the recipe inside trace.Trace
// gives the program; the recipe is also its readable description.

// kind is the builder call a step makes.
type kind uint8

const (
	kUnary      kind = iota // op(a)
	kBinary                 // op(a, b)
	kIntPow                 // a ** Int(n): JAX's integer_pow, multiplications
	kWhere                  // Where(a, b, c)
	kAstype                 // a.Astype(dtype)
	kSafeAstype             // float → int astype with NaN → 0 and the value clamped into [lo, hi] first
	kReshape                // a.Reshape(shape...)
	kExpand                 // a.ExpandDims(axes...)
	kSqueeze                // a.Squeeze(axes...)
	kTranspose              // a.Transpose(perm...)
	kBroadcast              // a.BroadcastTo(shape...)
	kSlice                  // a.Slice(axis, start, stop, step)
	kConcat                 // Concatenate(axis, args...)
	kReduce                 // Reduce(op, a, axes, keep)
	kMean                   // ReduceMean(a, axes, keep)
	kArg                    // a.ArgMax(axis) / a.ArgMin(axis)
	kMatMul                 // a.MatMul(b), b's last two axes swapped first when swap
	kFlip                   // a.Flip(ints...)
	kIndex                  // a.At(:×axis, args[1], [::-1 when swap]).Get(mode)
	kTake                   // Take(a, args[1], axis, mode)
	kScatter                // a.At(…as kIndex).op(args[2], mode); args[2] a value: a's own x[idx]
	kDynSlice               // DynamicSlice(a, starts args[1], args[3], …, sizes ints)
	kDynUpdate              // DynamicUpdateSlice(a, DynamicSlice(a, args[1], args[3], …), args[2], args[4], …)
	kIota                   // a + Iota(a's dtype, a's shape, axis): counts that meet a
	kSort                   // sort, argsort, top_k or lax.sort (sort.go)
	kConv                   // ConvGeneralDilated(a, args[1], conv)
	kFori                   // ForiLoop(0, n, λc: op(c, args[1]), a) (control.go)
	kCond                   // Cond(any(a), λx: op(x, args[1]), λx: x, a)
	kWhile                  // WhileLoop(λc: c[1] < n, λc: (op(c[0], args[1]), c[1]+1), a, 0)[0] (control.go)
	kScan                   // Scan(λc, x: (op(c, x), op(c, x)), a[0], a)'s ys (reverse when swap); keep: n steps of op(c, args[1])
	kSwitch                 // Switch(count_nonzero(a), λx: op(x, args[1]), λx: x, λx: op(op(x, args[1]), args[1]), a)
	numKinds
)

// lit is a weak literal (or a bool literal).
type lit struct {
	kind tensor.Kind
	i    int64
	f    float64
	c    complex128
	b    bool
}

func (l lit) value() trace.Value {
	switch l.kind {
	case tensor.KindBool:
		return trace.Bool(l.b)
	case tensor.KindInt:
		return trace.Int(l.i)
	case tensor.KindFloat:
		return trace.Float(l.f)
	}
	return trace.Complex(l.c)
}

func (l lit) String() string {
	switch l.kind {
	case tensor.KindBool:
		return fmt.Sprintf("Bool(%v)", l.b)
	case tensor.KindInt:
		return fmt.Sprintf("Int(%d)", l.i)
	case tensor.KindFloat:
		return "Float(" + fmtFloat(l.f) + ")"
	}
	return "Complex(" + fmtFloat(real(l.c)) + "+" + fmtFloat(imag(l.c)) + "i)"
}

func fmtFloat(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 0) || f == 0 && math.Signbit(f):
		return fmt.Sprint(f)
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}

// operand is an earlier value (ref ≥ 0), a constant array (konst) or a
// literal.
type operand struct {
	ref   int
	lit   lit
	konst *tensor.Array
}

func (o operand) value(vals []trace.Value) trace.Value {
	switch {
	case o.ref >= 0:
		return vals[o.ref]
	case o.konst != nil:
		return trace.Const(o.konst)
	}
	return o.lit.value()
}

func (o operand) String() string {
	switch {
	case o.ref >= 0:
		return fmt.Sprintf("v%d", o.ref)
	case o.konst != nil:
		return "const(" + o.konst.String() + ")"
	}
	return o.lit.String()
}

// step is one builder call. Which fields a kind reads is in the comments
// of the kind constants.
type step struct {
	kind   kind
	op     trace.Op
	args   []operand
	dtype  tensor.DType
	ints   []int // shape, axes or perm
	axis   int
	start  int
	stop   int
	stride int
	keep   bool
	swap   bool
	pref   bool    // kMatMul, kConv: dtype is the preferred_element_type
	oneNaN bool    // top_k's operand, copysign's sign: its NaNs are made one NaN first (sort.go, pickBinary)
	n      int64   // integer_pow exponent
	lo, hi float64 // kSafeAstype clamp
	mode   trace.IndexMode
	conv   trace.ConvOptions // kConv
}

// apply makes the step's builder call.
func (s *step) apply(vals []trace.Value) trace.Value {
	a := s.args[0].value(vals)
	switch s.kind {
	case kUnary:
		return unaryCall(s.op, a)
	case kBinary:
		b := s.args[1].value(vals)
		if s.oneNaN {
			b = trace.Where(b.IsNaN(), trace.Float(math.NaN()), b)
		}
		return binaryCall(s.op, a, b)
	case kIntPow:
		return a.Pow(trace.Int(s.n))
	case kWhere:
		return trace.Where(a, s.args[1].value(vals), s.args[2].value(vals))
	case kAstype:
		return a.Astype(s.dtype)
	case kSafeAstype:
		clean := trace.Where(a.IsFinite(), a, trace.Float(0))
		return clean.Maximum(trace.Float(s.lo)).Minimum(trace.Float(s.hi)).Astype(s.dtype)
	case kReshape:
		return a.Reshape(s.ints...)
	case kExpand:
		return a.ExpandDims(s.ints...)
	case kSqueeze:
		return a.Squeeze(s.ints...)
	case kTranspose:
		return a.Transpose(s.ints...)
	case kBroadcast:
		return a.BroadcastTo(s.ints...)
	case kSlice:
		return a.Slice(s.axis, s.start, s.stop, s.stride)
	case kConcat:
		xs := make([]trace.Value, len(s.args))
		for i, o := range s.args {
			xs[i] = o.value(vals)
		}
		return trace.Concatenate(s.axis, xs...)
	case kReduce:
		return trace.Reduce(s.op, a, s.ints, s.keep)
	case kMean:
		return trace.ReduceMean(a, s.ints, s.keep)
	case kArg:
		if s.op == trace.OpArgMin {
			return a.ArgMin(s.axis)
		}
		return a.ArgMax(s.axis)
	case kMatMul:
		b := s.args[1].value(vals)
		if s.swap {
			b = swapLast(b)
		}
		return trace.MatMul(a, b, s.dotOptions()...)
	case kFlip, kIndex, kTake, kScatter, kDynSlice, kDynUpdate:
		return s.applyIndex(vals)
	case kIota:
		return a.Add(trace.Iota(s.dtype, s.ints, s.axis))
	case kSort:
		return s.applySort(vals)
	case kConv:
		return trace.ConvGeneralDilated(a, s.args[1].value(vals), s.conv, s.dotOptions()...)
	case kFori, kCond, kWhile, kScan, kSwitch:
		return s.applyControl(vals)
	}
	panic(fmt.Sprintf("progen: unknown step kind %d", s.kind))
}

// dotOptions are a matmul or conv step's preferred_element_type, if any.
func (s *step) dotOptions() []trace.DotOption {
	if s.pref {
		return []trace.DotOption{trace.PreferredElementType(s.dtype)}
	}
	return nil
}

// prefString prints a step's preferred_element_type keyword, or "".
func (s *step) prefString() string {
	if s.pref {
		return "preferred_element_type=" + s.dtype.String()
	}
	return ""
}

// swapLast transposes the last two axes of a value of rank ≥ 2.
func swapLast(x trace.Value) trace.Value {
	r := len(x.Shape())
	if r < 2 {
		return x
	}
	perm := make([]int, r)
	for i := range perm {
		perm[i] = i
	}
	perm[r-2], perm[r-1] = r-1, r-2
	return x.Transpose(perm...)
}

func (s *step) String() string {
	args := make([]string, len(s.args))
	for i, o := range s.args {
		args[i] = o.String()
	}
	a := strings.Join(args, ", ")
	switch s.kind {
	case kUnary, kBinary:
		if s.oneNaN {
			a = fmt.Sprintf("%s, where(isnan(%s), NaN, %s)", args[0], args[1], args[1])
		}
		return fmt.Sprintf("%s(%s)", s.op, a)
	case kIota:
		return fmt.Sprintf("add(%s, iota(%s, %v, axis=%d))", a, s.dtype, s.ints, s.axis)
	case kConv:
		return convString(args, s.conv, s.prefString())
	case kIntPow:
		return fmt.Sprintf("%s ** Int(%d)", a, s.n)
	case kWhere:
		return fmt.Sprintf("where(%s)", a)
	case kAstype:
		return fmt.Sprintf("astype(%s, %s)", a, s.dtype)
	case kSafeAstype:
		return fmt.Sprintf("astype(clip(nan_to_0(%s), %g, %g), %s)", a, s.lo, s.hi, s.dtype)
	case kReshape:
		return fmt.Sprintf("reshape(%s, %v)", a, s.ints)
	case kExpand:
		return fmt.Sprintf("expand_dims(%s, %v)", a, s.ints)
	case kSqueeze:
		return fmt.Sprintf("squeeze(%s, %v)", a, s.ints)
	case kTranspose:
		return fmt.Sprintf("transpose(%s, %v)", a, s.ints)
	case kBroadcast:
		return fmt.Sprintf("broadcast_to(%s, %v)", a, s.ints)
	case kSlice:
		return fmt.Sprintf("slice(%s, axis=%d, %d:%d:%d)", a, s.axis, s.start, s.stop, s.stride)
	case kConcat:
		return fmt.Sprintf("concatenate(axis=%d, %s)", s.axis, a)
	case kReduce:
		return fmt.Sprintf("%s(%s, axes=%v, keepdims=%v)", s.op, a, s.ints, s.keep)
	case kMean:
		return fmt.Sprintf("mean(%s, axes=%v, keepdims=%v)", a, s.ints, s.keep)
	case kArg:
		return fmt.Sprintf("%s(%s, axis=%d)", s.op, a, s.axis)
	case kMatMul:
		pref := s.prefString()
		if pref != "" {
			pref = ", " + pref
		}
		if s.swap {
			return fmt.Sprintf("matmul(%s, swapaxes(%s)%s)", args[0], args[1], pref)
		}
		return fmt.Sprintf("matmul(%s%s)", a, pref)
	case kFlip, kIndex, kTake, kScatter, kDynSlice, kDynUpdate:
		return s.indexString(args)
	case kSort:
		return s.sortString(args)
	case kFori, kCond, kWhile, kScan, kSwitch:
		return s.controlString(args)
	}
	return "?"
}

// unaryCall applies a unary op.
func unaryCall(op trace.Op, x trace.Value) trace.Value {
	if op == trace.OpBitcastConvert {
		return x.BitcastConvert(bitcastPartner[x.DType()])
	}
	return trace.Elementwise(op, x)
}

// bitcastPartner is the dtype of the same width a bitcast step
// reinterprets each dtype as (every pair of one width is a cycle).
var bitcastPartner = map[tensor.DType]tensor.DType{
	tensor.U8: tensor.I8, tensor.I8: tensor.U8,
	tensor.U16: tensor.F16, tensor.F16: tensor.BF16, tensor.BF16: tensor.I16, tensor.I16: tensor.U16,
	tensor.U32: tensor.F32, tensor.F32: tensor.I32, tensor.I32: tensor.U32,
	tensor.U64: tensor.F64, tensor.F64: tensor.I64, tensor.I64: tensor.U64,
}

// binaryCall applies a binary op.
func binaryCall(op trace.Op, x, y trace.Value) trace.Value { return trace.Elementwise(op, x, y) }
