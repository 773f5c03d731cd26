package kernels

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// forkChunks is how many ranges per worker fork deals out.
const forkChunks = 8

// fork runs job on up to nw workers, which take contiguous ranges of about
// n/(nw·forkChunks) indices in turn from a shared counter until none is
// left. The calling goroutine starts at once and the others join when
// they can: a late helper leaves its share to the ones running instead of
// making the Run wait for it, and the Run waits only for the ranges that
// were taken, never for a helper to arrive. Which worker takes which
// range does not change any result: kernels write by index.
//
// The helpers are goroutines of a process-wide pool. Each fork is one
// generation of the run state's forkTask record: the helpers are invited
// with a pointer to the record (through the hot slot, to a helper spinning
// after its last job, or over a channel, to a parked one), join the
// generation that is current when they arrive, and take ranges only while
// it is — an invitation that arrives after its fork ended finds a later
// generation or none and is dropped. A fork allocates nothing, so a loop
// whose body runs parallel kernels allocates nothing per step. A job never
// forks again from inside a range, so a helper never waits on another
// fork.
//
// Waking a parked core costs tens to hundreds of microseconds on these
// machines, more than a small kernel takes, so a helper that has finished
// spins for spinWindow before it parks (as OpenMP's and OpenBLAS's
// threads do), yielding its P to other goroutines as it spins; forks
// that find a helper spinning (hot) split smaller work (see hot).
//
// While a context watches the run (rs.stop), every worker runs its ranges
// in pieces of about stopWork of the kernel's work (elems), looking at
// the stop flag before each; once it is set, the rest of every range is
// skipped but still counted done, so the fork ends as soon as the pieces
// running finish.
func (x *cpuExec) fork(rs *runState, n, nw int, job rangeJob, elems int) {
	if n >= closed {
		runChecked(job, rs, rs.workers[0], 0, n, pieceOf(n, elems)) // never: n counts blocks or rows
		return
	}
	t := rs.fork
	if t == nil {
		t = &forkTask{}
		rs.fork = t
	}
	t.gen++
	g := t.gen
	// Close the generation before changing the record: a worker that
	// read the last one's state and then this one's n must fail its
	// claim (it expects the old state), not take a range of this job.
	t.state.Store(g<<32 | closed)
	t.job, t.rs, t.workers = job, rs, rs.workers[:nw]
	t.piece = n // no pieces without a stop flag
	if rs.stop != nil {
		t.piece = pieceOf(n, elems)
	}
	t.n.Store(int64(n))
	t.chunk.Store(int64(max(1, n/(nw*forkChunks))))
	tj, ok := job.(taperedJob)
	t.taper.Store(ok && tj.tapered())
	t.nw.Store(int64(nw))
	t.done.Store(0)
	t.joins.Store(g << 32)
	t.state.Store(g << 32)
	returned := false
	defer func() {
		if !returned {
			// The job panicked (a kernel's bug the caller may recover
			// from): close the generation, so no helper takes another
			// range of it, and empty the hot slot, which helpers would
			// otherwise spin on for good and no later fork could use.
			t.state.Store(g<<32 | closed)
			hotSlot.CompareAndSwap(t, nil)
		}
	}()
	startForkPool(nw - 1)
	invited, hotInvite := 0, false
	if spinners := int(hotSpinners.Load()); spinners > 0 && hotSlot.CompareAndSwap(nil, t) {
		invited, hotInvite = spinners, true
	}
	for ; invited < nw-1; invited++ {
		select {
		case forkQueue <- t:
		default: // the queue is full: the workers that joined do it all
			invited = nw
		}
	}
	t.take(g, 0)
	waited := 0
	for ; t.done.Load() < int64(n); waited++ {
		if waited%64 == 63 {
			runtime.Gosched() // a helper still has a range
		}
	}
	hotSlot.CompareAndSwap(t, nil)
	if hotInvite {
		noteHelper(t.joins.Load()&(1<<32-1) > 0 && waited < stallPolls)
	}
	t.job, t.rs, t.workers = nil, nil, nil // hold nothing between runs
	returned = true
}

// forkTask is the parallel job record of one run state, reused by its
// forks: each fork is one generation. state holds the generation in its
// high 32 bits and the next unclaimed index in its low 32, so a range is
// claimed only in the generation it belongs to; joins holds the
// generation and how many helpers have joined it (helper k runs on the
// fork's worker k). job, rs and workers are read only by a worker holding
// a claimed range, and the fork does not end (or change them) before
// every claimed range is done.
type forkTask struct {
	state, joins atomic.Uint64
	n, chunk, nw atomic.Int64
	taper        atomic.Bool  // ranges shrink towards the end (taperedJob)
	done         atomic.Int64 // indices finished in this generation
	gen          uint64       // the current generation (the forking goroutine's)
	job          rangeJob
	rs           *runState
	workers      []*worker
	piece        int // indices between looks at rs.stop (see runChecked)
}

