package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// stackOf is stack((ex(0), …, ex(n-1)), axis=axis): the per-example
// evaluations a vmap must equal.
func stackOf(n, axis int, ex func(i int) string) string {
	parts := make([]string, n)
	for i := range parts {
		parts[i] = ex(i)
	}
	return fmt.Sprintf("stack((%s,), axis=%d)", strings.Join(parts, ", "), axis)
}

// vmapArgs are the arguments of the vmap tests: x a batch of 3 rows of 4,
// w a vector of 4, W a 4x2 matrix, u and v vectors of 3 and 2.
var vmapArgs = []string{"--arg", "x=f32[3,4]:rand(1)", "--arg", "w=f32[4]:rand(2)", "--arg", "W=f32[4,2]:rand(3)",
	"--arg", "u=f64[3]:1,2,3", "--arg", "v=f64[2]:10,20"}

// TestEvalVmapStacks checks vmap against its definition: the result
// equals, bit for bit and dtype for dtype, every example's result stacked
// along out_axes.
func TestEvalVmapStacks(t *testing.T) {
	row := func(i int) string { return fmt.Sprintf("x[%d]", i) }
	col := func(i int) string { return fmt.Sprintf("x[:, %d]", i) }
	for _, c := range []struct {
		name, vmap, stacked string
	}{
		{"in_axes=0", "vmap(lambda r: tanh(r @ W) + r[0])(x)",
			stackOf(3, 0, func(i int) string { return fmt.Sprintf("tanh(%s @ W) + %s[0]", row(i), row(i)) })},
		{"default in_axes on two arguments", "vmap(lambda r, s: r * s)(x, x)",
			stackOf(3, 0, func(i int) string { return row(i) + " * " + row(i) })},
		{"in_axes tuple with None", "vmap(lambda r, b: sum(r * b), in_axes=(0, None))(x, w)",
			stackOf(3, 0, func(i int) string { return "sum(" + row(i) + " * w)" })},
		{"in_axes None first", "vmap(lambda m, r: r @ m, in_axes=(None, 0))(W, x)",
			stackOf(3, 0, func(i int) string { return row(i) + " @ W" })},
		{"in_axes=1", "vmap(lambda c: c * c + 1, in_axes=1)(x)",
			stackOf(4, 0, func(i int) string { return col(i) + " * " + col(i) + " + 1" })},
		{"in_axes=-1", "vmap(lambda c, b: max(c) * b, in_axes=(-1, 0))(x, w)",
			stackOf(4, 0, func(i int) string { return fmt.Sprintf("max(%s) * w[%d]", col(i), i) })},
		{"out_axes=1", "vmap(lambda r: r @ W, out_axes=1)(x)",
			stackOf(3, 1, func(i int) string { return row(i) + " @ W" })},
		{"out_axes=-1", "vmap(lambda r: exp(r), out_axes=-1)(x)",
			stackOf(3, 1, func(i int) string { return "exp(" + row(i) + ")" })},
		{"in_axes=1, out_axes=1", "vmap(lambda c: cumsum(c), in_axes=1, out_axes=1)(x)", "cumsum(x, axis=0)"},
		{"an unbatched result is broadcast", "vmap(lambda r: sum(w), in_axes=0)(x)",
			stackOf(3, 0, func(int) string { return "sum(w)" })},
		{"tuple result", "vmap(lambda r: (r * 2, sum(r)))(x)[1]",
			stackOf(3, 0, func(i int) string { return "sum(" + row(i) + ")" })},
		{"out_axes per element", "vmap(lambda r: (r * 2, sum(r)), out_axes=(1, 0))(x)[0]",
			stackOf(3, 1, func(i int) string { return row(i) + " * 2" })},
		{"out_axes=None for an unbatched element", "vmap(lambda r, b: (r * b, b * 2), in_axes=(0, None), out_axes=(0, None))(x, w)[1]", "w * 2"},
		{"axis_size without a batched argument", "vmap(lambda b: b * 2, in_axes=None, axis_size=3)(w)",
			stackOf(3, 0, func(int) string { return "w * 2" })},
		{"axis_size with no arguments", "vmap(lambda: 1.5, axis_size=2)()",
			stackOf(2, 0, func(int) string { return "1.5" })},
		{"nested: an outer product", "vmap(vmap(lambda a, b: a * b, in_axes=(None, 0)), in_axes=(0, None))(u, v)",
			stackOf(3, 0, func(i int) string {
				return stackOf(2, 0, func(j int) string { return fmt.Sprintf("u[%d] * v[%d]", i, j) })
			})},
		{"nested lambdas closing over the outer example", "vmap(lambda r: vmap(lambda e: e * sum(r))(r))(x)",
			stackOf(3, 0, func(i int) string { return fmt.Sprintf("%s * sum(%s)", row(i), row(i)) })},
		{"vmap of grad: per-example gradients", "vmap(grad(lambda m, r: sum(tanh(r @ m) ** 2)), in_axes=(None, 0))(W, x)",
			stackOf(3, 0, func(i int) string { return "grad(lambda m, r: sum(tanh(r @ m) ** 2))(W, " + row(i) + ")" })},
		{"vmap of value_and_grad", "vmap(value_and_grad(lambda r: sum(sin(r))))(x)[1]",
			stackOf(3, 0, func(i int) string { return "cos(" + row(i) + ")" })},
		{"vmap of jit", "vmap(jit(lambda r: r * w))(x)",
			stackOf(3, 0, func(i int) string { return row(i) + " * w" })},
		{"jit of vmap", "jit(vmap(lambda r: r * w))(x)",
			stackOf(3, 0, func(i int) string { return row(i) + " * w" })},
		{"vmap inside a loop body, closing over i", "fori_loop(0, 3, lambda i, c: c + vmap(lambda r: r * i)(x), x)",
			"fori_loop(0, 3, lambda i, c: c + " + stackOf(3, 0, func(k int) string { return fmt.Sprintf("x[%d] * i", k) }) + ", x)"},
		{"vmap inside scan, closing over the carry", "scan(lambda c, e: (c + e, vmap(lambda r: r * c)(w)), 0.0, w)[1]",
			"scan(lambda c, e: (c + e, " + stackOf(4, 0, func(k int) string { return fmt.Sprintf("w[%d] * c", k) }) + "), 0.0, w)[1]"},
	} {
		t.Run(c.name, func(t *testing.T) {
			want, errOut, status := eval(append(vmapArgs, c.stacked)...)
			if status != 0 {
				t.Fatalf("the stacked reference %q failed: %s", c.stacked, errOut)
			}
			got, errOut, status := eval(append(vmapArgs, c.vmap)...)
			if status != 0 || got != want {
				t.Errorf("kiln eval %q\n got %q (status %d, stderr %q)\nwant %q, from %s", c.vmap, got, status, errOut, want, c.stacked)
			}
		})
	}
}

