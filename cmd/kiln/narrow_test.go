package main

import (
	"strings"
	"testing"
)

// The narrow dtypes at the command line: kiln promote prints JAX's
// error, kiln eval takes narrow --args, astype to JAX's names (as a
// method too) and rounds or wraps, and kiln table/check --narrow add the
// narrow rows.
func TestNarrowCLI(t *testing.T) {
	for _, c := range []struct {
		args   []string
		status int
		out    string // in stdout (status 0) or stderr
	}{
		{[]string{"promote", "f8e4m3fn", "f32"}, 1, "Input dtypes ('float8_e4m3fn', 'float32') have no available implicit dtype promotion path. To avoid unintended promotion, 8-bit floats do not support implicit promotion."},
		{[]string{"promote", "int4", "i32"}, 1, "1-bit, 2-bit and 4-bit integers do not support implicit promotion"},
		{[]string{"promote", "float8_e5m2", "i*"}, 0, "f8e5m2"},
		{[]string{"promote", "i4", "bool"}, 0, "i4"},
		{[]string{"eval", "--arg", "x=f8e4m3fn[4]:1,2,3,4", "x * 2 + 0.1"}, 0, "f8e4m3fn[4] [2 4 6 8]"},
		{[]string{"eval", "--arg", "x=f32[4]:1,2.3,3,500", "x.astype(jnp.float8_e4m3fn)"}, 0, "f8e4m3fn[4] [1 2.2 3 nan]"},
		{[]string{"eval", "--arg", "x=i32[4]:1,2,9,-9", "x.astype(jnp.int4) * 3"}, 0, "i4[4] [3 6 -5 5]"},
		{[]string{"eval", "--arg", "x=i32[2]:1,2", "astype(x, uint2) + 3"}, 0, "u2[2] [0 1]"},
		{[]string{"eval", "--arg", "x=i4[2]:1,9", "x"}, 1, "9 does not fit i4 (range -8..7)"},
	} {
		out, errOut, status := kiln(c.args...)
		got := out
		if c.status != 0 {
			got = errOut
		}
		if status != c.status || !strings.Contains(got, c.out) {
			t.Errorf("kiln %q: status %d, stdout %q, stderr %q; want status %d and %q", c.args, status, out, errOut, c.status, c.out)
		}
	}
	out, _, status := kiln("table", "--narrow", "--format", "tsv")
	if lines := strings.Count(out, "\n"); status != 0 || lines != 34 {
		t.Errorf("kiln table --narrow: status %d, %d lines, want 34 (header and 33 nodes)", status, lines)
	}
	out, _, status = kiln("check", "--narrow")
	if status != 0 || !strings.Contains(out, "partial lattice") {
		t.Errorf("kiln check --narrow: status %d, %q", status, out)
	}
}
