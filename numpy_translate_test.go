package kiln_test

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// Translation of a traced program into a NumPy function, equation by
// equation: every equation's operands already have one dtype (converts are
// explicit), so each op is the NumPy ufunc with that dtype, and NumPy's
// per-op evaluation (f16 computed in f32 and rounded after every op) is
// what Kiln promises to equal bit for bit.
//
// Where Kiln pins a definition that NumPy does not share, the helpers of
// numpyPrelude spell Kiln's definition with NumPy primitives, each exact:
//   - maximum/minimum (and their reductions) order −0 < +0, as IEEE
//     754-2019; NumPy's answer for ±0 depends on operand order.
//   - dot_general accumulates left to right from +0 in the operands' dtype
//     (f16 in f32, rounded once), one FMA per float product; NumPy's matmul
//     calls BLAS, whose order is its own, and NumPy has no FMA, so the
//     helper spells the loop with an exact FMA of its own: round-to-odd in
//     float64 for f32, fractions.Fraction for f64.
//   - bf16 × bf16 dot_general takes k in pairs with subnormals flushed
//     (docs/SPEC.md §3): dot_bf16 spells it on bf16 bits (NumPy has no
//     bf16, so random programs draw none; TestNumPyDotBF16 uses it).
//   - conv_general_dilated accumulates from +0 over kernel positions, then
//     input features, one FMA per step; the conv helper spells it with
//     explicit loops over the padded, dilated input and the same exact FMAs.
//
// Other differences are kept out of the programs by numpyOptions instead.

// numpyDType is NumPy's name of a dtype (little-endian).
var numpyDType = map[tensor.DType]string{
	tensor.Bool: "?", tensor.U8: "<u1", tensor.U16: "<u2", tensor.U32: "<u4", tensor.U64: "<u8",
	tensor.I8: "<i1", tensor.I16: "<i2", tensor.I32: "<i4", tensor.I64: "<i8",
	tensor.F16: "<f2", tensor.F32: "<f4", tensor.F64: "<f8", tensor.C64: "<c8", tensor.C128: "<c16",
}