// TestEvalVmapGrad checks --grad through a vmap (grad of vmap) against the
// gradient of the stacked examples, and the expression's grad against
// --grad.
func TestEvalVmapGrad(t *testing.T) {
	for _, c := range []struct {
		name, grad, expr, ref string
	}{
		{"grad of vmap", "W", "sum(vmap(lambda r: tanh(r @ W))(x))",
			"sum(" + stackOf(3, 0, func(i int) string { return fmt.Sprintf("tanh(x[%d] @ W)", i) }) + ")"},
		{"grad of vmap over two axes", "x", "sum(vmap(lambda c, b: c * b, in_axes=(1, 0), out_axes=1)(x, w) ** 2)",
			"sum(" + stackOf(4, 1, func(i int) string { return fmt.Sprintf("x[:, %d] * w[%d]", i, i) }) + " ** 2)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			want, errOut, status := eval(append(vmapArgs, "--grad", c.grad, c.ref)...)
			if status != 0 {
				t.Fatalf("the reference %q failed: %s", c.ref, errOut)
			}
			got, errOut, status := eval(append(vmapArgs, "--grad", c.grad, c.expr)...)
			if status != 0 || got != want {
				t.Errorf("kiln eval --grad %s %q\n got %q (status %d, stderr %q)\nwant %q", c.grad, c.expr, got, status, errOut, want)
			}
		})
	}
	// grad(f)(W) in the expression is --grad W's gradient.
	flag, _, _ := eval(append(vmapArgs, "--json", "--grad", "W", "sum(tanh(x @ W) ** 2)")...)
	expr, _, _ := eval(append(vmapArgs, "--json", "grad(lambda m: sum(tanh(x @ m) ** 2))(W)")...)
	var f struct{ Grad map[string]json.RawMessage }
	json.Unmarshal([]byte(flag), &f)
	if g := strings.TrimSpace(expr); string(f.Grad["W"]) != g {
		t.Errorf("grad(f)(W) = %s, --grad W gives %s", g, f.Grad["W"])
	}
	runEvalCases(t, []evalCase{
		{"value_and_grad's value", []string{"--arg", "x=f64[2]:1,2", "value_and_grad(lambda a: sum(a ** 3))(x)[0]"}, "f64[] 9\n"},
		{"grad with a tuple of argnums", []string{"--arg", "x=f64[2]:1,2", "--arg", "y=f64[2]:3,4",
			"grad(lambda a, b: sum(a * b * b), argnums=(0, 1))(x, y)[1]"}, "f64[2] [6 16]\n"},
		{"value_and_grad's gradients nest", []string{"--arg", "x=f64[2]:1,2", "--arg", "y=f64[2]:3,4",
			"value_and_grad(lambda a, b: sum(a * b), argnums=(0, 1))(x, y)[1][0]"}, "f64[2] [3 4]\n"},
		{"an applied lambda", []string{"(lambda a, b: a - b)(5, 3)"}, "i64*[] 2\n"},
		{"axis_size=0: an empty batch", []string{"--arg", "w=f32[4]:1,2,3,4", "vmap(lambda b: b * 2, in_axes=None, axis_size=0)(w)"}, "f32[0,4] []\n"},
		{"axis_size=0 with no arguments", []string{"vmap(lambda: 1.5, axis_size=0)()"}, "f64*[0] []\n"},
		{"a batched argument of size 0", []string{"--arg", "x=f32[0,4]:rand(1)", "vmap(lambda r: sum(r * r))(x)"}, "f32[0] []\n"},
		{"README's vmap and --help's", []string{"--arg", "x=f32[3,2]:arange", "--arg", "w=f32[2]:1,10", "vmap(lambda r: r @ w)(x)"}, "f32[3] [10 32 54]\n"},
		{"README's per-example gradients", []string{"--arg", "w=f32[2]:1,2", "--arg", "xs=f32[3,2]:arange",
			"vmap(grad(lambda w, x: sum((w * x) ** 2)), in_axes=(None, 0))(w, xs)"}, "f32[3,2] [[0 4] [8 36] [32 100]]\n"},
	})
}

