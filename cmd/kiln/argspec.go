package main

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"unicode"

	kilnpkg "github.com/kiln-go/kiln"
	"github.com/kiln-go/kiln/promote"
	"github.com/kiln-go/kiln/tensor"
)

// An --arg is NAME=SPEC, where SPEC is DTYPE[SHAPE]:VALUES, or DTYPE:VALUE
// for rank 0, with a * after the dtype for a weak argument (i64*:3,
// f64*[2]:1,2). VALUES is one of
//
//	a comma list   row-major; ints exact for integer dtypes, floats parsed as
//	               float64 and rounded once to the dtype (as NumPy does),
//	               nan inf -inf, true false, complex 1+2j -0.5j
//	arange         0, 1, 2, … converted to the dtype (wrapping, as astype)
//	zeros, ones
//	rand(SEED)     deterministic (PCG seeded with SEED): bool fair coin
//	               flips; signed ints uniform in [-100, 100]; unsigned ints
//	               uniform in [0, 200]; floats uniform in [0, 1) drawn as
//	               float64 and rounded once to the dtype (so f16 and bf16 can
//	               give 1); complex: real and imaginary parts each so.
//
// or SPEC is @FILE, an array file (files.go).

// argSpec is one parsed --arg.
type argSpec struct {
	name  string
	dtype tensor.DType
	weak  bool
	shape []int
	array *tensor.Array
	close func() // releases the file an @FILE argument maps; nil otherwise
}

// input is the argument kiln.Func.Run takes for the spec.
func (a argSpec) input() any {
	if a.weak {
		return kilnpkg.Weak(a.array)
	}
	return a.array
}

// specError is a bad --arg. Usage errors (the spec's form) exit with
// status 2; value errors (a list of the wrong length, a value the dtype
// cannot hold) are reported like other failures, with kind "argument".
type specError struct {
	Arg   string
	Msg   string
	Usage bool
	Err   error // the typed cause (a *tensor.SizeError), if any
}

func (e *specError) Error() string { return fmt.Sprintf("eval: --arg %s: %s", e.Arg, e.Msg) }

// Unwrap returns the typed cause.
func (e *specError) Unwrap() error { return e.Err }

func usageSpec(arg, format string, args ...any) *specError {
	return &specError{Arg: arg, Msg: fmt.Sprintf(format, args...), Usage: true}
}

func valueSpec(arg, format string, args ...any) *specError {
	return &specError{Arg: arg, Msg: fmt.Sprintf(format, args...)}
}

// causeSpec is a value error with a typed cause errors.As can find.
func causeSpec(arg string, err error) *specError {
	return &specError{Arg: arg, Msg: strings.TrimPrefix(err.Error(), "tensor: "), Err: err}
}

// parseArg parses NAME=SPEC.
func parseArg(s string) (argSpec, error) {
	name, spec, ok := strings.Cut(s, "=")
	if !ok {
		return argSpec{}, usageSpec(s, "want NAME=DTYPE[SHAPE]:VALUES, e.g. x=f32[3]:1,2,3")
	}
	name = strings.TrimSpace(name)
	if !isIdent(name) {
		return argSpec{}, usageSpec(s, "%q is not a name (letters, digits and _, not starting with a digit)", name)
	}
	if strings.HasPrefix(strings.TrimSpace(spec), "@") {
		a, closeFile, err := fileArg(name, spec)
		a.close = closeFile
		return a, err
	}
	typ, values, ok := strings.Cut(spec, ":")
	if !ok {
		return argSpec{}, usageSpec(name, "missing ':' before the values in %q (DTYPE[SHAPE]:VALUES)", spec)
	}
	a := argSpec{name: name, shape: []int{}}
	typ = strings.TrimSpace(typ)
	dt, rest, _ := strings.Cut(typ, "[")
	if strings.HasSuffix(dt, "*") {
		a.weak, dt = true, strings.TrimSuffix(dt, "*")
	}
	d, err := tensor.ParseDType(dt)
	if err != nil {
		return argSpec{}, usageSpec(name, "%v", strings.TrimPrefix(err.Error(), "tensor: "))
	}
	a.dtype = d
	if strings.Contains(typ, "[") {
		dims, ok := strings.CutSuffix(rest, "]")
		if !ok {
			return argSpec{}, usageSpec(name, "shape %q: want [D0,D1,…]", "["+rest)
		}
		if a.shape, err = parseShape(dims); err != nil {
			return argSpec{}, usageSpec(name, "shape [%s]: %v", dims, err)
		}
	}
	if a.array, err = a.values(strings.TrimSpace(values)); err != nil {
		return argSpec{}, err
	}
	return a, nil
}

