package reference

import (
	"bytes"
	binenc "encoding/binary"
	"fmt"
	mbits "math/bits"

	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// jax.random's primitives, written from their definitions: iota counts,
// bitcast reinterprets bytes, threefry2x32 is Random123's Threefry-2x32
// with 20 rounds (the reference has its own copy of the cipher, apart from
// the backends').

// iotaArray is broadcasted_iota: element [i…] is i[axis].
func iotaArray(p trace.Params) (*tensor.Array, error) {
	n, err := tensor.ShapeSize(p.Shape)
	if err != nil {
		return nil, err
	}
	stride := 1
	for _, d := range p.Shape[p.Axis+1:] {
		stride *= d
	}
	vals := make([]int64, n)
	for i := range vals {
		vals[i] = int64(i / stride % p.Shape[p.Axis])
	}
	a, err := tensor.FromSlice(vals, p.Shape...)
	if err != nil {
		return nil, err
	}
	return a.Astype(p.DType), nil
}

// bitcast reinterprets x's little-endian bytes as dtype d of the same width.
func bitcast(x *tensor.Array, d tensor.DType) (*tensor.Array, error) {
	if x.DType().Bits() != d.Bits() || d == tensor.Bool || x.DType() == tensor.Bool {
		return nil, fmt.Errorf("bitcast from %s to %s", x.DType(), d)
	}
	var buf bytes.Buffer
	if err := binenc.Write(&buf, binenc.LittleEndian, x.Data()); err != nil {
		return nil, err
	}
	data := tensor.MakeSlice(d, x.Size())
	if err := binenc.Read(&buf, binenc.LittleEndian, data); err != nil {
		return nil, err
	}
	return tensor.New(d, x.Shape(), data)
}

func threefryOp(args []*tensor.Array) (*tensor.Array, error) {
	shape, err := broadcastShape(args)
	if err != nil {
		return nil, err
	}
	if args[0].DType() != tensor.U64 || args[1].DType() != tensor.U64 {
		return nil, fmt.Errorf("threefry2x32 of %s and %s, want u64", args[0].DType(), args[1].DType())
	}
	ik, err := broadcastIndex(args[0].Shape(), shape)
	if err != nil {
		return nil, err
	}
	ix, err := broadcastIndex(args[1].Shape(), shape)
	if err != nil {
		return nil, err
	}
	k, x := args[0].Data().([]uint64), args[1].Data().([]uint64)
	out := make([]uint64, len(ik))
	for i := range out {
		out[i] = threefry2x32(k[ik[i]], x[ix[i]])
	}
	return tensor.New(tensor.U64, shape, out)
}

// threefry2x32 encrypts the counter words (x>>32, x) with the key words
// (k>>32, k): five groups of four rounds with rotations 13 15 26 6 and
// 17 29 16 24, a key injection after each group (ks2 = k0 ^ k1 ^
// 0x1BD11BDA, the group number added to the second word).
func threefry2x32(k, x uint64) uint64 {
	ks := [3]uint32{uint32(k >> 32), uint32(k), uint32(k>>32) ^ uint32(k) ^ 0x1BD11BDA}
	x0, x1 := uint32(x>>32)+ks[0], uint32(x)+ks[1]
	rot := [2][4]int{{13, 15, 26, 6}, {17, 29, 16, 24}}
	for g := range 5 {
		for _, r := range rot[g%2] {
			x0 += x1
			x1 = mbits.RotateLeft32(x1, r) ^ x0
		}
		x0 += ks[(g+1)%3]
		x1 += ks[(g+2)%3] + uint32(g+1)
	}
	return uint64(x0)<<32 | uint64(x1)
}
