package ort_test

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/kiln-go/kiln/export/onnx"
	"github.com/kiln-go/kiln/kernels"
	"github.com/kiln-go/kiln/kernels/conformance"
	"github.com/kiln-go/kiln/lower"
)

// TestConformance runs every conformance program on ONNX Runtime: those
// the exporter refuses are counted by the op refused, every other must
// agree with the reference.
func TestConformance(t *testing.T) {
	b := backend(t)
	refused := map[string]int{}
	ran, failed := 0, 0
	var fails []string
	for _, c := range conformance.Cases() {
		p, want, err := conformance.Reference(c)
		if err != nil {
			t.Fatalf("%s: reference: %v", c.Name, err)
		}
		m, err := lower.Compile(p, lower.Options{Fold: kernels.Fold})
		if err != nil {
			t.Fatalf("%s: %v", c.Name, err)
		}
		exe, err := b.Compile(m)
		var ue *onnx.UnsupportedError
		if errors.As(err, &ue) {
			refused[fmt.Sprintf("%s/%s", ue.Op, ue.DType)]++
			continue
		}
		if err != nil {
			failed++
			fails = append(fails, fmt.Sprintf("%s: compile: %v", c.Name, err))
			continue
		}
		got, err := exe.Run(c.Inputs)
		if err != nil {
			failed++
			fails = append(fails, fmt.Sprintf("%s: run: %v", c.Name, err))
			continue
		}
		ran++
		for i := range want {
			if msg := conformance.Compare(got[i], want[i], 8); msg != "" {
				failed++
				fails = append(fails, fmt.Sprintf("%s: output %d: %s", c.Name, i, msg))
				break
			}
		}
	}
	var keys []string
	for k, n := range refused {
		keys = append(keys, fmt.Sprintf("%s×%d", k, n))
	}
	sort.Strings(keys)
	t.Logf("ran %d, failed %d, refused %d kinds: %s", ran, failed, len(keys), strings.Join(keys, " "))
	for _, f := range fails {
		t.Log(f)
	}
}
