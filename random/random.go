// Package random is jax.random for Kiln: counter-based pseudo-random
// numbers from the Threefry-2x32 block cipher, with keys as ordinary data.
//
// Every function here is pure: the same key gives the same numbers, in a
// jitted function, inside a loop or fused into a kernel, on every backend
// and at every SIMD tier. Nothing is stateful; to draw again, derive a new
// key with Split or FoldIn, as in JAX.
//
// # Which JAX this matches
//
// The algorithms are jax.random's for its default implementation
// ("threefry2x32") with jax_threefry_partitionable=True, the default since
// JAX 0.5.0, and with jax_enable_x64 when the trace's promotion config has
// 64-bit defaults (Kiln's default):
//
//   - Key(seed) is the u32[2] key [seed >> 32, seed & 0xFFFFFFFF] of a
//     64-bit seed (jax.random.PRNGKey; with 32-bit seeds the high word is 0).
//   - The i-th of n values drawn from key k (row-major order over the
//     shape) is Threefry-2x32 of the counter (i >> 32, i & 0xFFFFFFFF)
//     under k: 32-bit draws are the xor of the two output words, 64-bit
//     draws the two words high first, 8- and 16-bit draws the xor
//     truncated.
//   - Split(k, n)[i] is the two output words for counter i; FoldIn(k, d) is
//     the two output words for counter (0, uint32(d)).
//   - Uniform fills the mantissa of a float in [1, 2) with the draw's high
//     bits and subtracts 1; bf16 uses 8 random bits, as JAX does. Normal is
//     √2·erfinv(u) for u uniform in (−1, 1); TruncatedNormal, Bernoulli,
//     Gumbel and Categorical are JAX's compositions of these.
//
// So random.Uniform(random.Key(0), nil, tensor.F32) is 0.947667, the
// value jax.random.uniform(jax.random.key(0)) prints, and the tests pin
// more values derived from the cipher's specification (Random123's
// known-answer vectors) by an independent implementation.
//
// Dtypes are an optional last argument. Their defaults follow the trace:
// the default float (f64, or f32 with Config.X32) for the samplers and the
// default unsigned integer (u64, or u32) for Bits, as JAX's dtypes.float_
// and jnp.uint.
//
// Permutation and Shuffle are JAX's _shuffle: rounds of lax.sort_key_val
// (trace.SortMany, stable, one key) of fresh random u32 keys with the
// values as payload, so the results are JAX's exactly.
package random

