package gemm

import (
	"unsafe"

	"github.com/kiln-go/kiln/internal/simd"
	"os"
	"strconv"
	"strings"
	"sync"
)

// Cache sizes in bytes, read once from Linux's sysfs; elsewhere, or when
// it cannot be read, 32 KiB of L1 data and 512 KiB of L2 (conservative
// for every x86-64 and arm64 core of the last ten years).
var caches = sync.OnceValues(func() (l1, l2 int) {
	l1, l2 = 32<<10, 512<<10
	for i := range 8 {
		dir := "/sys/devices/system/cpu/cpu0/cache/index" + strconv.Itoa(i) + "/"
		level, err1 := os.ReadFile(dir + "level")
		typ, err2 := os.ReadFile(dir + "type")
		size, err3 := os.ReadFile(dir + "size")
		if err1 != nil || err2 != nil || err3 != nil {
			break
		}
		n := parseSize(strings.TrimSpace(string(size)))
		if n <= 0 || strings.TrimSpace(string(typ)) == "Instruction" {
			continue
		}
		switch strings.TrimSpace(string(level)) {
		case "1":
			l1 = n
		case "2":
			l2 = n
		}
	}
	return l1, l2
})

// parseSize reads sysfs's "48K" or "1024K" or "32M".
func parseSize(s string) int {
	mult := 1
	switch {
	case strings.HasSuffix(s, "K"):
		mult, s = 1<<10, s[:len(s)-1]
	case strings.HasSuffix(s, "M"):
		mult, s = 1<<20, s[:len(s)-1]
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		return 0
	}
	return n * mult
}

// blocking gives the k and column block sizes for kernel k: an MR×KC
// panel of a takes about half of L1 (the b panel streams past it; the c
// tile is one register file), and a KC×NC block of b four times L2 (at
// most maxBlockB) — it
// streams from L3 well enough, and bigger blocks load and store each c
// tile fewer times (once per KC steps) and re-read a fewer times (once
// per NC columns): on the 48 KiB L1, 1 MiB L2 machine of bench/REPORT.md,
// f32 2048³ on one core ran at about 210 GFLOP/s with KC 256, NC 512
// (a quarter of L1, half of L2) and 235 with KC 512, NC 2048. KC is a
// multiple of 8 between 64 and 1024; NC a multiple of NR.
func blocking[T Float](k simd.GemmKernel[T]) (kc, nc int) {
	return blockSizes(k.MR, k.NR, int(unsafe.Sizeof(T(0))))
}

// blockSizes is blocking for an mr×nr kernel of size-byte elements.
func blockSizes(mr, nr, size int) (kc, nc int) {
	l1, l2 := caches()
	kc = min(1024, max(64, l1/2/(mr*size)&^7))
	nc = max(nr, min(4*l2, maxBlockB)/(kc*size)/nr*nr)
	return kc, nc
}

// maxBlockB caps b's block (and so each worker's b buffer, allocated as
// a product first needs it): four L2s of a server core (2 MiB) on every
// worker of a many-core machine would be hundreds of MiB.
const maxBlockB = 4 << 20
