"""PyTorch peer of Kiln's benchmark report (bench/, docs/SPEC.md §8; issue 26).

usage: peer_torch.py WORKLOAD N RUNS MIN_RUNS BUDGET_MS DIR OUT
       peer_torch.py version

Run by `go run ./bench` with Debian's /usr/bin/python3 and its python3-torch
(1.13, built with oneDNN), in an environment with OMP_NUM_THREADS=2 and
OMP_WAIT_POLICY=PASSIVE (PyTorch's OpenMP threads otherwise spin between
ops, which on a shared 2-core machine steals the core the working thread
needs) and torch.set_num_threads(2). It reads the inputs peer.py reads, from
DIR, and times itself with peer.py's loop (peer.measure): one warm-up run,
then RUNS runs (stopping after MIN_RUNS once BUDGET_MS is spent); it writes
the last output to OUT and prints "ok MEDIAN_NS RUNS".

Every input is turned into a tensor before the timing: E6conv's NHWC input
and HWIO kernel are permuted once into PyTorch's channels-last layout
(torch.channels_last: NCHW shape, NHWC memory, what oneDNN's convolution
runs on), and its output permuted back to NHWC after the timing; E6convgrad's
output gradient likewise, its gradients back to NHWC and HWIO; E6pool's and
E6poolgrad's input and output gradient likewise, their outputs back to NHWC. No
workload runs under autograd except E7, whose backward pass is autograd's.
"""
import os
import re
import sys

import numpy as np

import peer
from peer import E1_A, E1_B, E5_CALLS, E7_B, E7_C, E7_H, E7_IN, E7_LR, E8_ALPHA, E8_STEPS, load

try:
    import torch
    import torch.nn.functional as F
except ImportError as e:
    raise SystemExit(f"peer_torch.py: {sys.executable} cannot import torch ({e}); apt-get install python3-torch")

THREADS = 2
torch.set_num_threads(THREADS)


def tensor(d, name, dtype, count, *shape):
    """An input file as a tensor (sharing the array NumPy read)."""
    t = torch.from_numpy(load(d, name, dtype, count))
    return t.reshape(*shape) if shape else t


def workload(name, n, d):
    """Returns (run, calls, before, result): run() computes the workload, before
    (or None) resets its state untimed, result(out) is the output to check as a
    NumPy array."""
    plain = lambda out: out.contiguous().numpy()
    if name == "E1":
        x = tensor(d, "x.bin", np.float32, n)
        return (lambda: E1_A * x + E1_B), 1, None, plain
    if name == "E3":
        x = tensor(d, "x.bin", np.float32, n)
        return (lambda: torch.log(2 + torch.tanh(torch.sin(torch.exp(x * x)) + torch.cos(x))) * torch.sigmoid(x)), 1, None, plain
    if name == "E4":
        x = tensor(d, "x.bin", np.float64, n)
        return (lambda: torch.sum((x - x.mean()) ** 2).reshape(1)), 1, None, plain
    if name == "E5a":
        x = tensor(d, "x.bin", np.float32, 1)

        def e5():
            for _ in range(E5_CALLS - 1):
                E1_A * x + E1_B
            return E1_A * x + E1_B

        return e5, E5_CALLS, None, plain
    if name in ("E6", "E6f64", "E6c64"):
        dt = {"E6": np.float32, "E6f64": np.float64, "E6c64": np.complex64}[name]
        a = tensor(d, "a.bin", dt, n * n, n, n)
        b = tensor(d, "b.bin", dt, n * n, n, n)
        return (lambda: a @ b), 1, None, plain
    if name == "E6conv":
        bn, h, c, o, k = (int(v) for v in load(d, "dims.bin", np.int32, 5))
        # NHWC → NCHW shape with NHWC memory; HWIO → OIHW shape, channels-last.
        x = tensor(d, "x.bin", np.float32, bn * h * h * c, bn, h, h, c).permute(0, 3, 1, 2).contiguous(memory_format=torch.channels_last)
        w = tensor(d, "w.bin", np.float32, k * k * c * o, k, k, c, o).permute(3, 2, 0, 1).contiguous(memory_format=torch.channels_last)
        return (lambda: F.conv2d(x, w, padding="same")), 1, None, lambda out: out.permute(0, 2, 3, 1).contiguous().numpy()
    if name == "E6convgrad":
        return e6convgrad(d)
    if name == "E6pool":
        x, k, s_, lo = e6pool_input(d)
        return (lambda: F.max_pool2d(x, k, s_, lo, ceil_mode=True)), 1, None, lambda out: out.permute(0, 2, 3, 1).contiguous().numpy()
    if name == "E6poolgrad":
        return e6poolgrad(d)
    if name == "E7":
        return e7(d)
    if name == "E8":
        u0 = tensor(d, "x.bin", np.float32, n)

        def e8():
            u = u0
            for _ in range(E8_STEPS):
                u = u + E8_ALPHA * ((torch.roll(u, 1) + torch.roll(u, -1)) - 2 * u)
            return u

        return e8, 1, None, plain
    raise SystemExit(f"peer_torch.py: unknown workload {name}")


