package main

import (
	"fmt"
	"math"
	"unsafe"

	"github.com/kiln-go/kiln/tensor"
)

// compare checks a peer's output against Kiln fused's: bit for bit when
// tol is 0, else within tol relative to the larger magnitude (for E6, to
// the largest element of Kiln's result, since a dot product's rounding
// error scales with its terms, not its sum). It returns "" when they
// agree, else a description of the first mismatch and how many differ,
// and the worst relative error seen (0 when comparing bits).
func compare(got, want any, tol float64, matrix bool) (string, float64) {
	switch w := want.(type) {
	case []float32:
		g, ok := got.([]float32)
		if !ok {
			return fmt.Sprintf("output is %T, want []float32", got), 0
		}
		return compareFloats(g, w, tol, matrix, func(v float32) uint64 { return uint64(math.Float32bits(v)) })
	case []float64:
		g, ok := got.([]float64)
		if !ok {
			return fmt.Sprintf("output is %T, want []float64", got), 0
		}
		return compareFloats(g, w, tol, matrix, math.Float64bits)
	case []int32:
		g, ok := got.([]int32)
		if !ok {
			return fmt.Sprintf("output is %T, want []int32", got), 0
		}
		return compareFloats(widen(g), widen(w), 0, false, func(v float64) uint64 { return math.Float64bits(v) })
	case []tensor.BFloat16:
		g, ok := got.([]tensor.BFloat16)
		if !ok {
			return fmt.Sprintf("output is %T, want []tensor.BFloat16", got), 0
		}
		return compareFloats(bf16ToF32(g), bf16ToF32(w), tol, matrix, func(v float32) uint64 { return uint64(math.Float32bits(v)) })
	case []complex64:
		g, ok := got.([]complex64)
		if !ok {
			return fmt.Sprintf("output is %T, want []complex64", got), 0
		}
		// Part by part, relative to the largest part of Kiln's result.
		return compareFloats(parts(g), parts(w), tol, matrix, func(v float32) uint64 { return uint64(math.Float32bits(v)) })
	case []tensor.Float16:
		g, ok := got.([]tensor.Float16)
		if !ok {
			return fmt.Sprintf("output is %T, want []tensor.Float16", got), 0
		}
		return compareFloats(toF32(g), toF32(w), tol, matrix, func(v float32) uint64 { return uint64(tensor.Float32ToF16(v).Bits()) })
	}
	return fmt.Sprintf("cannot compare a %T output", want), 0
}

// compareParts is compare for a result made of several f32 outputs one
// after another (parts: their element counts; nil for one output): each
// part is compared on its own, relative to its own largest element, and
// the first part that differs is reported by its index.
func compareParts(got, want any, tol float64, matrix bool, parts []int) (string, float64) {
	g, gok := got.([]float32)
	w, wok := want.([]float32)
	if len(parts) < 2 || !gok || !wok {
		return compare(got, want, tol, matrix)
	}
	if len(g) != len(w) {
		return fmt.Sprintf("%d elements, want %d", len(g), len(w)), 0
	}
	msg, worst, off := "", 0.0, 0
	for i, n := range parts {
		if off+n > len(w) {
			return fmt.Sprintf("%d elements, want at least %d (outputs of %v elements)", len(w), off+n, parts), worst
		}
		m, e := compare(g[off:off+n], w[off:off+n], tol, matrix)
		if m != "" && msg == "" {
			msg = fmt.Sprintf("output %d: %s", i, m)
		}
		worst, off = max(worst, e), off+n
	}
	if off != len(w) {
		return fmt.Sprintf("%d elements, want %d (outputs of %v elements)", len(w), off, parts), worst
	}
	return msg, worst
}

// widen converts int32 values exactly to float64, so that compareFloats
// compares them.
func widen(v []int32) []float64 {
	f := make([]float64, len(v))
	for i, x := range v {
		f[i] = float64(x)
	}
	return f
}

// parts views complex64 values as their interleaved real and imaginary
// parts.
func parts(v []complex64) []float32 {
	return unsafe.Slice((*float32)(unsafe.Pointer(unsafe.SliceData(v))), 2*len(v))
}

// bf16ToF32 widens bf16 values exactly.
func bf16ToF32(h []tensor.BFloat16) []float32 {
	f := make([]float32, len(h))
	for i, v := range h {
		f[i] = v.Float32()
	}
	return f
}

// toF32 widens f16 values exactly (every f16 is an f32).
func toF32(h []tensor.Float16) []float32 {
	f := make([]float32, len(h))
	for i, v := range h {
		f[i] = v.Float32()
	}
	return f
}

func compareFloats[T float32 | float64](got, want []T, tol float64, matrix bool, bits func(T) uint64) (string, float64) {
	if len(got) != len(want) {
		return fmt.Sprintf("%d elements, want %d", len(got), len(want)), 0
	}
	scale := 0.0
	if matrix {
		for _, v := range want {
			scale = max(scale, math.Abs(float64(v)))
		}
	}
	bad, first, worst := 0, -1, 0.0
	for i := range want {
		g, w := float64(got[i]), float64(want[i])
		var off bool
		if tol == 0 {
			off = bits(got[i]) != bits(want[i])
		} else {
			ref := max(math.Abs(g), math.Abs(w))
			if matrix {
				ref = scale
			}
			d := math.Abs(g - w)
			off = !(d <= tol*ref) // NaN is off
			if ref > 0 {
				worst = max(worst, d/ref)
			}
		}
		if off {
			if first < 0 {
				first = i
			}
			bad++
		}
	}
	if bad == 0 {
		return "", worst
	}
	msg := fmt.Sprintf("%d of %d elements differ; first at [%d]: %v, Kiln %v", bad, len(want), first, got[first], want[first])
	if tol > 0 {
		msg += fmt.Sprintf("; worst relative error %.3g > %g", worst, tol)
	}
	return msg, worst
}

// checkLabel says how a workload's outputs are compared.
func checkLabel(w *workload) string {
	switch {
	case w.tol == 0:
		return "bit-exact"
	case w.flops > 0:
		return fmt.Sprintf("max |error| ≤ %g × max |Kiln|", w.tol)
	}
	return fmt.Sprintf("relative %g", w.tol)
}
