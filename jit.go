package kiln

import (
	"container/list"
	"context"
	"fmt"
	"reflect"
	"sync"
	"sync/atomic"

	"github.com/kiln-go/kiln/lower"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// Func is a jitted function: traced once per input signature (every
// argument's dtype, weak flag and shape), lowered, fused and compiled, then
// run many times. A Func is safe for concurrent use; its cache is bounded.
type Func struct {
	fn   func(args []trace.Value) []trace.Value
	nin  int       // the number of arguments fn takes, or -1 for any
	tree *treeFunc // fn's tree parameters and results; nil when all are Values
	err  error
	cfg  config

	mu       sync.Mutex
	entries  map[uint64][]*list.Element // signature hash → *entry elements in lru
	lru      *list.List                 // most recent first
	execs    map[string]*shared         // module key → executable, shared by signatures
	last     sig                        // the most recent signature that missed
	stats    Stats
	building int          // signatures being traced and lowered now
	dropped  []*shared    // counts removed entries held, dropped by unlock
	live     atomic.Int64 // executables compiled and not yet released
	calls    sync.Pool    // *call: per-call scratch, so a cached Run allocates nothing
	pool     outPool      // arrays given back with Release
}

// call is the scratch of one Run: converted arguments and input arrays.
type call struct {
	args   []arg
	inputs []*tensor.Array
	leaves flattener[*tensor.Array] // tree arguments' leaves and shape
	outs   flattener[*tensor.Array] // RunTreeInto's output trees' leaves and shape
}

// Stats counts what a Func's cache did.
type Stats struct {
	Hits, Misses int // calls served from the cache, and calls that traced
	Compiles     int // executables compiled (misses whose typed program was new)
	Entries      int // signatures cached now
	// Building is the number of signatures being traced and lowered now.
	Building int
	// Live is the number of compiled executables not yet released: those
	// the cache holds (at most Entries; fewer when signatures share one)
	// and those evicted while a Run still used them. It never exceeds
	// the cache size plus the Runs and builds in flight, and it is back
	// within the cache size once they finish.
	Live int
}

// Jit wraps fn, a Go function over Values, for tracing and compiling. fn
// may take any number of Value parameters (or one []Value, or ...Value)
// and return one Value, several, or a []Value; parameters and results
// may also be trees of Values (structs, slices, maps: see TreeFlatten),
// which Run takes as trees of arrays and RunTree returns, the last
// parameter of such a function possibly ...Value (GradTree's are). Jit checks fn's shape at
// once: a fn of another shape gives a Func whose Err is a *FuncError, and
// WithBackend(nil) one whose Err is an *ArgError, which every call of the
// Func returns too — never a panic.
func Jit(fn any, opts ...Option) *Func {
	f := &Func{cfg: newConfig(opts), entries: map[uint64][]*list.Element{}, lru: list.New(), execs: map[string]*shared{}}
	f.fn, f.nin, f.err = adapt(fn)
	if f.err != nil && reflect.TypeOf(fn) != nil && reflect.TypeOf(fn).Kind() == reflect.Func {
		t, err := adaptTree(fn)
		if err == nil {
			f.tree, f.fn, f.nin, f.err = t, t.flat, len(t.ins), nil
			if t.variadic {
				f.nin = -1
			}
		} else if err.Msg != "" {
			f.err = err // why a parameter or result is not a tree
		}
	}
	if err := checkConfig(&f.cfg); err != nil {
		f.err = err
	}
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
		return nil, 0, &FuncError{Type: fmt.Sprintf("%T", fn), Msg: "Jit needs a function over kiln.Value"}
	}
	t := v.Type()
	for i := range t.NumIn() {
		in := t.In(i)
		if in != valueType && !(t.IsVariadic() && i == t.NumIn()-1 && in == valuesType) && !(t.NumIn() == 1 && in == valuesType) {
			return nil, 0, &FuncError{Type: t.String(), Msg: fmt.Sprintf("parameter %d is %s, not a kiln.Value", i, in)}
		}
	}
	for i := range t.NumOut() {
		if out := t.Out(i); out != valueType && !(t.NumOut() == 1 && out == valuesType) {
			return nil, 0, &FuncError{Type: t.String(), Msg: fmt.Sprintf("result %d is %s, not a kiln.Value", i, out)}
		}
	}
	if t.NumOut() == 0 {
		return nil, 0, &FuncError{Type: t.String(), Msg: "it returns nothing"}
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

// convertArgs checks the count and converts every argument into args,
// flattening tree arguments into their leaves (the tree's shape into w).
func (f *Func) convertArgs(vals []any, args []arg, w *flattener[*tensor.Array]) ([]arg, error) {
	if f.err != nil {
		return nil, f.err
	}
	if f.nin >= 0 && len(vals) != f.nin {
		return nil, &ArgError{Index: -1, Msg: fmt.Sprintf("the function takes %d arguments, got %d", f.nin, len(vals))}
	}
	args = args[:0]
	w.leaves = w.leaves[:0]
	w.shape.reset()
	w.path = w.path[:0]
	for i, v := range vals {
		if f.tree != nil && i < len(f.tree.ins) && f.tree.ins[i].kind != nodeValue || f.tree == nil && f.nin < 0 && isTreeArg(v) {
			var err error
			if args, err = f.convertTree(i, v, args, w); err != nil {
				return nil, err
			}
			continue
		}
		a, err := toArg(i, v, f.cfg.promote)
		if err != nil {
			return nil, err
		}
		args = append(args, a)
	}
	return args, nil
}

// trace runs the user's function over abstract arguments, turning a panic
// inside it into a *PanicError, and applies the promotion policy.
func (f *Func) trace(args []arg, e *entry) (p *trace.Program, err error) {
	abs := make([]trace.Abstract, len(args))
	for i, a := range args {
		abs[i] = a.abstract()
	}
	defer func() {
		if r := recover(); r != nil {
			p, err = nil, &PanicError{Value: r}
		}
	}()
	fn := f.fn
	if f.tree != nil {
		fn = func(a []trace.Value) []trace.Value { return f.tree.call(a, e.tree, &e.out) }
	}
	p, err = trace.TraceWithin(f.cfg.promote, f.cfg.traceBudget(), abs, fn)
	if err == nil && f.cfg.verify {
		err = p.CheckAfter("trace")
	}
	if err != nil {
		return nil, err
	}
	if err := checkPolicy(f.cfg.forbid, p); err != nil {
		return nil, err
	}
	return p, nil
}

// Err reports whether fn could be jitted: nil, or the error every call of
// the Func returns — a *FuncError for fn, an *ArgError for an option such
// as WithBackend(nil).
func (f *Func) Err() error { return f.err }

// Run runs fn on args and returns its single result. Arguments are
// *tensor.Array (strong), Weak(array), typed slices (strong 1-D arrays) or
// scalars: Go int, float64 and complex128 are weak, like Python scalars
// passed to a jitted JAX function; other scalar types and bool are strong.
// A tree parameter takes a tree of *tensor.Array of its structure (best by
// pointer: a tree passed by value is copied), and a function over
// ...Value or []Value takes trees flattened into their leaves (see
// TreeFlatten); tree leaves are strong. Inputs are never written. Run is RunContext with context.Background():
// nothing can stop it.
func (f *Func) Run(args ...any) (*tensor.Array, error) {
	return f.RunContext(context.Background(), args...)
}

// RunContext is Run stopped when ctx is done: cancellation and deadlines
// are honoured between kernels, on every iteration of a loop (WhileLoop,
// ForiLoop, Scan) and inside long kernels every few milliseconds of
// work. A stopped run returns an error that errors.Is matches to
// ctx.Err() (context.Canceled or context.DeadlineExceeded), leaves no
// goroutine or buffer behind, and f stays usable. A ctx already done
// returns at once, before tracing or compiling anything; a run that
// finished before ctx was done returns its result, bit for bit Run's.
// Tracing and compiling a new signature are not interrupted (they take
// milliseconds, not a run's unbounded time).
func (f *Func) RunContext(ctx context.Context, args ...any) (*tensor.Array, error) {
	outs, err := f.RunAllContext(ctx, args...)
	if err != nil {
		return nil, err
	}
	if len(outs) != 1 {
		return nil, &ArgError{Index: -1, Msg: fmt.Sprintf("Run: the function returns %d values; use RunAll", len(outs))}
	}
	return outs[0], nil
}

// RunAll runs fn on args and returns all its results. Results are new
// arrays the caller owns, or arrays given back with Release.
func (f *Func) RunAll(args ...any) ([]*tensor.Array, error) {
	return f.RunAllContext(context.Background(), args...)
}

// RunAllContext is RunAll stopped when ctx is done (see RunContext).
func (f *Func) RunAllContext(ctx context.Context, args ...any) ([]*tensor.Array, error) {
	if err := contextError(ctx); err != nil {
		return nil, err
	}
	c := f.getCall()
	defer f.putCall(c)
	e, sh, err := f.prepare(args, c)
	if err != nil {
		return nil, err
	}
	defer sh.release()
	if f.pool.n.Load() > 0 {
		if outs, ok, err := f.runPooled(ctx, e, sh.exe, c.inputs); ok || err != nil {
			return outs, err
		}
	}
	return runContext(ctx, sh.exe, c.inputs)
}

// RunInto runs fn on args writing its results into outs, which must have
// the results' dtypes and shapes and share no memory with the inputs. A
// steady loop of RunInto allocates nothing for outputs.
func (f *Func) RunInto(outs []*tensor.Array, args ...any) error {
	return f.RunIntoContext(context.Background(), outs, args...)
}

// RunIntoContext is RunInto stopped when ctx is done (see RunContext).
// After a stopped run the values in outs are unspecified (some kernels
// ran, some did not); nothing keeps a reference to them.
func (f *Func) RunIntoContext(ctx context.Context, outs []*tensor.Array, args ...any) error {
	if err := contextError(ctx); err != nil {
		return err
	}
	c := f.getCall()
	defer f.putCall(c)
	_, sh, err := f.prepare(args, c)
	if err != nil {
		return err
	}
	defer sh.release()
	return asArgError(runIntoContext(ctx, sh.exe, outs, c.inputs))
}

// putCall returns c to the pool, forgetting the caller's arrays so the
// pool does not keep them alive.
func (f *Func) putCall(c *call) {
	clear(c.args)
	clear(c.inputs)
	clear(c.leaves.leaves)
	clear(c.outs.leaves)
	f.calls.Put(c)
}

func (f *Func) getCall() *call {
	if c, ok := f.calls.Get().(*call); ok {
		return c
	}
	return &call{}
}

// prepare converts the arguments into c, finds (or builds) the entry,
// takes a count on its executable (compiling it on first use) and fills
// c.inputs. The caller releases the executable after running it.
func (f *Func) prepare(vals []any, c *call) (*entry, *shared, error) {
	args, err := f.convertArgs(vals, c.args, &c.leaves)
	c.args = args
	if err != nil {
		return nil, nil, err
	}
	e, sh, err := f.lookupExe(args, f.shapeOf(&c.leaves))
	if err != nil {
		return nil, nil, err
	}
	c.inputs = c.inputs[:0]
	for i, a := range args {
		c.inputs = append(c.inputs, convertArg(a.array, e.conv[i]))
	}
	return e, sh, nil
}

// lookupExe is lookup and acquire, with the common case — a compiled
// entry — under one lock.
func (f *Func) lookupExe(args []arg, st shape) (*entry, *shared, error) {
	f.mu.Lock()
	if el := f.find(sigHash(args, st), args, st); el != nil {
		e := el.Value.(*entry)
		if sh := e.exe; sh != nil && sh.tryAcquire() {
			f.lru.MoveToFront(el)
			f.stats.Hits++
			f.mu.Unlock()
			return e, sh, nil
		}
	}
	f.mu.Unlock()
	e, err := f.lookup(args, st)
	if err != nil {
		return nil, nil, err
	}
	sh, err := f.acquire(e)
	return e, sh, err
}

// Trace returns the traced program for args' signature without running or
// compiling it.
func (f *Func) Trace(args ...any) (*trace.Program, error) {
	var w flattener[*tensor.Array]
	a, err := f.convertArgs(args, nil, &w)
	if err != nil {
		return nil, err
	}
	e, err := f.lookup(a, f.shapeOf(&w))
	if err != nil {
		return nil, err
	}
	return e.prog, nil
}

// Lower returns the lowered, fused and buffer-planned module for args'
// signature, without compiling it for the backend.
func (f *Func) Lower(args ...any) (*lower.Module, error) {
	var w flattener[*tensor.Array]
	a, err := f.convertArgs(args, nil, &w)
	if err != nil {
		return nil, err
	}
	e, err := f.lookup(a, f.shapeOf(&w))
	if err != nil {
		return nil, err
	}
	return e.mod, nil
}

// Stats returns the cache counters.
func (f *Func) Stats() Stats {
	f.mu.Lock()
	defer f.mu.Unlock()
	s := f.stats
	s.Entries = f.lru.Len()
	s.Building = f.building
	s.Live = f.liveExecutables()
	return s
}

// ExplainMiss says why args would miss the cache — which argument's dtype,
// weak flag or shape differs from the last signature compiled — or returns
// "" when they would hit.
func (f *Func) ExplainMiss(args ...any) (string, error) {
	var w flattener[*tensor.Array]
	a, err := f.convertArgs(args, nil, &w)
	if err != nil {
		return "", err
	}
	st := f.shapeOf(&w)
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.find(sigHash(a, st), a, st) != nil {
		return "", nil
	}
	if why := describeMiss(f.last, a); why != "" {
		return why, nil
	}
	return "the tree arguments' structure (their slices' lengths or maps' keys) differs", nil
}
