package simd_test

import (
	"fmt"
	"math"
)

func sprintf(format string, a ...any) string { return fmt.Sprintf(format, a...) }

// Negative zeros: -0.0 in Go source is the constant 0, a positive zero.
var (
	negZero32 = float32(math.Copysign(0, -1))
	negZero64 = math.Copysign(0, -1)
)
