package main

import (
	"fmt"
	"strings"
	"testing"

	"github.com/kiln-go/kiln"
	"github.com/kiln-go/kiln/tensor"
)

// TestIssue27Targets: issue 27's rows have their targets — E6n's time at
// most E6i's, E6o's at most E6j's — judged on made-up medians from the
// alternating rounds of the two alone, the ratio printed met or missed.
func TestIssue27Targets(t *testing.T) {
	find := func(id, vs string) target {
		for _, tg := range targets {
			if tg.id == id && tg.vsRow == vs {
				return tg
			}
		}
		t.Fatalf("no target for %s against %s", id, vs)
		return target{}
	}
	for _, tc := range []struct{ id, vs, text string }{
		{"E6n", "E6i", "fp8 matmul at least at the bf16 GEMM's rate"},
		{"E6o", "E6j", "int4×int8 at least at the int8 GEMM's rate"},
	} {
		tg := find(tc.id, tc.vs)
		if tg.maxRatio != 1 || tg.minShare != 0 || !strings.Contains(tg.text, tc.text) || !strings.Contains(tg.text, "issue 27") {
			t.Errorf("%s's target %+v, want a time ratio of at most 1 against %s, saying %q", tc.id, tg, tc.vs, tc.text)
		}
		for _, c := range []struct {
			ratio   float64
			verdict string
		}{{0.97, "met"}, {1.08, "**missed**"}} {
			r := &row{id: tc.id, cells: map[string]*cell{}}
			for _, p := range peerNames {
				r.cells[p] = &cell{status: "n/a"}
			}
			r.cells[kilnFused] = &cell{timing: timing{sec: 2, runs: 3}}
			r.pair.timing, r.pairAlt = timing{sec: 2.5, runs: 3}, pairing{ratio: c.ratio, rounds: 5, cpuRatio: c.ratio}
			m, v := judge(tg, r, nil)
			want := fmt.Sprintf("in 5 alternating rounds of the two alone: %.3g", c.ratio)
			if !strings.Contains(m, want) || !strings.Contains(m, "(needs ≤ 1)") || !strings.HasPrefix(v, c.verdict) {
				t.Errorf("%s at %g: judge = %q, %q; want the rounds' ratio against ≤ 1 and %s", tc.id, c.ratio, m, v, c.verdict)
			}
		}
	}
}

// TestNarrowRows checks that issue 27's rows run at -quick sizes (and an
// odd order, where the bf16 rule pads a zero product), pair with E6i and
// E6j making as many calls per run, and agree with their go-loop peers
// bit for bit: E6o's exact int32 sums; E6n's bf16 dot rule in Go, which
// is also the bf16 × bf16 → f32 product of the operands converted to bf16.
func TestNarrowRows(t *testing.T) {
	for _, tc := range []struct {
		id, pair string
		m        int
	}{{"E6n", "E6i", quickMatrices.a}, {"E6o", "E6j", quickMatrices.a}, {"E6n", "E6i", 37}, {"E6o", "E6j", 37}} {
		mm := quickMatrices
		mm.a = tc.m
		w := newWorkload(tc.id, 0, mm)
		if w.pair == nil || w.pair.id != tc.pair || w.pair.calls != w.calls || w.pair.size != w.size {
			t.Fatalf("%s: pair = %+v, want %s of order %d making %d calls", tc.id, w.pair, tc.pair, w.size, w.calls)
		}
		if w.flops != w.pair.flops || w.flops <= 0 || w.tol != 0 {
			t.Errorf("%s: flops %g (pair %g), tol %g: want the pair's flops and a bit-exact check", tc.id, w.flops, w.pair.flops, w.tol)
		}
		k, err := runIntoImpl(w)
		if err != nil {
			t.Fatal(err)
		}
		if err := k.run(); err != nil {
			t.Fatal(err)
		}
		p, err := w.peers[goLoop]()
		if err != nil {
			t.Fatal(err)
		}
		if err := p.run(); err != nil {
			t.Fatal(err)
		}
		if msg, _ := compare(p.result(), k.result(), 0, true); msg != "" {
			t.Errorf("%s m=%d: go-loop vs Kiln: %s", tc.id, tc.m, msg)
		}
		if tc.id != "E6n" {
			continue
		}
		// The definition: bf16 × bf16 → f32 of the converted operands.
		a, b := w.args[0].(*tensor.Array).Astype(tensor.BF16), w.args[1].(*tensor.Array).Astype(tensor.BF16)
		out, err := kiln.Jit(bf16Matmul).Run(a, b)
		if err != nil {
			t.Fatal(err)
		}
		if msg, _ := compare(p.result(), out.Data(), 0, true); msg != "" {
			t.Errorf("E6n m=%d: go-loop vs Kiln's bf16 → f32 matmul of the converted operands: %s", tc.m, msg)
		}
	}
}
