package gemm

import (
	"math"
	"sync/atomic"
	"testing"
)

// flagStop is a Stopper that reports its flag.
type flagStop struct{ atomic.Bool }

func (f *flagStop) Stopped() bool { return f.Load() }

// A set Stop ends a call before its next MR-row panel: a call stopped
// before it starts writes no element of c (each MR-row panel is a
// look at the flag), one never stopped writes them all.
func TestStopEndsTheCall(t *testing.T) {
	const m, n, k = 64, 48, 32
	a, b := make([]float32, m*k), make([]float32, k*n)
	for i := range a {
		a[i] = 1
	}
	for i := range b {
		b[i] = 1
	}
	run := func(stop bool) (written int) {
		c := make([]float32, m*n)
		for i := range c {
			c[i] = float32(math.NaN())
		}
		flag := new(flagStop)
		flag.Store(stop)
		g := &Call[float32]{Batch: 1, M: m, N: n, K: k, A: a, RowA: k, ColA: 1, B: b, RowB: n, ColB: 1, C: c, LDC: n, Stop: flag}
		g.Run()
		c8 := make([]int32, m*n)
		i8 := &I8Call{Batch: 1, M: m, N: n, K: k, A: make([]int8, m*k), RowA: k, ColA: 1, B: make([]int8, k*n), RowB: n, ColB: 1, C: c8, LDC: n, Stop: flag}
		for i := range c8 {
			c8[i] = -1
		}
		i8.Run()
		for i, v := range c {
			if v == k {
				written++
			}
			if c8[i] == 0 {
				written++
			}
		}
		return written
	}
	if w := run(true); w != 0 {
		t.Errorf("a stopped call wrote %d elements", w)
	}
	if w := run(false); w != 2*m*n {
		t.Errorf("a call never stopped wrote %d of %d elements", w, 2*m*n)
	}
}
