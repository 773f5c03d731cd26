#!/usr/bin/python3
"""Known values of jax.random (threefry2x32, jax_threefry_partitionable=True,
jax_enable_x64=True) computed from the algorithms' specification with NumPy
alone, independently of Kiln. Regenerate: /usr/bin/python3 known.py > known.json"""
import json
import numpy as np

M = 0xFFFFFFFF

def rotl(x, r):
    return ((x << r) | (x >> (32 - r))) & M

def threefry(k0, k1, x0, x1):
    """Threefry-2x32, 20 rounds (Random123), on Python ints."""
    ks = [k0, k1, k0 ^ k1 ^ 0x1BD11BDA]
    rot = [[13, 15, 26, 6], [17, 29, 16, 24]]
    x0 = (x0 + ks[0]) & M
    x1 = (x1 + ks[1]) & M
    for j in range(1, 6):
        for r in rot[(j - 1) % 2]:
            x0 = (x0 + x1) & M
            x1 = rotl(x1, r) ^ x0
        x0 = (x0 + ks[j % 3]) & M
        x1 = (x1 + ks[(j + 1) % 3] + j) & M
    return x0, x1

def key(seed):
    u = seed & 0xFFFFFFFFFFFFFFFF
    return (u >> 32, u & M)

def split(k, n):
    return [list(threefry(k[0], k[1], i >> 32, i & M)) for i in range(n)]

def fold_in(k, d):
    return list(threefry(k[0], k[1], 0, d & M))

def bits(k, n, width):
    out = []
    for i in range(n):
        a, b = threefry(k[0], k[1], i >> 32, i & M)
        if width == 64:
            out.append(a << 32 | b)
        else:
            out.append((a ^ b) & ((1 << width) - 1))
    return out

FMT = {"f64": (np.float64, np.uint64, 64, 52), "f32": (np.float32, np.uint32, 32, 23),
       "f16": (np.float16, np.uint16, 16, 10)}

def uniform(k, n, name, lo=0.0, hi=1.0):
    ft, ut, nbits, nmant = FMT[name]
    b = np.array(bits(k, n, nbits), dtype=ut)
    one = np.array(1.0, ft).view(ut)
    f = ((b >> ut(nbits - nmant)) | one).view(ft) - ft(1)
    lo, hi = ft(lo), ft(hi)
    return np.maximum(lo, f * (hi - lo) + lo)

def permutation(k, n):
    rounds = int(np.ceil(3 * np.log(max(1, n)) / np.log(np.iinfo(np.uint32).max)))
    x = list(range(n))
    for _ in range(rounds):
        k, sub = split(k, 2)
        sk = bits(sub, n, 32)
        order = sorted(range(n), key=lambda i: sk[i])  # stable
        x = [x[i] for i in order]
    return x

out = {
    "kat": [list(threefry(0, 0, 0, 0)), list(threefry(M, M, M, M)),
            list(threefry(0x13198a2e, 0x03707344, 0x243f6a88, 0x85a308d3))],
    "key": {str(s): list(key(s)) for s in (0, 42, -1, 1 << 40)},
    "split0": split(key(0), 2),
    "split42": split(key(42), 3),
    "fold_in": fold_in(key(0), 7),
    "fold_in_neg": fold_in(key(3), -1),
    "bits32": bits(key(0), 5, 32),
    "bits64": bits(key(1), 3, 64),
    "bits8": bits(key(2), 4, 8),
    "bits16": bits(key(2), 4, 16),
    "uniform_f32_scalar": float(uniform(key(0), 1, "f32")[0]),
    "uniform_f64": [float(v) for v in uniform(key(5), 6, "f64")],
    "uniform_f32": [int(v) for v in uniform(key(5), 6, "f32").view(np.uint32)],
    "uniform_f16": [int(v) for v in uniform(key(5), 6, "f16").view(np.uint16)],
    "uniform_f64_range": [float(v) for v in uniform(key(9), 4, "f64", -3.0, 2.0)],
    "permutation10": permutation(key(0), 10),
    "permutation2000": permutation(key(1), 2000),
}
# bf16: 8 random bits, shifted right by 1, into the mantissa of 1.0 (0x3f80).
b8 = np.array(bits(key(5), 6, 8), dtype=np.uint16)
out["uniform_bf16_bits"] = [int(v) for v in ((b8 >> 1) | 0x3F80)]
print(json.dumps(out, indent=1))
