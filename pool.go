package kiln

import (
	"reflect"
	"sync"
	"sync/atomic"

	"github.com/kiln-go/kiln/tensor"
)

// poolPerShape is how many released arrays a Func keeps per dtype and
// shape; more are left to the garbage collector.
const poolPerShape = 4

// outPool holds the arrays released to a Func, for its later results.
type outPool struct {
	n    atomic.Int64 // arrays held: Run looks in the pool only when some are
	mu   sync.Mutex
	free map[uint64][]*tensor.Array // by shapeKey
	held map[*tensor.Array]bool
}

// shapeKey hashes a dtype and shape (FNV-1a over the dtype and dims).
func shapeKey(dt tensor.DType, rank int, dim func(int) int) uint64 {
	h := uint64(14695981039346656037)
	mix := func(v uint64) {
		h ^= v
		h *= 1099511628211
	}
	mix(uint64(dt))
	mix(uint64(rank))
	for i := range rank {
		mix(uint64(dim(i)))
	}
	return h
}

// Release gives arrays that Run or RunAll returned back to f: a later Run
// or RunAll whose result has the same dtype and shape writes into one of
// them instead of allocating, so a loop of Run and Release pays neither
// the allocation nor, for large results, the zeroing and page faults of
// fresh memory. f keeps up to 4 arrays per dtype and shape and leaves the
// rest to the garbage collector; kept arrays live as long as f.
//
// A released array belongs to f: the caller must not read, write or pass
// it again (Run checks that a reused array shares no memory with the
// inputs, and allocates instead if it does). Nil arrays, empty ones and
// arrays already released are ignored; arrays of any origin may be
// released. Release is safe for concurrent use, like Run. RunInto is the
// alternative when the caller manages the output arrays itself.
func (f *Func) Release(arrays ...*tensor.Array) {
	p := &f.pool
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, a := range arrays {
		if a == nil || a.Size() == 0 || p.held[a] {
			continue
		}
		if v := reflect.ValueOf(a.Data()); v.Kind() != reflect.Slice || v.Len() != a.Size() {
			continue
		}
		k := shapeKey(a.DType(), a.Rank(), a.Dim)
		if len(p.free[k]) >= poolPerShape {
			continue
		}
		if p.free == nil {
			p.free, p.held = map[uint64][]*tensor.Array{}, map[*tensor.Array]bool{}
		}
		p.free[k] = append(p.free[k], a)
		p.held[a] = true
		p.n.Add(1)
	}
}

// take removes from the pool an array of dtype dt and the given shape, or
// returns nil.
func (p *outPool) take(dt tensor.DType, shape []int) *tensor.Array {
	p.mu.Lock()
	defer p.mu.Unlock()
	k := shapeKey(dt, len(shape), func(i int) int { return shape[i] })
	list := p.free[k]
	for i := len(list) - 1; i >= 0; i-- {
		if a := list[i]; a.DType() == dt && a.HasShape(shape) {
			list[i] = list[len(list)-1]
			list[len(list)-1] = nil
			p.free[k] = list[:len(list)-1]
			delete(p.held, a)
			p.n.Add(-1)
			return a
		}
	}
	return nil
}

// runPooled runs e writing into released arrays where the pool has them
// (and fresh ones elsewhere). It reports false, having run nothing, when a
// released array cannot be used: it then stays out of the pool.
func (f *Func) runPooled(e *entry, inputs []*tensor.Array) ([]*tensor.Array, bool) {
	outs := make([]*tensor.Array, len(e.mod.Outputs))
	for i, o := range e.mod.Outputs {
		if a := f.pool.take(o.DType, o.Shape); a != nil {
			outs[i] = a
			continue
		}
		a, err := tensor.Zeros(o.DType, o.Shape...)
		if err != nil {
			return nil, false
		}
		outs[i] = a
	}
	// RunInto rejects outputs sharing memory with an input or each other:
	// a released array the caller went on using.
	return outs, e.exe.exe.RunInto(outs, inputs) == nil
}
