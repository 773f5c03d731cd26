//go:build unix

package kernels

import (
	"math"
	"math/rand/v2"
	"syscall"
	"testing"
	"unsafe"

	"github.com/kiln-go/kiln/internal/numerics"
	"github.com/kiln-go/kiln/internal/simd"
)

// guarded returns a []float32 of n values whose last value ends right
// before a PROT_NONE page.
func s35Guarded(t *testing.T, n int) ([]float32, func()) {
	pg := syscall.Getpagesize()
	bytes := (n*4 + pg - 1) / pg * pg
	mem, err := syscall.Mmap(-1, 0, bytes+pg, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mprotect(mem[bytes:], syscall.PROT_NONE); err != nil {
		t.Fatal(err)
	}
	off := bytes - n*4
	x := unsafe.Slice((*float32)(unsafe.Pointer(&mem[off])), n)
	return x, func() { syscall.Munmap(mem) }
}

func s35Pick(rng *rand.Rand, mode int) float32 {
	r := rng.IntN(20)
	if mode == 1 && r < 2 || mode == 2 && r == 0 && rng.IntN(50) == 0 {
		if rng.IntN(2) == 0 {
			return math.Float32frombits(0x7fc00000 | uint32(rng.IntN(2))<<31 | uint32(rng.Uint64())&0x3fffff)
		}
		return math.Float32frombits(0x7f800001 | uint32(rng.IntN(2))<<31 | uint32(rng.Uint64())&0x1fffff)
	}
	switch r % 10 {
	case 2:
		return float32(math.Copysign(0, -1))
	case 3:
		return 0
	case 4:
		return float32(math.Inf(1 - 2*rng.IntN(2)))
	case 5:
		return math.Float32frombits(uint32(rng.IntN(2))<<31 | uint32(1+rng.IntN(0x7fffff)))
	case 6:
		return math.Float32frombits(uint32(rng.IntN(2))<<31 | 0x7f7fffff - uint32(rng.IntN(4)))
	case 7:
		if mode == 3 {
			return float32(math.Copysign(0, -1))
		}
	}
	if mode == 3 {
		return float32(math.Copysign(0, -1))
	}
	return float32(rng.NormFloat64()) * float32(math.Exp2(float64(rng.IntN(60)-30)))
}

func s35SumRef(x []float32) float32 {
	add := numerics.AddFirstNaN[float32]
	var v float32
	if len(x) < 8 {
		v = x[0]
		for _, y := range x[1:] {
			v = add(v, y)
		}
	} else {
		v = add(add(add(x[0], x[1]), add(x[2], x[3])), add(add(x[4], x[5]), add(x[6], x[7])))
		for _, y := range x[8:] {
			v = add(v, y)
		}
	}
	return numerics.AddFirstNaN(float32(0), v)
}

func TestS35ShortRows(t *testing.T) {
	for _, tier := range simd.Available() {
		restore := simd.SetLevel(tier)
		t.Run(tier.String(), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(35, 36))
			for mode := 0; mode < 4; mode++ {
				for l := 1; l < 16; l++ {
					for rows := 1; rows <= 70; rows++ {
						x, free := s35Guarded(t, rows*l)
						for i := range x {
							x[i] = s35Pick(rng, mode)
						}
						d := make([]float32, rows)
						sumShort(d, x, l)
						for i := range rows {
							want := s35SumRef(x[i*l : (i+1)*l])
							if math.Float32bits(d[i]) != math.Float32bits(want) {
								t.Fatalf("sum mode %d l=%d rows=%d row %d %v: %#x want %#x", mode, l, rows, i, x[i*l:(i+1)*l], math.Float32bits(d[i]), math.Float32bits(want))
							}
						}
						for _, isMin := range []bool{false, true} {
							fold := numerics.Maximum[float32]
							if isMin {
								fold = numerics.Minimum[float32]
							}
							foldFloats(d, x, l, isMin)
							for i := range rows {
								r := x[i*l : (i+1)*l]
								want := r[0]
								for _, v := range r[1:] {
									want = fold(want, v)
								}
								if math.Float32bits(d[i]) != math.Float32bits(want) {
									t.Fatalf("fold min=%v mode %d l=%d rows=%d row %d %v: %#x want %#x", isMin, mode, l, rows, i, r, math.Float32bits(d[i]), math.Float32bits(want))
								}
							}
						}
						free()
					}
				}
			}
		})
		restore()
	}
}