// TestEvalVmapErrors checks the refusals: kind vmap (JAX's messages, from
// the expression or from *trace.VmapError) or syntax, pointing at the
// expression's column, never at the interpreter's Go source.
func TestEvalVmapErrors(t *testing.T) {
	for _, c := range []struct {
		expr string
		kind string
		col  int
		msg  string
	}{
		{"vmap(lambda r, b: r * b, in_axes=(0,))(x, w)", "vmap", 34,
			"vmap in_axes must be an int, None, or a tuple of entries corresponding to the positional arguments passed to the function, but got len(in_axes)=1, len(args)=2"},
		{"vmap(lambda r: r, in_axes=2)(x)", "vmap", 1,
			"vmap was requested to map argument 0 along axis 2, which implies that its rank should be at least 3, but is only 2"},
		{"1 + vmap(lambda r, b: r * b)(x, w)", "vmap", 5,
			"vmap got inconsistent sizes for array axes to be mapped: axis 0 of argument 0 of type f32[3,4] has size 3, axis 0 of argument 1 of type f32[4] has size 4"},
		{"vmap(lambda r: r, axis_size=5)(x)", "vmap", 1, "axis_size is 5"},
		{"vmap(lambda r: r * 2, out_axes=None)(x)", "vmap", 1, "out_axes is None"},
		{"vmap(lambda: 1.0)()", "vmap", 1, "vmap must have at least one non-None value in in_axes, or an axis_size"},
		{"vmap(lambda r: (r, r), out_axes=(0, 1, 2))(x)[0]", "vmap", 33,
			"vmap out_axes specification must be a tree prefix of the corresponding value, got specification (0, 1, 2) for value tree (*, *)"},
		{"vmap(lambda r: r, out_axes=(0,))(x)", "vmap", 28, "got specification (0,) for value tree *"},
		{"vmap(lambda r: r, axis_size=0)(x)", "vmap", 1, "axis_size is 0, but axis 0 of argument 0 of type f32[3,4] has size 3"},
		{"fori_loop(0, 2, lambda i, c: c + vmap(lambda r: r, in_axes=3)(x), x)", "vmap", 34, "along axis 3"},
		{"vmap(lambda r: r @ w)(W)", "shape", 18, "contracting dimensions differ: [2] @ [4]"},
		{"vmap(lambda r: r)(x, x)", "syntax", 6, "the lambda takes 1 argument and is applied to 2"},
		{"vmap(lambda r: (r, r))(x)", "syntax", 1, "vmap(…)(…) returns a tuple (*, *): index it"},
		{"vmap(lambda r: (r, r))(x)[2]", "syntax", 27, "index 2 out of range for the tuple of 2 vmap(…)(…) gives"},
		{"vmap(lambda r: r)", "syntax", 1, "vmap(…) returns a function: apply it to arrays, vmap(f)(x)"},
		{"vmap", "syntax", 1, "vmap is a transformation"},
		{"vmap(exp)(x)", "syntax", 6, `expected a function (a lambda, or vmap(…), grad(…), value_and_grad(…) or jit(…)), found name "exp"`},
		{"exp(x)(x)", "syntax", 7, "a call of exp is not a function"},
		{"vmap(lambda r: r, bogus=1)(x)", "syntax", 19, `vmap has no argument "bogus": vmap(fun, in_axes=0, out_axes=0, axis_size=None)`},
		{"vmap(lambda r: r, in_axes=x)(x)", "syntax", 27, "expected an int literal"},
		{"vmap(lambda r: r, in_axes=((0,),))(x)", "syntax", 28, "the entries of in_axes are ints or None"},
		{"vmap(lambda r: r)(x, b=1)", "syntax", 22, "a function's arguments are positional arrays"},
		{"vmap(lambda r: r + q)(x)", "argument", 20, `unknown name "q"`},
		{"grad(lambda r: r * 2)(x)", "shape", 1, "Gradient only defined for scalar-output functions"},
		{"grad(lambda r: (sum(r), r))(x)", "syntax", 6, "grad: fun must return one array"},
		{"value_and_grad(lambda r: sum(r))(x)", "syntax", 1, "returns a tuple (*, *): index it"},
	} {
		t.Run(c.expr, func(t *testing.T) {
			out, errOut, status := eval(append(append([]string{"--json"}, vmapArgs...), c.expr)...)
			var got struct {
				Error struct{ Kind, Message string }
			}
			if err := json.Unmarshal([]byte(out), &got); err != nil || status != 1 || errOut != "" ||
				got.Error.Kind != c.kind || !strings.Contains(got.Error.Message, c.msg) || !strings.Contains(got.Error.Message, fmt.Sprintf("<expr>:1:%d:", c.col)) {
				t.Errorf("kiln eval --json %q\n got %s (status %d, stderr %q)\nwant kind %q at column %d saying %q", c.expr, out, status, errOut, c.kind, c.col, c.msg)
			}
			if strings.Contains(out, ".go:") {
				t.Errorf("the error points at the interpreter's Go source, not the expression: %s", out)
			}
		})
	}
}

