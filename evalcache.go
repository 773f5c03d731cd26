package kiln

import (
	"container/list"
	"reflect"
	"sync"
	"sync/atomic"

	"github.com/kiln-go/kiln/kernels"
	"github.com/kiln-go/kiln/lower"
	"github.com/kiln-go/kiln/trace"
)

// Eval's cache of compiled programs, shared by every Eval of the process.
//
// Bounds: at most evalCacheMax programs, and at most evalCacheMaxBytes of
// their planned buffers (which a CPU executable keeps as scratch between
// runs and an OpenCL one holds on the device); a program whose buffers
// alone exceed evalCacheMaxProgram is run and released, not kept — its
// compile is small next to its run anyway.
//
// Programs are kept per backend by identity, not by name: two OpenCL
// devices (or two CPU backends with different options) never share an
// executable. A cached program keeps its backend alive; programs for a
// backend that is not a pointer (so has no identity) are not cached.
const (
	evalCacheMax        = 256
	evalCacheMaxBytes   = 64 << 20
	evalCacheMaxProgram = 4 << 20
)

type evalCache struct {
	mu        sync.Mutex
	byBackend map[kernels.Backend]map[string]*list.Element // → *evalItem
	lru       *list.List                                   // most recent first
	bytes     int
	live      atomic.Int64 // executables compiled and not released, cached or running
}

type evalItem struct {
	backend kernels.Backend
	key     string
	bytes   int
	sh      *shared
}

var evals = &evalCache{byBackend: map[kernels.Backend]map[string]*list.Element{}, lru: list.New()}

// keyBufs recycles the buffers program keys are built in, so a hit
// allocates no key.
var keyBufs = sync.Pool{New: func() any { return new([]byte) }}

// get returns an executable for p, with a count taken for the caller:
// the cached one for p's key, or p compiled now (and cached if it may be).
// Two concurrent misses of one key may both compile; the second to finish
// keeps its own and the first's is released when its caller is done.
func (c *evalCache) get(cfg *config, p *trace.Program) (*shared, error) {
	bp := keyBufs.Get().(*[]byte)
	defer keyBufs.Put(bp)
	buf, ok := programKey(append((*bp)[:0], cfg.key()...), p)
	*bp = buf
	ok = ok && reflect.TypeOf(cfg.backend).Kind() == reflect.Pointer
	if ok {
		c.mu.Lock()
		if el, hit := c.byBackend[cfg.backend][string(buf)]; hit {
			if sh := el.Value.(*evalItem).sh; sh.tryAcquire() {
				c.lru.MoveToFront(el)
				c.mu.Unlock()
				return sh, nil
			}
		}
		c.mu.Unlock()
	}
	m, err := lower.Compile(p, cfg.lowerOptions())
	if err != nil {
		return nil, err
	}
	m.Checks = uint8(cfg.checks)
	exe, err := cfg.backend.Compile(m)
	if err != nil {
		return nil, err
	}
	sh := newShared("", exe, &c.live)
	sh.refs.Store(1) // the caller's
	if size := planBytes(m); ok && size <= evalCacheMaxProgram {
		c.put(&evalItem{backend: cfg.backend, key: string(buf), bytes: size, sh: sh})
	}
	return sh, nil
}

// put caches it, replacing an item of the same key, and evicts least
// recently used items beyond the bounds. Executables let go are released
// after the lock.
func (c *evalCache) put(it *evalItem) {
	it.sh.refs.Add(1) // the cache's
	var drop []*shared
	c.mu.Lock()
	items := c.byBackend[it.backend]
	if items == nil {
		items = map[string]*list.Element{}
		c.byBackend[it.backend] = items
	}
	if el, ok := items[it.key]; ok {
		drop = append(drop, c.remove(el))
	}
	items[it.key] = c.lru.PushFront(it)
	c.bytes += it.bytes
	for c.lru.Len() > evalCacheMax || c.bytes > evalCacheMaxBytes {
		drop = append(drop, c.remove(c.lru.Back()))
	}
	c.mu.Unlock()
	for _, sh := range drop {
		sh.release()
	}
}

// remove takes one item out (mu held) and returns its executable for the
// caller to release.
func (c *evalCache) remove(el *list.Element) *shared {
	it := el.Value.(*evalItem)
	c.lru.Remove(el)
	c.bytes -= it.bytes
	items := c.byBackend[it.backend]
	delete(items, it.key)
	if len(items) == 0 {
		delete(c.byBackend, it.backend) // the backend may be collected now
	}
	return it.sh
}

// stats reports the cache's size, for tests: items, bytes, and executables
// alive (cached, or evicted and still running).
func (c *evalCache) stats() (items, bytes, live int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lru.Len(), c.bytes, int(c.live.Load())
}

// planBytes is the size of a module's planned buffers.
func planBytes(m *lower.Module) int {
	n := 0
	for _, b := range m.Plan.Buffers {
		n += b.Size * b.DType.Size()
	}
	return n
}
