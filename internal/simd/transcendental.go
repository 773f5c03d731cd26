package simd

// The vectorized transcendentals share one shape: the assembly evaluates a
// polynomial algorithm on every lane of a vector whose inputs all lie in the
// function's "vector domain", and stops before the first vector that has a
// lane outside it (NaN, ±Inf, a result that would be subnormal, a huge sin
// argument, ...). The Go twin evaluates the very same operations in scalar
// code — every product that feeds a sum is either rounded explicitly with a
// conversion, so the compiler cannot contract it into an FMA (it does on
// arm64, and on amd64 with GOAMD64=v3), or fused on purpose with fma32 where
// the vector code uses VFMADD — and handles inputs outside the vector
// domain with package math in float64. So every tier returns the same bits.
//
// The kernels first test a vector with one compare for the common case
// (every lane in the core algorithm's domain) and then compute only the
// core, with its constants held in registers (16 on AVX-512, 4 on AVX2);
// vectors with a special lane take the full path, which settles them with
// blends, or stops (see internal/simd/_asm/transc.go).

// map32 runs accel, which stops before a vector it cannot handle, and lets
// the Go twin do that vector's worth of elements (and the tail).
func map32(dst, x []float32, accel func(dst, x []float32) int, twin func(dst, x []float32)) {
	x = x[:len(dst)]
	if tier == Generic {
		twin(dst, x)
		return
	}
	for len(dst) > 0 {
		n := accel(dst, x)
		dst, x = dst[n:], x[n:]
		m := min(len(dst), 16)
		twin(dst[:m], x[:m])
		dst, x = dst[m:], x[m:]
	}
}

func map64(dst, x []float64, accel func(dst, x []float64) int, twin func(dst, x []float64)) {
	x = x[:len(dst)]
	if tier == Generic {
		twin(dst, x)
		return
	}
	for len(dst) > 0 {
		n := accel(dst, x)
		dst, x = dst[n:], x[n:]
		m := min(len(dst), 8)
		twin(dst[:m], x[:m])
		dst, x = dst[m:], x[m:]
	}
}

func expF32Go(dst, x []float32) {
	x = x[:len(dst)]
	for i := range dst {
		dst[i] = expF32(x[i])
	}
}

func logF32Go(dst, x []float32) {
	x = x[:len(dst)]
	for i := range dst {
		dst[i] = logF32(x[i])
	}
}

func tanhF32Go(dst, x []float32) {
	x = x[:len(dst)]
	for i := range dst {
		dst[i] = tanhF32(x[i])
	}
}

func logisticF32Go(dst, x []float32) {
	x = x[:len(dst)]
	for i := range dst {
		dst[i] = logisticF32(x[i])
	}
}

func sinF32Go(dst, x []float32) {
	x = x[:len(dst)]
	for i := range dst {
		dst[i] = sinF32(x[i])
	}
}

func cosF32Go(dst, x []float32) {
	x = x[:len(dst)]
	for i := range dst {
		dst[i] = cosF32(x[i])
	}
}

func expF64Go(dst, x []float64) {
	x = x[:len(dst)]
	for i := range dst {
		dst[i] = expF64(x[i])
	}
}

func logF64Go(dst, x []float64) {
	x = x[:len(dst)]
	for i := range dst {
		dst[i] = logF64(x[i])
	}
}

func tanhF64Go(dst, x []float64) {
	x = x[:len(dst)]
	for i := range dst {
		dst[i] = tanhF64(x[i])
	}
}

func logisticF64Go(dst, x []float64) {
	x = x[:len(dst)]
	for i := range dst {
		dst[i] = logisticF64(x[i])
	}
}

func sinF64Go(dst, x []float64) {
	x = x[:len(dst)]
	for i := range dst {
		dst[i] = sinF64(x[i])
	}
}

func cosF64Go(dst, x []float64) {
	x = x[:len(dst)]
	for i := range dst {
		dst[i] = cosF64(x[i])
	}
}
