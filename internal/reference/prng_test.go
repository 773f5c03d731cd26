package reference

import "testing"

// Random123's known-answer vectors for Threefry-2x32, 20 rounds
// (Random123-1.09/examples/kat_vectors: "threefry2x32 20"), which JAX's
// random_test.py checks too.
func TestThreefryKnownAnswers(t *testing.T) {
	for _, c := range []struct{ ctr, key, want uint64 }{
		{0x00000000_00000000, 0x00000000_00000000, 0x6b200159_99ba4efe},
		{0xffffffff_ffffffff, 0xffffffff_ffffffff, 0x1cb996fc_bb002be7},
		{0x243f6a88_85a308d3, 0x13198a2e_03707344, 0xc4923a9c_483df7a0},
	} {
		if got := threefry2x32(c.key, c.ctr); got != c.want {
			t.Errorf("threefry2x32(key %#x, ctr %#x) = %#x, want %#x", c.key, c.ctr, got, c.want)
		}
	}
}