// taperedJob is a job whose ranges all take about the same time, long
// ones (a sum streaming its input from memory: a range of E4's is 8 MiB,
// a few hundred microseconds): once fewer than two ranges per worker are
// left, fork hands out ranges of half the rest's share per worker, down
// to 1/taperMin of a range (guided scheduling), so that the workers finish
// together instead of one waiting out the other's last whole range. Ranges
// are still claimed in order and each index is run once, so a kernel that
// writes by index gives the same bits.
type taperedJob interface {
	rangeJob
	tapered() bool
}

// taperMin is how many times smaller than a range a tapered job's last
// ranges may get.
const taperMin = 16

// closed is a state's next index while its generation is being set up:
// past any n, so nothing is claimed.
const closed = 1<<32 - 1

// take claims and runs ranges of generation g on worker w of the fork
// until none is left, and reports whether it ran any.
func (t *forkTask) take(g uint64, w int) (did bool) {
	for {
		s := t.state.Load()
		n, c := t.n.Load(), t.chunk.Load()
		lo := int64(s & (1<<32 - 1))
		if s>>32 != g || lo >= n {
			return did
		}
		if t.taper.Load() {
			c = min(c, max((n-lo)/(2*t.nw.Load()), c/taperMin, 1))
		}
		hi := min(lo+c, n)
		if !t.state.CompareAndSwap(s, g<<32|uint64(hi)) {
			continue
		}
		if t.rs.stop != nil {
			runChecked(t.job, t.rs, t.workers[w], int(lo), int(hi), t.piece)
		} else {
			t.job.runRange(t.rs, t.workers[w], int(lo), int(hi))
		}
		t.done.Add(hi - lo)
		did = true
	}
}

// help joins t's current generation as its next helper, if it has work
// left and a worker free, and takes ranges of it; it reports whether it
// ran any. A generation's n and nw are stored before its joins and state,
// so values read after state are its own or a later one's — and a later
// one's have changed joins, so the join fails.
func (t *forkTask) help() bool {
	for {
		s := t.state.Load()
		g := s >> 32
		j := t.joins.Load()
		if j>>32 != g {
			if j>>32 < g {
				runtime.Gosched() // the fork is between its two stores
				continue
			}
			return false // a later fork has begun: look again
		}
		k := int64(j & (1<<32 - 1))
		if int64(s&(1<<32-1)) >= t.n.Load() || k+1 >= t.nw.Load() {
			return false
		}
		if t.joins.CompareAndSwap(j, j+1) {
			return t.take(g, int(k+1))
		}
	}
}

// spinPolls is how many times a spinning helper polls for a fork between
// yields of its P (and looks at the clock): a few microseconds. A helper
// in runtime.Gosched does not see a fork, so yielding after every 16
// polls (under half a microsecond) delayed hand-offs: E7's step took
// 56 µs so, 53 with 256 (1,024 and 4,096 measured the same as 256).
const spinPolls = 256

// spinWindow is how long a helper spins, looking for a fork to join,
// after the last fork it saw and the last kernel that wanted one, before
// it parks. Measured on E7's step under a load of 6 on two cores, 300 µs
// left the helper parked (and each kernel waiting out a wake-up of a few
// milliseconds) for half the step's GEMMs; OpenMP's and OpenBLAS's
// threads spin longer than this.
const spinWindow = 2 * time.Millisecond

var (
	// forkQueue invites parked helpers (nil: only wake up and spin).
	forkQueue = make(chan *forkTask, 64)
	// hotSlot is the fork that spinning helpers may join.
	hotSlot atomic.Pointer[forkTask]
	// hotSpinners counts the helpers spinning now.
	hotSpinners atomic.Int32
	// waking is set while a wake-up sent by warm is unanswered.
	waking atomic.Bool
	// demand counts the kernels that split, or would have with a helper
	// hot: helpers keep spinning while kernels want them, even if the
	// machine's load kept them off a core for a while. A count, not a
	// time: reading the clock cost a kernel about 45 ns.
	demand atomic.Uint64
	// helperMisses counts the forks in a row that invited a hot helper
	// and ran without its help, or waited stallPolls or more for a range
	// it held (see noteHelper).
	helperMisses atomic.Int32

	forkPoolMu  sync.Mutex
	forkPoolLen int
)

// startForkPool makes sure the pool has at least n goroutines.
func startForkPool(n int) {
	forkPoolMu.Lock()
	defer forkPoolMu.Unlock()
	for ; forkPoolLen < n; forkPoolLen++ {
		go poolHelper()
	}
}

// poolHelper is one pool goroutine: it parks on forkQueue, helps the fork
// it is invited to, and spins for more work before it parks again.
func poolHelper() {
	for t := range forkQueue {
		if t == nil {
			waking.Store(false)
		} else {
			t.help()
		}
		spin()
	}
}

