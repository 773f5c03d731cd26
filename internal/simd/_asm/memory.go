package main

import (
	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

// Memory-system kernels for the fused executor: prefetching the next
// block's inputs, and streaming a block's result to a large output past
// the caches.
func registerMemory() {
	// prefetch asks for every 64-byte line of p to be brought into the
	// cache (PREFETCHT0) without waiting for it. It never faults and
	// changes no memory.
	add("prefetch", "p []byte", func(s isa) {
		if s.evex {
			return // the AVX2 body serves AVX-512 too
		}
		text(s)
		n := Load(Param("p").Len(), GP64())
		ptr := Load(Param("p").Base(), GP64())
		i := GP64()
		XORQ(i, i)
		Label("prefetch_loop")
		CMPQ(i, n)
		JAE(LabelRef("prefetch_done"))
		PREFETCHT0(Mem{Base: ptr, Index: i, Scale: 1})
		ADDQ(U32(64), i)
		JMP(LabelRef("prefetch_loop"))
		Label("prefetch_done")
		Store(n, ReturnIndex(0))
		RET()
	})
	// streamCopy copies whole vectors of src to a vector-aligned dst with
	// non-temporal stores and no fence: the caller fences once (fence)
	// after all its blocks, instead of draining the write-combining
	// buffers after every block.
	add("streamCopy", "dst, src []byte", func(s isa) {
		loop{lanes: s.bytes, unroll: 4, nt: true, noFence: true,
			body: func(in []reg.VecVirtual) []Op { return []Op{in[0]} },
		}.emit(s, out("dst", 1), in("src", 1))
	})
	// fence orders every earlier non-temporal store before later stores.
	addR("fence", "", "", "", func(s isa) {
		if s.evex {
			return
		}
		text(s)
		SFENCE()
		RET()
	})
}
