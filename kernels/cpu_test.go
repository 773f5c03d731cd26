package kernels_test

import (
	"github.com/kiln-go/kiln/internal/simd"
	"testing"

	"github.com/kiln-go/kiln/kernels"
	"github.com/kiln-go/kiln/kernels/conformance"
)

// The CPU backend passes the conformance suite with its defaults and with
// tiny blocks on several workers, so block tails, register reuse and
// parallel splits are crossed by every case.
func TestConformance(t *testing.T) {
	t.Run("default", func(t *testing.T) { conformance.Run(t, kernels.DefaultCPU()) })
	// Every lower SIMD tier too, and each tier with a VNNI kernel once
	// more with VNNI hidden (simd.Modes): each must give the same bits,
	// and a path only some take (the int8 GEMM needs VNNI) must not leave
	// the others reading operands in an order their kernels do not expect.
	//
	// Under the race detector the lower tiers are left to the plain run:
	// they differ from the default only in which single-threaded SIMD
	// kernel a worker calls, not in how workers share buffers, and the
	// detector makes each pass of the suite take minutes. The default
	// and tiny-blocks passes (three workers, every parallel split) stay.
	for _, tier := range simd.Modes() {
		if tier.Tier == simd.Level() && tier.VNNI == simd.VNNI() {
			continue
		}
		if kernels.RaceOn {
			t.Logf("tier %s: run without -race (the suite's SIMD tiers share the default's parallel code)", tier)
			continue
		}
		t.Run("tier-"+tier.String(), func(t *testing.T) {
			defer tier.Set()()
			conformance.Run(t, kernels.DefaultCPU())
		})
	}
	t.Run("tiny-blocks", func(t *testing.T) {
		conformance.Run(t, kernels.NewCPU(kernels.CPUOptions{Block: 5, ParallelMin: 1, Workers: 3}))
	})
	t.Run("grouped", func(t *testing.T) { // independent kernels side by side
		if kernels.RaceOn {
			t.Log("run without -race (under it TestConcurrentGroups runs grouped Runs concurrently)")
			return
		}
		conformance.Run(t, kernels.NewCPU(kernels.CPUOptions{Block: 5, ParallelMin: 1, Workers: 3, GroupAll: true}))
	})
}

// The CPU backend computes a broadcast whose operand is a member of the
// same fusion (hand-built modules: conformance.RunMemberBroadcasts), with
// its defaults and with tiny blocks on several workers, and refuses the
// ill-formed one.
func TestMemberBroadcasts(t *testing.T) {
	t.Run("default", func(t *testing.T) { conformance.RunMemberBroadcasts(t, kernels.DefaultCPU()) })
	t.Run("tiny-blocks", func(t *testing.T) {
		conformance.RunMemberBroadcasts(t, kernels.NewCPU(kernels.CPUOptions{Block: 5, ParallelMin: 1, Workers: 3}))
	})
}