import (
	"fmt"
	"math"
	"slices"

	"github.com/kiln-go/kiln/promote"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// Key returns the key for seed (jax.random.PRNGKey(seed) with 64-bit
// seeds): a u32[2] constant holding the seed's high and low words.
func Key(seed int64) trace.Value {
	u := uint64(seed)
	return trace.Const(tensor.Must(tensor.FromSlice([]uint32{uint32(u >> 32), uint32(u)}, 2)))
}

// KeyFrom returns the key for a traced integer seed (jax.random.PRNGKey of
// a traced value): [seed >> 32, seed & 0xFFFFFFFF] for a 64-bit seed,
// [0, seed] for a narrower one (its bits reinterpreted as unsigned).
func KeyFrom(seed trace.Value) trace.Value {
	t := seed.Type()
	if err := seed.Err(); err != nil {
		return seed
	}
	if len(seed.Shape()) != 0 {
		return fail(&trace.ShapeError{Op: "random.key", Pos: trace.CallerPos(), Shapes: [][]int{seed.Shape()},
			Msg: fmt.Sprintf("PRNGKey accepts a scalar seed, but was given an array of shape %v", seed.Shape())})
	}
	if !t.DType.IsInteger() {
		return fail(&trace.DTypeError{Op: "random.key", Pos: trace.CallerPos(), Types: []promote.Type{t},
			Msg: fmt.Sprintf("PRNG key seed must be an integer; got %s", t)})
	}
	return trace.WithConfig(seed, func(cfg promote.Config) trace.Value {
		d := t.DType
		if t.Weak {
			d = cfg.DefaultInt()
		}
		if d.Bits() < 64 {
			lo := seed.Astype(signedOf(d)).Astype(unsignedOf(d)).Astype(tensor.U32)
			return trace.Concatenate(0, u32(0).Reshape(1), lo.Reshape(1))
		}
		w := seed.Astype(tensor.U64)
		return pair(w)
	})
}

// Split returns n new keys derived from key, as a u32[n, 2] array
// (jax.random.split). Use .Index(i) for the i-th.
func Split(key trace.Value, n int) trace.Value {
	k, err := keyWords("random.split", key)
	if err != nil {
		return fail(err)
	}
	if n < 0 {
		return fail(&trace.ShapeError{Op: "random.split", Pos: trace.CallerPos(), Msg: fmt.Sprintf("split of %d keys", n)})
	}
	w := trace.Threefry2x32(k, trace.Iota(tensor.U64, []int{n}, 0))
	return trace.Concatenate(1, hi(w).Reshape(n, 1), lo(w).Reshape(n, 1))
}

// FoldIn returns a new key that mixes data into key (jax.random.fold_in):
// data is a scalar integer taken modulo 2³², as JAX's jnp.uint32(data).
func FoldIn(key, data trace.Value) trace.Value {
	k, err := keyWords("random.fold_in", key)
	if err != nil {
		return fail(err)
	}
	if e := data.Err(); e != nil {
		return data
	}
	t := data.Type()
	if len(data.Shape()) != 0 || !(t.DType.IsInteger() || t.DType == tensor.Bool) {
		return fail(&trace.DTypeError{Op: "random.fold_in", Pos: trace.CallerPos(), Types: []promote.Type{t},
			Msg: fmt.Sprintf("fold_in accepts a scalar integer, but was given %s of shape %v", t, data.Shape())})
	}
	return pair(trace.Threefry2x32(k, wrapU32(data).Astype(tensor.U64)))
}

// Bits returns random unsigned integers of dtype d (u8, u16, u32 or u64;
// without d, the default unsigned integer) and the given shape
// (jax.random.bits).
func Bits(key trace.Value, shape []int, dtype ...tensor.DType) trace.Value {
	d, derr := optDType("random.bits", dtype)
	if derr != nil {
		return fail(derr)
	}
	k, err := keyWords("random.bits", key)
	if err != nil {
		return fail(err)
	}
	if err := checkShape("random.bits", shape); err != nil {
		return fail(err)
	}
	return trace.WithConfig(key, func(cfg promote.Config) trace.Value {
		if derr == nil && len(dtype) == 0 {
			d = cfg.DefaultUint()
		}
		if !d.IsUnsigned() {
			return fail(&trace.DTypeError{Op: "random.bits", Pos: trace.CallerPos(),
				Msg: fmt.Sprintf("dtype argument to `bits` must be an unsigned int dtype, got %v", d)})
		}
		return randomBits(k, d.Bits(), shape)
	})
}

// Uniform returns floats of dtype d uniform in [0, 1)
// (jax.random.uniform); without d, the default float.
func Uniform(key trace.Value, shape []int, dtype ...tensor.DType) trace.Value {
	return UniformIn(key, shape, trace.Float(0), trace.Float(1), dtype...)
}

// UniformIn returns floats of dtype d uniform in [minval, maxval), the
// bounds broadcasting to shape (jax.random.uniform with minval, maxval).
func UniformIn(key trace.Value, shape []int, minval, maxval trace.Value, dtype ...tensor.DType) trace.Value {
	return sampler("random.uniform", key, shape, dtype, false, func(k trace.Value, d tensor.DType) trace.Value {
		if err := checkParams("uniform", shape, minval, maxval); err != nil {
			return fail(err)
		}
		return uniform(k, shape, d, minval, maxval)
	})
}

// Normal returns standard normal samples of dtype d (jax.random.normal);
// without d, the default float. A complex d draws the real and
// imaginary parts from two split keys and scales them by 1/√2, as JAX.
func Normal(key trace.Value, shape []int, dtype ...tensor.DType) trace.Value {
	return sampler("random.normal", key, shape, dtype, true, func(k trace.Value, d tensor.DType) trace.Value {
		if !d.IsComplex() {
			return normalReal(k, shape, d)
		}
		real := tensor.F64
		if d == tensor.C64 {
			real = tensor.F32
		}
		re := normalReal(splitWords(k, 0), shape, real).Astype(d)
		im := normalReal(splitWords(k, 1), shape, real).Astype(d)
		return re.Add(trace.Complex(complex(0, 1)).Mul(im)).Div(constOf(d, math.Sqrt2))
	})
}

// TruncatedNormal returns standard normal samples of dtype d truncated to
// (lower, upper) (jax.random.truncated_normal): √2·erfinv of a uniform
// between erf(lower/√2) and erf(upper/√2), clipped into the open
// interval. A nil shape is the broadcast of the bounds' shapes.
func TruncatedNormal(key, lower, upper trace.Value, shape []int, dtype ...tensor.DType) trace.Value {
	if shape == nil {
		s, ok := trace.BroadcastShapes(lower.Shape(), upper.Shape())
		if !ok {
			return fail(&trace.ShapeError{Op: "random.truncated_normal", Pos: trace.CallerPos(), Shapes: [][]int{lower.Shape(), upper.Shape()},
				Msg: fmt.Sprintf("the bounds' shapes %v and %v do not broadcast", lower.Shape(), upper.Shape())})
		}
		shape = s
	}
	return sampler("random.truncated_normal", key, shape, dtype, false, func(k trace.Value, d tensor.DType) trace.Value {
		if err := checkParams("truncated_normal", shape, lower, upper); err != nil {
			return fail(err)
		}
		sqrt2 := constOf(d, math.Sqrt2)
		lo, up := lower.Astype(d), upper.Astype(d)
		a := lo.Div(sqrt2).Erf()
		b := up.Div(sqrt2).Erf()
		out := sqrt2.Mul(uniform(k, shape, d, a, b).ErfInv())
		inf := constOf(d, math.Inf(1))
		return out.Clip(trace.StopGradient(lo).Nextafter(inf), trace.StopGradient(up).Nextafter(inf.Neg()))
	})
}

// Bernoulli returns booleans that are true with probability p
// (jax.random.bernoulli): uniform(key, shape, p's dtype) < p. p must be a
// float; a weak literal such as trace.Float(0.5) takes the default float.
// A nil shape is p's shape.
func Bernoulli(key, p trace.Value, shape []int) trace.Value {
	if err := p.Err(); err != nil {
		return p
	}
	t := p.Type()
	if !t.DType.IsFloat() {
		return fail(&trace.DTypeError{Op: "random.bernoulli", Pos: trace.CallerPos(), Types: []promote.Type{t},
			Msg: fmt.Sprintf("bernoulli probability `p` must have a floating dtype, got %s", t)})
	}
	if shape == nil {
		shape = p.Shape()
	}
	var d []tensor.DType
	if !t.Weak {
		d = []tensor.DType{t.DType}
	}
	return sampler("random.bernoulli", key, shape, d, false, func(k trace.Value, d tensor.DType) trace.Value {
		if err := checkParams("bernoulli", shape, p); err != nil {
			return fail(err)
		}
		return uniform(k, shape, d, trace.Float(0), trace.Float(1)).Lt(p.Astype(d))
	})
}

// Gumbel returns samples of the standard Gumbel distribution
// (jax.random.gumbel, mode "low"): −log(−log(u)) for u uniform in
// [tiny, 1).
func Gumbel(key trace.Value, shape []int, dtype ...tensor.DType) trace.Value {
	return sampler("random.gumbel", key, shape, dtype, false, func(k trace.Value, d tensor.DType) trace.Value {
		return gumbel(k, shape, d)
	})
}

// Categorical returns samples of the categorical distribution with the
// given unnormalized log-probabilities along axis
// (jax.random.categorical with replace=True): the argmax of logits plus
// Gumbel noise. A nil shape is logits' shape without axis; otherwise it
// must end with that batch shape, and the leading dimensions draw
// independent samples.
func Categorical(key, logits trace.Value, axis int, shape []int) trace.Value {
	if err := logits.Err(); err != nil {
		return logits
	}
	t, ls := logits.Type(), logits.Shape()
	if !t.DType.IsFloat() {
		return fail(&trace.DTypeError{Op: "random.categorical", Pos: trace.CallerPos(), Types: []promote.Type{t},
			Msg: fmt.Sprintf("categorical logits must have a floating dtype, got %s", t)})
	}
	r := len(ls)
	if axis < -r || axis >= r {
		return fail(&trace.ShapeError{Op: "random.categorical", Pos: trace.CallerPos(), Shapes: [][]int{ls},
			Msg: fmt.Sprintf("axis %d is out of bounds for logits of shape %v", axis, ls)})
	}
	if axis >= 0 {
		axis -= r
	}
	batch := slices.Delete(slices.Clone(ls), r+axis, r+axis+1)
	if shape == nil {
		shape = batch
	}
	if len(shape) < len(batch) || !slices.Equal(shape[len(shape)-len(batch):], batch) {
		return fail(&trace.ShapeError{Op: "random.categorical", Pos: trace.CallerPos(), Shapes: [][]int{shape, batch},
			Msg: fmt.Sprintf("shape %v must end with the logits' batch shape %v", shape, batch)})
	}
	prefix := shape[:len(shape)-len(batch)]
	full := append(slices.Clone(prefix), ls...)
	var d []tensor.DType
	if !t.Weak {
		d = []tensor.DType{t.DType}
	}
	return sampler("random.categorical", key, full, d, false, func(k trace.Value, d tensor.DType) trace.Value {
		expanded := logits.Astype(d).Reshape(append(ones(len(prefix)), ls...)...)
		return gumbel(k, full, d).Add(expanded).ArgMax(len(full) + axis)
	})
}

// Permutation returns a random permutation of 0, 1, …, n−1 in the default
// int dtype (jax.random.permutation with an integer).
func Permutation(key trace.Value, n int) trace.Value {
	k, err := keyWords("random.permutation", key)
	if err != nil {
		return fail(err)
	}
	if n < 0 {
		return fail(&trace.ShapeError{Op: "random.permutation", Pos: trace.CallerPos(), Msg: fmt.Sprintf("a permutation of %d elements", n)})
	}
	return trace.WithConfig(key, func(cfg promote.Config) trace.Value {
		return shuffle(k, trace.Iota(cfg.DefaultInt(), []int{n}, 0), n)
	})
}

// Shuffle returns x with its slices along axis in a random order
// (jax.random.permutation with an array and independent=False): the same
// order Permutation(key, x.Shape()[axis]) gives.
func Shuffle(key, x trace.Value, axis int) trace.Value {
	k, err := keyWords("random.permutation", key)
	if err != nil {
		return fail(err)
	}
	if e := x.Err(); e != nil {
		return x
	}
	s := x.Shape()
	if len(s) == 0 {
		return fail(&trace.ShapeError{Op: "random.permutation", Pos: trace.CallerPos(), Shapes: [][]int{s},
			Msg: "x must be an integer or at least 1-dimensional"})
	}
	if axis < 0 {
		axis += len(s)
	}
	if axis < 0 || axis >= len(s) {
		return fail(&trace.ShapeError{Op: "random.permutation", Pos: trace.CallerPos(), Shapes: [][]int{s},
			Msg: fmt.Sprintf("axis %d is out of bounds for an array of rank %d", axis, len(s))})
	}
	n := s[axis]
	return trace.WithConfig(key, func(cfg promote.Config) trace.Value {
		perm := shuffle(k, trace.Iota(cfg.DefaultInt(), []int{n}, 0), n)
		return trace.Take(x, perm, axis)
	})
}

// optDType is the optional dtype argument: none, or one.
func optDType(op string, dtype []tensor.DType) (tensor.DType, error) {
	switch len(dtype) {
	case 0:
		return 0, nil
	case 1:
		if !dtype[0].Valid() {
			return 0, &trace.DTypeError{Op: op, Pos: trace.CallerPos(), Msg: fmt.Sprintf("an invalid dtype %v", dtype[0])}
		}
		return dtype[0], nil
	}
	return 0, &trace.DTypeError{Op: op, Pos: trace.CallerPos(), Msg: fmt.Sprintf("one dtype at most, got %v", dtype)}
}

// sampler resolves d (none given: the default float), checks that it is a float
// (or, with complexOK, a complex) dtype and the shape, and builds.
func sampler(op string, key trace.Value, shape []int, dtype []tensor.DType, complexOK bool, build func(k trace.Value, d tensor.DType) trace.Value) trace.Value {
	d, err := optDType(op, dtype)
	if err != nil {
		return fail(err)
	}
	k, err := keyWords(op, key)
	if err != nil {
		return fail(err)
	}
	if err := checkShape(op, shape); err != nil {
		return fail(err)
	}
	pos := trace.CallerPos()
	return trace.WithConfig(key, func(cfg promote.Config) trace.Value {
		if len(dtype) == 0 {
			d = cfg.DefaultFloat()
		}
		if !d.IsFloat() && !(complexOK && d.IsComplex()) {
			kind := "a float"
			if complexOK {
				kind = "a float or complex"
			}
			name := op[len("random."):]
			return fail(&trace.DTypeError{Op: op, Pos: pos,
				Msg: fmt.Sprintf("dtype argument to `%s` must be %s dtype, got %v", name, kind, d)})
		}
		return build(k, d)
	})
}

// keyWords checks that key is one u32[2] key and returns it as the u64
// k0<<32 | k1 that the threefry2x32 primitive takes.
func keyWords(op string, key trace.Value) (trace.Value, error) {
	if err := key.Err(); err != nil {
		return key, err
	}
	t, s := key.Type(), key.Shape()
	if t.DType != tensor.U32 {
		return key, &trace.DTypeError{Op: op, Pos: trace.CallerPos(), Types: []promote.Type{t},
			Msg: fmt.Sprintf("a PRNG key is a u32[2] array (random.Key), not %s%v", t.DType, s)}
	}
	if !slices.Equal(s, []int{2}) {
		return key, &trace.ShapeError{Op: op, Pos: trace.CallerPos(), Shapes: [][]int{s},
			Msg: fmt.Sprintf("%s accepts a single key of shape [2], but was given a key array of shape %v; take one with .Index(i)", op[len("random."):], s)}
	}
	return key.Index(0).Astype(tensor.U64).Shl(u64(32)).Or(key.Index(1).Astype(tensor.U64)), nil
}

// splitWords is key i of Split(k, 2), as packed words.
func splitWords(k trace.Value, i uint64) trace.Value {
	return trace.Threefry2x32(k, u64(i))
}

func checkShape(op string, shape []int) error {
	for _, n := range shape {
		if n < 0 {
			return &trace.ShapeError{Op: op, Pos: trace.CallerPos(), Shapes: [][]int{shape},
				Msg: fmt.Sprintf("negative dimension in shape %v", shape)}
		}
	}
	if _, err := tensor.ShapeSize(shape); err != nil {
		return &trace.ShapeError{Op: op, Pos: trace.CallerPos(), Shapes: [][]int{shape}, Msg: err.Error()}
	}
	return nil
}

// checkParams is JAX's _check_shape: the parameters broadcast to shape.
func checkParams(name string, shape []int, params ...trace.Value) error {
	shapes := [][]int{shape}
	for _, p := range params {
		shapes = append(shapes, p.Shape())
	}
	got, ok := trace.BroadcastShapes(shapes...)
	if !ok || !slices.Equal(got, shape) {
		return &trace.ShapeError{Op: "random." + name, Pos: trace.CallerPos(), Shapes: shapes,
			Msg: fmt.Sprintf("%s parameter shapes must be broadcast-compatible with shape argument, and the result of broadcasting the shapes must equal the shape argument, but got result %v for shape argument %v", name, got, shape)}
	}
	return nil
}

// randomBits is JAX's _threefry_random_bits_partitionable: element i of
// the row-major shape is threefry(k, i).
func randomBits(k trace.Value, bits int, shape []int) trace.Value {
	n, _ := tensor.ShapeSize(shape)
	w := trace.Threefry2x32(k, trace.Iota(tensor.U64, []int{n}, 0)).Reshape(shape...)
	switch bits {
	case 64:
		return w
	case 32:
		return w.Shr(u64(32)).Xor(w).Astype(tensor.U32)
	}
	return w.Shr(u64(32)).Xor(w).Astype(tensor.U32).Astype(unsignedBits(bits))
}

// uniform is JAX's _uniform.
func uniform(k trace.Value, shape []int, d tensor.DType, minval, maxval trace.Value) trace.Value {
	nbits, nmant := d.Bits(), mantissa(d)
	rng := nbits
	if nmant < 8 {
		rng = 8
	}
	ud := unsignedBits(nbits)
	bits := randomBits(k, rng, shape)
	if rng != nbits {
		bits = bits.Astype(ud)
	}
	one := trace.Const(tensor.Scalar(1.0).Astype(d)).BitcastConvert(ud)
	fb := bits.Shr(trace.Const(tensor.Scalar(uint64(rng - nmant)).Astype(ud))).Or(one)
	floats := fb.BitcastConvert(d).Sub(constOf(d, 1))
	lo, hi := minval.Astype(d), maxval.Astype(d)
	return lo.Maximum(floats.Mul(hi.Sub(lo)).Add(lo))
}

// normalReal is JAX's _normal_real.
func normalReal(k trace.Value, shape []int, d tensor.DType) trace.Value {
	u := uniform(k, shape, d, constOf(d, nextDown(d)), constOf(d, 1))
	return constOf(d, math.Sqrt2).Mul(u.ErfInv())
}

// gumbel is JAX's _gumbel in mode "low".
func gumbel(k trace.Value, shape []int, d tensor.DType) trace.Value {
	return uniform(k, shape, d, constOf(d, tiny(d)), constOf(d, 1)).Log().Neg().Log().Neg()
}

// shuffle is JAX's _shuffle of x (a rank-1 array of n elements): rounds of
// a stable sort by fresh 32-bit random keys (lax.sort_key_val, num_keys=1,
// x the payload), each round's key the second of a split of the previous
// one.
func shuffle(k trace.Value, x trace.Value, n int) trace.Value {
	rounds := int(math.Ceil(3 * math.Log(max(1, float64(n))) / math.Log(math.MaxUint32)))
	for range rounds {
		sub := splitWords(k, 1)
		k = splitWords(k, 0)
		x = trace.SortMany([]trace.Value{randomBits(sub, 32, []int{n}), x}, 0, 1, true)[1]
	}
	return x
}

func fail(err error) trace.Value { return trace.Failure(err) }

// pair unpacks a u64 holding two words, high first, into a u32[2] key.
func pair(w trace.Value) trace.Value {
	return trace.Concatenate(0, hi(w).Reshape(1), lo(w).Reshape(1))
}

func hi(w trace.Value) trace.Value { return w.Shr(u64(32)).Astype(tensor.U32) }
func lo(w trace.Value) trace.Value { return w.Astype(tensor.U32) }

// wrapU32 is jnp.uint32(x) of an integer: its value modulo 2³².
func wrapU32(x trace.Value) trace.Value {
	t := x.Type()
	if t.Weak || t.DType == tensor.Bool {
		return x.Astype(tensor.I64).Astype(tensor.U64).Astype(tensor.U32)
	}
	return x.Astype(signedOf(t.DType)).Astype(unsignedOf(t.DType)).Astype(tensor.U32)
}

func u32(v uint32) trace.Value { return trace.Const(tensor.Scalar(v)) }
func u64(v uint64) trace.Value { return trace.Const(tensor.Scalar(v)) }

// constOf is v as a strong rank-0 constant of dtype d.
func constOf(d tensor.DType, v float64) trace.Value {
	return trace.Const(tensor.Scalar(v).Astype(d))
}

func ones(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = 1
	}
	return s
}

