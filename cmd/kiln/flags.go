package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	kilnpkg "github.com/kiln-go/kiln"
	"github.com/kiln-go/kiln/kernels"
	"github.com/kiln-go/kiln/promote"
	"github.com/kiln-go/kiln/tensor"
	"github.com/kiln-go/kiln/trace"
)

// newFlags makes a flag set that reports errors to stderr and prints the
// command's usage line and flags on --help.
func newFlags(name, usageLine string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: kiln %s %s\n\nflags:\n", name, usageLine)
		fs.PrintDefaults()
	}
	return fs
}

// parseFlags parses args, interleaved flags and positionals allowed. It
// returns the positionals and an exit status ≥ 0 when the command must stop
// (0 for --help, 2 for bad usage).
//
// The flag package calls Usage itself, to its output (stderr), before
// Parse returns; parseFlags calls it instead once it knows why, so --help
// prints the usage once, to stdout, and a bad flag prints the error and
// the usage to stderr.
func parseFlags(fs *flag.FlagSet, args []string, stdout io.Writer) ([]string, int) {
	usage := fs.Usage
	fs.Usage = func() {}
	defer func() { fs.Usage = usage }()
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				fs.SetOutput(stdout)
			}
			usage()
			if errors.Is(err, flag.ErrHelp) {
				return nil, 0
			}
			return nil, 2
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, -1
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

// rulesFlag resolves a --rules value, writing a usage error on failure.
func rulesFlag(name string, stderr io.Writer) (*promote.RuleSet, bool) {
	r, err := promote.Lookup(name)
	if err != nil {
		fmt.Fprintf(stderr, "kiln: %v\n", err)
		return nil, false
	}
	return r, true
}

func rulesHelp() string {
	return "promotion rules, each its framework's profile (kiln table --rules R --ops): " + strings.Join(promote.RuleNames(), ", ")
}

// errorKind names an error's category for --json output: syntax (the
// expression), size (an array too large to exist or over the allocation
// limit, from an --arg or an op), file (an array file that cannot be
// read or written), argument (an --arg or a Run argument),
// shape, dtype, promotion, overflow (an int literal the dtype cannot hold),
// policy (a --forbid widening), check (a failed check of --checked),
// control (a loop's or branch's typing), derivative, vmap (a vmap's axes
// or sizes, or an op it cannot batch) or error.
func errorKind(err error) string {
	var xe *exprError
	var spe *specError
	var ka *kilnpkg.ArgError
	var ke *kernels.ArgError
	var pe *promote.PromotionError
	var oe *promote.OverflowError
	var se *trace.ShapeError
	var te *tensor.ShapeError
	var de *trace.DTypeError
	var pol *kilnpkg.PolicyError
	var ze *tensor.SizeError
	var be *kilnpkg.BudgetError
	var chk *kilnpkg.CheckError
	var ce *trace.ControlError
	var dv *trace.DerivError
	var fe *tensor.FileError
	var ve *trace.VmapError
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return "deadline"
	case errors.Is(err, context.Canceled):
		return "canceled"
	case errors.As(err, &chk):
		return "check"
	case errors.As(err, &xe):
		return xe.Kind
	case errors.As(err, &ze), errors.As(err, &be):
		return "size"
	case errors.As(err, &fe):
		return "file"
	case errors.As(err, &spe), errors.As(err, &ka), errors.As(err, &ke):
		return "argument"
	case errors.As(err, &pe):
		return "promotion"
	case errors.As(err, &oe):
		return "overflow"
	case errors.As(err, &se), errors.As(err, &te):
		return "shape"
	case errors.As(err, &de):
		return "dtype"
	case errors.As(err, &pol):
		return "policy"
	case errors.As(err, &ce):
		return "control"
	case errors.As(err, &dv):
		return "derivative"
	case errors.As(err, &ve):
		return "vmap"
	}
	return "error"
}

// writeJSONError prints {"error":{"kind":…,"message":…}}.
func writeJSONError(w io.Writer, err error) {
	type body struct {
		Kind    string `json:"kind"`
		Message string `json:"message"`
	}
	encodeJSON(w, map[string]body{"error": {errorKind(err), err.Error()}})
}

// checkedFlag is --checked: alone, kiln.Checked()'s default checks; with
// a value, a comma list of index, divide and nan (or true/false).
type checkedFlag struct {
	on    bool
	kinds []kilnpkg.CheckKind
}

func (c *checkedFlag) IsBoolFlag() bool { return true }

func (c *checkedFlag) String() string {
	if c == nil || !c.on {
		return "false"
	}
	var k kilnpkg.CheckKind
	for _, x := range c.kinds {
		k |= x
	}
	if k == 0 {
		return "true"
	}
	return k.String()
}

func (c *checkedFlag) Set(s string) error {
	c.on, c.kinds = true, nil
	switch s {
	case "true":
		return nil
	case "false":
		c.on = false
		return nil
	}
	for _, name := range strings.Split(s, ",") {
		switch strings.TrimSpace(name) {
		case "index":
			c.kinds = append(c.kinds, kilnpkg.CheckIndex)
		case "divide":
			c.kinds = append(c.kinds, kilnpkg.CheckDivide)
		case "nan":
			c.kinds = append(c.kinds, kilnpkg.CheckNaN)
		default:
			return fmt.Errorf("unknown check %q (have index, divide, nan)", name)
		}
	}
	return nil
}
