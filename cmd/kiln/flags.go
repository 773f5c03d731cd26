package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/kiln-go/kiln/promote"
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
func parseFlags(fs *flag.FlagSet, args []string, stdout io.Writer) ([]string, int) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				fs.SetOutput(stdout)
				fs.Usage()
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
	return "promotion rules: " + strings.Join(promote.RuleNames(), ", ")
}

// errorKind names an error's category for --json output.
func errorKind(err error) string {
	var pe *promote.PromotionError
	var oe *promote.OverflowError
	switch {
	case errors.As(err, &pe):
		return "promotion"
	case errors.As(err, &oe):
		return "overflow"
	}
	return "error"
}

// writeJSONError prints {"error":{"kind":…,"message":…}}.
func writeJSONError(w io.Writer, err error) {
	b, _ := json.Marshal(map[string]any{"error": map[string]string{"kind": errorKind(err), "message": err.Error()}})
	fmt.Fprintln(w, string(b))
}
