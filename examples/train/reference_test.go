package main

import (
	"math"
)

// refModel is the same MLP and Adam written out by hand in float64 — the
// forward pass, the backward pass derived on paper, the update — with no
// Kiln in it: the reference the Kiln runs are compared with.
type refModel struct {
	dim, hidden int
	lr          float64
	p, m, v     [][]float64 // w1, b1, w2, b2 and their moments
	t           float64
}

func newRefModel(cfg config, dim int) *refModel {
	r := &refModel{dim: dim, hidden: cfg.hidden, lr: cfg.lr, p: initParams(dim, cfg.hidden, cfg.seed)}
	for _, p := range r.p {
		r.m = append(r.m, make([]float64, len(p)))
		r.v = append(r.v, make([]float64, len(p)))
	}
	return r
}

// step trains on rows idx of d and returns the batch's mean cross-entropy.
func (r *refModel) step(d *dataset, idx []int) float64 {
	n, dim, h := len(idx), r.dim, r.hidden
	w1, b1, w2, b2 := r.p[0], r.p[1], r.p[2], r.p[3]
	pre := make([]float64, n*h)
	act := make([]float64, n*h)
	z := make([]float64, n*classes)
	for k, i := range idx {
		x := d.x[i*dim : (i+1)*dim]
		for j := range h {
			s := b1[j]
			for q := range dim {
				s += float64(x[q]) * w1[q*h+j]
			}
			pre[k*h+j], act[k*h+j] = s, math.Max(s, 0)
		}
		for c := range classes {
			s := b2[c]
			for j := range h {
				s += act[k*h+j] * w2[j*classes+c]
			}
			z[k*classes+c] = s
		}
	}
	loss := 0.0
	dz := make([]float64, n*classes) // d(mean CE)/dz = (softmax − y)/n
	for k, i := range idx {
		row := z[k*classes : (k+1)*classes]
		m := row[0]
		for _, v := range row {
			m = math.Max(m, v)
		}
		sum := 0.0
		for _, v := range row {
			sum += math.Exp(v - m)
		}
		loss += m + math.Log(sum) - row[d.y[i]]
		for c, v := range row {
			dz[k*classes+c] = math.Exp(v-m) / sum / float64(n)
		}
		dz[k*classes+d.y[i]] -= 1 / float64(n)
	}
	g := [][]float64{make([]float64, len(w1)), make([]float64, h), make([]float64, len(w2)), make([]float64, classes)}
	for k, i := range idx {
		x := d.x[i*dim : (i+1)*dim]
		for c := range classes {
			g[3][c] += dz[k*classes+c]
		}
		for j := range h {
			dh := 0.0
			for c := range classes {
				g[2][j*classes+c] += act[k*h+j] * dz[k*classes+c]
				dh += dz[k*classes+c] * w2[j*classes+c]
			}
			if pre[k*h+j] <= 0 { // relu's slope: 0 at 0, as jax.nn.relu
				dh = 0
			}
			g[1][j] += dh
			for q := range dim {
				g[0][q*h+j] += float64(x[q]) * dh
			}
		}
	}
	r.t++
	c1, c2 := 1-math.Pow(0.9, r.t), 1-math.Pow(0.999, r.t)
	for a := range r.p {
		for i := range r.p[a] {
			gi := g[a][i]
			r.m[a][i] = 0.9*r.m[a][i] + 0.1*gi
			r.v[a][i] = 0.999*r.v[a][i] + 0.001*gi*gi
			r.p[a][i] -= r.lr * (r.m[a][i] / c1) / (math.Sqrt(r.v[a][i]/c2) + 1e-8)
		}
	}
	return loss / float64(n)
}
