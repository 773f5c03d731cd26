package kiln

import (
	"context"
	"errors"
	"reflect"
	"sync"
	"sync/atomic"

	"github.com/kiln-go/kiln/kernels"
	"github.com/kiln-go/kiln/tensor"
)

// The bounds of a Func's pool of released arrays: per dtype and shape, in
// number of arrays, and in bytes. Arrays beyond them are left to the
// garbage collector.
const (
	poolPerShape = 4
	poolMaxCount = 256
	poolMaxBytes = 1 << 30
)

// outPool holds the arrays released to a Func, for its later results.
type outPool struct {
	n     atomic.Int64 // arrays held: Run looks in the pool only when some are
	mu    sync.Mutex
	free  map[uint64][]*tensor.Array // by shapeKey
	bytes int
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
// fresh memory. f keeps up to 4 arrays per dtype and shape, 256 in all and
// 1 GiB in all, and leaves the rest to the garbage collector; kept arrays
// live as long as f.
//
// A released array belongs to f: the caller must not read, write, pass or
// release it again. Release ignores nil and empty arrays and memory the
// pool already holds (the same array twice, or two arrays over one
// buffer), and Run never writes a pooled array that shares memory with
// its inputs; but an array released again after Run has handed its memory
// out anew cannot be told from a legitimate release, and two results would
// then share memory. Arrays of any origin may be released. Release is
// safe for concurrent use, like Run. RunInto is the alternative when the
// caller manages the output arrays itself.
func (f *Func) Release(arrays ...*tensor.Array) {
	p := &f.pool
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, a := range arrays {
		if a == nil || a.Size() == 0 || a.IsPacked() || int(p.n.Load()) >= poolMaxCount {
			continue
		}
		size := a.Size() * a.DType().Size()
		if v := reflect.ValueOf(a.Data()); v.Kind() != reflect.Slice || v.Len() != a.Size() || p.bytes+size > poolMaxBytes {
			continue
		}
		k := shapeKey(a.DType(), a.Rank(), a.Dim)
		if len(p.free[k]) >= poolPerShape || p.holds(a) {
			continue
		}
		if p.free == nil {
			p.free = map[uint64][]*tensor.Array{}
		}
		p.free[k] = append(p.free[k], a)
		p.bytes += size
		p.n.Add(1)
	}
}

// holds reports whether a shares memory with an array in the pool.
func (p *outPool) holds(a *tensor.Array) bool {
	for _, list := range p.free {
		if overlapsAny(a, list) {
			return true
		}
	}
	return false
}

// take removes from the pool an array of dtype dt and the given shape that
// shares no memory with avoid, or returns nil. Arrays that do share memory
// with avoid are in the caller's hands again (released, then used): they
// leave the pool too.
func (p *outPool) take(dt tensor.DType, shape []int, avoid []*tensor.Array) *tensor.Array {
	p.mu.Lock()
	defer p.mu.Unlock()
	k := shapeKey(dt, len(shape), func(i int) int { return shape[i] })
	list := p.free[k]
	for i := len(list) - 1; i >= 0; i-- {
		a := list[i]
		if a.DType() != dt || !a.HasShape(shape) {
			continue
		}
		list[i] = list[len(list)-1]
		list[len(list)-1] = nil
		list = list[:len(list)-1]
		p.free[k] = list
		p.bytes -= a.Size() * a.DType().Size()
		p.n.Add(-1)
		if !overlapsAny(a, avoid) {
			return a
		}
	}
	return nil
}

func overlapsAny(a *tensor.Array, others []*tensor.Array) bool {
	for _, b := range others {
		if kernels.Overlaps(a, b) {
			return true
		}
	}
	return false
}

// runPooled runs e writing into released arrays where the pool has them
// (and fresh ones elsewhere). It reports false, having run nothing, if the
// run fails; the released arrays it took go back to the pool. A run ctx
// stopped returns its error, and so does a run that failed a check of
// checked mode (running again into fresh arrays would fail the same way,
// after doing all the work twice).
func (f *Func) runPooled(ctx context.Context, e *entry, exe kernels.Executable, inputs []*tensor.Array) ([]*tensor.Array, bool, error) {
	outs := make([]*tensor.Array, 0, len(e.mod.Outputs))
	avoid := append(make([]*tensor.Array, 0, len(inputs)+len(e.mod.Outputs)), inputs...)
	var pooled []*tensor.Array
	for _, o := range e.mod.Outputs {
		a := f.pool.take(o.DType, o.Shape, avoid)
		if a != nil {
			pooled = append(pooled, a)
		} else {
			var err error
			if a, err = tensor.Zeros(o.DType, o.Shape...); err != nil {
				f.Release(pooled...)
				return nil, false, nil
			}
		}
		outs = append(outs, a)
		avoid = append(avoid, a)
	}
	if err := runIntoContext(ctx, exe, outs, inputs); err != nil {
		f.Release(pooled...)
		if ctx.Err() != nil || errors.As(err, new(*kernels.CheckError)) {
			return nil, false, err
		}
		return nil, false, nil
	}
	return outs, true, nil
}
