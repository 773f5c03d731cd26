package kiln

import (
	"fmt"
	"strings"

	"github.com/kiln-go/kiln/kernels"
	"github.com/kiln-go/kiln/lower"
	"github.com/kiln-go/kiln/promote"
	"github.com/kiln-go/kiln/tensor"
)

// Option configures Jit and Eval.
type Option func(*config)

// config is everything besides the arguments that decides what a traced
// function compiles to.
type config struct {
	promote  promote.Config
	backend  kernels.Backend
	noFusion bool
	verify   bool
	cacheMax int
	forbid   [][2]tensor.DType
	onMiss   func(reason string)
	memLimit int               // bytes; 0: tensor.DefaultMemoryLimit(), < 0: none
	checks   kernels.CheckKind // checked mode (check.go)
}

const defaultCacheMax = 64

func newConfig(opts []Option) config {
	c := config{backend: kernels.DefaultCPU(), cacheMax: defaultCacheMax}
	for _, o := range opts {
		o(&c)
	}
	return c
}

// key is the part of the cache key the options decide.
func (c *config) key() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s|x32=%v|fuse=%v|%s", c.promote.RuleSet().Name(), c.promote.X32, !c.noFusion, c.backend.Name())
	for _, f := range c.forbid {
		fmt.Fprintf(&b, "|!%s>%s", f[0], f[1])
	}
	if c.memLimit != 0 { // a program compiled under one budget is not checked against another
		fmt.Fprintf(&b, "|mem=%d", c.memLimit)
	}
	if c.checks != 0 {
		fmt.Fprintf(&b, "|checked=%s", c.checks)
	}
	return b.String()
}

// lowerOptions are the options of lower.Compile the config asks for.
func (c *config) lowerOptions() lower.Options {
	return lower.Options{Fold: checkedFold(c.checks), NoFusion: c.noFusion, Verify: c.verify, MemoryLimit: c.memLimit}
}

// traceBudget is the budget trace.TraceWithin checks trace-time constants
// against: the run's (a malformed KILN_MEMORY_LIMIT is reported by
// lower.Compile; the trace then checks none).
func (c *config) traceBudget() int {
	if c.memLimit != 0 {
		return max(c.memLimit, 0)
	}
	n, _ := tensor.DefaultMemoryLimit()
	return n
}

// Strict selects JAX's strict promotion: only weak values (literals) promote
// implicitly; two different strong dtypes are an error that says which
// astype would fix it.
func Strict() Option { return func(c *config) { c.promote.Rules = promote.Strict } }

// Rules selects a promotion rule set by value (promote.JAX, promote.Strict,
// or one looked up with promote.Lookup: numpy, torch, tensorflow, lax,
// anvil).
func Rules(r *promote.RuleSet) Option { return func(c *config) { c.promote.Rules = r } }

// X32 selects 32-bit defaults, as JAX without x64: Go ints and int
// literals are weak i32, floats weak f32, complex weak c64, and the
// promotion lattice is JAX's x32 lattice. Explicit dtypes are never
// narrowed.
func X32() Option { return func(c *config) { c.promote.X32 = true } }

// WithBackend runs compiled programs on b instead of the CPU backend.
// WithBackend(nil) (or a nil pointer) is an *ArgError from Jit's Func.Err
// and every call, and from Eval.
func WithBackend(b kernels.Backend) Option { return func(c *config) { c.backend = b } }

// NoFusion runs every op as its own kernel (for comparisons and
// benchmarks). Results are bit-identical to fused execution.
func NoFusion() Option { return func(c *config) { c.noFusion = true } }

// Verify checks every program and module Kiln builds for fn after every
// pass (trace's Program.Check, lower's Module.Verify) and returns the first
// broken invariant as an error (*trace.CheckError or *lower.VerifyError):
// a debugging aid for Kiln itself, which costs compile time and changes no
// result. The environment variable KILN_VERIFY=1 turns it on for every
// Func.
func Verify() Option { return func(c *config) { c.verify = true } }

// CacheSize bounds the number of compiled signatures a Func keeps (least
// recently used are dropped); the default is 64.
func CacheSize(n int) Option { return func(c *config) { c.cacheMax = max(n, 1) } }

// Forbid makes an implicit widening from one dtype to another an error
// (*PolicyError) instead of a convert, e.g. Forbid(tensor.BF16, tensor.F32)
// for a model that must stay in bf16. Explicit Astype is always allowed.
func Forbid(from, to tensor.DType) Option {
	return func(c *config) { c.forbid = append(c.forbid, [2]tensor.DType{from, to}) }
}

// MemoryLimit sets the memory budget of a run to n bytes: everything a
// compiled program holds at once — its inputs, constants, planned buffers,
// outputs, loop carries (a while's two sets) and its loops' and branches'
// own buffers — must add up to at most n, or compiling it fails with a
// *BudgetError naming the op (and the line that made it) at which the
// total, counted in execution order, first goes over n, with the bytes
// needed. Shapes are static, so this is known before anything runs; a
// constant built while tracing (the index list of Repeat with per-element
// counts) is checked before it is built. The default is
// tensor.DefaultMemoryLimit(): the machine's memory, or
// KILN_MEMORY_LIMIT. n ≤ 0 means no budget. The limit on each single
// allocation (tensor.MaxAlloc) applies as well.
func MemoryLimit(n int) Option {
	return func(c *config) {
		c.memLimit = n
		if n <= 0 {
			c.memLimit = -1
		}
	}
}

// OnCacheMiss calls fn with the reason each time a Func traces a new
// signature: which argument's dtype, weak flag or shape differs from the
// closest signature it had compiled.
func OnCacheMiss(fn func(reason string)) Option { return func(c *config) { c.onMiss = fn } }
