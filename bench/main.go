// Command bench measures Kiln against its peers on the workloads of
// docs/SPEC.md §8 and writes bench/REPORT.md and bench/report.svg.
//
//	go run ./bench                 # the full report, a few minutes
//	go run ./bench -quick          # small inputs, few runs: a smoke test
//	go run ./bench -only E1,E5a    # some rows only
//	go run ./bench -only E6        # a family: E6a–E6o
//
// In one process and one run it times Kiln fused (steady state with
// RunInto; Run with fresh outputs; a fresh Jit's first Run), Kiln op by op
// (kiln.NoFusion), gorgonia.org/tensor eager, gonum where it has the op, a
// plain Go loop on 2 goroutines, a C -O3 -march=native loop compiled at run
// time with gcc (when present), and NumPy and PyTorch in Debian's
// /usr/bin/python3 (when it has numpy and torch). The C, NumPy and PyTorch
// peers run as subprocesses that time themselves; no cgo. Every cell is the median of repeated runs after a
// warm-up, every peer's output is checked against Kiln fused's, and a peer
// that cannot run says "missing" in the report, never a made-up number.
//
// The same implementations are benchmarks for go test -bench (see
// bench_test.go), with benchstat-friendly names such as
// BenchmarkE1/kiln-fused.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"
)

func main() {
	if err := run(os.Args[1:], os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

// run parses args, measures, and writes the report and chart.
func run(args []string, progress io.Writer) error {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.SetOutput(progress)
	quick := fs.Bool("quick", false, "small inputs and few runs (a smoke test, well under 30 s)")
	out := fs.String("out", filepath.Join("bench", "REPORT.md"), "the report; report.svg is written beside it")
	n := fs.Int("n", 1<<24, "elements per input for E1–E4 (default 1<<16 with -quick)")
	runs := fs.Int("runs", 15, "timed runs per cell, at most (default 3 with -quick)")
	budget := fs.Duration("budget", 3*time.Second, "after this much timed work a cell stops at 3 runs (300ms with -quick)")
	cc := fs.String("cc", "gcc", "the C compiler for the C peer")
	python := fs.String("python", "/usr/bin/python3", "the Python whose NumPy and PyTorch are the numpy and torch peers")
	only := fs.String("only", "", "comma-separated workloads or families (E6) to run (default all: "+strings.Join(workloadIDs, ",")+")")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	opts := options{quick: *quick, out: *out, n: *n, runs: *runs, budget: *budget, cc: *cc, python: *python,
		mm: fullMatrices, progress: progress, command: commandLine(args)}
	if *quick {
		opts.mm = quickMatrices
		if !set["n"] {
			opts.n = 1 << 16
		}
		if !set["runs"] {
			opts.runs = 3
		}
		if !set["budget"] {
			opts.budget = 300 * time.Millisecond
		}
	}
	if *only != "" {
		for id := range strings.SplitSeq(*only, ",") {
			ids := selectWorkloads(id)
			if len(ids) == 0 {
				return fmt.Errorf("unknown workload %q (have %s)", id, strings.Join(workloadIDs, ", "))
			}
			opts.only = append(opts.only, ids...)
		}
	}
	if opts.n < 2 || opts.runs < 1 {
		return fmt.Errorf("-n must be at least 2 and -runs at least 1")
	}
	res, err := runAll(opts)
	if err != nil {
		return err
	}
	svgPath := filepath.Join(filepath.Dir(opts.out), "report.svg")
	if err := os.MkdirAll(filepath.Dir(opts.out), 0o755); err != nil {
		return err
	}
	if err := writeFile(opts.out, func(w io.Writer) error { return writeReport(w, res, filepath.Base(svgPath)) }); err != nil {
		return err
	}
	if err := writeFile(svgPath, func(w io.Writer) error { return writeChart(w, res) }); err != nil {
		return err
	}
	logf(opts, "wrote %s and %s in %s", opts.out, svgPath, time.Since(res.start).Round(time.Second))
	return nil
}

// selectWorkloads is the workloads -only's id names: that workload, or
// for a family such as E6 (an id that is not a workload) every workload
// whose id extends it.
func selectWorkloads(id string) []string {
	if contains(workloadIDs, id) {
		return []string{id}
	}
	var ids []string
	for _, w := range workloadIDs {
		if len(id) >= 2 && len(w) > len(id) && strings.EqualFold(w[:len(id)], id) {
			ids = append(ids, w)
		}
	}
	return ids
}

// commandLine is how the report says it was produced.
func commandLine(args []string) string {
	return strings.TrimSpace("go run ./bench " + strings.Join(args, " "))
}

// writeFile creates path and fills it with write.
func writeFile(path string, write func(io.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
