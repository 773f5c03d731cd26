package kiln_test

import (
	"encoding/binary"
	"hash/fnv"
	"runtime"
	"sync"
	"testing"
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
