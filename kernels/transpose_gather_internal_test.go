package kernels

import (
	"fmt"
	"testing"
	"unsafe"
)

// gather over a transpose's strides (the copy kernel's, and a body's
// transposed loads) writes, for any run of iteration elements, whole rows
// or not, the source element each one maps to: tiles of the transposed
// path with ragged edges, one tile high, and the strided fallback.
func TestTransposeGather(t *testing.T) {
	sizes := []int{1, 2, 15, 16, 17, 33, 100, 300}
	for _, r := range sizes {
		for _, c := range sizes {
			// The source is r×c row-major; the output c×r, out[i, j] = src[j, i].
			src := make([]uint32, r*c)
			for i := range src {
				src[i] = uint32(i + 1)
			}
			g := &strided{shape: []int{c, r}, strides: []int{1, c}}
			g.simplify()
			n := r * c
			runs := [][2]int{{0, n}}
			if c > 1 {
				runs = append(runs, [2]int{r, n - r}, [2]int{0, r * (c / 2)}) // whole rows from a later one
			}
			runs = append(runs, [2]int{n / 3, n - n/3}) // not whole rows
			for _, run := range runs {
				lo, m := run[0], run[1]
				if m <= 0 {
					continue
				}
				out := make([]uint32, m)
				gather[uint32](unsafe.Pointer(&out[0]), unsafe.Pointer(&src[0]), g, lo, m)
				for k, v := range out {
					e := lo + k
					i, j := e/r, e%r // output row i (a source column), column j (a source row)
					if want := src[j*c+i]; v != want {
						t.Fatalf("%s: element %d is %d, want %d", fmt.Sprintf("%d×%d transposed, run [%d, %d)", r, c, lo, lo+m), e, v, want)
					}
				}
			}
		}
	}
}
