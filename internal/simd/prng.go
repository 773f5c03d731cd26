package simd

import "math/bits"

// threefryKeyGo is ThreefryKey's pure-Go twin: Threefry-2x32, 20 rounds
// (Salmon et al. 2011; Random123's threefry2x32_R(20)), of each counter
// under one key, unrolled with constant rotations.
func threefryKeyGo(dst, x []uint64, k uint64) {
	for i, v := range x {
		dst[i] = Threefry2x32(k, v)
	}
}

// Threefry2x32 is Threefry-2x32, 20 rounds, of the counter words
// (x>>32, x) under the key words (k>>32, k), packed the same way.
func Threefry2x32(k, x uint64) uint64 {
	k0, k1 := uint32(k>>32), uint32(k)
	k2 := k0 ^ k1 ^ 0x1BD11BDA
	x0, x1 := uint32(x>>32)+k0, uint32(x)+k1
	x0, x1 = threefryEven(x0, x1)
	x0, x1 = x0+k1, x1+k2+1
	x0, x1 = threefryOdd(x0, x1)
	x0, x1 = x0+k2, x1+k0+2
	x0, x1 = threefryEven(x0, x1)
	x0, x1 = x0+k0, x1+k1+3
	x0, x1 = threefryOdd(x0, x1)
	x0, x1 = x0+k1, x1+k2+4
	x0, x1 = threefryEven(x0, x1)
	x0, x1 = x0+k2, x1+k0+5
	return uint64(x0)<<32 | uint64(x1)
}

func threefryEven(x0, x1 uint32) (uint32, uint32) {
	x0 += x1
	x1 = bits.RotateLeft32(x1, 13) ^ x0
	x0 += x1
	x1 = bits.RotateLeft32(x1, 15) ^ x0
	x0 += x1
	x1 = bits.RotateLeft32(x1, 26) ^ x0
	x0 += x1
	x1 = bits.RotateLeft32(x1, 6) ^ x0
	return x0, x1
}

func threefryOdd(x0, x1 uint32) (uint32, uint32) {
	x0 += x1
	x1 = bits.RotateLeft32(x1, 17) ^ x0
	x0 += x1
	x1 = bits.RotateLeft32(x1, 29) ^ x0
	x0 += x1
	x1 = bits.RotateLeft32(x1, 16) ^ x0
	x0 += x1
	x1 = bits.RotateLeft32(x1, 24) ^ x0
	return x0, x1
}
