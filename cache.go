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
	hash  uint64
	sig   sig
	ready chan struct{} // closed when prog, conv, mod and err are set
	prog  *trace.Program
	conv  []int // per argument: the dtype a hoisted weak scalar converts to, or -1
	mod   *lower.Module
	err   error

	// Guarded by Func.mu.
	evicted   bool
	exe       *shared       // compiled, held by this entry; nil before and after
	compiling chan struct{} // non-nil while a goroutine compiles exe
	builder   int64         // the goroutine tracing the entry, until ready
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
// lookup from inside the trace of the entry it needs (a traced function
// running its own Func with the same signature) is a *ReentrantError.
func (f *Func) lookup(args []arg) (*entry, error) {
	h := sigHash(args)
	f.mu.Lock()
	if el := f.find(h, args); el != nil {
		f.lru.MoveToFront(el)
		f.stats.Hits++
		e := el.Value.(*entry)
		if !isClosed(e.ready) && e.builder != 0 && e.builder == goroutineID() {
			f.mu.Unlock()
			return nil, &ReentrantError{Signature: e.sig.String()}
		}
		f.mu.Unlock()
		<-e.ready
		return e, e.err
	}
	f.stats.Misses++
	reason := describeMiss(f.last, args)
	e := &entry{hash: h, sig: signatureOf(args), ready: make(chan struct{}), builder: goroutineID()}
	f.entries[h] = append(f.entries[h], f.lru.PushFront(e))
	f.last = e.sig
	f.building++
	f.evict()
	f.mu.Unlock()
	if f.cfg.onMiss != nil {
		f.cfg.onMiss(reason)
	}
	f.build(e, args)
	f.mu.Lock()
	f.building--
	e.builder = 0
	if e.err != nil && !e.evicted {
		f.removeEntry(e)
	}
	f.mu.Unlock()
	close(e.ready)
	return e, e.err
}

// isClosed reports whether c is closed, without blocking.
func isClosed(c chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

// find returns the cache element of exactly this signature (mu held).
func (f *Func) find(h uint64, args []arg) *list.Element {
	for _, el := range f.entries[h] {
		if el.Value.(*entry).sig.matches(args) {
			return el
		}
	}
	return nil
}

// removeEntry drops e from the cache and lets go of its executable (mu
// held). A later Run of its signature traces again.
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
		sh.release()
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
	e.prog, e.err = f.trace(args)
	if e.err != nil {
		return
	}
	var lp *trace.Program
	if lp, e.conv, e.err = hoistWeakScalars(e.prog, f.cfg.verify); e.err != nil {
		return
	}
	e.mod, e.err = lower.Compile(lp, lower.Options{Fold: kernels.Fold, NoFusion: f.cfg.noFusion, Verify: f.cfg.verify})
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
	key := e.mod.Key()
	if sh := f.execs[key]; sh != nil && sh.tryAcquire() { // another signature's
		f.hold(e, sh)
		f.mu.Unlock()
		return sh, nil
	}
	done := make(chan struct{})
	e.compiling = done
	f.mu.Unlock()

	exe, err := f.cfg.backend.Compile(e.mod)

	f.mu.Lock()
	defer f.mu.Unlock()
	e.compiling = nil
	close(done)
	if err != nil {
		return nil, err
	}
	f.stats.Compiles++
	if old := f.execs[key]; old != nil && old.tryAcquire() {
		// Another signature compiled the same module meanwhile: share
		// that one and let this one go.
		if c, ok := exe.(io.Closer); ok {
			c.Close()
		}
		f.hold(e, old)
		return old, nil
	}
	sh := newShared(key, exe, &f.live)
	sh.refs.Store(1) // the caller's
	if !e.evicted {  // else only the caller holds it, and its release frees it
		f.execs[key] = sh
		f.hold(e, sh)
	}
	return sh, nil
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
