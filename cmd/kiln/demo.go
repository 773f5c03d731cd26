package main

import (
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	kilnpkg "github.com/kiln-go/kiln"
	"github.com/kiln-go/kiln/kernels"
	"github.com/kiln-go/kiln/kernels/opencl"
	"github.com/kiln-go/kiln/kernels/ort"
	"github.com/kiln-go/kiln/tensor"
)

func init() {
	register("demo", "trace a mixed-dtype expression, show its program and fused plan, time it against op-by-op", runDemo)
}

// demoExpr is docs/SPEC.md's running example: x int8, y float16. JAX's rules keep
// x*2 in int8 (the literal is weak), promote to float16 for + y, and the
// weak 0.5 leaves the result float16.
func demoExpr(x, y kilnpkg.Value) kilnpkg.Value {
	return x.Mul(kilnpkg.Int(2)).Add(y).Mul(kilnpkg.Float(0.5))
}

func runDemo(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("demo", "[--n N] [--runs R] [--backend NAME]\n\n"+
		"Traces (x*2 + y) * 0.5 with x: int8[n] and y: float16[n], prints the traced\n"+
		"program, the lowered module and the fused plan, then times the fused\n"+
		"kernel against op-by-op execution on the same inputs.", stderr)
	n := fs.Int("n", 1<<22, "elements per input")
	runs := fs.Int("runs", 20, "timed runs of each variant (the median is reported)")
	backendName := fs.String("backend", "cpu", "backend: "+strings.Join(backendNames(), ", "))
	if pos, status := parseFlags(fs, args, stdout); status >= 0 {
		return status
	} else if len(pos) > 0 {
		fmt.Fprintf(stderr, "kiln demo: unexpected argument %q\n", pos[0])
		return 2
	}
	if *n <= 0 || *runs <= 0 {
		fmt.Fprintln(stderr, "kiln demo: --n and --runs must be positive")
		return 2
	}
	backend, err := lookupBackend(*backendName)
	if err != nil {
		fmt.Fprintf(stderr, "kiln demo: %v\n", err)
		return 1
	}
	x, y := demoInputs(*n)
	fused := kilnpkg.Jit(demoExpr, kilnpkg.WithBackend(backend))
	opByOp := kilnpkg.Jit(demoExpr, kilnpkg.WithBackend(backend), kilnpkg.NoFusion())

	fmt.Fprintf(stdout, "Kiln demo: (x*2 + y) * 0.5   x: i8[%d]  y: f16[%d]  backend: %s\n", *n, *n, backend.Name())
	prog, err := fused.Trace(x, y)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	mod, _ := fused.Lower(x, y)
	unfused, _ := opByOp.Lower(x, y)
	fmt.Fprintf(stdout, "\n== traced program (every convert explicit, * marks weak values) ==\n%s\n", prog)
	fmt.Fprintf(stdout, "\n== lowered module ==\n%s\n", mod)
	fmt.Fprintf(stdout, "\n== fused plan ==\n%s", mod.FusedString())

	tf, outF, err := timeRuns(fused, x, y, *runs)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	tu, outU, err := timeRuns(opByOp, x, y, *runs)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	gbs := func(d time.Duration) float64 { return float64(*n*(1+2+2)) / d.Seconds() / 1e9 }
	fmt.Fprintf(stdout, "\n== run: median of %d ==\n", *runs)
	fmt.Fprintf(stdout, "fused     %2d kernel(s)  %9.3f ms  %6.2f GB/s\n", len(mod.Fusions), ms(tf), gbs(tf))
	fmt.Fprintf(stdout, "op by op  %2d kernel(s)  %9.3f ms  %6.2f GB/s\n", len(unfused.Fusions), ms(tu), gbs(tu))
	fmt.Fprintf(stdout, "fused is %.1fx faster; results bit-identical: %v\n", tu.Seconds()/tf.Seconds(), tensor.Equal(outF, outU))
	head, _ := outF.Reshape(-1)
	fmt.Fprintf(stdout, "first values: %s\n", firstValues(head, 6))
	return 0
}

func ms(d time.Duration) float64 { return d.Seconds() * 1e3 }

// demoInputs makes reproducible inputs: x in [-64, 64), y in [-8, 8).
func demoInputs(n int) (*tensor.Array, *tensor.Array) {
	r := rand.New(rand.NewPCG(1, 2))
	xs := make([]int8, n)
	ys := make([]tensor.Float16, n)
	for i := range xs {
		xs[i] = int8(r.IntN(128) - 64)
		ys[i] = tensor.Float64ToF16(r.Float64()*16 - 8)
	}
	x, _ := tensor.FromSlice(xs)
	y, _ := tensor.FromSlice(ys)
	return x, y
}

// timeRuns runs f once to compile and warm up, then runs times and returns
// the median and the last result.
func timeRuns(f *kilnpkg.Func, x, y *tensor.Array, runs int) (time.Duration, *tensor.Array, error) {
	out, err := f.Run(x, y)
	if err != nil {
		return 0, nil, err
	}
	outs := []*tensor.Array{out}
	ts := make([]time.Duration, runs)
	for i := range ts {
		start := time.Now()
		if err := f.RunInto(outs, x, y); err != nil {
			return 0, nil, err
		}
		ts[i] = time.Since(start)
	}
	slices.Sort(ts)
	return ts[len(ts)/2], out, nil
}

func firstValues(a *tensor.Array, k int) string {
	k = min(k, a.Size())
	vals := make([]string, k)
	for i := range vals {
		vals[i] = a.FormatElem(i)
	}
	s := "[" + strings.Join(vals, " ")
	if a.Size() > k {
		s += " …"
	}
	return s + "]"
}

// backends are the backends the command line can select by name.
var backends = map[string]func() (kernels.Backend, error){
	"cpu": func() (kernels.Backend, error) { return kernels.DefaultCPU(), nil },
	// OpenCL is loaded only when asked for: the CPU path never touches it.
	"opencl": func() (kernels.Backend, error) { return opencl.New(opencl.Options{}) },
	// ONNX Runtime (KILN_ORT_LIBRARY names its library), likewise.
	"ort": func() (kernels.Backend, error) { return ort.New(ort.Options{}) },
}

func backendNames() []string {
	var names []string
	for n := range backends {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

func lookupBackend(name string) (kernels.Backend, error) {
	mk, ok := backends[name]
	if !ok {
		return nil, fmt.Errorf("unknown backend %q (have %s)", name, strings.Join(backendNames(), ", "))
	}
	return mk()
}
