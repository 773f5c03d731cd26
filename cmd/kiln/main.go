// Command kiln is Kiln's command-line tool: the traced, fused pipeline on
// the running example, expression evaluation, promotion rules with their
// tables and lattice checks, and the OpenCL devices.
//
//	kiln demo [--n N] [--runs R] [--backend cpu|opencl]
//	kiln eval [--json] [--x32] [--strict] [--rules R] [--backend NAME] [--print WHAT] [--bench N] [--timeout D] --arg NAME=SPEC … 'EXPR'
//	kiln promote [--rules R] [--x32] [--json] T1 T2 ...
//	kiln table --rules R [--format md|tsv] [--x32] [--weak-rows]
//	kiln check --rules R [--x32]
//	kiln devices [--json]
//
// Every command takes --help. Exit status: 0 on success, 1 when the command
// ran and failed (for example no promotion exists), 2 on bad usage.
package main

import (
	"fmt"
	"io"
	"os"
	"sort"
)

// command is one subcommand: it parses its own flags and returns the exit
// status, writing only to the writers it is given so tests can run it
// in-process.
type command struct {
	summary string
	run     func(args []string, stdout, stderr io.Writer) int
}

// commands is the dispatch table; each command lives in its own file.
var commands = map[string]command{}

func register(name, summary string, run func(args []string, stdout, stderr io.Writer) int) {
	commands[name] = command{summary: summary, run: run}
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stderr)
		return 2
	}
	switch args[0] {
	case "-h", "--help", "help":
		usage(stdout)
		return 0
	}
	c, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "kiln: unknown command %q\n\n", args[0])
		usage(stderr)
		return 2
	}
	return c.run(args[1:], stdout, stderr)
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: kiln <command> [flags] [arguments]")
	fmt.Fprintln(w, "\ncommands:")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-10s %s\n", n, commands[n].summary)
	}
	fmt.Fprintln(w, "\nrun 'kiln <command> --help' for a command's flags")
}
