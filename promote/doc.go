// Package promote decides the dtype of every operation: JAX's promotion
// lattice declared as data, weak types, the other systems' rule sets, a
// lattice checker and the per-op dtype rules of jax.numpy.
//
// The JAX lattice is declared as edges (node → immediate successors), exactly
// as in JAX's type_promotion.rst; the join is derived from the edges, the
// package checks at start-up that every pair has one least upper bound, and a
// golden test checks the derived 18×18 table against the seed table cell for
// cell. The x32 and strict lattices are small edits of the same declaration.
// NumPy, PyTorch, TensorFlow, jax.lax and anvil are defined by their tables
// (embedded from the seed documents), which need not be lattices; Check
// finds out, with counterexamples.
//
// A rule set is also a profile of its framework (Profile, Config.Profile):
// default dtypes, whether rank takes part in promotion (PyTorch's 0-dim
// tensors, ResultTypeRanked), what true division, float functions, sum,
// prod, cumsum and mean do to integers, and whether an out-of-range int
// literal is an error or wraps. Each profile cites its source; the torch and
// numpy profiles are tested against PyTorch and NumPy themselves
// (profile_torch_test.go, profile_numpy_test.go in package kiln), and
// docs/SPEC.md §2 lists them with the choices made for tensorflow and anvil.
//
// Choices where JAX and the spec are silent or differ:
//   - Inexact ops map bool and integers of up to 32 bits to f32 and 64-bit
//     integers to f64 (docs/SPEC.md §2); jax.numpy with x64 on would give f64 for all.
//   - Table-defined rule sets promote n operands by folding their binary
//     table left to right; TensorFlow's table is asymmetric, so operand order
//     matters there, as in TensorFlow.
//   - anvil: Kiln's weak operands are anvil's ambiguous ones; two ambiguous
//     operands promote as known ones, and every result is known (strong),
//     since anvil does not propagate ambiguity. anvil has no bf16, f16 or
//     complex dtypes: those operands are errors under its rules.
//   - Strict rules: bool has no edges, so bool with a weak literal does not
//     promote (JAX's strict lattice).
//   - An int literal promoted to an integer dtype must fit it
//     (CheckIntLiteral); promoted to a float dtype it rounds to nearest, and
//     beyond f16's range it becomes ±Inf, as in JAX.
package promote