const numpyPrelude = `import math
import sys
import warnings
from fractions import Fraction
import numpy as np
warnings.simplefilter('ignore')
np.seterr(all='ignore')

def contig(x):
    return np.array(x, order='C', copy=True)

def arr(dt, shape, h):
    return np.frombuffer(bytes.fromhex(h), dtype=dt).reshape(shape).copy()

def bcast(x, shape, dims):
    s = [1] * len(shape)
    for i, d in enumerate(dims):
        s[d] = x.shape[i]
    return contig(np.broadcast_to(x.reshape(s), shape))

def vmax(a, b):
    if a.dtype.kind != 'f':
        return np.maximum(a, b)
    return np.where(a == b, np.where(np.signbit(a), b, a), np.maximum(a, b))

def vmin(a, b):
    if a.dtype.kind != 'f':
        return np.minimum(a, b)
    return np.where(a == b, np.where(np.signbit(a), a, b), np.minimum(a, b))

def rmax(x, axes, keep):
    r = np.max(x, axis=axes, keepdims=keep)
    if x.dtype.kind == 'f':
        pz = np.any((x == 0) & ~np.signbit(x), axis=axes, keepdims=keep)
        r = np.where(r == 0, np.where(pz, x.dtype.type(0), -x.dtype.type(0)), r)
    return np.asarray(r, dtype=x.dtype)

def rmin(x, axes, keep):
    r = np.min(x, axis=axes, keepdims=keep)
    if x.dtype.kind == 'f':
        nz = np.any((x == 0) & np.signbit(x), axis=axes, keepdims=keep)
        r = np.where(r == 0, np.where(nz, -x.dtype.type(0), x.dtype.type(0)), r)
    return np.asarray(r, dtype=x.dtype)

def rsum(x, axes, keep):
    return np.asarray(np.sum(x, axis=axes, keepdims=keep, dtype=x.dtype))

def rprod(x, axes, keep):
    return np.asarray(np.prod(x, axis=axes, keepdims=keep, dtype=x.dtype))

def argr(f, x, axis, dt):
    return np.asarray(f(x, axis=axis)).astype(dt)

def dot(a, b, lb, rb, lc, rc, dt):
    lf = [i for i in range(a.ndim) if i not in lb and i not in lc]
    rf = [i for i in range(b.ndim) if i not in rb and i not in rc]
    bshape = [a.shape[i] for i in lb]
    fa = [a.shape[i] for i in lf]
    fb = [b.shape[i] for i in rf]
    B, FA, FB = int(np.prod(bshape)), int(np.prod(fa)), int(np.prod(fb))
    K = int(np.prod([a.shape[i] for i in lc]))
    a2 = np.transpose(a, lb + lf + lc).reshape(B, FA, K)
    b2 = np.transpose(b, rb + rc + rf).reshape(B, K, FB)
    acc_dt = np.dtype('<f4') if a.dtype == np.float16 else a.dtype
    acc = np.zeros((B, FA, FB), dtype=acc_dt)
    for k in range(K):
        x = a2[:, :, k, None].astype(acc_dt)
        y = b2[:, None, k, :].astype(acc_dt)
        if acc_dt == np.bool_:
            acc = acc | (x & y)
        elif acc_dt == np.float32:
            acc = fma32(x, y, acc)
        elif acc_dt == np.float64:
            acc = fma64(*np.broadcast_arrays(x, y, acc))
        else:
            acc = np.add(acc, np.multiply(x, y, dtype=acc_dt), dtype=acc_dt)
    return acc.astype(dt).reshape(bshape + fa + fb)

def fma32(x, y, c):
    """x*y + c rounded once to float32: the product is exact in float64,
    the sum is rounded to odd there (TwoSum's error decides), and rounding
    that to float32 is correct."""
    p = x.astype(np.float64) * y.astype(np.float64)
    c = np.broadcast_to(c, p.shape).astype(np.float64)
    s = p + c
    pp = s - c
    e = (p - pp) + (c - (s - pp))
    bits = s.view(np.int64)
    fix = (e != 0) & np.isfinite(s) & (s != 0) & ((bits & 1) == 0)
    bits = np.where(fix, np.where((e > 0) == (s > 0), bits + 1, bits - 1), bits)
    return bits.view(np.float64).astype(np.float32)

def fma32_ftz(x, y, c):
    """fma32 flushed to a zero of its sign when tiny (the bf16 dot's FTZ):
    tininess after rounding to 24 bits with an unbounded exponent, decided
    on the sum rounded to odd in float64 scaled by 2**64 (exact)."""
    x, y, c = np.broadcast_arrays(x, y, c)
    p = x.astype(np.float64) * y.astype(np.float64)
    c = c.astype(np.float64)
    s = p + c
    pp = s - c
    e = (p - pp) + (c - (s - pp))
    bits = s.view(np.int64)
    fix = (e != 0) & np.isfinite(s) & (s != 0) & ((bits & 1) == 0)
    s = np.where(fix, np.where((e > 0) == (s > 0), bits + 1, bits - 1), bits).view(np.float64)
    r = s.astype(np.float32)
    tiny = np.isfinite(s) & (s != 0) & (np.abs(s) < 2.0 ** -125)
    flush = tiny & (np.abs((s * 2.0 ** 64).astype(np.float32)) < np.float32(2.0 ** -62))
    return np.where(flush, np.copysign(np.float32(0), s).astype(np.float32), r)

def bf16_daz(h):
    """bf16 bits (uint16) as float32, subnormals as zeros of their sign."""
    h = h.astype(np.uint32)
    h = np.where((h & 0x7f80) == 0, h & 0x8000, h)
    return (h << np.uint32(16)).view(np.float32)

def dot_bf16(a, b, lb, rb, lc, rc, res):
    """dot_general of bf16 bits a and b by the bf16 rule (docs/SPEC.md 3):
    k in pairs from +0, the odd product first, DAZ inputs, FTZ steps;
    res 'f32' is the accumulator, 'bf16' its bits rounded once."""
    lf = [i for i in range(a.ndim) if i not in lb and i not in lc]
    rf = [i for i in range(b.ndim) if i not in rb and i not in rc]
    bshape = [a.shape[i] for i in lb]
    fa = [a.shape[i] for i in lf]
    fb = [b.shape[i] for i in rf]
    B, FA, FB = int(np.prod(bshape)), int(np.prod(fa)), int(np.prod(fb))
    K = int(np.prod([a.shape[i] for i in lc]))
    a2 = bf16_daz(np.transpose(a, lb + lf + lc).reshape(B, FA, K))
    b2 = bf16_daz(np.transpose(b, rb + rc + rf).reshape(B, K, FB))
    acc = np.zeros((B, FA, FB), dtype=np.float32)
    zero = np.float32(0)
    for k in range(0, K, 2):
        if k + 1 < K:
            acc = fma32_ftz(a2[:, :, k + 1, None], b2[:, None, k + 1, :], acc)
        else:
            acc = fma32_ftz(zero, zero, acc)
        acc = fma32_ftz(a2[:, :, k, None], b2[:, None, k, :], acc)
    acc = acc.reshape(bshape + fa + fb)
    if res == 'f32':
        return acc
    u = acc.view(np.uint32)
    r = np.where(np.isnan(acc), u | 0x400000, u + 0x7fff + ((u >> 16) & 1)) >> 16
    return r.astype(np.uint16)

def _fma64(a, b, c):
    if not (math.isfinite(a) and math.isfinite(b) and math.isfinite(c)):
        return a * b + c
    r = Fraction(a) * Fraction(b) + Fraction(c)
    if r == 0:
        return 0.0 if a != 0 and b != 0 else a * b + c  # IEEE's sign of an exact zero
    try:
        return float(r)  # int / int: correctly rounded
    except OverflowError:
        return math.inf if r > 0 else -math.inf

fma64 = lambda x, y, c: np.frompyfunc(_fma64, 3, 1)(x, y, c).astype(np.float64)

def fma(x, y, acc):
    # acc + x*y rounded once, as conv_general_dilated accumulates (wrapping
    # for integers).
    if acc.dtype.kind in 'iu':
        return np.add(acc, np.multiply(x, y, dtype=acc.dtype), dtype=acc.dtype)
    if acc.dtype == np.float32:
        return fma32(x, y, acc)
    return fma64(*np.broadcast_arrays(x, y, acc))

def conv(lhs, rhs, lspec, rspec, ospec, strides, lo, hi, ldil, rdil, groups, dt):
    x = np.transpose(lhs, lspec)
    w = np.transpose(rhs, rspec)
    ns = x.ndim - 2
    n, c = x.shape[0], x.shape[1]
    o, ci = w.shape[0], w.shape[1]
    ks = w.shape[2:]
    acc_dt = np.dtype('<f4') if x.dtype == np.float16 else x.dtype
    x = x.astype(acc_dt)
    w = w.astype(acc_dt)
    dil = [0 if s == 0 else (s - 1) * d + 1 for s, d in zip(x.shape[2:], ldil)]
    xd = np.zeros((n, c) + tuple(dil), dtype=acc_dt)
    xd[(slice(None), slice(None)) + tuple(slice(None, None, d) for d in ldil)] = x
    padw = [(0, 0), (0, 0)] + [(max(a, 0), max(b, 0)) for a, b in zip(lo, hi)]
    xp = np.pad(xd, padw)
    crop = tuple(slice(max(-a, 0), xp.shape[2 + i] - max(-b, 0)) for i, (a, b) in enumerate(zip(lo, hi)))
    xp = xp[(slice(None), slice(None)) + crop]
    outs = []
    for i in range(ns):
        kd = 0 if ks[i] == 0 else (ks[i] - 1) * rdil[i] + 1
        outs.append((xp.shape[2 + i] - kd) // strides[i] + 1 if xp.shape[2 + i] >= kd else 0)
    acc = np.zeros((n, o) + tuple(outs), dtype=acc_dt)
    og = o // groups
    if acc.size > 0:
        for kpos in np.ndindex(*ks):
            sl = tuple(slice(k * r, k * r + (m - 1) * s + 1, s) for k, r, m, s in zip(kpos, rdil, outs, strides))
            win = xp[(slice(None), slice(None)) + sl]
            for g in range(groups):
                for cc in range(ci):
                    xv = win[:, g * ci + cc][:, None]
                    wv = w[(slice(g * og, (g + 1) * og), cc) + tuple(kpos)].reshape((1, og) + (1,) * ns)
                    acc[:, g * og:(g + 1) * og] = fma(xv, wv, acc[:, g * og:(g + 1) * og])
    return np.transpose(acc.astype(dt), np.argsort(ospec))

def window_start(x, idx, g, smap, obatch, ibatch, window):
    vec = idx[g] if idx.ndim > 1 else idx
    start, fits = [0] * x.ndim, True
    for j, d in enumerate(smap):
        s = int(vec[j])
        hi = x.shape[d] - window[d]
        c = min(max(s, 0), hi)
        fits = fits and 0 <= s <= hi
        start[d] = c
    for j, d in enumerate(obatch):
        start[d] = g[ibatch[j]]
    return start, fits

def gather(x, idx, offset, collapsed, smap, obatch, ibatch, sizes, fill):
    # XLA's gather, one index vector at a time (fill: None for clip).
    batch = idx.shape[:-1]
    win = [d for d in range(x.ndim) if d not in collapsed and d not in obatch]
    out_shape, wi, bi = [], 0, 0
    for i in range(len(batch) + len(offset)):
        if i in offset:
            out_shape.append(sizes[win[wi]]); wi += 1
        else:
            out_shape.append(batch[bi]); bi += 1
    out = np.zeros(out_shape, dtype=x.dtype)
    for g in np.ndindex(*batch):
        start, fits = window_start(x, idx, g, smap, obatch, ibatch, sizes)
        w = x[tuple(slice(start[d], start[d] + sizes[d]) for d in range(x.ndim))]
        w = w.reshape([sizes[d] for d in win])
        if fill is not None and not fits:
            w = np.full(w.shape, fill, dtype=x.dtype)
        sel, bi = [], 0
        for i in range(len(out_shape)):
            if i in offset:
                sel.append(slice(None))
            else:
                sel.append(g[bi]); bi += 1
        out[tuple(sel)] = w
    return out

def scatter(x, idx, upd, uwd, iwd, smap, obatch, ibatch, comb, clip):
    # XLA's scatter, the updates in row-major order (comb: None replaces).
    out = x.copy()
    if x.size == 0:
        return out
    win = [d for d in range(x.ndim) if d not in iwd and d not in obatch]
    window, k = [1] * x.ndim, 0
    for d in win:
        window[d] = upd.shape[uwd[k]]; k += 1
    sdims = [i for i in range(upd.ndim) if i not in uwd]
    for u in np.ndindex(*upd.shape):
        g = tuple(u[i] for i in sdims)
        start, fits = window_start(x, idx, g, smap, obatch, ibatch, window)
        if not fits and not clip:
            continue
        t = list(start)
        for k, d in enumerate(win):
            t[d] += u[uwd[k]]
        t = tuple(t)
        if comb is None:
            out[t] = upd[u]
        else:
            # 1-element arrays: NumPy's 0-d complex product contracts to an FMA
            out[t] = comb(np.array([out[t]]), np.array([upd[u]]))[0]
    return out

def dslice(x, starts, sizes):
    st = [min(max(int(s), 0), n - w) for s, n, w in zip(starts, x.shape, sizes)]
    return contig(x[tuple(slice(s, s + w) for s, w in zip(st, sizes))])

def dupdate(x, u, starts):
    st = [min(max(int(s), 0), n - w) for s, n, w in zip(starts, x.shape, u.shape)]
    out = x.copy()
    out[tuple(slice(s, s + w) for s, w in zip(st, u.shape))] = u
    return out

def iota(dt, shape, axis):
    s = [1] * len(shape)
    s[axis] = shape[axis]
    return contig(np.broadcast_to(np.arange(shape[axis]).reshape(s), shape).astype(dt))

def lsort(keys, x, axis):
    # lax.sort's result x: rows along axis stably ordered by keys (the
    # first most significant) in JAX's order. NumPy's own sort compares
    # -0 == +0 and puts NaNs last, equal to each other; complex keys are
    # split into (real, imag), as JAX compares them (NumPy orders complex
    # NaNs its own way).
    ks = []
    for k in keys:
        if k.dtype.kind == 'c':
            ks += [np.real(k), np.imag(k)]
        else:
            ks.append(k)
    if len(ks) == 1:
        idx = np.argsort(ks[0], axis=axis, kind='stable')
    else:
        idx = np.lexsort(ks[::-1], axis=axis)
    return contig(np.take_along_axis(x, idx, axis=axis))

def threefry(k, x):
    k, x = np.broadcast_arrays(np.asarray(k, np.uint64), np.asarray(x, np.uint64))
    with np.errstate(over='ignore'):
        m = np.uint64(0xFFFFFFFF)
        k0, k1 = (k >> np.uint64(32)).astype(np.uint32), (k & m).astype(np.uint32)
        ks = [k0, k1, k0 ^ k1 ^ np.uint32(0x1BD11BDA)]
        x0 = (x >> np.uint64(32)).astype(np.uint32) + ks[0]
        x1 = (x & m).astype(np.uint32) + ks[1]
        for g in range(5):
            for r in [[13, 15, 26, 6], [17, 29, 16, 24]][g % 2]:
                x0 = x0 + x1
                x1 = ((x1 << np.uint32(r)) | (x1 >> np.uint32(32 - r))) ^ x0
            x0 = x0 + ks[(g + 1) % 3]
            x1 = x1 + ks[(g + 2) % 3] + np.uint32(g + 1)
        return (np.asarray(x0).astype(np.uint64) << np.uint64(32)) | np.asarray(x1).astype(np.uint64)

def run(i, f):
    try:
        outs = f()
    except Exception as e:
        print('ERR', i, repr(e).replace('\n', ' '))
        return
    print('OK', i, len(outs))
    for o in outs:
        o = contig(o)
        print(o.dtype.str, 's' + ','.join(str(d) for d in o.shape), o.tobytes().hex() or '-')
`

