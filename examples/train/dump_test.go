package main

import (
	"fmt"
	"testing"

	"github.com/kiln-go/kiln/tensor"
)

func TestDumpStep(t *testing.T) {
	all, _ := loadData("", 1)
	cfg := config{hidden: 128, batch: 256, lr: 3e-3, compute: tensor.F32, seed: 1}
	m, _ := newModel(cfg, all.dim)
	args := []any{}
	for _, a := range append(append([]*tensor.Array{}, m.params...), m.state...) {
		args = append(args, a)
	}
	args = append(args, m.x, m.y)
	mod, err := m.step.Lower(args...)
	fmt.Println(mod.FusedString(), err)
}
