package kiln_test

import (
	"testing"

	"github.com/kiln-go/kiln/promote"
)

// numpyOracle prints NumPy's answer for every case (profile_oracle_test.go
// describes the notation) under NEP 50 (np._set_promotion_state('weak'),
// NumPy 2's default): every pair of NumPy's dtypes and Python scalar kinds
// in every category, as np.add, as np.where's branches and as true
// division; arctan2, hypot and logaddexp of every array pair; exp, sqrt,
// sin, log, log2, tanh, sum, prod, cumsum, cumprod and mean of every dtype;
// out-of-range int literals.
const numpyOracle = `
import numpy as np
if hasattr(np, '_set_promotion_state'):  # NumPy 1.24-2.1; later NumPy is NEP 50 only
    np._set_promotion_state('weak')
names = {np.dtype(k): v for k, v in [('?', 'bool'), ('u1', 'u8'), ('u2', 'u16'), ('u4', 'u32'),
         ('u8', 'u64'), ('i1', 'i8'), ('i2', 'i16'), ('i4', 'i32'), ('i8', 'i64'), ('f2', 'f16'),
         ('f4', 'f32'), ('f8', 'f64'), ('c8', 'c64'), ('c16', 'c128')]}
dtypes = list(names)
scalars = {'bool': True, 'int': 1, 'float': 1.5, 'complex': 1 + 1j}

def operands():
    for d in dtypes:
        yield 't:' + names[d], np.ones(2, dtype=d)
    for d in dtypes:
        yield 'z:' + names[d], np.ones((), dtype=d)
    for k, v in scalars.items():
        yield 's:' + k, v

def run(key, f):
    try:
        print(key + '\t' + names[np.asarray(f()).dtype])
    except (TypeError, OverflowError, ValueError):
        print(key + '\terror')

for ka, a in operands():
    for kb, b in operands():
        run('add %s %s' % (ka, kb), lambda: np.add(a, b))
        run('where %s %s' % (ka, kb), lambda: np.where(np.array([True, False]), a, b))
        run('div %s %s' % (ka, kb), lambda: np.true_divide(a, b))
        if ka[0] == 't' and kb[0] == 't':
            for op, f in [('atan2', np.arctan2), ('hypot', np.hypot), ('logaddexp', np.logaddexp)]:
                run('%s %s %s' % (op, ka, kb), lambda: f(a, b))
for d in dtypes:
    k = 't:' + names[d]
    for op in ['exp', 'sqrt', 'sin', 'log', 'log2', 'tanh', 'sum', 'prod', 'cumsum', 'cumprod', 'mean']:
        f = getattr(np, op)
        run(op + ' ' + k, lambda: f(np.ones(2, dtype=d)))
for d in ['?', 'u1', 'u2', 'u4', 'u8', 'i1', 'i2', 'i4', 'i8']:
    for v in [1000, -1000, 100000, -3000000000, 5000000000]:
        key = 'lit t:%s %d' % (names[np.dtype(d)], v)
        try:
            r = np.ones(2, dtype=d) + v
            print('%s\t%s:%d' % (key, names[r.dtype], int(r[0])))
        except (OverflowError, TypeError):
            print(key + '\terror')
`

// TestNumPyProfile holds the numpy profile against Debian's NumPy 1.24
// with NEP 50's weak promotion state: skipped without python3-numpy,
// required when KILN_REQUIRE_NUMPY=1 (CI). Every case agrees (3859 on
// NumPy 1.24), np.where's Python scalars included (the profile's
// WhereStrongScalars) and float functions of mixed integers
// (Config.FloatFuncTypeOf).
func TestNumPyProfile(t *testing.T) {
	cases := runOracle(t, "numpy", "python3-numpy", "KILN_REQUIRE_NUMPY", numpyOracle)
	checkOracle(t, promote.NumPy, cases, func(key, want string) (string, string) { return "", "" })
}
