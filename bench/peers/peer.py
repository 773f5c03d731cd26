"""NumPy peer of Kiln's benchmark report (bench/, docs/SPEC.md §8).

usage: peer.py WORKLOAD N RUNS MIN_RUNS BUDGET_MS DIR OUT
       peer.py version

Run by `go run ./bench` with Debian's /usr/bin/python3. It reads its inputs
from DIR (native byte order, written by bench/peer_ext.go), runs WORKLOAD
once to warm up and then RUNS times (stopping after MIN_RUNS once BUDGET_MS
is spent), writes the last output to OUT and prints "ok MEDIAN_NS RUNS".
E5a's time is per call, over batches of E5_CALLS calls.
"""
import sys
import time

import numpy as np

E1_A, E1_B = 1.7, 0.3  # bench/workloads.go spells the same values
E5_CALLS = 2000  # bench/workloads.go: e5Calls


def load(d, name, dtype, count):
    return np.fromfile(f"{d}/{name}", dtype=dtype, count=count)


def logistic(x):
    return 1 / (1 + np.exp(-x))


def workload(name, n, d):
    """Returns (run, calls): run() computes the workload and returns its output."""
    if name == "E1":
        x = load(d, "x.bin", np.float32, n)
        return (lambda: E1_A * x + E1_B), 1
    if name == "E2":
        x = load(d, "x.bin", np.int8, n)
        y = load(d, "y.bin", np.float16, n)

        def e2():
            # JAX's per-op dtypes: x*2 stays int8 (wraps), then f16 ops.
            xm = np.multiply(x, np.int8(2))
            s = np.add(xm.astype(np.float16), y, dtype=np.float16)
            return np.multiply(s, np.float16(0.5))

        return e2, 1
    if name == "E3":
        x = load(d, "x.bin", np.float32, n)
        return (lambda: np.log(2 + np.tanh(np.sin(np.exp(x * x)) + np.cos(x))) * logistic(x)), 1
    if name == "E4":
        x = load(d, "x.bin", np.float64, n)
        return (lambda: np.array([np.sum((x - x.mean()) ** 2)])), 1
    if name == "E5a":
        x = load(d, "x.bin", np.float32, 1)

        def e5():
            for _ in range(E5_CALLS - 1):
                E1_A * x + E1_B
            return E1_A * x + E1_B

        return e5, E5_CALLS
    if name == "E7":
        return e7(d), 1
    if name == "E8":
        u0 = load(d, "x.bin", np.float32, n)
        a = np.float32(E8_ALPHA)

        def e8():
            u = u0
            for _ in range(E8_STEPS):
                u = u + a * ((np.roll(u, 1) + np.roll(u, -1)) - np.float32(2) * u)
            return u

        return e8, 1
    if name in ("E6", "E6f64"):
        dt = np.float64 if name == "E6f64" else np.float32
        a = load(d, "a.bin", dt, n * n).reshape(n, n)
        b = load(d, "b.bin", dt, n * n).reshape(n, n)
        return (lambda: a @ b), 1
    if name == "E6c64":
        # complex64 @ complex64: OpenBLAS's cgemm (FMA, its own order).
        a = load(d, "a.bin", np.complex64, n * n).reshape(n, n)
        b = load(d, "b.bin", np.complex64, n * n).reshape(n, n)
        return (lambda: a @ b), 1
    raise SystemExit(f"peer.py: unknown workload {name}")


E7_B, E7_IN, E7_H, E7_C, E7_LR = 256, 64, 128, 10, 3e-3  # bench/e7.go
E8_STEPS, E8_ALPHA = 1000, 0.25  # bench/e8.go


