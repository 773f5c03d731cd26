package main

import (
	"math/rand"
	"os"
	"testing"

	"github.com/kiln-go/kiln"
	"github.com/kiln-go/kiln/export/onnx"
	"github.com/kiln-go/kiln/kernels/ort"
	"github.com/kiln-go/kiln/tensor"
)

// TestONNXAccuracy trains the MLP (bf16 compute, as main does, for fewer
// epochs), exports its prediction to ONNX and runs it on ONNX Runtime:
// the test accuracy, and every predicted class, equal Kiln's.
func TestONNXAccuracy(t *testing.T) {
	b, err := ort.New(ort.Options{})
	if err != nil {
		if ort.Unavailable(err) && os.Getenv("KILN_REQUIRE_ORT") != "1" {
			t.Skipf("skipping: no ONNX Runtime (%v); set KILN_REQUIRE_ORT=1 to make this a failure", err)
		}
		t.Fatal(err)
	}
	all, err := loadData("", 1)
	if err != nil {
		t.Fatal(err)
	}
	train, test := all.split(all.n*4/5, 1)
	cfg := config{hidden: 128, batch: 64, epochs: 5, lr: 3e-3, compute: tensor.BF16, seed: 1}
	m, err := newModel(cfg, all.dim)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewSource(cfg.seed))
	for range cfg.epochs {
		perm := r.Perm(train.n)
		for i := 0; i+cfg.batch <= train.n; i += cfg.batch {
			if _, err := m.trainStep(train, perm[i:i+cfg.batch]); err != nil {
				t.Fatal(err)
			}
		}
	}
	acc, err := m.accuracy(test)
	if err != nil {
		t.Fatal(err)
	}
	x, _ := tensor.FromSlice(test.x, test.n, test.dim)
	args := []any{&m.state.Params, x} // flattened to w1, b1, w2, b2, x
	mod, err := m.predict.Lower(args...)
	if err != nil {
		t.Fatal(err)
	}
	model, err := onnx.Export(mod, onnx.Options{InputNames: []string{"w1", "b1", "w2", "b2", "x"}})
	if err != nil {
		t.Fatal(err)
	}
	predict := kiln.Jit(func(p Params[kiln.Value], x kiln.Value) kiln.Value {
		return logits(p, x, cfg.compute).ArgMax(1)
	}, kiln.WithBackend(b))
	got, err := predict.Run(args...)
	if err != nil {
		t.Fatal(err)
	}
	want, err := m.predict.Run(args...)
	if err != nil {
		t.Fatal(err)
	}
	classes, _ := tensor.Data[int64](got.Astype(tensor.I64))
	right := 0
	for i, c := range classes {
		if int(c) == test.y[i] {
			right++
		}
	}
	ortAcc := float64(right) / float64(test.n)
	t.Logf("%d-byte ONNX model; test accuracy: Kiln CPU %.2f%%, ONNX Runtime %.2f%%", len(model), 100*acc, 100*ortAcc)
	if ortAcc != acc || !tensor.Equal(got, want) {
		t.Errorf("ONNX Runtime's predictions differ from Kiln's: accuracy %.4f vs %.4f", ortAcc, acc)
	}
}
