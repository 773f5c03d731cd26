package simd

// Float arithmetic with one scalar operand, s, broadcast to every element.

func addScalarGo[T float](dst, a []T, s T) {
	a = a[:len(dst)]
	for i := range dst {
		dst[i] = a[i] + s
	}
}

func subScalarGo[T float](dst, a []T, s T) {
	a = a[:len(dst)]
	for i := range dst {
		dst[i] = a[i] - s
	}
}

func subScalarRevGo[T float](dst, a []T, s T) {
	a = a[:len(dst)]
	for i := range dst {
		dst[i] = s - a[i]
	}
}

func mulScalarGo[T float](dst, a []T, s T) {
	a = a[:len(dst)]
	for i := range dst {
		dst[i] = a[i] * s
	}
}

func divScalarGo[T float](dst, a []T, s T) {
	a = a[:len(dst)]
	for i := range dst {
		dst[i] = a[i] / s
	}
}

func divScalarRevGo[T float](dst, a []T, s T) {
	a = a[:len(dst)]
	for i := range dst {
		dst[i] = s / a[i]
	}
}
