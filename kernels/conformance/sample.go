package conformance

import (
	"hash/fnv"
	"slices"
	"strings"
	"testing"

	"github.com/kiln-go/kiln/kernels"
	"github.com/kiln-go/kiln/tensor"
)

// RunCases runs the given cases on backend b, as Run does for all of them.
func RunCases(t *testing.T, b kernels.Backend, cs []Case) {
	t.Helper()
	for _, c := range cs {
		t.Run(c.Name, func(t *testing.T) { check(t, b, c) })
	}
}

// Sample returns a deterministic subset of cs, about one case in k, for a
// backend whose every program costs a kernel compile (OpenCL under PoCL
// compiles the whole suite's 3,000-odd programs in 10 minutes or more).
// Cases are grouped by their kind: the name with each dtype element
// replaced ("sum/*/[3 4 5]/axes[1]", "convert/*/*", "conv/nchw-same/*").
// Every kind keeps at least one case (a kind of one case keeps it), and a
// larger kind keeps every k-th of its cases in name order (so the order of
// cs does not matter) from an offset its name's hash picks, so the kept
// dtypes rotate from kind to kind: every op, reduction, layout and program
// shape of the suite runs, and every dtype runs in many kinds. Run runs
// the whole suite.
func Sample(cs []Case, k int) []Case {
	if k <= 1 {
		return cs
	}
	dtypes := map[string]bool{}
	for _, d := range tensor.AllDTypes() {
		dtypes[d.String()] = true
	}
	kind := func(name string) string {
		parts := strings.Split(name, "/")
		for i, p := range parts {
			if dtypes[p] {
				parts[i] = "*"
			}
		}
		return strings.Join(parts, "/")
	}
	var order []string
	groups := map[string][]int{}
	for i, c := range cs {
		key := kind(c.Name)
		if _, ok := groups[key]; !ok {
			order = append(order, key)
		}
		groups[key] = append(groups[key], i)
	}
	keep := make([]bool, len(cs))
	for _, key := range order {
		idx := groups[key]
		// By name, so the sample does not depend on the order of cs
		// (Cases builds some cases from a map).
		slices.SortFunc(idx, func(i, j int) int { return strings.Compare(cs[i].Name, cs[j].Name) })
		h := fnv.New32a()
		h.Write([]byte(key))
		off := int(h.Sum32() % uint32(min(k, len(idx))))
		for j := off; j < len(idx); j += k {
			keep[idx[j]] = true
		}
	}
	var out []Case
	for i, c := range cs {
		if keep[i] {
			out = append(out, c)
		}
	}
	return out
}
