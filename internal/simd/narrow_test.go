package simd

import (
	"math/rand/v2"
	"testing"
)

// UnpackI4, UnpackU4 and LookupU16 at every tier against their
// definitions on every length up to 300 (whole vectors, unrolled steps
// and tails), every byte value present, at odd offsets of dst, touching
// nothing past 2·len(src) (or len(dst)).
func TestUnpackNarrow(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	var tab [256]uint16
	for i := range tab {
		tab[i] = uint16(rng.Uint32())
	}
	for _, tier := range Available() {
		restore := SetLevel(tier)
		for n := range 301 {
			src := make([]uint8, n+5)
			for i := range src {
				src[i] = uint8(i*97 + rng.IntN(2))
			}
			for _, signed := range []bool{false, true} {
				buf := make([]int8, 2*n+3)
				for i := range buf {
					buf[i] = 0x55
				}
				dst := buf[1 : 1+2*n]
				if signed {
					UnpackI4(dst, src[:n])
				} else {
					UnpackU4(dst, src[:n])
				}
				for i := range n {
					lo, hi := int(src[i]&0xf), int(src[i]>>4)
					if signed {
						lo, hi = lo-lo>>3<<4, hi-hi>>3<<4 // 8..15 are −8..−1
					}
					if int(dst[2*i]) != lo || int(dst[2*i+1]) != hi {
						t.Fatalf("%v signed=%v n=%d: src[%d] = %#x unpacks to %d, %d, want %d, %d", tier, signed, n, i, src[i], dst[2*i], dst[2*i+1], lo, hi)
					}
				}
				if buf[0] != 0x55 || buf[2*n+1] != 0x55 {
					t.Fatalf("%v signed=%v n=%d: wrote outside dst", tier, signed, n)
				}
			}
			out := make([]uint16, n+2)
			LookupU16(out[1:n+1], src, &tab)
			for i := range n {
				if out[1+i] != tab[src[i]] {
					t.Fatalf("%v n=%d: LookupU16 dst[%d] = %#x, want tab[%#x] = %#x", tier, n, i, out[1+i], src[i], tab[src[i]])
				}
			}
			if out[0] != 0 || out[n+1] != 0 {
				t.Fatalf("%v n=%d: LookupU16 wrote outside dst", tier, n)
			}
		}
		restore()
	}
}
