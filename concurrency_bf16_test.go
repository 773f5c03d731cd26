package kiln_test

import (
	"fmt"
	"sync"
	"testing"

	"github.com/kiln-go/kiln"
	"github.com/kiln-go/kiln/kernels"
	"github.com/kiln-go/kiln/kernels/conformance"
	"github.com/kiln-go/kiln/tensor"
)

// bf16 products (the bf16 GEMM: VDPBF16PS or its twin) run from 16
// goroutines at once on a backend that splits each product across its
// workers give the bits of a one-worker run: the bf16 rule does not
// depend on the thread count or on other runs. Run it with -race.
func TestConcurrentBF16Dots(t *testing.T) {
	fn := func(x, y kiln.Value) (kiln.Value, kiln.Value) {
		return kiln.MatMul(x, y, kiln.PreferredElementType(tensor.F32)), x.MatMul(y).Add(kiln.Float(1))
	}
	f := kiln.Jit(fn, kiln.WithBackend(kernels.NewCPU(kernels.CPUOptions{ParallelMin: 1024})))
	serial := kiln.Jit(fn, kiln.WithBackend(kernels.NewCPU(kernels.CPUOptions{Workers: 1})))
	type job struct{ x, y, want0, want1 *tensor.Array }
	jobs := make([]job, 16)
	for i := range jobs {
		m, k, n := 30+i, 101+2*i, 70-i
		x, y := conformance.BF16RuleInput(uint64(500+i), m, k), conformance.BF16RuleInput(uint64(600+i), k, n)
		outs, err := serial.RunAll(x, y)
		if err != nil {
			t.Fatal(err)
		}
		jobs[i] = job{x, y, outs[0], outs[1]}
	}
	var wg sync.WaitGroup
	errs := make(chan error, 3*len(jobs))
	for i, j := range jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for rep := range 3 {
				outs, err := f.RunAll(j.x, j.y)
				if err != nil {
					errs <- err
					continue
				}
				for o, want := range []*tensor.Array{j.want0, j.want1} {
					if msg := conformance.Compare(outs[o], want, 0); msg != "" {
						errs <- fmt.Errorf("goroutine %d run %d output %d: %s", i, rep, o, msg)
					}
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
