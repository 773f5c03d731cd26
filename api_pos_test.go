package kiln_test

import (
	"errors"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/kiln-go/kiln"
	"github.com/kiln-go/kiln/tensor"
)

// callerLine is the file:line of its caller, as errors print it (the file's
// directory and name).
func callerLine() string {
	_, file, n, _ := runtime.Caller(1)
	return filepath.Join(filepath.Base(filepath.Dir(file)), filepath.Base(file)) + ":" + strconv.Itoa(n)
}

// TestRootWrappersReportCallersLine: an error from an op built through one
// of this package's wrappers of trace (kiln.Roll is trace.Roll) names the
// user's line, not the wrapper's, traced eagerly (Eval) or under Jit. The
// tracer skips the frames of Kiln's own packages, the root among them, so
// a wrapper needs no skip count of its own; this pins that.
func TestRootWrappersReportCallersLine(t *testing.T) {
	x23 := func() *tensor.Array { a, _ := tensor.Must(tensor.Arange(tensor.F32, 6)).Reshape(2, 3); return a }
	cases := []struct {
		name  string
		build func(x kiln.Value) (kiln.Value, string) // the bad op and its line
		msg   string
	}{
		{"Roll", func(x kiln.Value) (kiln.Value, string) { return kiln.Roll(x, 1, 5), callerLine() }, "roll"},
		{"Split", func(x kiln.Value) (kiln.Value, string) { return kiln.Split(x, 2, 1)[0], callerLine() }, "split"},
		{"Tile", func(x kiln.Value) (kiln.Value, string) { return kiln.Tile(x, -1), callerLine() }, "tile"},
		{"Repeat", func(x kiln.Value) (kiln.Value, string) { return kiln.Repeat(x, []int{1, 2}, 1), callerLine() }, "repeat"},
		{"Reduce", func(x kiln.Value) (kiln.Value, string) {
			return kiln.Reduce(kiln.OpReduceMax, x, []int{2}, true), callerLine()
		}, "reduce_max"},
		{"SumTo", func(x kiln.Value) (kiln.Value, string) { return kiln.SumTo(x, []int{4}), callerLine() }, ""},
		{"Pad", func(x kiln.Value) (kiln.Value, string) {
			return kiln.Pad(x, [][2]int{{1, 1}, {1, 1}, {1, 1}}, kiln.PadEdge, kiln.Value{}), callerLine()
		}, "pad"},
		{"Iota", func(kiln.Value) (kiln.Value, string) { return kiln.Iota(tensor.I32, []int{2}, 1), callerLine() }, "iota"},
		{"DotGeneral", func(x kiln.Value) (kiln.Value, string) {
			return kiln.DotGeneral(x, x, kiln.DotDims{LhsContract: []int{0}, RhsContract: []int{1}}), callerLine()
		}, "dot_general"},
		{"Concatenate", func(x kiln.Value) (kiln.Value, string) {
			return kiln.Concatenate(0, x, x.Reshape(3, 2)), callerLine()
		}, "concatenate"},
	}
	for _, c := range cases {
		check := func(t *testing.T, err error, want string) {
			t.Helper()
			if err == nil {
				t.Fatalf("no error; want one at %s", want)
			}
			if !strings.Contains(err.Error(), " at "+want+":") {
				t.Errorf("error %q does not point at the caller's line %s", err, want)
			}
			if !strings.Contains(err.Error(), c.msg) {
				t.Errorf("error %q does not name the op %q", err, c.msg)
			}
			var shapeErr *kiln.ShapeError
			if errors.As(err, &shapeErr) && shapeErr.Pos.String() != want {
				t.Errorf("ShapeError.Pos = %s, want %s", shapeErr.Pos, want)
			}
		}
		t.Run(c.name+"/Eval", func(t *testing.T) {
			v, want := c.build(kiln.Const(x23()))
			_, err := kiln.Eval(v)
			check(t, err, want)
		})
		t.Run(c.name+"/Jit", func(t *testing.T) {
			var want string
			f := kiln.Jit(func(x kiln.Value) kiln.Value {
				var v kiln.Value
				v, want = c.build(x)
				return v
			})
			_, err := f.Run(x23())
			check(t, err, want)
		})
	}
}

// TestFreeValuesKeepTheirLines: a value built outside any trace (from
// Const, a literal or a creation function) is a free expression, traced
// when it first meets a trace; its equations and its errors still name the
// line that built each op, not that later line — for Value's methods as
// for the functions, nested or not.
func TestFreeValuesKeepTheirLines(t *testing.T) {
	x := kiln.Const(tensor.Must(tensor.Arange(tensor.F32, 6)))
	y, lineY := x.Exp(), callerLine()
	z, lineZ := y.Reshape(4), callerLine() // a bad reshape of a good free value
	_, err := kiln.Eval(z.Add(kiln.Int(1)))
	var shapeErr *kiln.ShapeError
	if !errors.As(err, &shapeErr) || shapeErr.Op != "reshape" || shapeErr.Pos.String() != lineZ {
		t.Errorf("Eval of a bad free reshape: %v, want a reshape ShapeError at %s", err, lineZ)
	}

	// The equations of a free value used in a jitted function carry the
	// lines that built them (what Checked mode and derivative errors name).
	var lineI string
	f := kiln.Jit(func(a kiln.Value) kiln.Value {
		var i kiln.Value
		i, lineI = kiln.Iota(tensor.F32, []int{6}, 0), callerLine()
		return a.Mul(i).Add(y)
	})
	p, err := f.Trace(tensor.Must(tensor.Arange(tensor.F32, 6)))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]string{}
	for _, e := range p.Eqns {
		seen[e.Op.String()] = e.Pos.String()
	}
	if seen["iota"] != lineI || seen["exp"] != lineY {
		t.Errorf("free equations at iota %s, exp %s; want %s and %s\n%v", seen["iota"], seen["exp"], lineI, lineY, p)
	}
}
