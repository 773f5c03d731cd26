package kiln_test

import (
	"testing"

	"github.com/kiln-go/kiln"
	"github.com/kiln-go/kiln/random"
	"github.com/kiln-go/kiln/tensor"
)

// TestReviewVmapRandomMore: keys batched on axis 1, batched fold-in data
// and probabilities, and the sort-based samplers (permutation, shuffle)
// and categorical, per example.
func TestReviewVmapRandomMore(t *testing.T) {
	keys := tensor.Must(tensor.FromSlice([]uint32{0, 1, 7, 1 << 31, 2, 3, 5, 9}, 2, 4)) // 4 keys on axis 1
	data := ri32([]int{4}, 0, -1, 7, 1<<30)
	p := rf32([]int{4}, 0, 0.5, 1, 0.25)
	logits := rf32([]int{4, 3}, 0, 1, 2, -1, -1, 5, 0.5, 0.5, 0.5, 3, 2, 1)
	f := func(k, d, p, l kiln.Value) []kiln.Value {
		k2 := random.FoldIn(k, d)
		return []kiln.Value{
			k2,
			random.Bernoulli(k2, p, []int{5}),
			random.Permutation(k2, 6),
			random.Shuffle(k, l, 0),
			random.Categorical(k2, l, 0, []int{4}),
			random.TruncatedNormal(k, p.Neg(), p, []int{3}),
			random.Bits(k, []int{2}, tensor.U64),
		}
	}
	reviewPerExample(t, "random", f, []int{1, 0, 0, 0}, nil, keys, data, p, logits)
	reviewPerExample(t, "random, one key", f, []int{kiln.NoAxis, 0, 0, 0}, nil, takeAxis(keys, 1, 2), data, p, logits)
}
