package main

import (
	"math"
	"math/rand"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kiln-go/kiln"
	"github.com/kiln-go/kiln/tensor"
)

// compare runs steps training steps of the Kiln model at compute dtype c
// and of the float64 reference on the same batches, and returns the
// largest relative loss difference and the largest weight difference
// relative to the largest weight.
func compare(t *testing.T, c tensor.DType, steps int) (lossErr, weightErr float64) {
	t.Helper()
	all, err := loadData("", 1)
	if err != nil {
		t.Fatal(err)
	}
	train, _ := all.split(all.n*4/5, 1)
	cfg := config{hidden: 128, batch: 64, lr: 3e-3, compute: c, seed: 1}
	m, err := newModel(cfg, all.dim)
	if err != nil {
		t.Fatal(err)
	}
	ref := newRefModel(cfg, all.dim)
	r := rand.New(rand.NewSource(7))
	for s := range steps {
		idx := r.Perm(train.n)[:cfg.batch]
		got, err := m.trainStep(train, idx)
		if err != nil {
			t.Fatal(err)
		}
		want := ref.step(train, idx)
		lossErr = math.Max(lossErr, math.Abs(got-want)/math.Abs(want))
		if s == steps-1 {
			for a, p := range m.weights() {
				w, err := tensor.Data[float64](p.Astype(tensor.F64))
				if err != nil {
					t.Fatal(err)
				}
				scale := 0.0
				for _, v := range ref.p[a] {
					scale = math.Max(scale, math.Abs(v))
				}
				for i, v := range w {
					weightErr = math.Max(weightErr, math.Abs(v-ref.p[a][i])/scale)
				}
			}
		}
	}
	return lossErr, weightErr
}

// TestF64MatchesReference: the f64 run is the float64 reference, up to the
// order of float64 sums.
func TestF64MatchesReference(t *testing.T) {
	lossErr, weightErr := compare(t, tensor.F64, 100)
	t.Logf("f64 vs reference after 100 steps: loss %.1e, weights %.1e", lossErr, weightErr)
	if lossErr > 1e-10 || weightErr > 1e-10 {
		t.Errorf("f64 run differs from the float64 reference: loss by %.1e, weights by %.1e (tolerance 1e-10)", lossErr, weightErr)
	}
}

// TestF32MatchesReference: the f32 run (f32 compute and master weights)
// follows the float64 reference of the same steps: every step's loss
// within 1e-4 (relative) and the weights after 100 steps within 1e-3 of
// the largest weight.
func TestF32MatchesReference(t *testing.T) {
	lossErr, weightErr := compare(t, tensor.F32, 100)
	t.Logf("f32 vs reference after 100 steps: loss %.1e, weights %.1e", lossErr, weightErr)
	if lossErr > 1e-4 || weightErr > 1e-3 {
		t.Errorf("f32 run differs from the float64 reference: loss by %.1e, weights by %.1e (tolerance 1e-4, 1e-3)", lossErr, weightErr)
	}
}

// TestTrainsToAccuracy trains the example's mixed-precision runs (bf16;
// f16 with loss scaling) as main does and checks the test accuracy.
func TestTrainsToAccuracy(t *testing.T) {
	if testing.Short() {
		t.Skip("trains for 30 epochs")
	}
	all, err := loadData("", 1)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("data: %s", all.source)
	train, test := all.split(all.n*4/5, 1)
	for _, c := range []tensor.DType{tensor.BF16, tensor.F16} {
		cfg := config{hidden: 128, batch: 64, epochs: 30, lr: 3e-3, compute: c, seed: 1}
		m, err := newModel(cfg, all.dim)
		if err != nil {
			t.Fatal(err)
		}
		r := rand.New(rand.NewSource(cfg.seed))
		for range cfg.epochs {
			perm := r.Perm(train.n)
			for b := 0; b+cfg.batch <= train.n; b += cfg.batch {
				if _, err := m.trainStep(train, perm[b:b+cfg.batch]); err != nil {
					t.Fatal(err)
				}
			}
		}
		acc, err := m.accuracy(test)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: test accuracy %.2f%%", c, 100*acc)
		if acc < 0.95 {
			t.Errorf("%s: test accuracy %.2f%%, want ≥ 95%%", c, 100*acc)
		}
	}
}