// TestEvalVmapControlFlow checks vmap of the loops and branches: the
// stacked examples' results (a while's predicate and a cond's depend on
// the example here).
func TestEvalVmapControlFlow(t *testing.T) {
	row := func(i int) string { return fmt.Sprintf("x[%d]", i) }
	for _, c := range []struct {
		name, vmap string
		example    func(i int) string
	}{
		{"fori_loop", "vmap(lambda r: fori_loop(0, 3, lambda i, c: c * r + i, r))(x)",
			func(i int) string { return fmt.Sprintf("fori_loop(0, 3, lambda i, c: c * %s + i, %s)", row(i), row(i)) }},
		{"fori_loop of a free carry", "vmap(lambda r: 1 + fori_loop(0, 3, lambda i, c: c * sum(r), 1.0))(x)",
			func(i int) string { return fmt.Sprintf("1 + fori_loop(0, 3, lambda i, c: c * sum(%s), 1.0)", row(i)) }},
		{"scan", "vmap(lambda r: scan(lambda c, e: (c + e, c * e), 0.0, r)[1])(x)",
			func(i int) string { return fmt.Sprintf("scan(lambda c, e: (c + e, c * e), 0.0, %s)[1]", row(i)) }},
		{"cond", "vmap(lambda r: cond(sum(r) > 2, lambda a: a * 2, lambda a: -a, r))(x)",
			func(i int) string {
				return fmt.Sprintf("cond(sum(%s) > 2, lambda a: a * 2, lambda a: -a, %s)", row(i), row(i))
			}},
		{"while_loop", "vmap(lambda r: while_loop(lambda c: sum(c) < 8, lambda c: c * 2, r + 0.5))(x)",
			func(i int) string {
				return fmt.Sprintf("while_loop(lambda c: sum(c) < 8, lambda c: c * 2, %s + 0.5)", row(i))
			}},
	} {
		t.Run(c.name, func(t *testing.T) {
			stacked := stackOf(3, 0, c.example)
			want, errOut, status := eval(append(vmapArgs, stacked)...)
			if status != 0 {
				t.Fatalf("the stacked reference %q failed: %s", stacked, errOut)
			}
			got, errOut, status := eval(append(vmapArgs, c.vmap)...)
			if status != 0 || got != want {
				t.Errorf("kiln eval %q\n got %q (status %d, stderr %q)\nwant %q, from %s", c.vmap, got, status, errOut, want, stacked)
			}
		})
	}
}
