package main

import (
	"bufio"
	"compress/gzip"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// dataset is a classification set: n rows of features (flat, row-major)
// and their labels, and where it came from.
type dataset struct {
	x      []float32 // n × features, scaled to [0, 1]
	y      []int
	n, dim int
	source string
}

// digitsPaths are where Debian's python3-sklearn puts the 1,797 8×8
// handwritten digits (UCI's optdigits test set, as sklearn.datasets
// .load_digits reads them).
var digitsPaths = []string{
	"/usr/lib/python3/dist-packages/sklearn/datasets/data/digits.csv.gz",
	"/usr/lib/python3*/site-packages/sklearn/datasets/data/digits.csv.gz",
	"/usr/local/lib/python3*/dist-packages/sklearn/datasets/data/digits.csv.gz",
}

// loadData reads the digits from path, or from the first of digitsPaths
// that exists when path is empty; without them, or when path is
// "generated", it generates a stand-in set.
func loadData(path string, seed int64) (*dataset, error) {
	if path == "generated" {
		d := generated(1797, seed)
		d.source = "generated stand-in (-data generated)"
		return d, nil
	}
	if path == "" {
		for _, pattern := range digitsPaths {
			if m, _ := filepath.Glob(pattern); len(m) > 0 {
				path = m[0]
				break
			}
		}
	}
	if path == "" {
		return generated(1797, seed), nil
	}
	return readDigits(path)
}

// readDigits parses digits.csv.gz: 64 pixel values in 0..16 and the label
// per line.
func readDigits(path string) (*dataset, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	d := &dataset{dim: 64, source: "sklearn digits (" + path + ")"}
	sc := bufio.NewScanner(z)
	for line := 1; sc.Scan(); line++ {
		fields := strings.Split(strings.TrimSpace(sc.Text()), ",")
		if len(fields) != 65 {
			return nil, fmt.Errorf("%s:%d: %d fields, want 65", path, line, len(fields))
		}
		for i, s := range fields {
			v, err := strconv.ParseFloat(s, 64)
			if err != nil {
				return nil, fmt.Errorf("%s:%d: %w", path, line, err)
			}
			if i == 64 {
				d.y = append(d.y, int(v))
			} else {
				d.x = append(d.x, float32(v/16))
			}
		}
		d.n++
	}
	return d, sc.Err()
}

// generated is a stand-in for the digits: ten classes, each a random
// smooth 8×8 prototype, drawn n times with noise and a one-pixel jitter.
func generated(n int, seed int64) *dataset {
	r := rand.New(rand.NewSource(seed))
	var protos [10][64]float64
	for c := range protos {
		for k := 0; k < 3; k++ { // three strokes: blobs along a line
			x0, y0 := r.Float64()*8, r.Float64()*8
			dx, dy := r.Float64()*2-1, r.Float64()*2-1
			for s := 0; s < 6; s++ {
				cx, cy := x0+dx*float64(s), y0+dy*float64(s)
				for p := range 64 {
					px, py := float64(p%8), float64(p/8)
					d2 := (px-cx)*(px-cx) + (py-cy)*(py-cy)
					protos[c][p] += 1 / (1 + d2)
				}
			}
		}
	}
	d := &dataset{dim: 64, n: n, source: "generated (the sklearn digits were not found)"}
	for i := range n {
		c := i % 10
		sx, sy := r.Intn(3)-1, r.Intn(3)-1
		for p := range 64 {
			px, py := min(max(p%8+sx, 0), 7), min(max(p/8+sy, 0), 7)
			v := protos[c][py*8+px] + 0.8*r.NormFloat64()
			d.x = append(d.x, float32(min(max(v/3, 0), 1)))
		}
		d.y = append(d.y, c)
	}
	return d
}

// split shuffles the rows (seeded) and returns the first train rows and
// the rest.
func (d *dataset) split(train int, seed int64) (*dataset, *dataset) {
	perm := rand.New(rand.NewSource(seed)).Perm(d.n)
	a, b := &dataset{dim: d.dim, source: d.source}, &dataset{dim: d.dim, source: d.source}
	for k, i := range perm {
		t := a
		if k >= train {
			t = b
		}
		t.x = append(t.x, d.x[i*d.dim:(i+1)*d.dim]...)
		t.y = append(t.y, d.y[i])
		t.n++
	}
	return a, b
}

// batch copies rows idx into x (len(idx) × dim) and their one-hot labels
// into y (len(idx) × classes).
func (d *dataset) batch(idx []int, x, y []float32, classes int) {
	clear(y)
	for k, i := range idx {
		copy(x[k*d.dim:(k+1)*d.dim], d.x[i*d.dim:(i+1)*d.dim])
		y[k*classes+d.y[i]] = 1
	}
}
