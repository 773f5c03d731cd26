package kiln

import (
	"errors"
	"math"
	"reflect"
	"testing"

	"github.com/kiln-go/kiln/promote"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// Two backends of one kind (two OpenCL devices, two CPU backends with
// different options) are told apart by identity, not name: an Eval asking
// for the second runs on the second. (Keyed by name, the second got the
// first's executable and compiled nothing.)
func TestEvalBackendsKeptApart(t *testing.T) {
	b1, b2 := &countingBackend{}, &countingBackend{}
	x := tensor.Must(tensor.FromSlice([]float32{1, 2, 3}))
	for _, b := range []*countingBackend{b1, b2, b1, b2} {
		out, err := Eval(Const(x).Mul(Int(7)).Sum(), WithBackend(b))
		if err != nil {
			t.Fatal(err)
		}
		if got := out.Data().([]float32)[0]; got != 42 {
			t.Fatalf("sum = %v, want 42", got)
		}
	}
	if b1.compiled.Load() != 1 || b2.compiled.Load() != 1 {
		t.Errorf("compiled %d on the first backend and %d on the second; want 1 each", b1.compiled.Load(), b2.compiled.Load())
	}
}

// A program with large buffers is run and released, not cached: eager code
// over big arrays must not pin their scratch (or device memory) for the
// life of the process. Small ones stay cached, within the bounds.
func TestEvalCacheBounded(t *testing.T) {
	b := &countingBackend{}
	n := evalCacheMaxProgram/4 + 1 // f32 elements: one buffer over the bound
	x := tensor.Must(tensor.Zeros(tensor.F32, n))
	out, err := Eval(Const(x).Add(Int(1)).Exp().Sum(), WithBackend(b))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := float64(out.Data().([]float32)[0]), float64(n)*math.E; math.Abs(got-want) > 1e-4*want {
		t.Errorf("sum = %v, want about %v", got, want)
	}
	if b.compiled.Load() != 1 || b.alive() != 0 {
		t.Errorf("large program: %d compiled, %d closed; want it released after its run", b.compiled.Load(), b.closed.Load())
	}
	small := tensor.Must(tensor.FromSlice([]int32{1, 2}))
	for i := range evalCacheMax + 10 {
		if _, err := Eval(Const(small).Add(Int(int64(i))), WithBackend(b)); err != nil {
			t.Fatal(err)
		}
	}
	items, bytes, _ := evals.stats()
	if items != evalCacheMax || bytes > evalCacheMaxBytes {
		t.Errorf("cache holds %d programs, %d bytes; bounds %d, %d", items, bytes, evalCacheMax, evalCacheMaxBytes)
	}
	if alive := b.alive(); alive > evalCacheMax {
		t.Errorf("%d executables alive on the backend; the cache holds at most %d", alive, evalCacheMax)
	}
}

// Eval's result is its own array: not the constant it was given, even when
// the expression is that constant.
func TestEvalResultIsFresh(t *testing.T) {
	x := tensor.Must(tensor.FromSlice([]float64{1, 2}))
	for range 2 {
		out, err := Eval(Const(x))
		if err != nil {
			t.Fatal(err)
		}
		out.Data().([]float64)[0] = 99
		if x.Data().([]float64)[0] != 1 {
			t.Fatal("writing Eval's result changed its input")
		}
	}
	var ae *ArgError
	if _, err := EvalAll(nil); !errors.As(err, &ae) {
		t.Errorf("EvalAll(nil) = %v, want an *ArgError", err)
	}
}

// Every field of trace.Params but Mark is part of Eval's program key: two
// programs that differ in any one field get different keys (else one would
// run the other's executable). New fields are covered without editing this
// test, unless their kind is new to setNonZero.
func TestProgramKeySeesEveryParam(t *testing.T) {
	key := func(p trace.Params) string {
		v := &trace.Var{ID: 0, Type: promote.Strong(tensor.F32), Shape: []int{2}}
		prog := &trace.Program{Inputs: []*trace.Var{v}, Outputs: []*trace.Var{v},
			Eqns: []*trace.Eqn{{Op: trace.OpNeg, Args: []*trace.Var{v}, Out: v, Params: p}}}
		b, ok := programKey(nil, prog)
		if !ok {
			t.Fatalf("params %+v: not encodable", p)
		}
		return string(b)
	}
	zero := key(trace.Params{})
	typ := reflect.TypeFor[trace.Params]()
	for i := range typ.NumField() {
		if typ.Field(i).Name == "Mark" {
			// Which Checkpoint or custom function an equation was traced
			// in does not change what runs: left out, as positions are.
			if key(trace.Params{Mark: trace.Mark{Region: &trace.Region{}, In: 1}}) != zero {
				t.Error("a region mark changes the key")
			}
			continue
		}
		var keys [3]string
		for n := 1; n <= 2; n++ {
			var p trace.Params
			if !setNonZero(reflect.ValueOf(&p).Elem().Field(i), n) {
				t.Fatalf("field %s (%s): teach setNonZero its kind", typ.Field(i).Name, typ.Field(i).Type)
			}
			keys[n] = key(p)
		}
		if typ.Field(i).Type.Kind() == reflect.Bool { // two values only
			keys[2] = "-"
		}
		if keys[1] == zero || keys[2] == zero || keys[1] == keys[2] {
			t.Errorf("field %s: the zero value and two others do not give three keys", typ.Field(i).Name)
		}
	}
	// +0 and -0 (and NaN payloads) are different constants.
	pz := key(trace.Params{Value: tensor.Scalar(float32(0))})
	nz := key(trace.Params{Value: tensor.Scalar(float32(math.Copysign(0, -1)))})
	if pz == nz {
		t.Error("+0 and -0 constants give one key")
	}
}

// setNonZero sets v to a value that depends on n (1 or 2) and is not its
// zero value, and reports whether it knew how.
func setNonZero(v reflect.Value, n int) bool {
	switch v.Kind() {
	case reflect.Bool:
		v.SetBool(true)
		return true
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(int64(n))
		return true
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(uint64(n))
		return true
	case reflect.Float32, reflect.Float64:
		v.SetFloat(float64(n))
		return true
	case reflect.String:
		v.SetString(string(rune('a' + n)))
		return true
	case reflect.Slice:
		s := reflect.MakeSlice(v.Type(), 1, 1)
		if !setNonZero(s.Index(0), n) {
			return false
		}
		v.Set(s)
		return true
	case reflect.Struct:
		return v.NumField() > 0 && setNonZero(v.Field(0), n)
	case reflect.Pointer:
		if v.Type() == arrayPtrType {
			v.Set(reflect.ValueOf(tensor.Scalar(float32(n))))
			return true
		}
	}
	return false
}

// A parameter the encoder cannot spell out by value makes the program
// uncacheable, never a key that two different programs could share.
func TestProgramKeyRefusesPointers(t *testing.T) {
	type future struct {
		Ptr *int
		Tab map[string]int
	}
	for _, v := range []any{future{Ptr: new(int)}, future{Tab: map[string]int{}}, make([]int, maxKeyedElems+1)} {
		if _, ok := appendValue(nil, reflect.ValueOf(v)); ok {
			t.Errorf("%T %+v encoded; want refused", v, v)
		}
	}
	if _, ok := appendValue(nil, reflect.ValueOf(future{})); !ok {
		t.Error("nil pointer and nil map refused; they have a value")
	}
}

// A while's or cond's sub-programs are part of the key, spelled out like
// the program itself: two loops that differ only in their bodies get two
// keys, and Eval of a loop is cached.
func TestProgramKeySeesSubPrograms(t *testing.T) {
	loop := func(k float64) *trace.Program {
		p, err := trace.Trace(promote.Config{}, []trace.Abstract{{Type: promote.Strong(tensor.F32), Shape: []int{2}}}, func(a []trace.Value) []trace.Value {
			return trace.ForiLoop(trace.Int(0), trace.Int(3), func(i trace.Value, c []trace.Value) []trace.Value { return []trace.Value{c[0].Mul(trace.Float(k))} }, a[0])
		})
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	k1, ok1 := programKey(nil, loop(2))
	k1b, _ := programKey(nil, loop(2))
	k2, ok2 := programKey(nil, loop(3))
	if !ok1 || !ok2 {
		t.Fatal("a loop's program is not encodable")
	}
	if string(k1) != string(k1b) || string(k1) == string(k2) {
		t.Error("the key does not follow the loop's body")
	}
}