// arrayHex is an array's little-endian bytes in hex.
func arrayHex(a *tensor.Array) string {
	var b bytes.Buffer
	if err := binary.Write(&b, binary.LittleEndian, a.Data()); err != nil {
		panic(err) // unreachable: every storage type is fixed-size
	}
	return hex.EncodeToString(b.Bytes())
}

// arrayFromHex decodes NumPy's bytes of dtype d.
func arrayFromHex(d tensor.DType, shape []int, h string) (*tensor.Array, error) {
	raw, err := hex.DecodeString(h)
	if err != nil {
		return nil, err
	}
	data := tensor.MakeSlice(d, trace.ShapeSize(shape))
	if err := binary.Read(bytes.NewReader(raw), binary.LittleEndian, data); err != nil {
		return nil, fmt.Errorf("%s%v from %d bytes: %v", d, shape, len(raw), err)
	}
	return tensor.New(d, shape, data)
}

// pyTuple prints ints as a Python tuple.
func pyTuple(xs []int) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = fmt.Sprint(x)
	}
	if len(xs) == 1 {
		return "(" + parts[0] + ",)"
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

func pyList(xs []int) string {
	return "[" + strings.TrimSuffix(strings.Trim(pyTuple(xs), "()"), ",") + "]"
}

// numpyUfunc is the NumPy function of each elementwise op.
var numpyUfunc = map[trace.Op]string{
	trace.OpNeg: "np.negative", trace.OpAbs: "np.absolute", trace.OpSign: "np.sign", trace.OpSqrt: "np.sqrt",
	trace.OpFloor: "np.floor", trace.OpCeil: "np.ceil", trace.OpRound: "np.rint",
	trace.OpIsNaN: "np.isnan", trace.OpIsFinite: "np.isfinite", trace.OpConj: "np.conjugate", trace.OpNot: "np.invert",
	trace.OpAdd: "np.add", trace.OpSub: "np.subtract", trace.OpMul: "np.multiply", trace.OpDiv: "np.true_divide",
	trace.OpFloorDiv: "np.floor_divide", trace.OpRem: "np.remainder",
	trace.OpAnd: "np.bitwise_and", trace.OpOr: "np.bitwise_or", trace.OpXor: "np.bitwise_xor",
	trace.OpShl: "np.left_shift", trace.OpShr: "np.right_shift",
	trace.OpEq: "np.equal", trace.OpNe: "np.not_equal", trace.OpLt: "np.less", trace.OpLe: "np.less_equal",
	trace.OpGt: "np.greater", trace.OpGe: "np.greater_equal",
	trace.OpIsInf: "np.isinf", trace.OpIsPosInf: "np.isposinf", trace.OpIsNegInf: "np.isneginf",
	trace.OpCopysign: "np.copysign", trace.OpNextafter: "np.nextafter", trace.OpFmod: "np.fmod",
	trace.OpStopGradient: "np.asarray",
}

// translateIndex spells the indexing ops with the prelude's gather,
// scatter, dslice and dupdate (XLA's semantics in NumPy, one index vector
// at a time) and np.flip.
func translateIndex(e *trace.Eqn, args []string) string {
	p := e.Params
	ip := p.Index
	dt := "'" + numpyDType[e.Out.Type.DType] + "'"
	switch op := e.Op; {
	case op == trace.OpRev:
		return fmt.Sprintf("contig(np.flip(%s, axis=%s))", args[0], pyTuple(p.Axes))
	case op == trace.OpGather:
		d := ip.Gather
		fill := "None"
		if ip.Mode == trace.ModeFill {
			fill = fmt.Sprintf("arr(%s, (), '%s')", dt, arrayHex(p.Value))
		}
		return fmt.Sprintf("gather(%s, %s, %s, %s, %s, %s, %s, %s, %s)", args[0], args[1], pyList(d.OffsetDims), pyList(d.CollapsedSliceDims),
			pyList(d.StartIndexMap), pyList(d.OperandBatchingDims), pyList(d.StartIndicesBatchingDims), pyList(ip.SliceSizes), fill)
	case op.IsScatter():
		d := ip.Scatter
		comb := map[trace.Op]string{trace.OpScatter: "None", trace.OpScatterAdd: "lambda a, b: np.add(a, b, dtype=" + dt + ")",
			trace.OpScatterMul: "lambda a, b: np.multiply(a, b, dtype=" + dt + ")", trace.OpScatterMin: "vmin", trace.OpScatterMax: "vmax"}[op]
		clip := "False"
		if ip.Mode == trace.ModeClip {
			clip = "True"
		}
		return fmt.Sprintf("scatter(%s, %s, %s, %s, %s, %s, %s, %s, %s, %s)", args[0], args[1], args[2], pyList(d.UpdateWindowDims), pyList(d.InsertedWindowDims),
			pyList(d.ScatterDimsToOperandDims), pyList(d.OperandBatchingDims), pyList(d.ScatterIndicesBatchingDims), comb, clip)
	case op == trace.OpDynamicSlice:
		return fmt.Sprintf("dslice(%s, [%s], %s)", args[0], strings.Join(args[1:], ", "), pyList(ip.SliceSizes))
	}
	return fmt.Sprintf("dupdate(%s, %s, [%s])", args[0], args[1], strings.Join(args[2:], ", "))
}

// translate writes p as a Python function named name over the given input
// arrays, or reports an op it has no translation of.
func translate(b *strings.Builder, name string, p *trace.Program, inputs []*tensor.Array) error {
	fmt.Fprintf(b, "def %s():\n", name)
	for i, in := range p.Inputs {
		fmt.Fprintf(b, "    %s = arr('%s', %s, '%s')\n", pyVar(in), numpyDType[in.Type.DType], pyTuple(in.Shape), arrayHex(inputs[i]))
	}
	return translateEqns(b, p, "    ")
}

func pyVar(x *trace.Var) string { return "v_" + x.Name() }

// translateEqns writes p's equations and its return at indent ind. A
// while or cond's sub-programs become nested functions (their variables
// local to them) called by a Python while loop or an if chain.
func translateEqns(b *strings.Builder, p *trace.Program, ind string) error {
	v := pyVar
	for _, e := range p.Eqns {
		dt := "'" + numpyDType[e.Out.Type.DType] + "'"
		var args []string
		for _, a := range e.Args {
			args = append(args, v(a))
		}
		var rhs string
		pr := e.Params
		axes := "None"
		if len(pr.Axes) > 0 {
			axes = pyTuple(pr.Axes)
		}
		keep := "False"
		if pr.KeepDims {
			keep = "True"
		}
		switch op := e.Op; {
		case op == trace.OpConst:
			rhs = fmt.Sprintf("arr(%s, %s, '%s')", dt, pyTuple(e.Out.Shape), arrayHex(pr.Value))
		case op == trace.OpConvert:
			rhs = fmt.Sprintf("%s.astype(%s)", args[0], dt)
		case op == trace.OpConj && !e.Args[0].Type.DType.IsComplex():
			rhs = args[0] + ".copy()"
		case op == trace.OpReal:
			rhs = fmt.Sprintf("np.real(%s).astype(%s)", args[0], dt)
		case op == trace.OpImag:
			rhs = fmt.Sprintf("np.imag(%s).astype(%s)", args[0], dt)
		case op == trace.OpMax:
			rhs = fmt.Sprintf("vmax(%s, %s)", args[0], args[1])
		case op == trace.OpMin:
			rhs = fmt.Sprintf("vmin(%s, %s)", args[0], args[1])
		case (op == trace.OpFloor || op == trace.OpCeil || op == trace.OpRound) && !e.Args[0].Type.DType.IsFloat():
			rhs = args[0] + ".copy()" // Kiln: the identity on integers and bool
		case op.Info().Compare:
			rhs = fmt.Sprintf("%s(%s)", numpyUfunc[op], strings.Join(args, ", "))
		case numpyUfunc[op] != "":
			rhs = fmt.Sprintf("%s(%s, dtype=%s)", numpyUfunc[op], strings.Join(args, ", "), dt)
		case op == trace.OpSelect:
			rhs = fmt.Sprintf("np.where(%s)", strings.Join(args, ", "))
		case op == trace.OpBroadcastInDim:
			rhs = fmt.Sprintf("bcast(%s, %s, %s)", args[0], pyTuple(pr.Shape), pyList(pr.Dims))
		case op == trace.OpReshape:
			rhs = fmt.Sprintf("%s.reshape(%s)", args[0], pyTuple(pr.Shape))
		case op == trace.OpTranspose:
			rhs = fmt.Sprintf("contig(np.transpose(%s, %s))", args[0], pyTuple(pr.Perm))
		case op == trace.OpSlice:
			var sl []string
			for i := range pr.Start {
				sl = append(sl, fmt.Sprintf("%d:%d:%d", pr.Start[i], pr.Limit[i], pr.Stride[i]))
			}
			rhs = fmt.Sprintf("contig(%s[%s])", args[0], strings.Join(sl, ", "))
			if len(sl) == 1 {
				rhs = fmt.Sprintf("contig(%s[%s,])", args[0], sl[0])
			}
		case op == trace.OpConcat:
			rhs = fmt.Sprintf("np.concatenate([%s], axis=%d)", strings.Join(args, ", "), pr.Axis)
		case op == trace.OpReduceSum:
			rhs = fmt.Sprintf("rsum(%s, %s, %s)", args[0], axes, keep)
		case op == trace.OpReduceProd:
			rhs = fmt.Sprintf("rprod(%s, %s, %s)", args[0], axes, keep)
		case op == trace.OpReduceMax:
			rhs = fmt.Sprintf("rmax(%s, %s, %s)", args[0], axes, keep)
		case op == trace.OpReduceMin:
			rhs = fmt.Sprintf("rmin(%s, %s, %s)", args[0], axes, keep)
		case op == trace.OpArgMax:
			rhs = fmt.Sprintf("argr(np.argmax, %s, %d, %s)", args[0], pr.Axes[0], dt)
		case op == trace.OpArgMin:
			rhs = fmt.Sprintf("argr(np.argmin, %s, %d, %s)", args[0], pr.Axes[0], dt)
		case op == trace.OpDot:
			d := pr.Dot
			a, b := preferredArgs(pr, args, dt)
			rhs = fmt.Sprintf("dot(%s, %s, %s, %s, %s, %s, %s)", a, b, pyList(d.LhsBatch), pyList(d.RhsBatch), pyList(d.LhsContract), pyList(d.RhsContract), dt)
		case op == trace.OpConv:
			c := pr.Conv
			a, b := preferredArgs(pr, args, dt)
			rhs = fmt.Sprintf("conv(%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %d, %s)", a, b, pyList(c.LhsSpec), pyList(c.RhsSpec), pyList(c.OutSpec),
				pyList(c.Strides), pyList(c.PadLo), pyList(c.PadHi), pyList(c.LhsDilation), pyList(c.RhsDilation), c.FeatureGroupCount, dt)
		case op == trace.OpIota:
			rhs = fmt.Sprintf("iota(%s, %s, %d)", dt, pyTuple(pr.Shape), pr.Axis)
		case op == trace.OpBitcastConvert:
			rhs = fmt.Sprintf("contig(np.asarray(%s)).view(%s)", args[0], dt)
		case op == trace.OpThreefry2x32:
			rhs = fmt.Sprintf("threefry(%s, %s)", args[0], args[1])
		case op == trace.OpSort:
			rhs = fmt.Sprintf("lsort([%s], %s, %d)", strings.Join(args[:pr.Sort.NumKeys], ", "), args[pr.Sort.Output], pr.Axis)
		case op == trace.OpRev || op.Info().Class == trace.ClassIndex:
			rhs = translateIndex(e, args)
		case op == trace.OpWhile || op == trace.OpCond:
			var err error
			if rhs, err = translateControl(b, e, args, ind); err != nil {
				return err
			}
		case op == trace.OpResult:
			rhs = fmt.Sprintf("c_%s[%d]", args[0], pr.Control.Index)
		default:
			return fmt.Errorf("no NumPy translation of %s", e)
		}
		fmt.Fprintf(b, "%s%s = np.asarray(%s)\n", ind, v(e.Out), rhs)
	}
	outs := make([]string, len(p.Outputs))
	for i, o := range p.Outputs {
		outs[i] = v(o)
	}
	fmt.Fprintf(b, "%sreturn [%s]\n", ind, strings.Join(outs, ", "))
	return nil
}

// translateControl writes a while's or cond's sub-programs as nested
// functions and the loop or branch that calls them; the results go to the
// list c_<result 0's name>, and the returned expression is result 0.
func translateControl(b *strings.Builder, e *trace.Eqn, args []string, ind string) (string, error) {
	c := e.Params.Control
	res := "c_" + pyVar(e.Out)
	fn := func(i int) string { return fmt.Sprintf("f_%s_%d", pyVar(e.Out), i) }
	for i, sub := range c.Subs {
		params := make([]string, len(sub.Inputs))
		for k, in := range sub.Inputs {
			params[k] = pyVar(in)
		}
		fmt.Fprintf(b, "%sdef %s(%s):\n", ind, fn(i), strings.Join(params, ", "))
		if err := translateEqns(b, sub, ind+"    "); err != nil {
			return "", err
		}
	}
	list := func(xs []string) string { return "[" + strings.Join(xs, ", ") + "]" }
	if e.Op == trace.OpWhile {
		n := len(args) - c.NConsts[0] - c.NConsts[1]
		condConsts, bodyConsts := args[n:n+c.NConsts[0]], args[n+c.NConsts[0]:]
		fmt.Fprintf(b, "%s%s = %s\n", ind, res, list(args[:n]))
		fmt.Fprintf(b, "%swhile %s(*%s, *%s)[0]:\n", ind, fn(0), res, list(condConsts))
		fmt.Fprintf(b, "%s    %s = %s(*%s, *%s)\n", ind, res, fn(1), res, list(bodyConsts))
		return res + "[0]", nil
	}
	n := len(args) - 1
	for _, k := range c.NConsts {
		n -= k
	}
	at := 1 + n
	for i := range c.Subs {
		kw := "elif"
		if i == 0 {
			kw = "if"
		}
		call := fmt.Sprintf("%s(*%s, *%s)", fn(i), list(args[1:1+n]), list(args[at:at+c.NConsts[i]]))
		at += c.NConsts[i]
		fmt.Fprintf(b, "%s%s int(%s) == %d:\n%s    %s = %s\n", ind, kw, args[0], i, ind, res, call)
	}
	return res + "[0]", nil
}

// preferredArgs are a dot's or convolution's operands, cast to its
// preferred_element_type dt when it has one (the product is then
// computed there).
func preferredArgs(pr trace.Params, args []string, dt string) (string, string) {
	if !pr.HasPreferred {
		return args[0], args[1]
	}
	return fmt.Sprintf("%s.astype(%s)", args[0], dt), fmt.Sprintf("%s.astype(%s)", args[1], dt)
}
