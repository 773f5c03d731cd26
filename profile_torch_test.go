package kiln_test

import (
	"strings"
	"testing"

	"github.com/kiln-go/kiln/promote"
)

// torchOracle prints PyTorch's answer for every case (profile_oracle_test.go
// describes the notation): every pair of PyTorch's dtypes and Python scalar
// kinds in every category, as add and as where's branches; true division of
// every pair but scalar × scalar (which true_divide does not take); atan2,
// hypot and logaddexp of every tensor pair; exp, sqrt, sin, log, log2,
// tanh, sum, prod, cumsum, cumprod and mean of every dtype;
// out-of-range int literals. Promotion is torch.result_type (what add
// uses); every other op is run, on the meta device where PyTorch 1.13 has
// no CPU kernel for the dtype (f16 exp, sqrt, prod, cumsum; bf16 prod).
const torchOracle = `
import torch
names = {torch.bool: 'bool', torch.uint8: 'u8', torch.int8: 'i8', torch.int16: 'i16',
         torch.int32: 'i32', torch.int64: 'i64', torch.bfloat16: 'bf16', torch.float16: 'f16',
         torch.float32: 'f32', torch.float64: 'f64', torch.complex64: 'c64',
         torch.complex128: 'c128', torch.complex32: 'c32'}
dtypes = [d for d in names if d != torch.complex32]
scalars = {'bool': True, 'int': 1, 'float': 1.5, 'complex': 1 + 1j}

def operands():
    for d in dtypes:
        yield 't:' + names[d], torch.ones(2, dtype=d)
    for d in dtypes:
        yield 'z:' + names[d], torch.ones((), dtype=d)
    for k, v in scalars.items():
        yield 's:' + k, v

def run(key, f, meta=None):
    try:
        r = f()
        print(key + '\t' + names[r if isinstance(r, torch.dtype) else r.dtype])
    except (RuntimeError, TypeError) as e:
        if meta is not None and ("'Half'" in str(e) or "'BFloat16'" in str(e)):
            # PyTorch 1.13's CPU lacks some f16/bf16 kernels; the meta
            # device infers the dtype without one.
            return run(key, meta)
        print(key + '\terror')

for ka, a in operands():
    for kb, b in operands():
        run('add %s %s' % (ka, kb), lambda: torch.result_type(a, b))
        run('where %s %s' % (ka, kb), lambda: torch.where(torch.tensor([True, False]), a, b))
        if ka[0] != 's' or kb[0] != 's':
            run('div %s %s' % (ka, kb), lambda: torch.true_divide(a, b))
        if ka[0] == 't' and kb[0] == 't':
            for op in ['atan2', 'hypot', 'logaddexp']:
                f = getattr(torch, op)
                run('%s %s %s' % (op, ka, kb), lambda: f(a, b), lambda: f(a.to('meta'), b.to('meta')))
for d in dtypes:
    k = 't:' + names[d]
    for op in ['exp', 'sqrt', 'sin', 'log', 'log2', 'tanh', 'sum', 'prod', 'cumsum', 'cumprod', 'mean']:
        f = getattr(torch, op)
        args = (0,) if op in ('cumsum', 'cumprod') else ()
        run(op + ' ' + k, lambda: f(torch.ones(2, dtype=d), *args),
            lambda: f(torch.ones(2, dtype=d, device='meta'), *args))
for d in [torch.bool, torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64]:
    for v in [1000, -1000, 100000, -3000000000, 5000000000]:
        key = 'lit t:%s %d' % (names[d], v)
        try:
            r = torch.ones(2, dtype=d) + v
            print('%s\t%s:%d' % (key, names[r.dtype], int(r[0])))
        except (RuntimeError, TypeError):
            print(key + '\terror')
`

// TestTorchProfile holds the torch profile against Debian's PyTorch 1.13:
// skipped without python3-torch, required when KILN_REQUIRE_TORCH=1 (CI).
// The only cases that differ are those where PyTorch gives complex32, which
// Kiln has no dtype for; Kiln's answer there is a *PromotionError that says
// so (docs/SPEC.md §2). On PyTorch 1.13, 2914 of 2930 cases agree.
func TestTorchProfile(t *testing.T) {
	cases := runOracle(t, "torch", "python3-torch", "KILN_REQUIRE_TORCH", torchOracle)
	checkOracle(t, promote.Torch, cases, func(key, want string) (string, string) {
		if want == "c32" && !strings.HasPrefix(key, "lit") {
			return "error", "PyTorch's complex32 has no Kiln dtype"
		}
		return "", ""
	})
}
