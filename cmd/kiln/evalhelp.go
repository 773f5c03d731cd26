package main

import (
	"flag"
	"fmt"
	"strings"
)

const evalSynopsis = `usage: kiln eval [--json] [--x32] [--strict] [--rules R] [--backend NAME]
                 [--print program|module|fused|dot|stablehlo|kernels] [--bench N]
                 [--grad NAME[,NAME...]] [--memory-limit SIZE] [--timeout D] [--checked]
                 [--out FILE] --arg NAME=SPEC ... 'EXPR'
`

// evalUsage prints kiln eval's usage: after a bad flag only the synopsis;
// for --help the synopsis, the flags, the argument and expression
// languages, and examples.
func evalUsage(fs *flag.FlagSet, full bool) {
	w := fs.Output()
	fmt.Fprint(w, evalSynopsis)
	if !full {
		fmt.Fprintln(w, "run 'kiln eval --help' for the flags, the expression language and examples")
		return
	}
	fmt.Fprint(w, `
Traces EXPR over the arguments with kiln.Jit — dtypes inferred on the
promotion lattice, literals weak like Python scalars — lowers, fuses and runs
it, and prints the result's dtype (with * if weak), shape and values.

flags:
`)
	fs.PrintDefaults()
	fmt.Fprint(w, `
arguments (--arg NAME=SPEC):
  SPEC is DTYPE[SHAPE]:VALUES, or DTYPE:VALUE (DTYPE[]:VALUE) for rank 0; a *
  after the dtype makes the argument weak (i64*:3, f64*[2]:1,2). Under
  --rules torch a strong rank-0 argument is a 0-dim tensor and a literal in
  EXPR a Python scalar: u8[2] + i8[] is u8, as in PyTorch. VALUES is
    a comma list   row-major; ints exact for integer dtypes; floats parsed as
                   float64 and rounded once to the dtype; nan inf -inf;
                   true false; complex 1+2j -0.5j
    arange         0, 1, 2, ... in the dtype (wrapping, as astype does)
    zeros | ones
    rand(SEED)     deterministic: bool fair coin; signed ints uniform in
                   [-100, 100]; unsigned in [0, 200]; floats uniform in [0, 1)
                   rounded once to the dtype; complex: both parts so
  A malformed SPEC is a usage error (status 2); values that do not fit (a
  list of the wrong length, 300 for i8) fail with kind "argument", and a
  shape too large to allocate fails with kind "size" before anything is
  allocated: the limit on one allocation is the machine's memory unless
  KILN_MAX_ALLOC sets it (12GiB, 500MB, 50%, off). A program whose buffers,
  constants and arguments add up to more than the run's memory budget
  (--memory-limit; by default the machine's memory, or KILN_MEMORY_LIMIT)
  fails with kind "size" when it compiles, naming the op that goes over.
  SPEC may instead be @FILE, an array file named by its extension:
  @w.npy (NumPy's .npy), @w.npz:NAME (a member of an .npz archive, named as
  np.load names it), @w.safetensors:NAME (a tensor, read from a read-only
  memory mapping); :NAME may be left out when the file holds one array. A
  file that cannot be read fails with kind "file".
  --out FILE also writes the result to FILE.npy, FILE.npz or
  FILE.safetensors: one result is named "result"; with --grad the value and
  the gradients are result0, result1, ... in the order printed.

expressions (Python's grammar and precedence):
  names of arguments; constants inf nan pi; literals 2 0.5 1e-3 2j True False
  (weak: 2 is kiln.Int(2), like a Python scalar; a minus sign on a literal is
  part of it, so x + -200 with x: i8 is an overflow)
  operators, loosest first: == != < <= > >= (not chained) | ^ & << >> + -
  * / // % @, unary - + ~, ** (right-assoc; -2**2 is -4); x ** 2 with an int
  literal is integer_pow (x*x)
  subscripts: x[1:3] x[:, ::2] x[::-1] x[0] x[-1] x[..., 0] x[None] (static
  ints, out of bounds an error), and NumPy's advanced indexing: x[i] x[:, i, j]
  with integer arrays (out of bounds clamped, as jax.numpy), x[[0, 2]],
  constant masks x[[True, False, True]]
  x.at[i].get(mode='fill', fill_value=0) .set(v) .add(v) .multiply(v) .min(v)
  .max(v): a copy of x updated at x[i] (repeats apply in order; out of bounds
  dropped, mode='clip' clamps); modes 'promise_in_bounds' 'clip' 'fill' 'drop'

  lambda PARAMS: EXPR is a function argument of fori_loop, while_loop, cond,
  switch and scan (traced once, as jax.lax's, never unrolled); a loop's
  carry may be a tuple (0, 1.0), which its lambda indexes (c[0]) and returns
  as a tuple; a tuple result is indexed: scan(...)[1], fori_loop(...)[0]

  transformations take a function (a lambda, or another transformation's
  result) and return one, which is applied to arrays: vmap(lambda r: r @ w)(x),
  vmap(grad(loss), in_axes=(None, 0))(w, xs) (per-example gradients),
  vmap(vmap(f, in_axes=(None, 0)), in_axes=(0, None))(a, b); (lambda a: a + 1)(x)
  applies a lambda. A function returning a tuple (a lambda whose body is one,
  value_and_grad) is indexed: value_and_grad(f)(x)[1]. vmap's in_axes is an
  int, None (shared by every example) or a tuple with one per argument;
  out_axes an int, None or a tuple with one per result; axis_size the batch
  size when no argument is batched. Its errors have kind "vmap".

  axes and shapes are static ints: literals or int expressions of them,
  folded as Python does (reshape(x, (2**10, -1)), sum(x, axis=-1))
  operators between literals are traced like kiln.Int(1).Add(kiln.Int(2)),
  not folded as Python folds them
  functions:
`)
	for _, name := range functionNames() {
		fn := functions[name]
		fmt.Fprintf(w, "    %-44s %s\n", fn.signature(name), fn.summary)
	}
	fmt.Fprintln(w, "  transformations:")
	for _, name := range transformNames() {
		tr := transforms[name]
		fmt.Fprintf(w, "    %-44s %s\n", (&function{params: tr.params}).signature(name), tr.summary)
	}
	fmt.Fprint(w, `  dtype names as in astype(x, f16): `+strings.Join(dtypeNames, " ")+` (or long names)

output:
  text: i8[5] [0 2 4 6 8] (over 1000 elements only the count: f32[2000]
  (2000 elements)); --print sections come first, each followed by a blank
  line; --bench adds "bench: N runs, min T, median T per run".
  --json: {"dtype":"f16","weak":false,"shape":[3],"values":[1.25,2.5,4]},
  values flat row-major as shortest round-trip decimals, "nan" "inf" "-inf"
  as strings, complex as [re, im]; --print sections become fields named
  after them ("program", "fused", ...) and --bench a field
  "bench":{"runs":N,"min_ns":...,"median_ns":...}.
  --grad NAME,...: EXPR must be a real scalar; after its value, one line
  "grad NAME: DTYPE[SHAPE] VALUES" per name (jax.value_and_grad: each
  gradient has its argument's dtype and weak flag); --json adds
  "grad":{"NAME":{"dtype":...,"weak":...,"shape":[...],"values":[...]}}.
  --print program shows the forward and backward pass. Refusals are JAX's:
  an integer or bool argument or a complex or integer EXPR fails with kind
  "dtype", an EXPR that is not a scalar with kind "shape".
  errors: status 1, the message on stderr with a caret under the column, or
  {"error":{"kind":...,"message":...}} with --json; kinds: syntax, size,
  file, argument, shape, dtype, promotion, overflow, policy, control (a loop's
  carry or cond's branches changing type), derivative (no derivative, or
  a loop reverse mode cannot run), vmap (a vmap's axes or batch sizes do not
  fit, or an op it cannot batch), check (a failed check of --checked),
  deadline (--timeout passed), canceled (interrupted: Ctrl-C, status 130),
  error. Status 2: bad usage.
  An EXPR that starts with - needs -- before it: kiln eval -- '-2**2'.

examples:
  kiln eval --arg 'x=i8[5]:0,1,2,3,4' '2*x'
      i8[5] [0 2 4 6 8]
  kiln eval --arg 'x=i8[3]:1,2,3' --arg 'y=f16[3]:0.5,1,2' '(x*2 + y) * 0.5'
      f16[3] [1.25 2.5 4]
  kiln eval '1 + 2'                       i64*[] 3
  kiln eval --x32 '1 + 2'                 i32*[] 3
  kiln eval --arg 'x=f32[2,3]:arange' 'sum(x, axis=1, keepdims=True)'
      f32[2,1] [[3] [12]]
  kiln eval --arg 'x=f64[2]:0,1' --grad x 'sum(x * exp(x))'
      f64[] 2.718281828459045
      grad x: f64[2] [1 5.43656365691809]
  kiln eval 'fori_loop(0, 10, lambda i, x: x * 2, 1.0)'
      f64*[] 1024
  kiln eval --arg 'xs=f32[5]:arange' 'scan(lambda c, x: (c + x, c + x), 0.0, xs)[1]'
      f32[5] [0 1 3 6 10]
  kiln eval --arg 'x=f32[3,2]:arange' --arg 'w=f32[2]:1,10' 'vmap(lambda r: r @ w)(x)'
      f32[3] [10 32 54]
  kiln eval --arg 'x=i8[2]:1,2' 'x + 1000'        (overflow: 1000 does not fit i8)
  kiln eval --print program,fused --arg 'x=f16[4]:rand(1)' 'exp(x) / sum(exp(x))'
  kiln eval --json --arg 'z=c64[2]:1+2j,nan' 'z * 2'
  kiln eval --bench 100 --arg 'x=f32[1000000]:rand(7)' 'sqrt(x*x + 1)'
  kiln eval --arg 'x=@x.npy' --out y.npy 'x * 2 + 1'      (NumPy's np.load reads y.npy)
  kiln eval --arg 'w=@w.safetensors:w1' --arg 'd=@data.npz:x' 'd @ w'
`)
}

var dtypeNames = []string{"bool", "u8", "u16", "u32", "u64", "i8", "i16", "i32", "i64", "bf16", "f16", "f32", "f64", "c64", "c128"}
