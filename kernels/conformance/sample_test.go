package conformance

import (
	"slices"
	"strings"
	"testing"

	"github.com/kiln-go/kiln/tensor"
)

// The sample the OpenCL backend runs by default keeps every op and every
// dtype of the suite, every shape of every reduction and a fraction of the
// cases, and is the same on every run.
func TestSample(t *testing.T) {
	all := Cases()
	const k = 8
	s := Sample(all, k)
	if len(s) >= len(all)/3 || len(s) < len(all)/k {
		t.Errorf("Sample(%d cases, %d) kept %d", len(all), k, len(s))
	}
	sorted := func(s []string) []string { slices.Sort(s); return s }
	names := func(cs []Case) []string {
		var out []string
		for _, c := range cs {
			out = append(out, c.Name)
		}
		return out
	}
	// Cases' order varies from call to call (some cases come from a map);
	// the sample's cases do not.
	if again, first := sorted(names(Sample(Cases(), k))), sorted(names(s)); !slices.Equal(again, first) {
		for i := range min(len(again), len(first)) {
			if again[i] != first[i] {
				t.Errorf("Sample is not deterministic: %d then %d cases, case %d %q then %q", len(first), len(again), i, first[i], again[i])
				break
			}
		}
		if len(again) != len(first) {
			t.Errorf("Sample is not deterministic: %d then %d cases", len(first), len(again))
		}
	}
	if got := Sample(all, 1); len(got) != len(all) {
		t.Errorf("Sample(all, 1) kept %d of %d", len(got), len(all))
	}
	// What is kept, by first name element (the op or program), by dtype
	// element, and by the name with its dtype elements dropped (the
	// reduction's shape and axes, the conv's layout, ...).
	type cover struct{ ops, dtypes, kinds map[string]bool }
	count := func(cs []Case) cover {
		c := cover{map[string]bool{}, map[string]bool{}, map[string]bool{}}
		dts := map[string]bool{}
		for _, d := range tensor.AllDTypes() {
			dts[d.String()] = true
		}
		for _, cs := range cs {
			parts := strings.Split(cs.Name, "/")
			c.ops[parts[0]] = true
			var rest []string
			for _, p := range parts {
				if dts[p] {
					c.dtypes[p] = true
				} else {
					rest = append(rest, p)
				}
			}
			c.kinds[strings.Join(rest, "/")] = true
		}
		return c
	}
	want, got := count(all), count(s)
	for _, m := range []struct {
		what      string
		want, got map[string]bool
	}{{"op", want.ops, got.ops}, {"dtype", want.dtypes, got.dtypes}, {"kind", want.kinds, got.kinds}} {
		for x := range m.want {
			if !m.got[x] {
				t.Errorf("the sample has no case of %s %q", m.what, x)
			}
		}
	}
	if len(got.dtypes) != tensor.NumDTypes {
		t.Errorf("the sample covers %d dtypes, want %d", len(got.dtypes), tensor.NumDTypes)
	}
	t.Logf("%d of %d cases: %d ops, %d dtypes, %d kinds", len(s), len(all), len(got.ops), len(got.dtypes), len(got.kinds))
}
