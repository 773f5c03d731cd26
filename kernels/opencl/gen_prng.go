package opencl

import (
	"fmt"

	"github.com/kiln-go/kiln/internal/numerics"
	"github.com/kiln-go/kiln/lower"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// jax.random's primitives: iota as a kernel writing its buffer,
// bitcast_convert_type and threefry2x32 inside loop fusions (the cipher is
// the helper kiln_threefry, the CPU's loop operation for operation, so the
// bits are the CPU's).

func (g *gen) iotaKernel(f *lower.Fusion, root *lower.Instr) {
	n := root.Size()
	if n == 0 {
		return
	}
	ax := root.Params.Axis
	stride := numerics.RowMajorStrides(root.Shape)[ax]
	p := newParams()
	out := fmt.Sprintf("out%d", root.ID)
	p.output(root.DType, out, kernelArg{argPlan, g.m.Plan.Of[root]})
	count := fmt.Sprintf("(ulong)(i / %d %% %d)", stride, root.Shape[ax])
	v := g.convertExpr(root.DType, tensor.U64, count)
	g.kernel1D(f, fmt.Sprintf("fusion%d", f.ID), p, n, false, []string{g.store(root.DType, out, "i", v) + ";"})
}

// bitcastExpr reinterprets x's bits (compute form of from) as dtype to.
func (g *gen) bitcastExpr(to, from tensor.DType, x string) string {
	bitsOf := func(d tensor.DType, v string) string { // a 16-bit float held as float -> ushort
		if d == tensor.F16 {
			return g.call("f16_bits", v)
		}
		return g.call("float_to_bf16", v)
	}
	widen := func(d tensor.DType, v string) string {
		if d == tensor.F16 {
			return g.call("f16_to_float", v)
		}
		return g.call("bf16_to_float", v)
	}
	half := func(d tensor.DType) bool { return d == tensor.F16 || d == tensor.BF16 }
	switch {
	case half(from) && half(to):
		return widen(to, bitsOf(from, x))
	case half(from):
		return "as_" + ct(to).compute + "(" + bitsOf(from, x) + ")"
	case half(to):
		return widen(to, "as_ushort("+x+")")
	}
	return "as_" + ct(to).compute + "(" + x + ")"
}

func defPRNGHelpers() {
	defHelper("kiln_threefry", `
// Threefry-2x32, 20 rounds, of the counter words (x>>32, x) with the key
// words (k>>32, k); the output words packed the same way.
inline ulong kiln_threefry(ulong k, ulong x) {
	const uint k0 = (uint)(k >> 32), k1 = (uint)k, k2 = k0 ^ k1 ^ 0x1BD11BDAU;
	const uint ks[3] = {k0, k1, k2};
	uint x0 = (uint)(x >> 32) + k0, x1 = (uint)x + k1;
	const uint rot[2][4] = {{13, 15, 26, 6}, {17, 29, 16, 24}};
	for (int g = 0; g < 5; g++) {
		for (int r = 0; r < 4; r++) {
			x0 += x1;
			x1 = rotate(x1, rot[g % 2][r]) ^ x0;
		}
		x0 += ks[(g + 1) % 3];
		x1 += ks[(g + 2) % 3] + (uint)(g + 1);
	}
	return (ulong)x0 << 32 | (ulong)x1;
}`, false)
}

// prngExpr is the expression of a loop-fused prng op, or ok=false.
func (g *gen) prngExpr(in *lower.Instr, d tensor.DType, a []string) (string, bool) {
	switch in.Op {
	case trace.OpBitcastConvert:
		return g.bitcastExpr(in.DType, d, a[0]), true
	case trace.OpThreefry2x32:
		return g.call("kiln_threefry", a[0], a[1]), true
	}
	return "", false
}
