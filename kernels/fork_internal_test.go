package kernels

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// countJob counts the runs of each index and checks that no worker runs
// two ranges at once.
type countJob struct {
	hits []atomic.Int32
	busy map[*worker]*atomic.Int32
	bad  atomic.Int32 // ranges that found their worker busy
	help atomic.Int32 // ranges run on a worker other than the forking one's
}

func (j *countJob) runRange(rs *runState, w *worker, lo, hi int) {
	b := j.busy[w]
	if !b.CompareAndSwap(0, 1) {
		j.bad.Add(1)
		return
	}
	if w != rs.workers[0] {
		j.help.Add(1)
	}
	for i := lo; i < hi; i++ {
		j.hits[i].Add(1)
	}
	b.Store(0)
}

// TestForkEachIndexOnce: forks back to back on several run states at once
// (helpers spinning between them, joining late, leaving early) run every
// index of every fork exactly once, never two ranges on one worker at
// once, and the fork returns only when all its ranges are done.
func TestForkEachIndexOnce(t *testing.T) {
	const states, nw = 3, 3
	x := &cpuExec{cpu: NewCPU(CPUOptions{Workers: nw})}
	var helped atomic.Int32
	var wg sync.WaitGroup
	for s := range states {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rs := &runState{}
			for range nw {
				rs.workers = append(rs.workers, &worker{})
			}
			// Two seconds of forks (the window a stale worker must hit is
			// a few stores wide), longer while no helper has joined yet.
			start := time.Now()
			for round := 0; time.Since(start) < 2*time.Second || helped.Load() == 0 && time.Since(start) < 10*time.Second; round++ {
				n := 1 + (round%2)*(60+s) // small then large: a stale worker sees a larger n
				j := &countJob{hits: make([]atomic.Int32, n), busy: map[*worker]*atomic.Int32{}}
				for _, w := range rs.workers {
					j.busy[w] = new(atomic.Int32)
				}
				x.fork(rs, n, nw, j)
				for i := range j.hits {
					if h := j.hits[i].Load(); h != 1 {
						t.Errorf("state %d round %d: index %d of %d ran %d times", s, round, i, n, h)
						return
					}
				}
				if b := j.bad.Load(); b != 0 {
					t.Errorf("state %d round %d: %d ranges found their worker busy", s, round, b)
					return
				}
				helped.Add(j.help.Load())
			}
		}()
	}
	wg.Wait()
	if helped.Load() == 0 {
		t.Error("no helper ever ran a range: forks ran on the forking goroutine alone")
	}
}
