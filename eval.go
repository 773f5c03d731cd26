package kiln

import (
	"container/list"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/kiln-go/kiln/kernels"
	"github.com/kiln-go/kiln/lower"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// Eval evaluates an expression of constants and literals eagerly — the ops
// applied to concrete arrays outside Jit — through exactly the path a
// jitted function takes (trace, lower, fuse, the same kernels), so its
// answer is the jitted answer bit for bit.
//
// Eager code calls Eval in loops, so the compiled program is cached: the
// expression is traced on every call (a few microseconds), its constant
// arrays become the program's inputs, and a program of the same ops,
// dtypes, shapes and scalar values as an earlier one runs that one's
// executable on the new arrays. The cache is shared by every Eval of the
// process and bounded (the 256 most recently used programs).
func Eval(v Value, opts ...Option) (*tensor.Array, error) {
	outs, err := EvalAll([]Value{v}, opts...)
	if err != nil {
		return nil, err
	}
	return outs[0], nil
}

// EvalAll evaluates several expressions together.
func EvalAll(vs []Value, opts ...Option) ([]*tensor.Array, error) {
	if len(vs) == 0 {
		return nil, &ArgError{Index: -1, Msg: "EvalAll of no values"}
	}
	cfg := newConfig(opts)
	if err := checkConfig(&cfg); err != nil {
		return nil, err
	}
	p, err := trace.Trace(cfg.promote, nil, func([]Value) []Value { return vs })
	if err == nil && cfg.verify {
		err = p.CheckAfter("trace")
	}
	if err != nil {
		return nil, err
	}
	if err := checkPolicy(cfg.forbid, p); err != nil {
		return nil, err
	}
	p, inputs := hoistConstArrays(p)
	if cfg.verify || trace.VerifyAll {
		if err := p.CheckAfter("hoist_const_arrays"); err != nil {
			return nil, err
		}
	}
	key := cfg.key() + "\n" + programKey(p)
	sh, err := evals.get(key, p, &cfg)
	if err != nil {
		return nil, err
	}
	defer sh.release()
	return sh.exe.Run(inputs)
}

// hoistConstArrays turns the program's constant arrays (rank > 0) into
// inputs, so programs that differ only in their data share an executable;
// rank-0 constants stay, for the kernels' scalar forms.
func hoistConstArrays(p *trace.Program) (*trace.Program, []*tensor.Array) {
	q := &trace.Program{Config: p.Config, NumVars: p.NumVars, Outputs: p.Outputs}
	var inputs []*tensor.Array
	for _, e := range p.Eqns {
		if e.Op == trace.OpConst && e.Out.Rank() > 0 {
			q.Inputs = append(q.Inputs, e.Out)
			inputs = append(inputs, e.Params.Value)
			continue
		}
		q.Eqns = append(q.Eqns, e)
	}
	return q, inputs
}

// programKey identifies a program up to its input data: every equation's
// op, operands, result type and parameters, rank-0 constants by their
// bits. Positions and notes are left out: they do not change what runs.
func programKey(p *trace.Program) string {
	var b strings.Builder
	id := func(v *trace.Var) { b.WriteString(strconv.Itoa(v.ID)); b.WriteByte(' ') }
	typ := func(v *trace.Var) {
		b.WriteString(v.Type.String())
		for _, d := range v.Shape {
			b.WriteByte(',')
			b.WriteString(strconv.Itoa(d))
		}
		b.WriteByte(' ')
	}
	for _, v := range p.Inputs {
		id(v)
		typ(v)
	}
	b.WriteByte('\n')
	for _, e := range p.Eqns {
		b.WriteString(e.Op.String())
		b.WriteByte(' ')
		id(e.Out)
		typ(e.Out)
		for _, a := range e.Args {
			id(a)
		}
		params := e.Params
		if params.Value != nil {
			b.WriteString(constBits(params.Value))
			params.Value = nil
		}
		fmt.Fprintf(&b, "%v\n", params)
	}
	for _, o := range p.Outputs {
		id(o)
	}
	return b.String()
}

// constBits prints a rank-0 constant exactly: floats by their bits, so
// 0.0 and -0.0 (and NaN payloads) stay apart.
func constBits(a *tensor.Array) string {
	switch x := tensor.Index(a.Data(), 0).(type) {
	case float32:
		return "f" + strconv.FormatUint(uint64(math.Float32bits(x)), 16)
	case float64:
		return "d" + strconv.FormatUint(math.Float64bits(x), 16)
	case complex64:
		return "c" + strconv.FormatUint(uint64(math.Float32bits(real(x))), 16) + "," + strconv.FormatUint(uint64(math.Float32bits(imag(x))), 16)
	case complex128:
		return "z" + strconv.FormatUint(math.Float64bits(real(x)), 16) + "," + strconv.FormatUint(math.Float64bits(imag(x)), 16)
	default: // integers, bool, f16 and bf16 (whose %v is their bits)
		return fmt.Sprintf("%T:%v", x, x)
	}
}

// evalCache holds the executables of eager programs, least recently used
// first out.
type evalCache struct {
	mu    sync.Mutex
	items map[string]*list.Element // key → *evalItem
	lru   *list.List
	live  atomic.Int64
}

type evalItem struct {
	key string
	sh  *shared
}

const evalCacheMax = 256

var evals = &evalCache{items: map[string]*list.Element{}, lru: list.New()}

// get returns the executable for key, compiling p on a miss, with a count
// taken for the caller. Two concurrent misses of one key may both compile;
// the second keeps the first's executable.
func (c *evalCache) get(key string, p *trace.Program, cfg *config) (*shared, error) {
	c.mu.Lock()
	if el, ok := c.items[key]; ok && el.Value.(*evalItem).sh.tryAcquire() {
		c.lru.MoveToFront(el)
		c.mu.Unlock()
		return el.Value.(*evalItem).sh, nil
	}
	c.mu.Unlock()
	m, err := lower.Compile(p, lower.Options{Fold: kernels.Fold, NoFusion: cfg.noFusion, Verify: cfg.verify})
	if err != nil {
		return nil, err
	}
	exe, err := cfg.backend.Compile(m)
	if err != nil {
		return nil, err
	}
	sh := newShared(key, exe, &c.live)
	sh.refs.Store(2) // the cache's and the caller's
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.items[key]; ok {
		old := el.Value.(*evalItem)
		c.lru.Remove(el)
		old.sh.release()
	}
	c.items[key] = c.lru.PushFront(&evalItem{key: key, sh: sh})
	for c.lru.Len() > evalCacheMax {
		el := c.lru.Back()
		it := el.Value.(*evalItem)
		c.lru.Remove(el)
		delete(c.items, it.key)
		it.sh.release()
	}
	return sh, nil
}

// checkPolicy applies Forbid to a traced program.
func checkPolicy(forbid [][2]tensor.DType, p *trace.Program) error {
	for _, w := range widenings(p) {
		for _, f := range forbid {
			if w.From.DType == f[0] && w.To.DType == f[1] {
				return &PolicyError{Widening: w}
			}
		}
	}
	return nil
}
