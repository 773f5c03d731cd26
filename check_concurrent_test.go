package kiln_test

import (
	"errors"
	"sync"
	"testing"

	"github.com/kiln-go/kiln"
)

// Concurrent Runs of one checked Func, some failing a check and some not:
// each gets its own answer (no stale or missing CheckError, no crash).
// Under -race this caught a Run clearing its state's check record in a
// defer, after the state had gone back for another Run to take.
func TestCheckedConcurrentRuns(t *testing.T) {
	f := kiln.Jit(func(x, i kiln.Value) kiln.Value { return x.Index(i).Mul(kiln.Float(2)) }, kiln.Checked())
	x := f32s(t, []float32{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, 10)
	good, bad := i32s(t, 1, 2, 3), i32s(t, 1, 20, 3)
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range 300 {
				fail := (g+k)%2 == 0
				idx := good
				if fail {
					idx = bad
				}
				out, err := f.Run(x, idx)
				var ce *kiln.CheckError
				switch {
				case fail && !errors.As(err, &ce):
					errs <- err
					return
				case !fail && err != nil:
					errs <- err
					return
				case !fail && out.Data().([]float32)[1] != 4:
					errs <- errors.New("wrong value")
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("run: %v", err)
	}
}
