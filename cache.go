package kiln

import (
	"container/list"
	"io"
	"sync/atomic"

	"github.com/kiln-go/kiln/kernels"
	"github.com/kiln-go/kiln/lower"
	"github.com/kiln-go/kiln/trace"
)

// A Func's cache holds one entry per signature, in LRU order, and shares
// one executable among the entries whose programs lower to the same module.
// An entry is traced and lowered when it is created (lookup) and compiled
// when it is first run (acquire), so Trace, Lower and Explain never compile
// backend code.
//
// Executables are reference counted: each cache entry holding one counts
// once, and so does each Run in flight. Eviction drops the entry's count;
// the goroutine that drops the last count releases the executable (Close,
// for backends that hold device memory). A count that reached zero is never
// raised again, so an entry evicted while it was being traced, lowered or
// compiled — by any interleaving of lookups — can neither keep its
// executable alive nor run a released one.

// entry is one cached signature.
type entry struct {
	f       *Func
	hash    uint64
	sig     sig
	builder int64         // the goroutine that traces and lowers it
	ready   chan struct{} // closed when prog, conv, mod and err are set
	prog    *trace.Program
	conv    []int // per argument: the dtype a hoisted weak scalar converts to, or -1
	mod     *lower.Module
	key     string  // mod.Key(): entries with one key share an executable
	tree    shape   // the tree arguments' shape, part of the signature
	out     treeOut // the results' trees, found by the trace
	err     error
	// abandoned: the build ended without a result (its goroutine exited
	// or a panic went through it); waiters look the signature up again.
	abandoned bool

	// Guarded by Func.mu.
	evicted   bool
	exe       *shared       // compiled, held by this entry; nil before and after
	compiling chan struct{} // non-nil while a goroutine compiles exe
}

// shared is a compiled executable and its reference count.
type shared struct {
	key  string
	exe  kernels.Executable
	held int          // cache entries holding it (Func.mu)
	refs atomic.Int64 // held + runs in flight
	live *atomic.Int64
}

func newShared(key string, exe kernels.Executable, live *atomic.Int64) *shared {
	live.Add(1)
	return &shared{key: key, exe: exe, live: live}
}

// tryAcquire counts one more user unless the count already reached zero
// (the executable is released or being released).
func (s *shared) tryAcquire() bool {
	for {
		n := s.refs.Load()
		if n <= 0 {
			return false
		}
		if s.refs.CompareAndSwap(n, n+1) {
			return true
		}
	}
}

// release drops one count; the last one releases the executable.
func (s *shared) release() {
	if s.refs.Add(-1) == 0 {
		s.live.Add(-1)
		if c, ok := s.exe.(io.Closer); ok {
			c.Close()
		}
	}
}

// lookup returns the traced and lowered entry for args, tracing and
// lowering on a miss. Concurrent misses of one signature trace once. A
// lookup that would wait for a build that waits for it (a traced function
// running its own Func with the signature being traced, directly, through
// other Funcs or through other goroutines' traces) is a *ReentrantError.
func (f *Func) lookup(args []arg, st shape) (*entry, error) {
	h := sigHash(args, st)
	for {
		f.mu.Lock()
		if el := f.find(h, args, st); el != nil {
			f.lru.MoveToFront(el)
			f.stats.Hits++
			e := el.Value.(*entry)
			f.mu.Unlock()
			if err := waitBuilt(e); err != nil {
				return nil, err
			}
			if e.abandoned { // gone from the cache: build it here
				continue
			}
			return e, e.err
		}
		f.mu.Unlock()
		g := goroutineID()
		if e := buildingHere(g, f, args, st); e != nil {
			return nil, &ReentrantError{Signature: e.sig.String()}
		}
		f.mu.Lock()
		if f.find(h, args, st) != nil { // another goroutine's miss came first
			f.mu.Unlock()
			continue
		}
		e := f.miss(h, g, args, st)
		return e, e.err
	}
}

// miss creates, builds and returns args' entry (called with mu held;
// returns with it released). Whatever ends the build — a result, an error,
// a panic going through, or the goroutine exiting inside the user's
// function (runtime.Goexit, as t.FailNow does) — the entry is finished:
// waiters are woken, and an entry without a result leaves the cache.
func (f *Func) miss(h uint64, g int64, args []arg, st shape) *entry {
	f.stats.Misses++
	reason := describeMiss(f.last, args)
	e := &entry{f: f, hash: h, sig: signatureOf(args), tree: st.clone(), builder: g, ready: make(chan struct{})}
	f.entries[h] = append(f.entries[h], f.lru.PushFront(e))
	f.last = e.sig
	f.building++
	f.evict()
	f.unlock()
	startBuild(g, e)
	built := false
	defer func() {
		f.mu.Lock()
		f.building--
		e.abandoned = !built
		if (e.err != nil || e.abandoned) && !e.evicted {
			f.removeEntry(e)
		}
		f.unlock()
		endBuild(g, e)
		close(e.ready)
	}()
	if f.cfg.onMiss != nil {
		f.cfg.onMiss(reason)
	}
	f.build(e, args)
	built = true
	return e
}

