package kernels

import (
	"fmt"
	"reflect"
	"slices"
	"testing"
	"unsafe"

	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// tables lists every kernel table the registrations fill through put.
func tables() map[string]any {
	return map[string]any{
		"binaryTable": &binaryTable, "unaryTable": &unaryTable, "selectTable": &selectTable,
		"convertTable": &convertTable, "scalarTable": &scalarTable, "widenOpTable": &widenOpTable,
		"affineTable": &affineTable, "rounded": &rounded, "stored": &stored, "storedNT": &storedNT,
		"wideBinary": &wideBinary, "wideScalar": &wideScalar,
		"widenF16Fn": &widenF16Fn, "widenBF16Fn": &widenBF16Fn, "narrowF16Fn": &narrowF16Fn,
		"narrowBF16Fn": &narrowBF16Fn, "roundF16Fn": &roundF16Fn, "roundBF16Fn": &roundBF16Fn,
	}
}

// funcSlots calls visit for every func-typed slot inside the table v
// points to, with its path and address.
func funcSlots(name string, v reflect.Value, visit func(path string, slot reflect.Value)) {
	switch v.Kind() {
	case reflect.Array:
		for i := range v.Len() {
			funcSlots(fmt.Sprintf("%s[%d]", name, i), v.Index(i), visit)
		}
	case reflect.Struct:
		for i := range v.NumField() {
			funcSlots(name+"."+v.Type().Field(i).Name, v.Field(i), visit)
		}
	case reflect.Func:
		visit(name, v)
	}
}

// snapshot records, for every slot, its tier and the code of the function
// in it (the adapter's code: simd2 and bin differ, so a generic loop in
// place of a SIMD kernel shows).
func snapshot() map[string]string {
	m := map[string]string{}
	for name, p := range tables() {
		funcSlots(name, reflect.ValueOf(p).Elem(), func(path string, slot reflect.Value) {
			if slot.IsNil() {
				return
			}
			tr := slotTiers[slot.Addr().UnsafePointer()]
			m[path] = fmt.Sprintf("%v %#x", tr, slot.Pointer())
		})
	}
	return m
}

// TestRegistrationOrder: the tables do not depend on the order the
// registrations run in. Run backwards on empty tables, they come out as
// init filled them; without tiers (the last registration winning) the
// generic loops would replace every SIMD kernel.
func TestRegistrationOrder(t *testing.T) {
	want := snapshot()
	saved := map[string]reflect.Value{}
	for name, p := range tables() {
		v := reflect.ValueOf(p).Elem()
		saved[name] = reflect.New(v.Type()).Elem()
		saved[name].Set(v)
		v.SetZero()
	}
	savedTiers := slotTiers
	defer func() {
		for name, p := range tables() {
			reflect.ValueOf(p).Elem().Set(saved[name])
		}
		slotTiers = savedTiers
	}()
	for _, order := range [][]func(){slices.Clone(registrations), reversed(registrations)} {
		for _, p := range tables() {
			reflect.ValueOf(p).Elem().SetZero()
		}
		slotTiers = map[unsafe.Pointer]tier{}
		for _, r := range order {
			r()
		}
		got := snapshot()
		if len(got) != len(want) {
			t.Errorf("%d slots filled, init filled %d", len(got), len(want))
		}
		for path, w := range want {
			if got[path] != w {
				t.Errorf("%s: %s, init made it %s", path, got[path], w)
			}
		}
	}
}

func reversed(rs []func()) []func() {
	r := slices.Clone(rs)
	slices.Reverse(r)
	return r
}

// TestSlotsRegisteredWithTier: every kernel in the tables came through
// put, so its tier is known; a table written directly would again depend
// on which code ran last.
func TestSlotsRegisteredWithTier(t *testing.T) {
	n := 0
	for name, p := range tables() {
		funcSlots(name, reflect.ValueOf(p).Elem(), func(path string, slot reflect.Value) {
			if !slot.IsNil() {
				n++
				if slotTiers[slot.Addr().UnsafePointer()] == 0 {
					t.Errorf("%s holds a kernel not registered through put", path)
				}
			}
		})
	}
	if n < 500 {
		t.Errorf("only %d kernels registered", n)
	}
}

// TestSIMDTierWins: the hot slots hold package simd's kernels, whichever
// file registered them; each is checked against the generic loop it
// replaced by the conformance suite and simd's twin tests.
func TestSIMDTierWins(t *testing.T) {
	for _, c := range []struct {
		name string
		slot unsafe.Pointer
	}{
		{"add f32", unsafe.Pointer(&binaryTable[trace.OpAdd][tensor.F32])},
		{"mul bf16", unsafe.Pointer(&binaryTable[trace.OpMul][tensor.BF16])},
		{"lt f64", unsafe.Pointer(&binaryTable[trace.OpLt][tensor.F64])},
		{"add i8", unsafe.Pointer(&binaryTable[trace.OpAdd][tensor.I8])},
		{"exp f32", unsafe.Pointer(&unaryTable[trace.OpExp][tensor.F32])},
		{"select f64", unsafe.Pointer(&selectTable[tensor.F64])},
		{"i32 to f64", unsafe.Pointer(&convertTable[tensor.I32][tensor.F64])},
		{"round f16", unsafe.Pointer(&roundF16Fn)},
	} {
		if got := slotTiers[c.slot]; got != tierSIMD {
			t.Errorf("%s: tier %v, want %v", c.name, got, tierSIMD)
		}
	}
	if got := slotTiers[unsafe.Pointer(&binaryTable[trace.OpAdd][tensor.C64])]; got != tierGeneric {
		t.Errorf("add c64: tier %v, want %v (no SIMD kernel)", got, tierGeneric)
	}
}

// TestPutRefusesSameTier: two kernels of one tier for a slot are a
// registration bug, found at init.
func TestPutRefusesSameTier(t *testing.T) {
	var slot func()
	defer func() {
		delete(slotTiers, unsafe.Pointer(&slot))
		if recover() == nil {
			t.Error("put accepted a second generic kernel for one slot")
		}
	}()
	put(&slot, tierSIMD, func() {})
	put(&slot, tierGeneric, nil) // lower: ignored
	if slot == nil {
		t.Fatal("a lower tier replaced a higher one")
	}
	put(&slot, tierSIMD, func() {})
}
