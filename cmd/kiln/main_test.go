package main

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// kiln runs the command line in-process and returns stdout, stderr and the
// exit status.
func kiln(args ...string) (string, string, int) {
	var out, errOut bytes.Buffer
	status := run(args, &out, &errOut)
	return out.String(), errOut.String(), status
}

func trimLines(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " \t\r")
	}
	return strings.Join(lines, "\n")
}

func TestTableMatchesSeedTables(t *testing.T) {
	for _, c := range []struct {
		args []string
		file string
	}{
		{[]string{"--rules", "jax"}, "jax_numpy.tsv"},
		{[]string{"--rules", "numpy"}, "numpy.tsv"},
		{[]string{"--rules", "torch"}, "torch.tsv"},
		{[]string{"--rules", "tensorflow"}, "tensorflow.tsv"},
		{[]string{"--rules", "lax"}, "jax_lax.tsv"},
		{[]string{"--rules", "anvil"}, "anvil_known.tsv"},
		{[]string{"--rules", "anvil", "--weak-rows"}, "anvil_ambiguous.tsv"},
	} {
		t.Run(c.file, func(t *testing.T) {
			want, err := os.ReadFile("../../promote/tables/" + c.file) // the seed tables, one copy in the repo
			if err != nil {
				t.Fatal(err)
			}
			out, errOut, status := kiln(append([]string{"table", "--format", "tsv"}, c.args...)...)
			if status != 0 {
				t.Fatalf("status %d: %s", status, errOut)
			}
			if trimLines(out) != trimLines(string(want)) {
				t.Errorf("kiln table %v differs from %s:\n%s", c.args, c.file, out)
			}
		})
	}
}

func TestTableMarkdown(t *testing.T) {
	out, _, status := kiln("table", "--rules", "jax")
	if status != 0 || !strings.HasPrefix(out, "|   | bool | u8 |") || strings.Count(out, "\n") != 20 {
		t.Errorf("markdown table (status %d):\n%s", status, out)
	}
	if !strings.Contains(out, "| **u64** | u64 | u64 | u64 | u64 | u64 | f* |") {
		t.Errorf("markdown row for u64 missing:\n%s", out)
	}
}

// TestTableOps checks that --ops prints each profile's per-op part, and
// that the table part is still the seed table (TestTableMatchesSeedTables).
func TestTableOps(t *testing.T) {
	for _, c := range []struct {
		rules string
		x32   bool
		want  []string
	}{
		{"jax", false, []string{"defaults (int uint float complex): i64 u64 f64 c128", "bool→f32 u8→f32 u16→f32 u32→f32 u64→f64"}},
		{"jax", true, []string{"jax (x32)", "defaults (int uint float complex): i32 u32 f32 c64", "bool→i32 u8→u32"}},
		{"numpy", false, []string{"rank:", "ignored", "bool→f16 u8→f16 u16→f32 u32→f64", "mean of ints:", "where's scalar branches:", "strong"}},
		{"torch", false, []string{"categories", "i64→f32", "bool→i64 u8→i64", "bool→error", "out-of-range int literal:          wrap", "complex32"}},
		{"tensorflow", false, []string{"i8→f32 i16→f32 i32→f64 i64→f64", "the operand's dtype", "note: tf.reduce_mean"}},
		{"lax", false, []string{"refused", "source: jax.lax"}},
		{"strict", false, []string{"defaults (int uint float complex): i64 u64 f64 c128"}},
		{"anvil", false, []string{"defaults (int uint float complex): i32 u32 f32 c64", "i64→f32"}},
	} {
		args := []string{"table", "--ops", "--rules", c.rules}
		if c.x32 {
			args = append(args, "--x32")
		}
		out, errOut, status := kiln(args...)
		if status != 0 {
			t.Errorf("%v: status %d, %s", args, status, errOut)
		}
		for _, w := range c.want {
			if !strings.Contains(out, w) {
				t.Errorf("%v: no %q in\n%s", args, w, out)
			}
		}
		if !strings.Contains(out, "source: ") {
			t.Errorf("%v: the profile cites no source:\n%s", args, out)
		}
	}
}