def e7(d):
    """One training step of E7's MLP as PyTorch users write it: the forward
    pass in torch ops, loss.backward() and torch.optim.Adam with Kiln's
    optim.Adam hyperparameters (β₁ 0.9, β₂ 0.999, ε 1e-8 added to the
    bias-corrected √v̂). Like Kiln's and NumPy's, every timed step starts from
    the same weights and zero Adam state: the untimed before() restores them
    in place. The output is Adam's new first moment of w1."""
    def param(name, count, *shape):
        return tensor(d, name, np.float32, count, *shape).clone().requires_grad_()

    w1, b1 = param("w1.bin", E7_IN * E7_H, E7_IN, E7_H), param("b1.bin", E7_H)
    w2, b2 = param("w2.bin", E7_H * E7_C, E7_H, E7_C), param("b2.bin", E7_C)
    x = tensor(d, "x.bin", np.float32, E7_B * E7_IN, E7_B, E7_IN)
    y = tensor(d, "y.bin", np.float32, E7_B * E7_C, E7_B, E7_C)
    params = [w1, b1, w2, b2]
    init = [p.detach().clone() for p in params]
    opt = torch.optim.Adam(params, lr=E7_LR, betas=(0.9, 0.999), eps=1e-8)

    def before():
        with torch.no_grad():
            for p, p0 in zip(params, init):
                p.copy_(p0)
        for s in opt.state.values():
            for t in s.values():
                t.zero_()  # step, exp_avg, exp_avg_sq

    def step():
        opt.zero_grad(set_to_none=True)
        h = torch.relu(torch.addmm(b1, x, w1))
        z = torch.addmm(b2, h, w2)
        loss = F.cross_entropy(z, y)  # y one-hot: mean(logsumexp(z) − z·y)
        loss.backward()
        opt.step()
        return opt.state[w1]["exp_avg"]

    return step, 1, before, lambda out: out.detach().contiguous().numpy()


def e6convgrad(d):
    """E6kb: the backward pass of E6conv — the input and kernel gradients for
    the output gradient g — as autograd runs it for F.conv2d on channels-last
    tensors: aten.convolution_backward (oneDNN's backward-data and
    backward-weights), without the forward pass (Kiln's VJP computes no
    forward either). The output is the input gradient in NHWC then the kernel
    gradient in HWIO, flattened one after the other (Kiln's two outputs)."""
    bn, h, c, o, k = (int(v) for v in load(d, "dims.bin", np.int32, 5))
    cl = torch.channels_last
    x = tensor(d, "x.bin", np.float32, bn * h * h * c, bn, h, h, c).permute(0, 3, 1, 2).contiguous(memory_format=cl)
    w = tensor(d, "w.bin", np.float32, k * k * c * o, k, k, c, o).permute(3, 2, 0, 1).contiguous(memory_format=cl)
    g = tensor(d, "g.bin", np.float32, bn * h * h * o, bn, h, h, o).permute(0, 3, 1, 2).contiguous(memory_format=cl)
    pad = (k - 1) // 2  # SAME for an odd window, stride 1

    def run():
        dx, dw, _ = torch.ops.aten.convolution_backward(g, x, w, None, [1, 1], [pad, pad], [1, 1], False, [0, 0], 1, [True, True, False])
        return dx, dw

    def result(out):
        dx, dw = out
        return np.concatenate([dx.permute(0, 2, 3, 1).contiguous().numpy().ravel(), dw.permute(2, 3, 1, 0).contiguous().numpy().ravel()])

    return run, 1, None, result