func unsignedBits(bits int) tensor.DType {
	switch bits {
	case 8:
		return tensor.U8
	case 16:
		return tensor.U16
	case 32:
		return tensor.U32
	}
	return tensor.U64
}

func signedOf(d tensor.DType) tensor.DType {
	switch d.Bits() {
	case 8:
		return tensor.I8
	case 16:
		return tensor.I16
	case 32:
		return tensor.I32
	}
	return tensor.I64
}

func unsignedOf(d tensor.DType) tensor.DType { return unsignedBits(d.Bits()) }

// mantissa is finfo(d).nmant: the stored fraction bits.
func mantissa(d tensor.DType) int {
	switch d {
	case tensor.F16:
		return 10
	case tensor.BF16:
		return 7
	case tensor.F32:
		return 23
	}
	return 52
}

// nextDown is nextafter(−1, 0) in d.
func nextDown(d tensor.DType) float64 { return -1 + math.Ldexp(1, -mantissa(d)-1) }

// tiny is finfo(d).tiny, the smallest normal number.
func tiny(d tensor.DType) float64 {
	switch d {
	case tensor.F16:
		return math.Ldexp(1, -14)
	case tensor.F32, tensor.BF16:
		return math.Ldexp(1, -126)
	}
	return math.Ldexp(1, -1022)
}
