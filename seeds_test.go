package kiln_test

import (
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"runtime"
	"sync"
	"testing"

	"github.com/kiln-go/kiln/internal/progen"
	"github.com/kiln-go/kiln/trace"
)

// forSeeds runs check on the seeds next gives (until it says no more) on
// GOMAXPROCS goroutines, and reports the first five failures (and how many
// more there were) as test errors.
func forSeeds(t *testing.T, next func() (int64, bool), check func(seed int64) string) {
	t.Helper()
	var (
		mu       sync.Mutex
		failures []string
		wg       sync.WaitGroup
	)
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				seed, ok := next()
				if !ok {
					return
				}
				if msg := check(seed); msg != "" {
					mu.Lock()
					failures = append(failures, msg)
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	for i, f := range failures {
		if i == 5 {
			t.Errorf("… and %d more failures", len(failures)-5)
			break
		}
		t.Error(f)
	}
}

// fuzzSeed hashes a fuzzer's bytes to a non-negative program seed.
func fuzzSeed(data []byte) int64 {
	h := fnv.New64a()
	h.Write(data)
	return int64(binary.LittleEndian.Uint64(h.Sum(nil)) >> 1)
}

// fuzzMode is the generator mode of a fuzzer's bytes: "all-control"
// (loops and branches of every kind) for half of them — those whose hash
// has its low bit, the one fuzzSeed drops, set — and "plain" for the
// others, so the corpus kept in testdata/fuzz (all of them plain) keeps
// its programs.
func fuzzMode(data []byte) string {
	h := fnv.New64a()
	h.Write(data)
	if binary.LittleEndian.Uint64(h.Sum(nil))&1 == 1 {
		return "all-control"
	}
	return "plain"
}

// genModes are the progen options the seed tests and fuzzers draw with,
// by the name their reproduce lines give (-diff.mode, -grad.mode): a seed
// and a mode are one program.
var genModes = map[string]progen.Options{
	"plain":       {},
	"control":     {Control: true},    // fori_loop and cond: TestDifferentialControl's, TestGradProgramsControl's
	"all-control": {AllControl: true}, // every loop and branch: the fuzzers' other half
	// movement: data movement, iotas, takes and elementwise ops only (no
	// reductions, dots, convolutions, sorts, scatters or dynamic slices),
	// large shapes often, fori_loop and cond: the programs the mapped loop
	// fusions (lower.Regions) run, for a -diff.mode=movement search.
	"movement": {Control: true, Ops: movementOps(), LargeProb: 0.3, MaxOps: 16},
}

// movementOps are the ops of the "movement" generator mode.
func movementOps() []trace.Op {
	var ops []trace.Op
	for _, op := range trace.AllOps() {
		switch op.Info().Class {
		case trace.ClassReduce, trace.ClassDot:
			continue
		case trace.ClassIndex:
			if op != trace.OpGather {
				continue
			}
		}
		switch op {
		case trace.OpSort, trace.OpConv:
			continue
		}
		ops = append(ops, op)
	}
	return ops
}

// withMode sets o's control-flow knobs to those of the named mode.
func withMode(o progen.Options, mode string) progen.Options {
	m, ok := genModes[mode]
	if !ok {
		panic(fmt.Sprintf("unknown generator mode %q (plain, control, all-control, movement)", mode))
	}
	o.Control, o.AllControl = m.Control, m.AllControl
	if m.Ops != nil {
		o.Ops, o.LargeProb, o.MaxOps = m.Ops, m.LargeProb, m.MaxOps
	}
	return o
}