func isIdent(s string) bool {
	if s == "" || s == "True" || s == "False" || s == "None" {
		return false
	}
	for i, r := range s {
		if !(r == '_' || unicode.IsLetter(r) || i > 0 && unicode.IsDigit(r)) {
			return false
		}
	}
	return true
}

func parseShape(dims string) ([]int, error) {
	shape := []int{}
	if strings.TrimSpace(dims) == "" {
		return shape, nil
	}
	for _, f := range strings.Split(dims, ",") {
		d, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || d < 0 {
			return nil, fmt.Errorf("dimension %q is not a non-negative int", strings.TrimSpace(f))
		}
		shape = append(shape, d)
	}
	return shape, nil
}

// values makes the argument's array from VALUES. The shape is checked
// (tensor.CheckAlloc) before anything is allocated, for the array and for
// the int64/float64/complex128 staging array ones, rand and lists fill
// first: a typo such as f32[1000000000000] is an error naming the shape,
// not an out-of-memory crash.
func (a argSpec) values(vs string) (*tensor.Array, error) {
	staging := tensor.I64
	if a.dtype.IsComplex() {
		staging = tensor.C128
	}
	for _, d := range []tensor.DType{a.dtype, staging} {
		if _, err := tensor.CheckAlloc(d, a.shape); err != nil {
			return nil, causeSpec(a.name, err)
		}
	}
	n, _ := tensor.ShapeSize(a.shape) // checked above
	var flat *tensor.Array
	var err error
	switch {
	case vs == "arange":
		flat, err = tensor.Arange(a.dtype, n)
	case vs == "zeros":
		flat, err = tensor.Zeros(a.dtype, n)
	case vs == "ones":
		ones := make([]int64, n)
		for i := range ones {
			ones[i] = 1
		}
		flat = mustSlice(ones).Astype(a.dtype)
	case strings.HasPrefix(vs, "rand(") && strings.HasSuffix(vs, ")"):
		seed, err := strconv.ParseUint(strings.TrimSpace(vs[5:len(vs)-1]), 10, 64)
		if err != nil {
			return nil, usageSpec(a.name, "rand(SEED) needs a non-negative int seed, got %q", vs)
		}
		flat = randomArray(a.dtype, n, seed)
	default:
		var list []string
		if vs != "" {
			list = strings.Split(vs, ",")
		}
		if len(list) != n {
			return nil, valueSpec(a.name, "shape %s needs %d values, got %d", shapeText(a.shape), n, len(list))
		}
		if flat, err = parseList(a.dtype, list); err != nil {
			return nil, valueSpec(a.name, "%v", err)
		}
	}
	if err != nil {
		return nil, causeSpec(a.name, err)
	}
	out, err := flat.Reshape(a.shape...)
	if err != nil {
		return nil, valueSpec(a.name, "%v", err)
	}
	return out, nil
}

func mustSlice[T tensor.Elem](s []T) *tensor.Array {
	a, err := tensor.FromSlice(s)
	if err != nil {
		panic(err) // unreachable: a 1-D array of the slice's length
	}
	return a
}

// parseList parses a comma list at dtype d: ints exactly, floats as
// float64 rounded once to d, complex as complex128 rounded once.
func parseList(d tensor.DType, list []string) (*tensor.Array, error) {
	switch {
	case d == tensor.Bool:
		out := make([]bool, len(list))
		for i, s := range list {
			switch strings.ToLower(strings.TrimSpace(s)) {
			case "true", "1":
				out[i] = true
			case "false", "0":
			default:
				return nil, fmt.Errorf("value %d: %q is not a bool (true, false, 1 or 0)", i, s)
			}
		}
		return mustSlice(out), nil
	case d.IsUnsigned():
		out := make([]uint64, len(list))
		for i, s := range list {
			b, isBool := parseBoolNumber(s)
			if isBool {
				out[i] = uint64(b)
				continue
			}
			text, base := intBase(s)
			v, err := strconv.ParseUint(text, base, d.Bits())
			if _, serr := strconv.ParseInt(text, base, 64); err != nil && serr == nil {
				err = strconv.ErrRange // a negative int: out of the unsigned range
			}
			if err != nil {
				return nil, intError(i, s, d, err)
			}
			out[i] = v
		}
		return mustSlice(out).Astype(d), nil
	case d.IsInteger():
		out := make([]int64, len(list))
		for i, s := range list {
			b, isBool := parseBoolNumber(s)
			if isBool {
				out[i] = int64(b)
				continue
			}
			text, base := intBase(s)
			v, err := strconv.ParseInt(text, base, d.Bits())
			if err != nil {
				return nil, intError(i, s, d, err)
			}
			out[i] = v
		}
		return mustSlice(out).Astype(d), nil
	case d.IsComplex():
		out := make([]complex128, len(list))
		for i, s := range list {
			c, err := parseComplex(s)
			if err != nil {
				return nil, fmt.Errorf("value %d: %q is not a complex number (1+2j, -0.5j, 3)", i, s)
			}
			out[i] = c
		}
		return mustSlice(out).Astype(d), nil
	}
	out := make([]float64, len(list))
	for i, s := range list {
		f, err := parseFloat(s)
		if err != nil {
			return nil, fmt.Errorf("value %d: %q is not a number", i, s)
		}
		out[i] = f
	}
	return mustSlice(out).Astype(d), nil
}