def e7(d):
    """One training step of the MLP, forward and backward written out by
    hand, then Adam from zero state; returns Adam's new m for w1."""
    w1 = load(d, "w1.bin", np.float32, E7_IN * E7_H).reshape(E7_IN, E7_H)
    b1 = load(d, "b1.bin", np.float32, E7_H)
    w2 = load(d, "w2.bin", np.float32, E7_H * E7_C).reshape(E7_H, E7_C)
    b2 = load(d, "b2.bin", np.float32, E7_C)
    x = load(d, "x.bin", np.float32, E7_B * E7_IN).reshape(E7_B, E7_IN)
    y = load(d, "y.bin", np.float32, E7_B * E7_C).reshape(E7_B, E7_C)
    params = [w1, b1, w2, b2]
    m = [np.zeros_like(p) for p in params]
    v = [np.zeros_like(p) for p in params]
    t = np.float32(0)

    def step():
        pre = x @ w1 + b1
        h = np.maximum(pre, 0)
        z = h @ w2 + b2
        zm = z.max(axis=1, keepdims=True)
        e = np.exp(z - zm)
        s = e.sum(axis=1, keepdims=True)
        loss = np.mean(np.log(s[:, 0]) + zm[:, 0] - (z * y).sum(axis=1))
        dz = (e / s - y) / np.float32(E7_B)
        dw2 = h.T @ dz
        db2 = dz.sum(axis=0)
        dpre = (dz @ w2.T) * (pre > 0)
        dw1 = x.T @ dpre
        db1 = dpre.sum(axis=0)
        t1 = t + 1
        c1 = np.float32(1 - 0.9 ** t1)
        c2 = np.float32(1 - 0.999 ** t1)
        new = []
        for p, g, mm, vv in zip(params, (dw1, db1, dw2, db2), m, v):
            mm = np.float32(0.9) * mm + np.float32(0.1) * g
            vv = np.float32(0.999) * vv + np.float32(0.001) * g * g
            new.append((p - np.float32(E7_LR) * (mm / c1) / (np.sqrt(vv / c2) + np.float32(1e-8)), mm, vv))
        return new[0][1], loss

    return lambda: step()[0]


def blas():
    """The BLAS libraries NumPy's matmul loaded, from /proc/self/maps."""
    np.ones((64, 64), np.float32) @ np.ones((64, 64), np.float32)
    try:
        with open("/proc/self/maps") as f:
            libs = {line.split()[-1] for line in f if "blas" in line.lower() and "/" in line}
    except OSError:
        return "unknown"
    return (", ".join(sorted(libs)) or "none found") + openblas_core(libs)


def openblas_core(libs):
    """The kernel OpenBLAS chose (OPENBLAS_CORETYPE or its CPU detection)."""
    import ctypes

    for lib in sorted(libs):
        if "openblas" not in lib:
            continue
        try:
            f = ctypes.CDLL(lib).openblas_get_corename
        except (OSError, AttributeError):
            continue
        f.restype = ctypes.c_char_p
        return f"; OpenBLAS core {f().decode()}"
    return ""


def main(argv):
    if len(argv) == 2 and argv[1] == "version":
        print(f"{np.__version__} (Python {sys.version.split()[0]}; BLAS: {blas()})")
        return
    if len(argv) != 8:
        raise SystemExit(__doc__)
    name, n, runs, min_runs, budget = argv[1], int(argv[2]), int(argv[3]), int(argv[4]), float(argv[5]) * 1e6
    run, calls = workload(name, n, argv[6])
    measure(run, calls, runs, min_runs, budget, argv[7])


def measure(run, calls, runs, min_runs, budget, path, before=None, result=np.ascontiguousarray):
    """Runs run once to warm up and then up to runs times (stopping after
    min_runs once budget ns are spent), each after an untimed before() when
    given; writes result(the last output) to path and prints "ok MEDIAN_NS
    RUNS", the median per call. peer_torch.py times itself with it too."""
    if before:
        before()
    out = run()  # warm up
    times, spent = [], 0
    while len(times) < runs and (len(times) < min_runs or spent < budget):
        if before:
            before()
        start = time.perf_counter_ns()
        out = run()
        t = time.perf_counter_ns() - start
        times.append(t)
        spent += t
    times.sort()
    k = len(times)
    med = times[k // 2] if k % 2 else (times[k // 2 - 1] + times[k // 2]) / 2
    np.ascontiguousarray(result(out)).tofile(path)
    print(f"ok {med / calls:.0f} {k}")


if __name__ == "__main__":
    main(sys.argv)