def e6pool_input(d):
    """E6p's NHWC input as a channels-last tensor, its window, stride and
    PyTorch padding. Kiln's SAME padding puts ⌊pad/2⌋ rows and columns
    (counting as -inf) before the input and the rest after it, so window o
    starts at s·o − ⌊pad/2⌋: PyTorch's padding=⌊pad/2⌋ with ceil_mode=True
    has the same windows, its last one running past the end where SAME pads
    one more row (its padding=1 alone would drop that window or shift the
    others by one). The output's size is checked against SAME's."""
    bn, h, c, k, s_ = (int(v) for v in load(d, "dims.bin", np.int32, 5))
    x = tensor(d, "x.bin", np.float32, bn * h * h * c, bn, h, h, c).permute(0, 3, 1, 2).contiguous(memory_format=torch.channels_last)
    o = (h + s_ - 1) // s_
    lo = max((o - 1) * s_ + k - h, 0) // 2
    if F.max_pool2d(x[:1, :1], k, s_, lo, ceil_mode=True).shape[-1] != o:
        raise SystemExit(f"peer_torch.py: E6pool: SAME padding of {h} for a {k}-window, stride {s_}, has no PyTorch padding")
    return x, k, s_, lo


def e6poolgrad(d):
    """E6pb: E6p's forward and backward pass, as autograd runs F.max_pool2d:
    aten.max_pool2d_with_indices, then its backward for the output gradient
    g (each window's g to its maximum's index, summed). The output is the
    pooled output then the input gradient, both in NHWC, one after the
    other (Kiln's two outputs)."""
    x, k, s_, lo = e6pool_input(d)
    bn, c, h = x.shape[0], x.shape[1], x.shape[2]
    o = (h + s_ - 1) // s_
    g = tensor(d, "g.bin", np.float32, bn * o * o * c, bn, o, o, c).permute(0, 3, 1, 2).contiguous(memory_format=torch.channels_last)

    def run():
        y, idx = torch.ops.aten.max_pool2d_with_indices(x, [k, k], [s_, s_], [lo, lo], [1, 1], True)
        dx = torch.ops.aten.max_pool2d_with_indices_backward(g, x, [k, k], [s_, s_], [lo, lo], [1, 1], True, idx)
        return y, dx

    def result(out):
        y, dx = out
        return np.concatenate([y.permute(0, 2, 3, 1).contiguous().numpy().ravel(), dx.permute(0, 2, 3, 1).contiguous().numpy().ravel()])

    return run, 1, None, result


def version():
    """PyTorch's version, its oneDNN, its thread count and the BLAS it loaded."""
    a = torch.ones(64, 64)
    a @ a
    dnn = re.search(r"(?:MKL-DNN|oneDNN) v([\w.]+)", torch.__config__.show())
    dnn = f"oneDNN {dnn.group(1)}" if dnn and torch.backends.mkldnn.is_available() else "no oneDNN"
    try:
        with open("/proc/self/maps") as f:
            libs = sorted({line.split()[-1] for line in f if "blas" in line.lower() and "/" in line})
    except OSError:
        libs = ["unknown"]
    return f"{torch.__version__} ({dnn}; {torch.get_num_threads()} threads, OMP_WAIT_POLICY={os.environ.get('OMP_WAIT_POLICY', 'unset')}; BLAS: {', '.join(libs) or 'none found'})"


def main(argv):
    if len(argv) == 2 and argv[1] == "version":
        print(version())
        return
    if len(argv) != 8:
        raise SystemExit(__doc__)
    name, n, runs, min_runs, budget = argv[1], int(argv[2]), int(argv[3]), int(argv[4]), float(argv[5]) * 1e6
    run, calls, before, result = workload(name, n, argv[6])
    if name != "E7":
        inner = run

        def run():
            with torch.inference_mode():
                return inner()

    peer.measure(run, calls, runs, min_runs, budget, argv[7], before=before, result=result)


if __name__ == "__main__":
    main(sys.argv)
