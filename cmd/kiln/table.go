package main

import (
	"fmt"
	"io"

	"github.com/kiln-go/kiln/promote"
)

func init() {
	register("table", "print a rule set's whole promotion table (Markdown or TSV), or with --ops its per-op profile", runTable)
	register("check", "say whether a rule set is a lattice, with counterexamples", runCheck)
}

func runTable(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("table", "--rules R [--format md|tsv] [--x32] [--weak-rows] [--narrow] [--ops]", stderr)
	rulesName := fs.String("rules", "jax", rulesHelp())
	format := fs.String("format", "md", "md (a Markdown table) or tsv (the layout of shared/tables)")
	x32 := fs.Bool("x32", false, "the x32 variant of the JAX lattice")
	weakRows := fs.Bool("weak-rows", false, "anvil: rows are ambiguous (literal) operands, columns known")
	narrow := fs.Bool("narrow", false, "add the narrow dtypes' rows and columns (f8e4m3fn … u2: JAX's lattice edges, under every rule set) to the seed table")
	ops := fs.Bool("ops", false, "print the rule set's per-op profile instead of its table: defaults, rank rule, true division, float functions, sum/prod/cumsum/mean, out-of-range literals, sources")
	pos, status := parseFlags(fs, args, stdout)
	if status >= 0 {
		return status
	}
	if len(pos) > 0 {
		fmt.Fprintf(stderr, "kiln table: unexpected argument %q\n", pos[0])
		return 2
	}
	rules, ok := rulesFlag(*rulesName, stderr)
	if !ok {
		return 2
	}
	if *ops {
		fmt.Fprint(stdout, promote.Config{Rules: rules, X32: *x32}.Profile())
		return 0
	}
	if *weakRows && rules != promote.Anvil {
		fmt.Fprintln(stderr, "kiln table: --weak-rows applies to --rules anvil only (the other tables have weak columns i* f* c*)")
		return 2
	}
	nodes := rules.Nodes()
	if *narrow {
		nodes = rules.AllRuleNodes()
	}
	header, rows := promote.TableOver(rules, nodes, *x32, *weakRows)
	switch *format {
	case "tsv":
		fmt.Fprint(stdout, promote.FormatTSV(header, rows))
	case "md", "markdown":
		fmt.Fprint(stdout, promote.FormatMarkdown(header, rows))
	default:
		fmt.Fprintf(stderr, "kiln table: unknown --format %q (want md or tsv)\n", *format)
		return 2
	}
	return 0
}

func runCheck(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("check", "--rules R [--x32] [--narrow]", stderr)
	rulesName := fs.String("rules", "jax", rulesHelp())
	x32 := fs.Bool("x32", false, "the x32 variant of the JAX lattice")
	narrow := fs.Bool("narrow", false, "check over the narrow dtypes too (JAX's lattice with them is partial: they promote with few others)")
	pos, status := parseFlags(fs, args, stdout)
	if status >= 0 {
		return status
	}
	if len(pos) > 0 {
		fmt.Fprintf(stderr, "kiln check: unexpected argument %q\n", pos[0])
		return 2
	}
	rules, ok := rulesFlag(*rulesName, stderr)
	if !ok {
		return 2
	}
	nodes := rules.Nodes()
	if *narrow {
		nodes = rules.AllRuleNodes()
	}
	fmt.Fprint(stdout, promote.CheckOver(rules, nodes, *x32))
	return 0
}
