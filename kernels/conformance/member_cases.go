package conformance

import (
	"errors"
	"slices"
	"testing"

	"github.com/kiln-go/kiln/internal/reference"
	"github.com/kiln-go/kiln/kernels"
	"github.com/kiln-go/kiln/lower"
	"github.com/kiln-go/kiln/promote"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// Fusions the simplifier no longer produces, built by hand: a loop or
// reduce fusion holding a broadcast_in_dim and, as a member too, the
// broadcast's operand. The operand is computed in the fusion's body at
// the loop's index and has no buffer; a kernel that loads a broadcast's
// operand from its buffer whatever it is read a buffer holding something
// else (TestDifferential seed 68002648: log2(x) broadcast to its own shape
// and added to itself gave x + log2(x)). A broadcast to the operand's own
// shape (its dims increase, so it is the identity) is the operand's
// value; any other broadcast of a member is an ill-formed fusion, which
// Verify rejects and a backend must refuse at Compile rather than read
// a wrong buffer.

// memberCase is one hand-built module: Build returns it fused and
// planned with its inputs, and want, the outputs of the program it
// computes (nil: the module is ill-formed and Compile must fail).
type memberCase struct {
	name  string
	build func(t *testing.T) (m *lower.Module, inputs, want []*tensor.Array)
}

// RunMemberBroadcasts runs the hand-built fusions of broadcasts whose
// operand is a member of the same fusion on backend b: the identity
// broadcasts give the reference's bits, the ill-formed fusion fails to
// compile with an error.
func RunMemberBroadcasts(t *testing.T, b kernels.Backend) {
	t.Helper()
	for _, c := range memberCases() {
		t.Run(c.name, func(t *testing.T) {
			m, inputs, want := c.build(t)
			exe, err := b.Compile(m)
			if want == nil {
				if err == nil {
					t.Fatalf("%s: Compile of an ill-formed fusion succeeded; want an error\n%s", b.Name(), m.FusedString())
				}
				return
			}
			if err != nil {
				t.Fatalf("%s: compile: %v\n%s", b.Name(), err, m.FusedString())
			}
			got, err := exe.Run(inputs)
			if err != nil {
				t.Fatalf("%s: run: %v", b.Name(), err)
			}
			for i := range want {
				if msg := Compare(got[i], want[i], 0); msg != "" {
					t.Errorf("output %d: %s\nfused:\n%s\ngot  %v\nwant %v", i, msg, m.FusedString(), got[i], want[i])
				}
			}
		})
	}
}

func memberCases() []memberCase {
	// y = −x·x (not duplicable: a broadcast reads it), read by the root
	// both directly and through identity broadcasts of it.
	square := func(x trace.Value) trace.Value { return x.Mul(x.Neg()) }
	return []memberCase{
		{"loop: broadcast(y) + y", func(t *testing.T) (*lower.Module, []*tensor.Array, []*tensor.Array) {
			x := Input(tensor.F32, 1, 3, 37)
			return identityBroadcast(t, x, func(a []trace.Value) []trace.Value {
				y := square(a[0])
				return []trace.Value{y.Add(y)}
			}, lower.FusionLoop)
		}},
		{"loop: broadcast(y) - y on f16", func(t *testing.T) (*lower.Module, []*tensor.Array, []*tensor.Array) {
			x := Input(tensor.F16, 2, 129)
			return identityBroadcast(t, x, func(a []trace.Value) []trace.Value {
				y := square(a[0])
				return []trace.Value{y.Sub(y)}
			}, lower.FusionLoop)
		}},
		{"loop: broadcast(y) · y on a scalar", func(t *testing.T) (*lower.Module, []*tensor.Array, []*tensor.Array) {
			x, _ := tensor.FromSlice([]float64{256})
			x, _ = x.Reshape()
			return identityBroadcast(t, x, func(a []trace.Value) []trace.Value {
				y := square(a[0])
				return []trace.Value{y.Mul(y)}
			}, lower.FusionLoop)
		}},
		{"reduce over axis 0: sum(broadcast(y) + y)", func(t *testing.T) (*lower.Module, []*tensor.Array, []*tensor.Array) {
			x := Input(tensor.I32, 3, 6, 37)
			return identityBroadcast(t, x, func(a []trace.Value) []trace.Value {
				y := square(a[0])
				return []trace.Value{y.Add(y).Sum(0)}
			}, lower.FusionReduce)
		}},
		{"ill-formed: a scalar member broadcast in a loop", scalarMemberBroadcast},
	}
}

// identityBroadcast traces fn (some instruction of which, root, reads a
// value y twice: root(y, y)), lowers it without simplification, and makes
// root's first operand an identity broadcast of y — the program's value
// unchanged — before fusing and planning. The fusion computing root must
// be of kind and hold the broadcast and y.
func identityBroadcast(t *testing.T, x *tensor.Array, fn func(a []trace.Value) []trace.Value, kind lower.FusionKind) (*lower.Module, []*tensor.Array, []*tensor.Array) {
	t.Helper()
	p, err := trace.Trace(promote.Config{}, []trace.Abstract{{Type: promote.Strong(x.DType()), Shape: x.Shape()}}, fn)
	if err != nil {
		t.Fatal(err)
	}
	inputs := []*tensor.Array{x}
	want, err := reference.Eval(p, inputs, reference.Options{Transcendental: kernels.Transcendental})
	if err != nil {
		t.Fatal(err)
	}
	m, err := lower.Lower(p)
	if err != nil {
		t.Fatal(err)
	}
	// The elementwise instruction reading one value twice.
	i := slices.IndexFunc(m.Instrs, func(in *lower.Instr) bool {
		return len(in.Args) == 2 && in.Args[0] == in.Args[1]
	})
	if i < 0 {
		t.Fatalf("no instruction reads a value twice:\n%s", m)
	}
	root := m.Instrs[i]
	y := root.Args[0]
	dims := make([]int, len(y.Shape))
	for d := range dims {
		dims[d] = d
	}
	b := &lower.Instr{Op: trace.OpBroadcastInDim, DType: y.DType, Shape: slices.Clone(y.Shape), Args: []*lower.Instr{y},
		Params: trace.Params{Shape: slices.Clone(y.Shape), Dims: dims}}
	root.Args[0] = b
	m.Instrs = slices.Insert(m.Instrs, i, b)
	for j, in := range m.Instrs {
		in.ID = j
	}
	lower.Fuse(m, true)
	lower.PlanBuffers(m)
	if err := m.Verify(); err != nil {
		t.Fatalf("the hand-built module: %v\n%s", err, m.FusedString())
	}
	var f *lower.Fusion
	for _, g := range m.Fusions {
		if slices.Contains(g.Instrs, root) {
			f = g
		}
	}
	if f == nil || f.Kind != kind || !slices.Contains(f.Instrs, y) || !slices.Contains(f.Instrs, b) {
		t.Fatalf("want a %s fusion holding %s and its broadcast:\n%s", kind, y.Name(), m.FusedString())
	}
	return m, inputs, want
}

// scalarMemberBroadcast builds a loop fusion over [5] holding y = x·x
// (x a scalar) and broadcast(y) to [5]: y computed at the loop's index is
// not the value broadcast, and has no buffer. Verify rejects it; the
// case returns no outputs, so the backend must refuse it.
func scalarMemberBroadcast(t *testing.T) (*lower.Module, []*tensor.Array, []*tensor.Array) {
	t.Helper()
	x, _ := tensor.FromSlice([]float32{3})
	x, _ = x.Reshape()
	w := Input(tensor.F32, 4, 5)
	p, err := trace.Trace(promote.Config{}, []trace.Abstract{{Type: promote.Strong(tensor.F32)}, {Type: promote.Strong(tensor.F32), Shape: []int{5}}},
		func(a []trace.Value) []trace.Value {
			return []trace.Value{a[0].Mul(a[0]).BroadcastTo(5).Add(a[1])}
		})
	if err != nil {
		t.Fatal(err)
	}
	m, err := lower.Lower(p)
	if err != nil {
		t.Fatal(err)
	}
	lower.Fuse(m, true)
	// Move y's own fusion into the fusion reading it.
	var fy, fz *lower.Fusion
	for _, f := range m.Fusions {
		switch f.Outputs[0].Op {
		case trace.OpMul:
			fy = f
		case trace.OpAdd:
			fz = f
		}
	}
	if fy == nil || fz == nil || len(fy.Instrs) != 1 {
		t.Fatalf("unexpected fusions:\n%s", m.FusedString())
	}
	y := fy.Outputs[0]
	fz.Instrs = append([]*lower.Instr{y}, fz.Instrs...)
	fz.Inputs = slices.DeleteFunc(fz.Inputs, func(in *lower.Instr) bool { return in == y })
	fz.Inputs = append(fz.Inputs, y.Args[0])
	m.Fusions = slices.DeleteFunc(m.Fusions, func(f *lower.Fusion) bool { return f == fy })
	for i, f := range m.Fusions {
		f.ID = i
	}
	lower.PlanBuffers(m)
	var ve *lower.VerifyError
	if err := m.Verify(); !errors.As(err, &ve) || ve.Kind != lower.VerifyFusion {
		t.Fatalf("Verify = %v; want a fusion error\n%s", err, m.FusedString())
	}
	return m, []*tensor.Array{x, w}, nil
}
