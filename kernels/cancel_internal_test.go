package kernels

import (
	"sync"
	"sync/atomic"
	"testing"
)

// stopAtJob counts the indices it runs and cancels the run's context
// (closes its Done channel) once it has run at least stopAt of them.
type stopAtJob struct {
	ran    atomic.Int64
	stopAt int64
	calls  atomic.Int64
	cancel func()
}

func (j *stopAtJob) runRange(rs *runState, _ *worker, lo, hi int) {
	j.calls.Add(1)
	if j.ran.Add(int64(hi-lo)) >= j.stopAt {
		j.cancel()
	}
}

// Under a context, fork and the one-worker path run a kernel's ranges in
// pieces of about stopWork of its work, polling the context before each,
// and stop soon after it is done: the indices after it are skipped (still
// counted, so the fork returns), not run. Without one nothing is cut.
func TestForkStopsBetweenPieces(t *testing.T) {
	const n = 1 << 20 // indices of 1 << 10 elements each: a piece is 1 << 10 indices
	elems := n << 10
	for _, nw := range []int{1, 2, 3} {
		x := &cpuExec{cpu: NewCPU(CPUOptions{Workers: nw, ParallelMin: 1})}
		done := make(chan struct{})
		var once sync.Once
		rs := &runState{stop: &stopper{done: done}}
		j := &stopAtJob{stopAt: 4 << 10, cancel: func() { once.Do(func() { close(done) }) }}
		x.parallel(rs, n, elems, j)
		if got, most := j.ran.Load(), int64(4<<10+nw*(1<<10)); got < j.stopAt || got > most {
			t.Errorf("%d workers: ran %d of %d indices after a stop at %d; want at most %d", nw, got, n, j.stopAt, most)
		}
		if hotSlot.Load() != nil {
			t.Errorf("%d workers: the hot slot still holds the fork", nw)
		}
		rs.stop = nil
		whole := &stopAtJob{stopAt: 1 << 62}
		x.parallel(rs, n, elems, whole)
		if got := whole.ran.Load(); got != n {
			t.Errorf("%d workers, no flag: ran %d of %d indices", nw, got, n)
		}
		if nw == 1 && whole.calls.Load() != 1 {
			t.Errorf("one worker, no flag: %d calls, want 1 (no pieces)", whole.calls.Load())
		}
	}
	if p := pieceOf(10, 100); p != 10 {
		t.Errorf("pieceOf(10, 100) = %d: a small kernel is one piece", p)
	}
	if p := pieceOf(1<<30, 1<<40); p != 1<<10 {
		t.Errorf("pieceOf(2^30, 2^40) = %d, want 2^10", p)
	}
}
