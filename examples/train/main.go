// Command train trains a two-layer MLP classifier end to end with Kiln's
// autodiff: forward pass, kiln.ValueAndGrad's backward pass and an Adam
// update in one jitted step, in mixed precision — bf16 (or f16, with
// dynamic loss scaling) compute over f32 master weights — on the 1,797
// 8×8 handwritten digits Debian's python3-sklearn ships (a generated
// stand-in when they are not installed; the output says which ran). It
// prints the loss per epoch and the test accuracy.
//
// The weights are a struct, Params, and what a step hands the next —
// weights, Adam's state, the loss scale — another, Carry: kiln trees, so
// the jitted step takes and returns named fields (kiln.ValueAndGradTree,
// optim.StepTree), and between steps RunTree fills a
// Carry[*tensor.Array] of the same structure.
//
//	go run ./examples/train                 # bf16 compute
//	go run ./examples/train -dtype f16      # f16 compute, loss scaling
//	go run ./examples/train -dtype f32
//	go run ./examples/train -save w.safetensors       # keep the weights
//	go run ./examples/train -load w.safetensors -epochs 0
package main

import (
	"flag"
	"fmt"
	"math/rand"
	"os"
	"time"

	"github.com/kiln-go/kiln/tensor"
)

func main() {
	dtype := flag.String("dtype", "bf16", "compute dtype of the forward and backward pass: bf16, f16, f32 or f64 (master weights are f32; f64's are f64)")
	epochs := flag.Int("epochs", 30, "passes over the training set")
	batch := flag.Int("batch", 64, "batch size")
	hidden := flag.Int("hidden", 128, "hidden units")
	lr := flag.Float64("lr", 3e-3, "Adam's learning rate")
	seed := flag.Int64("seed", 1, "seed of the weights, the split and the batch order")
	data := flag.String("data", "", "digits.csv.gz to read (default: python3-sklearn's, if installed), or \"generated\" for the stand-in set")
	save := flag.String("save", "", "write the trained weights (f32 master weights, or f64) to this .safetensors file")
	load := flag.String("load", "", "start from the weights in this .safetensors file (written by -save; Adam's state starts afresh)")
	flag.Parse()
	c, err := tensor.ParseDType(*dtype)
	if err == nil && !c.IsFloat() {
		err = fmt.Errorf("not a float dtype")
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "train: -dtype %s: %v\n", *dtype, err)
		os.Exit(2)
	}
	cfg := config{hidden: *hidden, batch: *batch, epochs: *epochs, lr: *lr, compute: c, seed: *seed, save: *save, load: *load}
	if err := run(cfg, *data); err != nil {
		fmt.Fprintln(os.Stderr, "train:", err)
		os.Exit(1)
	}
}

func run(cfg config, path string) error {
	all, err := loadData(path, cfg.seed)
	if err != nil {
		return err
	}
	train, test := all.split(all.n*4/5, cfg.seed)
	fmt.Printf("data: %s, %d train / %d test\n", all.source, train.n, test.n)
	fmt.Printf("model: 64-%d-10 MLP, %s compute, %s master weights, Adam lr %g, batch %d", cfg.hidden, cfg.compute, cfg.master(), cfg.lr, cfg.batch)
	if cfg.compute == tensor.F16 {
		fmt.Print(", dynamic loss scaling")
	}
	fmt.Println()
	m, err := newModel(cfg, all.dim)
	if err != nil {
		return err
	}
	if cfg.load != "" {
		if err := m.load(cfg.load); err != nil {
			return err
		}
		fmt.Printf("weights: loaded from %s\n", cfg.load)
	}
	r := rand.New(rand.NewSource(cfg.seed))
	start := time.Now()
	steps := 0
	for epoch := 1; epoch <= cfg.epochs; epoch++ {
		perm := r.Perm(train.n)
		sum, n := 0.0, 0
		for b := 0; b+cfg.batch <= train.n; b += cfg.batch {
			l, err := m.trainStep(train, perm[b:b+cfg.batch])
			if err != nil {
				return err
			}
			sum, n = sum+l, n+1
		}
		steps += n
		if epoch == 1 || epoch%5 == 0 || epoch == cfg.epochs {
			fmt.Printf("epoch %3d  loss %.4f\n", epoch, sum/float64(n))
		}
	}
	elapsed := time.Since(start)
	acc, err := m.accuracy(test)
	if err != nil {
		return err
	}
	if steps == 0 {
		fmt.Printf("test accuracy %.2f%% (no training steps)\n", 100*acc)
	} else {
		fmt.Printf("test accuracy %.2f%% (%d steps in %v, %v per step)\n", 100*acc, steps, elapsed.Round(time.Millisecond), (elapsed / time.Duration(steps)).Round(time.Microsecond))
	}
	if cfg.save != "" {
		if err := m.save(cfg.save); err != nil {
			return err
		}
		fmt.Printf("weights: saved to %s\n", cfg.save)
	}
	return nil
}
