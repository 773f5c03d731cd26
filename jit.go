package kiln

import (
	"container/list"
	"errors"
	"fmt"
	"reflect"
	"sync"

	"github.com/kiln-go/kiln/kernels"
	"github.com/kiln-go/kiln/lower"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// Func is a jitted function: traced once per input signature (every
// argument's dtype, weak flag and shape), lowered, fused and compiled, then
// run many times. A Func is safe for concurrent use; its cache is bounded.
type Func struct {
	fn   func(args []trace.Value) []trace.Value
	nin  int // the number of arguments fn takes, or -1 for any
	err  error
	cfg  config
	ckey string

	mu      sync.Mutex
	entries map[uint64][]*list.Element // signature hash → *entry elements in lru
	lru     *list.List                 // most recent first
	execs   map[string]*shared         // module key → executable, shared by signatures
	last    sig                        // the most recent signature that missed
	stats   Stats
	calls   sync.Pool // *call: per-call scratch, so a cached Run allocates nothing
	pool    outPool   // arrays given back with Release
}

// call is the scratch of one Run: converted arguments and input arrays.
type call struct {
	args   []arg
	inputs []*tensor.Array
}

// Stats counts what a Func's cache did.
type Stats struct {
	Hits, Misses int // calls served from the cache, and calls that traced
	Compiles     int // executables compiled (misses whose typed program was new)
	Entries      int // signatures cached now
}

// entry is one cached signature.
type entry struct {
	hash  uint64
	sig   sig
	ready chan struct{} // closed when prog, exe and err are set
	prog  *trace.Program
	conv  []int // per argument: the dtype a hoisted weak scalar converts to, or -1
	mod   *lower.Module
	exe   *shared
	err   error
}

// shared is an executable and the number of cache entries using it.
type shared struct {
	key  string
	exe  kernels.Executable
	refs int
}

// Jit wraps fn, a Go function over Values, for tracing and compiling. fn
// may take any number of Value parameters (or one []Value, or ...Value)
// and return one Value, several, or a []Value. A fn of another shape is
// reported by every call of the Func, not by a panic.
func Jit(fn any, opts ...Option) *Func {
	f := &Func{cfg: newConfig(opts), entries: map[uint64][]*list.Element{}, lru: list.New(), execs: map[string]*shared{}}
	f.ckey = f.cfg.key()
	f.fn, f.nin, f.err = adapt(fn)
	return f
}

var valueType = reflect.TypeFor[trace.Value]()
var valuesType = reflect.TypeFor[[]trace.Value]()

// adapt turns fn into a function over []Value by reflection, checked once.
func adapt(fn any) (func([]trace.Value) []trace.Value, int, error) {
	if f, ok := fn.(func([]trace.Value) []trace.Value); ok {
		return f, -1, nil
	}
	v := reflect.ValueOf(fn)
	if !v.IsValid() || v.Kind() != reflect.Func || v.IsNil() {
		return nil, 0, fmt.Errorf("kiln: Jit needs a function over kiln.Value, got %T", fn)
	}
	t := v.Type()
	for i := range t.NumIn() {
		in := t.In(i)
		if in != valueType && !(t.IsVariadic() && i == t.NumIn()-1 && in == valuesType) && !(t.NumIn() == 1 && in == valuesType) {
			return nil, 0, fmt.Errorf("kiln: Jit: parameter %d of %s is not a kiln.Value", i, t)
		}
	}
	for i := range t.NumOut() {
		if out := t.Out(i); out != valueType && !(t.NumOut() == 1 && out == valuesType) {
			return nil, 0, fmt.Errorf("kiln: Jit: result %d of %s is not a kiln.Value", i, t)
		}
	}
	if t.NumOut() == 0 {
		return nil, 0, fmt.Errorf("kiln: Jit: %s returns nothing", t)
	}
	nin := t.NumIn()
	sliceIn := t.NumIn() == 1 && t.In(0) == valuesType && !t.IsVariadic()
	if t.IsVariadic() || sliceIn {
		nin = -1
	}
	call := func(args []trace.Value) []trace.Value {
		var in []reflect.Value
		switch {
		case sliceIn:
			in = []reflect.Value{reflect.ValueOf(args)}
		default:
			for _, a := range args {
				in = append(in, reflect.ValueOf(a))
			}
		}
		outs := v.Call(in)
		if len(outs) == 1 && outs[0].Type() == valuesType {
			return outs[0].Interface().([]trace.Value)
		}
		res := make([]trace.Value, len(outs))
		for i, o := range outs {
			res[i] = o.Interface().(trace.Value)
		}
		return res
	}
	return call, nin, nil
}

// convertArgs checks the count and converts every argument into args.
func (f *Func) convertArgs(vals []any, args []arg) ([]arg, error) {
	if f.err != nil {
		return nil, f.err
	}
	if f.nin >= 0 && len(vals) != f.nin {
		return nil, &ArgError{Index: -1, Msg: fmt.Sprintf("the function takes %d arguments, got %d", f.nin, len(vals))}
	}
	args = args[:0]
	for i, v := range vals {
		a, err := toArg(i, v, f.cfg.promote)
		if err != nil {
			return nil, err
		}
		args = append(args, a)
	}
	return args, nil
}

// lookup returns the compiled entry for args, tracing and compiling on a
// miss. Concurrent misses of one signature compile once.
func (f *Func) lookup(args []arg) *entry {
	h := sigHash(args)
	f.mu.Lock()
	if el := f.find(h, args); el != nil {
		f.lru.MoveToFront(el)
		f.stats.Hits++
		f.mu.Unlock()
		e := el.Value.(*entry)
		<-e.ready
		return e
	}
	f.stats.Misses++
	reason := describeMiss(f.last, args)
	e := &entry{hash: h, sig: signatureOf(args), ready: make(chan struct{})}
	f.entries[h] = append(f.entries[h], f.lru.PushFront(e))
	f.last = e.sig
	f.evict()
	f.mu.Unlock()
	if f.cfg.onMiss != nil {
		f.cfg.onMiss(reason)
	}
	f.build(e, args)
	close(e.ready)
	if e.err != nil {
		f.mu.Lock()
		for _, el := range f.entries[h] {
			if el.Value == e {
				f.remove(el)
			}
		}
		f.mu.Unlock()
	}
	return e
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

// remove drops one cache element (mu held).
func (f *Func) remove(el *list.Element) {
	e := el.Value.(*entry)
	f.lru.Remove(el)
	chain := f.entries[e.hash]
	for i, c := range chain {
		if c == el {
			chain = append(chain[:i:i], chain[i+1:]...)
			break
		}
	}
	if len(chain) == 0 {
		delete(f.entries, e.hash)
	} else {
		f.entries[e.hash] = chain
	}
}

// evict drops least recently used entries beyond the bound (mu held).
func (f *Func) evict() {
	for f.lru.Len() > f.cfg.cacheMax {
		el := f.lru.Back()
		e := el.Value.(*entry)
		f.remove(el)
		if e.exe != nil {
			e.exe.refs--
			if e.exe.refs == 0 {
				delete(f.execs, e.exe.key)
			}
		}
	}
}

// build traces, lowers and compiles one signature into e.
func (f *Func) build(e *entry, args []arg) {
	e.prog, e.err = f.trace(args)
	if e.err != nil {
		return
	}
	var lp *trace.Program
	lp, e.conv = hoistWeakScalars(e.prog)
	e.mod, e.err = lower.Compile(lp, lower.Options{Fold: kernels.Fold, NoFusion: f.cfg.noFusion})
	if e.err != nil {
		return
	}
	key := e.mod.Key()
	f.mu.Lock()
	sh, ok := f.execs[key]
	if ok {
		sh.refs++
		e.exe = sh
		f.mu.Unlock()
		return
	}
	f.mu.Unlock()
	exe, err := f.cfg.backend.Compile(e.mod)
	if err != nil {
		e.err = err
		return
	}
	f.mu.Lock()
	f.stats.Compiles++
	if sh, ok = f.execs[key]; !ok { // another signature may have compiled it meanwhile
		sh = &shared{key: key, exe: exe}
		f.execs[key] = sh
	}
	sh.refs++
	e.exe = sh
	f.mu.Unlock()
}

// trace runs the user's function over abstract arguments, converting a
// panic inside it into an error, and applies the promotion policy.
func (f *Func) trace(args []arg) (p *trace.Program, err error) {
	abs := make([]trace.Abstract, len(args))
	for i, a := range args {
		abs[i] = a.abstract()
	}
	defer func() {
		if r := recover(); r != nil {
			p, err = nil, fmt.Errorf("kiln: the traced function panicked: %v", r)
		}
	}()
	p, err = trace.Trace(f.cfg.promote, abs, f.fn)
	if err != nil {
		return nil, err
	}
	if err := f.checkPolicy(p); err != nil {
		return nil, err
	}
	return p, nil
}

// Run runs fn on args and returns its single result. Arguments are
// *tensor.Array (strong), Weak(array), typed slices (strong 1-D arrays) or
// scalars: Go int, float64 and complex128 are weak, like Python scalars
// passed to a jitted JAX function; other scalar types and bool are strong.
// Inputs are never written.
func (f *Func) Run(args ...any) (*tensor.Array, error) {
	outs, err := f.RunAll(args...)
	if err != nil {
		return nil, err
	}
	if len(outs) != 1 {
		return nil, fmt.Errorf("kiln: Run: the function returns %d values; use RunAll", len(outs))
	}
	return outs[0], nil
}

// RunAll runs fn on args and returns all its results. Results are new
// arrays the caller owns, or arrays given back with Release.
func (f *Func) RunAll(args ...any) ([]*tensor.Array, error) {
	c := f.getCall()
	defer f.calls.Put(c)
	e, err := f.prepare(args, c)
	if err != nil {
		return nil, err
	}
	if f.pool.n.Load() > 0 {
		if outs, ok := f.runPooled(e, c.inputs); ok {
			return outs, nil
		}
	}
	return e.exe.exe.Run(c.inputs)
}

// RunInto runs fn on args writing its results into outs, which must have
// the results' dtypes and shapes and share no memory with the inputs. A
// steady loop of RunInto allocates nothing for outputs.
func (f *Func) RunInto(outs []*tensor.Array, args ...any) error {
	c := f.getCall()
	defer f.calls.Put(c)
	e, err := f.prepare(args, c)
	if err != nil {
		return err
	}
	return e.exe.exe.RunInto(outs, c.inputs)
}

func (f *Func) getCall() *call {
	if c, ok := f.calls.Get().(*call); ok {
		return c
	}
	return &call{}
}

// prepare converts the arguments into c, finds (or builds) the compiled
// entry and fills c.inputs.
func (f *Func) prepare(vals []any, c *call) (*entry, error) {
	args, err := f.convertArgs(vals, c.args)
	c.args = args
	if err != nil {
		return nil, err
	}
	e := f.lookup(args)
	if e.err != nil {
		return nil, e.err
	}
	c.inputs = c.inputs[:0]
	for i, a := range args {
		c.inputs = append(c.inputs, convertArg(a.array, e.conv[i]))
	}
	return e, nil
}

// Trace returns the traced program for args' signature without running it.
func (f *Func) Trace(args ...any) (*trace.Program, error) {
	a, err := f.convertArgs(args, nil)
	if err != nil {
		return nil, err
	}
	e := f.lookup(a)
	return e.prog, e.err
}

// Lower returns the lowered, fused and buffer-planned module for args'
// signature.
func (f *Func) Lower(args ...any) (*lower.Module, error) {
	a, err := f.convertArgs(args, nil)
	if err != nil {
		return nil, err
	}
	e := f.lookup(a)
	return e.mod, e.err
}

// Stats returns the cache counters.
func (f *Func) Stats() Stats {
	f.mu.Lock()
	defer f.mu.Unlock()
	s := f.stats
	s.Entries = f.lru.Len()
	return s
}

// ExplainMiss says why args would miss the cache — which argument's dtype,
// weak flag or shape differs from the last signature compiled — or returns
// "" when they would hit.
func (f *Func) ExplainMiss(args ...any) (string, error) {
	a, err := f.convertArgs(args, nil)
	if err != nil {
		return "", err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.find(sigHash(a), a) != nil {
		return "", nil
	}
	return describeMiss(f.last, a), nil
}

// errNoFunc is returned by Eval for an inert value.
var errNoFunc = errors.New("kiln: Eval of a value with no expression")
