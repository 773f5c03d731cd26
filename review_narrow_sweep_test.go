package kiln_test

import (
	"errors"
	"fmt"
	"reflect"
	"testing"

	"github.com/kiln-go/kiln"
	"github.com/kiln-go/kiln/internal/reference"
	"github.com/kiln-go/kiln/kernels"
	"github.com/kiln-go/kiln/kernels/conformance"
	"github.com/kiln-go/kiln/promote"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// Every method of Value whose parameters are Values, ints or variadic
// ints, called on every narrow dtype (the other Value operands of the
// same dtype), run on the CPU: it either gives the reference evaluator's
// result, element for element, or an error of a named type — never a
// panic and never a bare errors.New.
func TestReviewNarrowOpSweep(t *testing.T) {
	vt := reflect.TypeOf(trace.Value{})
	tested := 0
	for _, d := range tensor.NarrowDTypes() {
		in := []*tensor.Array{conformance.Input(d, 1, 3, 4), conformance.Input(d, 2, 3, 4), conformance.Input(d, 3, 3, 4)}
		for m := range vt.NumMethod() {
			meth := vt.Method(m)
			mt := meth.Type // receiver first
			nv, ok := 1, true
			build := func(args []trace.Value) []reflect.Value {
				rv := []reflect.Value{reflect.ValueOf(args[0])}
				k := 1
				for p := 1; p < mt.NumIn(); p++ {
					pt := mt.In(p)
					switch {
					case pt == vt:
						rv = append(rv, reflect.ValueOf(args[k]))
						k++
					case pt.Kind() == reflect.Int:
						rv = append(rv, reflect.ValueOf(0).Convert(pt))
					}
				}
				return rv
			}
			for p := 1; p < mt.NumIn(); p++ {
				pt := mt.In(p)
				switch {
				case pt == vt:
					nv++
				case pt.Kind() == reflect.Int && !(mt.IsVariadic() && p == mt.NumIn()-1):
				case mt.IsVariadic() && p == mt.NumIn()-1 && pt.Elem().Kind() == reflect.Int:
				default:
					ok = false
				}
			}
			if !ok || nv > 3 || mt.NumOut() != 1 || mt.Out(0) != vt {
				continue
			}
			name := fmt.Sprintf("%s/%s", meth.Name, d)
			fn := func(args []trace.Value) []trace.Value {
				var rv []reflect.Value
				if mt.IsVariadic() {
					rv = meth.Func.CallSlice(append(build(args), reflect.ValueOf([]int{})))
				} else {
					rv = meth.Func.Call(build(args))
				}
				return []trace.Value{rv[0].Interface().(trace.Value)}
			}
			ins := in[:nv]
			abs := make([]trace.Abstract, nv)
			for i, a := range ins {
				abs[i] = trace.AbstractOf(a.DType(), a.Shape())
			}
			func() {
				defer func() {
					if r := recover(); r != nil {
						t.Errorf("%s: panic: %v", name, r)
					}
				}()
				p, terr := trace.Trace(promote.Config{}, abs, fn)
				args := make([]any, nv)
				for i, a := range ins {
					args[i] = a
				}
				jf := kiln.Jit(func(vs ...kiln.Value) kiln.Value { return fn(vs)[0] })
				got, err := jf.Run(args...)
				if terr != nil {
					if err == nil {
						t.Errorf("%s: trace error %v but the CPU ran it", name, terr)
					}
					checkTyped(t, name, err)
					return
				}
				want, rerr := reference.Eval(p, ins, reference.Options{Transcendental: kernels.Transcendental})
				if rerr != nil {
					if err == nil {
						t.Errorf("%s: reference error %v but the CPU ran it", name, rerr)
					}
					checkTyped(t, name, err)
					return
				}
				if err != nil {
					t.Errorf("%s: CPU error %v, reference %v", name, err, want[0])
					return
				}
				tested++
				if got.String() != want[0].String() {
					t.Errorf("%s: CPU %v, reference %v", name, got, want[0])
				}
			}()
		}
	}
	if tested < 100 {
		t.Errorf("only %d method × dtype pairs ran", tested)
	}
	t.Logf("%d method × narrow dtype pairs compared", tested)
}

func checkTyped(t *testing.T, name string, err error) {
	t.Helper()
	for e := err; e != nil; e = errors.Unwrap(e) {
		if reflect.TypeOf(e).String() == "*errors.errorString" || reflect.TypeOf(e).String() == "*fmt.wrapError" {
			continue
		}
		return
	}
	t.Errorf("%s: untyped error %T: %v", name, err, err)
}