// spin looks for forks to join (in the hot slot or on the queue) until
// spinWindow passes without one and without a kernel wanting one (see
// demand), yielding its P to other goroutines as it goes and its core to
// other threads (osYield): on a machine with more runnable threads than
// cores, a helper woken by a fork (the OS often runs it on the forking
// thread's core) otherwise spun through its time slice while the thread
// running the Run waited for a core. E10's Run after a 3 ms pause (the
// helper parked), at a load of 7 on two cores, took 2.0-2.7 ms so, its
// first GEMM 1.0-1.4 ms of it, and 0.63-1.0 ms yielding (GEMM 68-84 µs).
func spin() {
	hotSpinners.Add(1)
	defer hotSpinners.Add(-1)
	last := time.Now()
	seen := demand.Load() // the demand count when last looked at
	for i := 0; ; i++ {
		if t := hotSlot.Load(); t != nil {
			// A fork is running: forks are coming, whether or not this
			// helper gets a range of this one.
			t.help()
			last = time.Now()
		}
		select {
		case t := <-forkQueue:
			if t == nil {
				waking.Store(false)
			} else if t.help() {
				last = time.Now()
			}
		default:
		}
		if i%spinPolls == spinPolls-1 {
			now := time.Now()
			if d := demand.Load(); d != seen {
				seen, last = d, now // kernels wanted a helper since
			}
			if now.Sub(last) > spinWindow {
				return
			}
			runtime.Gosched()
			osYield()
		}
	}
}

// hot reports whether a helper is spinning, so that a fork now costs a
// hand-off, not a wake-up.
func hot() bool { return hotSpinners.Load() > 0 }

// warm wakes a parked helper to spin, when none is spinning or waking,
// without waiting for it: a Run whose kernels are too small to wait for a
// wake-up calls it so that its later kernels (and the next Run's) find a
// helper hot.
func warm(workers int) {
	if workers < 2 || hot() || waking.Load() || !waking.CompareAndSwap(false, true) {
		return
	}
	startForkPool(1)
	select {
	case forkQueue <- nil:
	default:
		waking.Store(false)
	}
}

// hotFactor is how much smaller than its threshold a product's work may
// be and still split when a helper is hot, and hotFactorElems an
// elementwise or reduction kernel's (whose threshold is ParallelMin's
// default): a hand-off to a spinning helper costs well under a
// microsecond, a wake-up tens. But each core then reads what the other
// wrote, and E7's softmax kernels over 256×10 logits (1-3 µs each on one
// core), split at 1/64, took 14-15 µs of its step, and 12 whole at 1/16
// (4,096 elements; the whole step 122-125 µs against 127-132, measured
// by stage). (On an earlier machine the split ones had been faster.)
const (
	hotFactor      = 16
	hotFactorElems = 16
)

// wide reports whether work (elements, or multiply-adds) of a kernel that
// splits at min or more should run on several workers: at min or more,
// always; at min/hotFactor or more (min/hotFactorElems for elementwise
// and reduction kernels), when a helper is hot — and when none is, it
// wakes one for the kernels after this one. A backend whose ParallelMin is
// set to anything but the default (the tests' 1, or a caller's bound)
// splits at min only.
func (x *cpuExec) wide(work, min int) bool {
	if work >= min {
		return true
	}
	nw := x.cpu.workers()
	factor := hotFactor
	if min == defaultParallelMin {
		factor = hotFactorElems
	}
	if nw < 2 || work <= min/factor || x.cpu.opts.ParallelMin != defaultParallelMin {
		return false
	}
	d := demand.Add(1)
	if hot() {
		// A helper that spins but has not been helping is off its core
		// (the machine's other threads have it): splitting would cost
		// the fork and, when it takes a range and is descheduled, a wait
		// for it. Such kernels run whole, but every probeEvery-th one
		// still splits, to see the helper back.
		return helperMisses.Load() < missLimit || d%probeEvery == 0
	}
	warm(nw)
	return false
}

// helping reports whether a pool helper is spinning and has been
// helping (as wide judges it, a probe every probeEvery-th call included):
// a group of kernels then runs side by side (group.go).
func helping() bool {
	d := demand.Add(1)
	return hot() && (helperMisses.Load() < missLimit || d%probeEvery == 0)
}

// noteHelper records whether a fork that found a helper spinning got its
// help (a range taken, and no long wait for it): missLimit misses in a
// row make wide split only the kernels at their threshold (and probes),
// one helped fork lets it split the smaller ones again. On the 2-core
// Xeon shared with 6-8 other busy threads, the hot helper joined 1 to 6
// of E7's 14 forks a step and the step ran at 136-143 µs (p25) splitting
// as usual, 135 with this (134.5 never splitting below threshold); on a
// quiet machine every fork is helped and nothing changes.
func noteHelper(helped bool) {
	if helped {
		if helperMisses.Load() != 0 {
			helperMisses.Store(0)
		}
		return
	}
	helperMisses.Add(1)
}

// missLimit is how many unhelped forks in a row stop the splitting of
// kernels below their threshold, probeEvery how often such a kernel
// still splits, and stallPolls how many polls of a fork's wait for a
// helper's range (some tens of microseconds, with a Gosched every 64)
// count as a miss: a helper descheduled while it held the range.
const (
	missLimit  = 3
	probeEvery = 8
	stallPolls = 1 << 13
)