// TestGeneratedFallback checks the stand-in set the example trains on
// when the digits are not installed: it is told apart, and learnable.
func TestGeneratedFallback(t *testing.T) {
	d, err := loadData("generated", 1)
	if err != nil {
		t.Fatal(err)
	}
	if d.n != 1797 || d.dim != 64 || len(d.x) != d.n*d.dim || d.source != "generated stand-in (-data generated)" {
		t.Fatalf("generated set: %d rows of %d, %d values, source %q", d.n, d.dim, len(d.x), d.source)
	}
	if _, err := loadData("/nonexistent/digits.csv.gz", 1); err == nil {
		t.Error("a missing -data file is not an error")
	}
}

// TestWeightsRoundTrip trains a few steps, saves the weights as
// safetensors, and reads them back bit for bit — copied, and through
// the mapping — and into a fresh model that then predicts the same.
func TestWeightsRoundTrip(t *testing.T) {
	all, err := loadData("generated", 1)
	if err != nil {
		t.Fatal(err)
	}
	train, test := all.split(all.n*4/5, 1)
	cfg := config{hidden: 16, batch: 32, lr: 3e-3, compute: tensor.BF16, seed: 1}
	m, err := newModel(cfg, all.dim)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewSource(1))
	for range 5 {
		if _, err := m.trainStep(train, r.Perm(train.n)[:cfg.batch]); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(t.TempDir(), "w.safetensors")
	if err := m.save(path); err != nil {
		t.Fatal(err)
	}
	saved, meta, err := tensor.ReadSafetensorsFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if meta["compute"] != "bf16" || meta["master"] != "f32" || meta["model"] != "64-16-10 MLP" {
		t.Errorf("metadata %v", meta)
	}
	f, err := tensor.OpenSafetensors(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for i, name := range paramNames {
		mapped, ok := f.Lookup(name)
		if w := m.weights()[i]; saved[i].Name != name || !tensor.Equal(saved[i].Array, w) || !ok || !tensor.Equal(mapped, w) {
			t.Errorf("%s: saved %s %v, mapped %v; the model has %v", name, saved[i].Name, saved[i].Array, mapped, w)
		}
	}
	if f.Mapped() != len(paramNames) {
		t.Errorf("%d of %d weights view the mapping", f.Mapped(), len(paramNames))
	}
	fresh, err := newModel(cfg, all.dim)
	if err != nil {
		t.Fatal(err)
	}
	if err := fresh.load(path); err != nil {
		t.Fatal(err)
	}
	for i, w := range m.weights() {
		if !tensor.Equal(fresh.weights()[i], w) {
			t.Errorf("loaded %s differs", paramNames[i])
		}
	}
	want, err1 := m.accuracy(test)
	got, err2 := fresh.accuracy(test)
	if err1 != nil || err2 != nil || got != want {
		t.Errorf("accuracy of the loaded weights %v (%v), of the trained %v (%v)", got, err2, want, err1)
	}
	// A model of another shape refuses the file.
	other, _ := newModel(config{hidden: 8, batch: 32, lr: 3e-3, compute: tensor.BF16, seed: 1}, all.dim)
	if err := other.load(path); err == nil || !strings.Contains(err.Error(), "w1 is f32[64 16], the model's is f32[64 8]") {
		t.Errorf("loading into a 64-8-10 model: %v", err)
	}
}

// twin is a carry of c's structure, dtypes and shapes, of zeros.
func twin(t testing.TB, c Carry[*tensor.Array]) Carry[*tensor.Array] {
	t.Helper()
	leaves, def, err := kiln.TreeFlatten[*tensor.Array](&c)
	if err != nil {
		t.Fatal(err)
	}
	zeros := make([]*tensor.Array, len(leaves))
	for i, l := range leaves {
		zeros[i] = tensor.Must(tensor.Zeros(l.DType(), l.Shape()...))
	}
	out, err := kiln.TreeUnflatten[Carry[*tensor.Array]](def, zeros)
	if err != nil {
		t.Fatal(err)
	}
	return out
}
