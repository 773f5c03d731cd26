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
	b := j.busy[w] // nil: a worker the fork did not hand out
	if b == nil || !b.CompareAndSwap(0, 1) {
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
				x.fork(rs, n, nw, j, 0)
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

// newForkState is a run state with nw workers.
func newForkState(nw int) *runState {
	rs := &runState{}
	for range nw {
		rs.workers = append(rs.workers, &worker{})
	}
	return rs
}

// newCountJob counts n indices, allowing only workers ws.
func newCountJob(n int, ws []*worker) *countJob {
	j := &countJob{hits: make([]atomic.Int32, n), busy: map[*worker]*atomic.Int32{}}
	for _, w := range ws {
		j.busy[w] = new(atomic.Int32)
	}
	return j
}

// check reports a fork's miscounted indices and misused workers.
func (j *countJob) check(t *testing.T, label string) bool {
	t.Helper()
	for i := range j.hits {
		if h := j.hits[i].Load(); h != 1 {
			t.Errorf("%s: index %d of %d ran %d times", label, i, len(j.hits), h)
			return false
		}
	}
	if b := j.bad.Load(); b != 0 {
		t.Errorf("%s: %d ranges ran on a busy worker or one past the fork's nw", label, b)
		return false
	}
	return true
}

// TestForkWorkersWithinNW: a fork on fewer workers than its run state has
// (and than the pool has helpers, started by a wider fork) runs every
// range on one of its first nw workers; helpers hot from the wide forks
// must not take worker indices ≥ nw of the narrow ones.
func TestForkWorkersWithinNW(t *testing.T) {
	x := &cpuExec{cpu: NewCPU(CPUOptions{Workers: 4})}
	rs := newForkState(4)
	start := time.Now()
	for round := 0; time.Since(start) < time.Second; round++ {
		nw := 2 + round%3 // 2, 3, 4
		n := 1 + round%97
		j := newCountJob(n, rs.workers[:nw])
		x.fork(rs, n, nw, j, 0)
		if !j.check(t, "round "+itoa(round)) {
			return
		}
	}
}

func itoa(i int) string {
	var b [20]byte
	p := len(b)
	for {
		p--
		b[p] = byte('0' + i%10)
		if i /= 10; i == 0 {
			return string(b[p:])
		}
	}
}

// TestForkHelpersPark: after a burst of forks (helpers hot) and a warm-up
// with nothing to run, every helper stops spinning within a few spin
// windows (no CPU burned while nothing runs) and the hot slot is empty.
func TestForkHelpersPark(t *testing.T) {
	x := &cpuExec{cpu: NewCPU(CPUOptions{Workers: 3})}
	rs := newForkState(3)
	for round := range 2000 {
		n := 1 + round%64
		j := newCountJob(n, rs.workers)
		x.fork(rs, n, 3, j, 0)
		if !j.check(t, "round "+itoa(round)) {
			return
		}
		if hotSlot.Load() != nil {
			t.Fatalf("round %d: the hot slot holds a fork that has returned", round)
		}
	}
	warm(3)
	deadline := time.Now().Add(10 * time.Second) // generous: the machine is shared
	for hotSpinners.Load() > 0 || waking.Load() {
		if time.Now().After(deadline) {
			t.Fatalf("%d helpers still spinning (waking %v) 10 s after the last fork", hotSpinners.Load(), waking.Load())
		}
		time.Sleep(spinWindow)
	}
}

// panicJob panics on the forking goroutine's first range once the fork
// is in the hot slot (a helper was spinning when it began); helpers'
// ranges take a while.
type panicJob struct {
	t   *forkTask
	hot atomic.Bool // the fork was in the hot slot when the job ran
}

func (j *panicJob) runRange(rs *runState, w *worker, lo, hi int) {
	if w == rs.workers[0] {
		j.hot.Store(hotSlot.Load() == j.t)
		panic("kernel bug")
	}
	time.Sleep(100 * time.Microsecond)
}

// TestForkPanicLeavesNoSpinner: a job that panics on the forking
// goroutine (a kernel's bug, recovered by the caller) must not leave its
// fork in the hot slot, where every helper would join it, find it open,
// and spin until the scheduler happens to keep them off a core for a
// spin window (5 s and more on an idle machine) — and which no later fork
// could use, its CompareAndSwap from nil failing for good; nor may
// helpers go on claiming its ranges after the panic.
func TestForkPanicLeavesNoSpinner(t *testing.T) {
	x := &cpuExec{cpu: NewCPU(CPUOptions{Workers: 3})}
	for attempt := 0; ; attempt++ {
		if attempt == 1000 {
			// A fork left in the hot slot by an earlier panic also
			// keeps every later fork out of it.
			t.Fatal("no fork was in the hot slot in 1000 attempts, each after 50 forks that leave helpers spinning")
		}
		warmRS := newForkState(3)
		for range 50 { // helpers spinning
			x.fork(warmRS, 64, 3, newCountJob(64, warmRS.workers), 0)
		}
		rs := newForkState(3)
		rs.fork = &forkTask{}
		j := &panicJob{t: rs.fork}
		func() {
			defer func() {
				if r := recover(); r != "kernel bug" {
					t.Fatalf("recovered %v, want the job's panic", r)
				}
			}()
			x.fork(rs, 1<<20, 3, j, 0)
		}()
		if !j.hot.Load() {
			continue
		}
		if hotSlot.Load() == rs.fork {
			t.Error("the panicked fork is still in the hot slot")
		}
		deadline := time.Now().Add(5 * time.Second)
		for hotSpinners.Load() > 0 {
			if time.Now().After(deadline) {
				t.Fatalf("%d helpers still spinning 5 s after the fork panicked", hotSpinners.Load())
			}
			time.Sleep(spinWindow)
		}
		if s := rs.fork.state.Load(); s&(1<<32-1) != closed {
			t.Errorf("the panicked fork's state is %#x: helpers may still claim its ranges", s)
		}
		return
	}
}

// taperJob is a countJob whose fork tapers its ranges (taperedJob), and
// which records the ranges' lengths by their start.
type taperJob struct {
	countJob
	mu   sync.Mutex
	lens map[int]int
}

func (j *taperJob) tapered() bool { return true }

func (j *taperJob) runRange(rs *runState, w *worker, lo, hi int) {
	j.mu.Lock()
	j.lens[lo] = hi - lo
	j.mu.Unlock()
	j.countJob.runRange(rs, w, lo, hi)
}

// TestForkTapered: a tapered fork runs every index once, on workers of
// the fork only; its ranges are whole ranges (n/(nw·forkChunks)) until
// fewer than two per worker are left, then half the rest's share per
// worker, never under 1/taperMin of a range, and they tile [0, n).
func TestForkTapered(t *testing.T) {
	const nw = 2
	x := &cpuExec{cpu: NewCPU(CPUOptions{Workers: nw})}
	rs := newForkState(nw)
	for _, n := range []int{1, 7, 100, 16384, 16384 + 77} {
		j := &taperJob{countJob: *newCountJob(n, rs.workers), lens: map[int]int{}}
		x.fork(rs, n, nw, j, 0)
		if !j.check(t, "tapered n="+itoa(n)) {
			continue
		}
		c := max(1, n/(nw*forkChunks))
		for lo := 0; lo < n; {
			l, ok := j.lens[lo]
			if !ok {
				t.Fatalf("n=%d: no range starts at %d", n, lo)
			}
			want := min(c, max((n-lo)/(2*nw), c/taperMin, 1), n-lo)
			if l != want {
				t.Errorf("n=%d: the range at %d has %d indices, want %d", n, lo, l, want)
			}
			lo += l
		}
	}
}
