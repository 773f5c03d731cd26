package kernels_test

import (
	"testing"

	"github.com/kiln-go/kiln/kernels"
	"github.com/kiln-go/kiln/kernels/conformance"
)

// The CPU backend passes the conformance suite with its defaults and with
// tiny blocks on several workers, so block tails, register reuse and
// parallel splits are crossed by every case.
func TestConformance(t *testing.T) {
	t.Run("default", func(t *testing.T) { conformance.Run(t, kernels.DefaultCPU()) })
	t.Run("tiny-blocks", func(t *testing.T) {
		conformance.Run(t, kernels.NewCPU(kernels.CPUOptions{Block: 5, ParallelMin: 1, Workers: 3}))
	})
}
