package kernels

import (
	"context"
	"fmt"
	"sync/atomic"

	"github.com/kiln-go/kiln/internal/gemm"
	"github.com/kiln-go/kiln/tensor"
)

// ContextRunner is implemented by executables that honour a context while
// they run: cancellation and deadlines are checked between kernels, on
// every iteration of a while (fori_loop, scan) and, inside long kernels, at
// block boundaries, so a cancelled run returns within milliseconds of the
// cancellation. Both backends of this module implement it; package kiln
// checks ctx only before and after a run of an executable that does not.
//
// A run stopped by ctx returns an error that errors.Is matches to
// ctx.Err() (context.Canceled or context.DeadlineExceeded) and to
// context.Cause(ctx); it leaves no goroutine running and no caller's array
// referenced, the executable stays usable, and the outputs RunIntoContext
// was given hold unspecified values. A run that finished before ctx was
// done returns its results, bit for bit those of Run. A ctx whose Done is
// nil (context.Background) costs nothing: the run is Run's.
type ContextRunner interface {
	RunContext(ctx context.Context, inputs []*tensor.Array) ([]*tensor.Array, error)
	RunIntoContext(ctx context.Context, outputs, inputs []*tensor.Array) error
}

// ContextError is the error of a run ctx stopped: ctx.Err() wrapped, with
// ctx's cause when it is another error, so errors.Is finds either.
// Backends return it; it is nil while ctx is not done.
func ContextError(ctx context.Context) error {
	err := ctx.Err()
	if err == nil {
		return nil
	}
	if cause := context.Cause(ctx); cause != nil && cause != err {
		return fmt.Errorf("kernels: run stopped: %w (cause: %w)", err, cause)
	}
	return fmt.Errorf("kernels: run stopped: %w", err)
}

// A stopper is a run's view of its context: the context's Done channel,
// polled where the run looks (between kernels, on every iteration of a
// while, before each piece of a range, and in internal/gemm before each
// panel: Call.Stop), and a flag that the first look finding the context
// done sets, which the run's other workers then read. Each run state
// keeps its own, reset for each run, and a run's child states (a group's
// kernels, a while's sub-programs) share their parent's: a run under a
// context allocates nothing for it, and no callback outlives the run (a
// context.AfterFunc cost four allocations a RunIntoContext).
type stopper struct {
	flag atomic.Bool
	done <-chan struct{}
}

// Stopped reports whether the context is done, polling its channel (a
// non-blocking receive) until one look has found it so. It is also
// internal/gemm's gemm.Stopper.
func (s *stopper) Stopped() bool {
	if s.flag.Load() {
		return true
	}
	select {
	case <-s.done:
		s.flag.Store(true)
		return true
	default:
		return false
	}
}

// watch makes rs's own stopper watch done (a run under a context) and
// returns it.
func (rs *runState) watch(done <-chan struct{}) *stopper {
	rs.ownStop.flag.Store(false)
	rs.ownStop.done = done
	return &rs.ownStop
}

// stopped reports whether the run's context is done (never, for a run
// without one).
func (rs *runState) stopped() bool { return rs.stop != nil && rs.stop.Stopped() }

// gemmStop is the run's stopper as internal/gemm's calls take it: nil
// (no interface value) without a context.
func (rs *runState) gemmStop() gemm.Stopper {
	if rs.stop == nil {
		return nil
	}
	return rs.stop
}

// stopWork is about how much work (elements, or multiply-adds) a kernel
// does between two looks at the stop flag while a context watches the
// run: a few hundred microseconds on one core, so a cancelled run stops
// within milliseconds, and the extra calls cost well under 1%.
const stopWork = 1 << 20

// runChecked runs job over [lo, hi) on w — in pieces of piece indices,
// looking at the stop flag before each, when a context watches the run.
// Kernels write by index, so the pieces give the same bits as one call.
func runChecked(job rangeJob, rs *runState, w *worker, lo, hi, piece int) {
	if rs.stop == nil || piece >= hi-lo {
		if !rs.stopped() {
			job.runRange(rs, w, lo, hi)
		}
		return
	}
	for lo < hi && !rs.stop.Stopped() {
		e := min(hi, lo+piece)
		job.runRange(rs, w, lo, e)
		lo = e
	}
}

// pieceOf is how many of a kernel's n indices hold about stopWork of its
// work elems.
func pieceOf(n, elems int) int {
	if elems <= stopWork || n <= 1 {
		return max(n, 1)
	}
	return max(1, int(int64(n)*stopWork/int64(elems)))
}