func TestCheck(t *testing.T) {
	out, _, status := kiln("check", "--rules", "numpy")
	if status != 0 || !strings.Contains(out, "not a lattice") || !strings.Contains(out, "(i8 ∨ u8) ∨ f16 = f32, but i8 ∨ (u8 ∨ f16) = f16") {
		t.Errorf("check numpy (status %d):\n%s", status, out)
	}
	out, _, status = kiln("check", "--rules", "jax")
	if status != 0 || !strings.HasPrefix(out, "jax: a lattice") {
		t.Errorf("check jax (status %d):\n%s", status, out)
	}
	out, _, _ = kiln("check", "--rules", "tensorflow")
	if !strings.Contains(out, "commutative: no") {
		t.Errorf("check tensorflow should find it non-commutative:\n%s", out)
	}
}

func TestPromote(t *testing.T) {
	for _, c := range []struct {
		args   []string
		stdout string
		status int
	}{
		{[]string{"i8", "f16"}, "f16\n", 0},
		{[]string{"i8", "i*"}, "i8\n", 0},
		{[]string{"u64", "i8"}, "f64*\n", 0},
		{[]string{"--x32", "u64", "i8"}, "f32*\n", 0},
		{[]string{"i16*", "u8"}, "u8\n", 0},
		{[]string{"i8", "u8", "f16"}, "f16\n", 0},
		{[]string{"--json", "u64", "i8"}, `{"dtype":"f64","weak":true}` + "\n", 0},
		{[]string{"--rules", "numpy", "i8", "u8"}, "i16\n", 0},
		{[]string{"--rules", "torch", "u8", "i8[]"}, "u8\n", 0},
		{[]string{"--rules", "torch", "u8", "i8"}, "i16\n", 0},
		{[]string{"--rules", "torch", "f32", "f64[]"}, "f32\n", 0},
		{[]string{"--rules", "torch", "bf16", "c128[]"}, "c64\n", 0},
		{[]string{"--rules", "torch", "i*", "f*"}, "f32*\n", 0},
		{[]string{"--rules", "torch", "f16", "c*"}, "", 1},
		{[]string{"--rules", "numpy", "u8", "i8[]"}, "i16\n", 0},
		{[]string{"--rules", "strict", "i8", "f16"}, "", 1},
		{[]string{"--rules", "nope", "i8"}, "", 2},
		{[]string{"f17", "i8"}, "", 2},
		{[]string{}, "", 2},
		{[]string{"--bogus", "i8"}, "", 2},
	} {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			out, errOut, status := kiln(append([]string{"promote"}, c.args...)...)
			if status != c.status || out != c.stdout {
				t.Errorf("got %q (status %d, stderr %q), want %q (status %d)", out, status, errOut, c.stdout, c.status)
			}
			if status != 0 && errOut == "" {
				t.Error("a failing command must explain itself on stderr")
			}
		})
	}
}

func TestPromoteJSONError(t *testing.T) {
	out, _, status := kiln("promote", "--json", "--rules", "lax", "i8", "i16")
	if status != 1 {
		t.Fatalf("status %d", status)
	}
	var v struct {
		Error struct{ Kind, Message string }
	}
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatalf("not JSON: %q", out)
	}
	if v.Error.Kind != "promotion" || !strings.Contains(v.Error.Message, "i8") || !strings.Contains(v.Error.Message, "astype(x, i16)") {
		t.Errorf("error = %+v", v.Error)
	}
}

func TestUsage(t *testing.T) {
	for _, c := range []struct {
		args   []string
		status int
	}{
		{nil, 2},
		{[]string{"frobnicate"}, 2},
		{[]string{"--help"}, 0},
		{[]string{"promote", "--help"}, 0},
		{[]string{"table", "-h"}, 0},
		{[]string{"check", "--help"}, 0},
		{[]string{"table", "--format", "xml"}, 2},
		{[]string{"table", "--rules", "jax", "--weak-rows"}, 2},
		{[]string{"table", "extra"}, 2},
		{[]string{"check", "--rules", "bogus"}, 2},
	} {
		out, errOut, status := kiln(c.args...)
		if status != c.status {
			t.Errorf("kiln %v: status %d, want %d", c.args, status, c.status)
		}
		if c.status == 0 && !strings.Contains(out, "usage: kiln") {
			t.Errorf("kiln %v: help should go to stdout, got %q", c.args, out)
		}
		if c.status == 2 && errOut == "" {
			t.Errorf("kiln %v: usage error without a message", c.args)
		}
	}
}