// parseBoolNumber reads true/false as 1/0 in a numeric list.
func parseBoolNumber(s string) (int, bool) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "true":
		return 1, true
	case "false":
		return 0, true
	}
	return 0, false
}

// intBase strips a sign-preserving 0x/0o/0b prefix: ParseInt with base 0
// would read a leading 0 as octal.
func intBase(s string) (string, int) {
	s = strings.TrimSpace(s)
	body := strings.TrimLeft(s, "+-")
	if len(body) > 2 && body[0] == '0' && strings.ContainsRune("xXoObB", rune(body[1])) {
		return s, 0
	}
	return s, 10
}

func intError(i int, s string, d tensor.DType, err error) error {
	if errors.Is(err, strconv.ErrRange) {
		lo, hi := promote.IntRange(d)
		return fmt.Errorf("value %d: %s does not fit %s (range %s..%s)", i, strings.TrimSpace(s), d, lo, hi)
	}
	return fmt.Errorf("value %d: %q is not an integer (the dtype is %s)", i, strings.TrimSpace(s), d)
}

func parseFloat(s string) (float64, error) {
	s = strings.TrimSpace(s)
	if b, ok := parseBoolNumber(s); ok {
		return float64(b), nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil && errors.Is(err, strconv.ErrRange) {
		return f, nil // ±inf or a subnormal rounded to 0, as Python's float()
	}
	return f, err
}

// parseComplex reads Python's complex spelling (1+2j, -0.5j, (1-1j), 3)
// with Go's parser after turning j into i.
func parseComplex(s string) (complex128, error) {
	s = strings.TrimSpace(s)
	s = strings.TrimSuffix(strings.TrimPrefix(s, "("), ")")
	if strings.HasSuffix(s, "j") || strings.HasSuffix(s, "J") {
		s = s[:len(s)-1] + "i"
	}
	if b, ok := parseBoolNumber(s); ok {
		return complex(float64(b), 0), nil
	}
	c, err := strconv.ParseComplex(s, 128)
	if err != nil && errors.Is(err, strconv.ErrRange) {
		return c, nil
	}
	return c, err
}

// randomArray draws n values for dtype d from a PCG seeded with seed, the
// distributions documented above. The mapping from the generator's 64-bit
// outputs to values is written out here so it cannot change under us.
func randomArray(d tensor.DType, n int, seed uint64) *tensor.Array {
	src := rand.NewPCG(seed, 0x6b696c6e) // "kiln"
	unit := func() float64 { return float64(src.Uint64()>>11) / (1 << 53) }
	switch {
	case d == tensor.Bool:
		out := make([]bool, n)
		for i := range out {
			out[i] = src.Uint64()>>63 == 1
		}
		return mustSlice(out)
	case d.IsUnsigned():
		out := make([]int64, n)
		for i := range out {
			out[i] = int64(src.Uint64() % 201)
		}
		return mustSlice(out).Astype(d)
	case d.IsInteger():
		out := make([]int64, n)
		for i := range out {
			out[i] = int64(src.Uint64()%201) - 100
		}
		return mustSlice(out).Astype(d)
	case d.IsComplex():
		out := make([]complex128, n)
		for i := range out {
			re := unit()
			out[i] = complex(re, unit())
		}
		return mustSlice(out).Astype(d)
	}
	out := make([]float64, n)
	for i := range out {
		out[i] = unit()
	}
	return mustSlice(out).Astype(d)
}