// unlock releases mu, then the executables that entries removed under it
// held: closing one (device memory, queues) waits for no lock.
func (f *Func) unlock() {
	drop := f.dropped
	f.dropped = nil
	f.mu.Unlock()
	for _, sh := range drop {
		sh.release()
	}
}

// find returns the cache element of exactly this signature (mu held).
func (f *Func) find(h uint64, args []arg, st shape) *list.Element {
	for _, el := range f.entries[h] {
		if e := el.Value.(*entry); e.sig.matches(args) && e.tree.equal(st) {
			return el
		}
	}
	return nil
}

// removeEntry drops e from the cache and lets go of its executable (mu
// held; the count is dropped by unlock). A later Run of its signature
// traces again.
func (f *Func) removeEntry(e *entry) {
	chain := f.entries[e.hash]
	for i, el := range chain {
		if el.Value == e {
			f.lru.Remove(el)
			chain = append(chain[:i:i], chain[i+1:]...)
			break
		}
	}
	if len(chain) == 0 {
		delete(f.entries, e.hash)
	} else {
		f.entries[e.hash] = chain
	}
	e.evicted = true
	if sh := e.exe; sh != nil {
		e.exe = nil
		sh.held--
		if sh.held == 0 && f.execs[sh.key] == sh {
			delete(f.execs, sh.key)
		}
		f.dropped = append(f.dropped, sh)
	}
}

// evict drops least recently used entries beyond the bound (mu held).
func (f *Func) evict() {
	for f.lru.Len() > f.cfg.cacheMax {
		f.removeEntry(f.lru.Back().Value.(*entry))
	}
}

// build traces and lowers one signature into e.
func (f *Func) build(e *entry, args []arg) {
	e.prog, e.err = f.trace(args, e)
	if e.err != nil {
		return
	}
	var lp *trace.Program
	if lp, e.conv, e.err = hoistWeakScalars(e.prog, f.cfg.verify); e.err != nil {
		return
	}
	e.mod, e.err = lower.Compile(lp, f.cfg.lowerOptions())
	if e.err == nil {
		e.mod.Checks = uint8(f.cfg.checks)
		e.key = e.mod.Key() // here, not under mu: it prints every constant
	}
}

// acquire returns e's executable with one count taken for the caller, who
// must release it after running: from the entry when it is compiled, from
// another entry with the same module, or compiled now. An entry evicted
// meanwhile still gives its caller an executable, held by no entry, which
// the caller's release frees.
func (f *Func) acquire(e *entry) (*shared, error) {
	f.mu.Lock()
	for {
		if sh := e.exe; sh != nil && sh.tryAcquire() {
			f.mu.Unlock()
			return sh, nil
		}
		if e.compiling == nil {
			break
		}
		wait := e.compiling
		f.mu.Unlock()
		<-wait
		f.mu.Lock()
	}
	key := e.key
	if sh := f.execs[key]; sh != nil && sh.tryAcquire() { // another signature's
		f.hold(e, sh)
		f.mu.Unlock()
		return sh, nil
	}
	done := make(chan struct{})
	e.compiling = done
	f.mu.Unlock()

	exe, err := f.compile(e, done)

	f.mu.Lock()
	e.compiling = nil
	close(done)
	if err != nil {
		f.mu.Unlock()
		return nil, err
	}
	f.stats.Compiles++
	sh, dup := f.install(e, key, exe)
	f.mu.Unlock()
	if c, ok := dup.(io.Closer); ok {
		c.Close()
	}
	return sh, nil
}

// install makes exe, just compiled for e, e's executable (mu held) with
// one count for the caller, unless another signature compiled the same
// module meanwhile: then e shares that one, and exe is returned as dup
// for the caller to close. An evicted e holds nothing: the caller's count
// is the only one, and its release frees exe.
func (f *Func) install(e *entry, key string, exe kernels.Executable) (sh *shared, dup kernels.Executable) {
	if old := f.execs[key]; old != nil && old.tryAcquire() {
		f.hold(e, old)
		return old, exe
	}
	sh = newShared(key, exe, &f.live)
	sh.refs.Store(1) // the caller's
	if !e.evicted {
		f.execs[key] = sh
		f.hold(e, sh)
	}
	return sh, nil
}

// compile compiles e's module. The caller marks the end of the compile
// under mu; if the backend panics instead, compile does, so the entry's
// waiters wake (and compile it themselves) rather than wait forever.
func (f *Func) compile(e *entry, done chan struct{}) (exe kernels.Executable, err error) {
	returned := false
	defer func() {
		if !returned {
			f.mu.Lock()
			e.compiling = nil
			f.mu.Unlock()
			close(done)
		}
	}()
	exe, err = f.cfg.backend.Compile(e.mod)
	returned = true
	return exe, err
}

// hold makes e hold sh, unless e left the cache (mu held; the caller has a
// count on sh, so it is alive).
func (f *Func) hold(e *entry, sh *shared) {
	if e.evicted || e.exe != nil {
		return
	}
	sh.refs.Add(1)
	sh.held++
	e.exe = sh
}

// liveExecutables is how many executables the Func has compiled and not yet
// released: those its cache holds and those evicted while a Run used them.
func (f *Func) liveExecutables() int { return int(f.live.Load()) }
