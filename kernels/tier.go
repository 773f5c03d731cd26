package kernels

import (
	"fmt"
	"unsafe"
)

// A slot of a kernel table (binaryTable[op][dtype], unaryTable,
// convertTable, …) may have several implementations: the generic Go loop
// every dtype has, and package simd's kernel for the hot dtypes, which
// gives the same bits faster. Which one runs must not depend on the order
// the registration code runs in (Go runs a package's init functions file
// by file, so renaming a file could swap them): every registration states
// its tier, and a slot keeps the highest tier registered for it, as
// GoMLX's executors are registered with a priority.
//
// Fill the tables only through put. The generic registrations are
// registerGeneric, registerConversions and registerHalfForms; package
// simd's kernels are registered by registerSIMD (simd_gen.go, generated
// from internal/simd/_asm's kernel table) and registerSIMDByHand (the few
// that are not one slot each).

// tier ranks the implementations of a slot; higher wins.
type tier uint8

const (
	tierGeneric tier = iota + 1 // generic Go loops over the dtype's Go type
	tierSIMD                    // internal/simd's kernels: vector code on amd64, the same bits
)

var tierNames = [...]string{tierGeneric: "generic", tierSIMD: "simd"}

func (t tier) String() string {
	if int(t) < len(tierNames) && tierNames[t] != "" {
		return tierNames[t]
	}
	return fmt.Sprintf("tier(%d)", uint8(t))
}

// slotTiers records the tier of every slot put filled.
var slotTiers = map[unsafe.Pointer]tier{}

// put fills *slot with f unless a higher tier filled it already. Two
// kernels of one tier for one slot are a bug in the registration (which
// one won would again depend on order), so put panics, at init.
func put[F any](slot *F, t tier, f F) {
	key := unsafe.Pointer(slot)
	switch cur := slotTiers[key]; {
	case cur > t:
		return
	case cur == t:
		panic(fmt.Sprintf("kernels: two %v kernels for one table slot (%T)", t, f))
	}
	slotTiers[key] = t
	*slot = f
}

// registrations fill the kernel tables. Their order does not matter:
// TestRegistrationOrder runs them backwards and gets the same tables.
var registrations = []func(){registerGeneric, registerConversions, registerHalfForms, registerMath, registerPRNG, registerSIMD, registerSIMDByHand}

func init() {
	for _, r := range registrations {
		r()
	}
}
