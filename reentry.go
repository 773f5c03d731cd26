package kiln

import (
	"bytes"
	"runtime"
	"strconv"
	"sync"
)

// Re-entry detection. A trace runs the user's function, which may call
// Run (of this Func or another) before the trace finishes. Waiting for a
// signature that is still being built is how concurrent misses of one
// signature trace once; but if that build is, directly or through other
// goroutines' waits, waiting for the caller, the wait never ends. So every
// wait for a build first walks the chain "entry → goroutine building it →
// entry that goroutine waits for → …"; reaching the caller means a cycle,
// reported as a *ReentrantError instead of a hang. Check and registration
// happen under one lock, so two goroutines closing a cycle at the same
// moment cannot both miss it.
//
// Go has no goroutine-local storage and the inner call gets concrete
// arrays, not the outer trace's values, so goroutines are told apart by
// their IDs. Only slow paths (a miss, or a hit on a build in progress) pay
// for reading one.

// waits is the process-wide wait-for graph of cache builds (across Funcs:
// a cycle may pass through several).
var waits = struct {
	mu       sync.Mutex
	waiting  map[int64]*entry   // goroutine → the build it waits for
	building map[int64][]*entry // goroutine → the builds it runs, innermost last
}{waiting: map[int64]*entry{}, building: map[int64][]*entry{}}

// startBuild records that goroutine g builds e.
func startBuild(g int64, e *entry) {
	waits.mu.Lock()
	waits.building[g] = append(waits.building[g], e)
	waits.mu.Unlock()
}

// endBuild removes e from g's builds.
func endBuild(g int64, e *entry) {
	waits.mu.Lock()
	defer waits.mu.Unlock()
	list := waits.building[g]
	for i := len(list) - 1; i >= 0; i-- {
		if list[i] == e {
			list = append(list[:i], list[i+1:]...)
			break
		}
	}
	if len(list) == 0 {
		delete(waits.building, g)
	} else {
		waits.building[g] = list
	}
}

// buildingHere returns the build of f with args' signature that goroutine g
// is running, if any. It catches re-entry even when the outer build's
// entry has left the cache (evicted by other misses), where lookup would
// otherwise start a fresh build of the same signature, and recurse.
func buildingHere(g int64, f *Func, args []arg, st shape) *entry {
	if g == 0 {
		return nil
	}
	waits.mu.Lock()
	defer waits.mu.Unlock()
	for _, e := range waits.building[g] {
		if e.f == f && e.sig.matches(args) && e.tree.equal(st) {
			return e
		}
	}
	return nil
}

// waitBuilt waits until e is built, or returns a *ReentrantError when
// that would never happen.
func waitBuilt(e *entry) error {
	if isClosed(e.ready) {
		return nil
	}
	g := goroutineID()
	if g == 0 { // unreadable: wait without the check
		<-e.ready
		return nil
	}
	waits.mu.Lock()
	// Registered waits form no cycle (each was checked when made), so the
	// walk ends; the bound only guards against a bug.
	cur := e
	for range len(waits.waiting) + 1 {
		if cur.builder == g {
			waits.mu.Unlock()
			return &ReentrantError{Signature: e.sig.String()}
		}
		next := waits.waiting[cur.builder]
		if next == nil || isClosed(next.ready) { // that goroutine is running, not waiting
			break
		}
		cur = next
	}
	waits.waiting[g] = e
	waits.mu.Unlock()
	<-e.ready
	waits.mu.Lock()
	delete(waits.waiting, g)
	waits.mu.Unlock()
	return nil
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

// goroutineID returns the current goroutine's ID, read from its stack
// header ("goroutine 42 [running]:"), or 0 if it cannot be read.
func goroutineID() int64 {
	var buf [64]byte
	b := buf[:runtime.Stack(buf[:], false)]
	b, _ = bytes.CutPrefix(b, []byte("goroutine "))
	if i := bytes.IndexByte(b, ' '); i > 0 {
		b = b[:i]
	}
	id, err := strconv.ParseInt(string(b), 10, 64)
	if err != nil {
		return 0
	}
	return id
}
