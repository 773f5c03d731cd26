package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/kiln-go/kiln/promote"
)

func init() {
	register("promote", "promote operand types and print the result type (f16, or f64* when weak)", runPromote)
}

func runPromote(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("promote", "[--rules R] [--x32] [--json] T1 T2 ...\n\n"+
		"Operands: a dtype (i8, f16, bfloat16), a weak kind at the rule set's default width\n"+
		"(i* f* c*), or a dtype with a trailing * for a weak value (i16*); a dtype\n"+
		"with [] is a rank-0 array (i8[]), which --rules torch promotes as a 0-dim\n"+
		"tensor (the other operands are arrays of rank ≥ 1).", stderr)
	rulesName := fs.String("rules", "jax", rulesHelp())
	x32 := fs.Bool("x32", false, "32-bit defaults for weak values (JAX without x64)")
	asJSON := fs.Bool("json", false, `print {"dtype":…,"weak":…} or {"error":{…}}`)
	operands, status := parseFlags(fs, args, stdout)
	if status >= 0 {
		return status
	}
	if len(operands) == 0 {
		fmt.Fprintln(stderr, "kiln promote: need at least one operand type")
		fs.Usage()
		return 2
	}
	rules, ok := rulesFlag(*rulesName, stderr)
	if !ok {
		return 2
	}
	cfg := promote.Config{Rules: rules, X32: *x32}
	ranked := make([]promote.Operand, len(operands))
	for i, s := range operands {
		rank := 1
		if strings.HasSuffix(s, "[]") {
			s, rank = strings.TrimSuffix(s, "[]"), 0
		}
		t, err := promote.ParseType(s, *x32)
		if err != nil {
			fmt.Fprintf(stderr, "kiln promote: %v\n", err)
			return 2
		}
		switch s { // a weak kind takes the profile's default width
		case "i*":
			t = promote.WeakOf(cfg.DefaultInt())
		case "f*":
			t = promote.WeakOf(cfg.DefaultFloat())
		case "c*":
			t = promote.WeakOf(cfg.DefaultComplex())
		}
		ranked[i] = promote.Operand{Type: t, Rank: rank}
	}
	result, err := cfg.ResultTypeRanked(ranked...)
	if err != nil {
		if *asJSON {
			writeJSONError(stdout, err)
		} else {
			fmt.Fprintln(stderr, err)
		}
		return 1
	}
	if *asJSON {
		b, _ := json.Marshal(struct {
			DType string `json:"dtype"`
			Weak  bool   `json:"weak"`
		}{result.DType.String(), result.Weak})
		fmt.Fprintln(stdout, string(b))
		return 0
	}
	fmt.Fprintln(stdout, result)
	return 0
}
