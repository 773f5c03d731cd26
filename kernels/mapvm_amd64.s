//go:build !purego

#include "textflag.h"

// func mapVMF32AVX512(prog *uint32, nprog int, tab *uintptr, nadv int, tiles int)
//
// Runs a mapped region's f32 program (see mapvm.go) over tiles of 64
// elements: for each tile, each instruction op|d<<8|a<<16|b<<24 loads 64
// elements at tab[a] into Z0-Z3, combines them with the 64 at tab[b]
// (src1 the first operand, as the elementwise kernels do) and stores them
// at tab[d]; after the tile the first nadv entries of tab (the leaves'
// and the output's pointers) advance by 256 bytes. Ops: 0 copy, 1 add,
// 2 subtract, 3 multiply, 4 divide.
TEXT ·mapVMF32AVX512(SB), NOSPLIT, $0-40
	MOVQ prog+0(FP), R8
	MOVQ nprog+8(FP), R9
	MOVQ tab+16(FP), R10
	MOVQ nadv+24(FP), R11
	MOVQ tiles+32(FP), R12

tile:
	TESTQ R12, R12
	JE    done
	XORQ  CX, CX

instr:
	CMPQ    CX, R9
	JAE     advance
	MOVL    (R8)(CX*4), AX
	INCQ    CX
	MOVL    AX, DX
	SHRL    $8, DX
	ANDL    $0xff, DX
	MOVL    AX, SI
	SHRL    $16, SI
	ANDL    $0xff, SI
	MOVL    AX, DI
	SHRL    $24, DI
	ANDL    $0xff, AX
	MOVQ    (R10)(DX*8), DX
	MOVQ    (R10)(SI*8), SI
	MOVQ    (R10)(DI*8), DI
	VMOVUPS (SI), Z0
	VMOVUPS 64(SI), Z1
	VMOVUPS 128(SI), Z2
	VMOVUPS 192(SI), Z3
	CMPL    AX, $1
	JE      add
	CMPL    AX, $2
	JE      sub
	CMPL    AX, $3
	JE      mul
	CMPL    AX, $4
	JE      div
	JMP     put

add:
	VADDPS (DI), Z0, Z0
	VADDPS 64(DI), Z1, Z1
	VADDPS 128(DI), Z2, Z2
	VADDPS 192(DI), Z3, Z3
	JMP    put

sub:
	VSUBPS (DI), Z0, Z0
	VSUBPS 64(DI), Z1, Z1
	VSUBPS 128(DI), Z2, Z2
	VSUBPS 192(DI), Z3, Z3
	JMP    put

mul:
	VMULPS (DI), Z0, Z0
	VMULPS 64(DI), Z1, Z1
	VMULPS 128(DI), Z2, Z2
	VMULPS 192(DI), Z3, Z3
	JMP    put

div:
	VDIVPS (DI), Z0, Z0
	VDIVPS 64(DI), Z1, Z1
	VDIVPS 128(DI), Z2, Z2
	VDIVPS 192(DI), Z3, Z3

put:
	VMOVUPS Z0, (DX)
	VMOVUPS Z1, 64(DX)
	VMOVUPS Z2, 128(DX)
	VMOVUPS Z3, 192(DX)
	JMP     instr

advance:
	XORQ CX, CX

advanceLoop:
	CMPQ CX, R11
	JAE  nextTile
	ADDQ $256, (R10)(CX*8)
	INCQ CX
	JMP  advanceLoop

nextTile:
	DECQ R12
	JMP  tile

done:
	VZEROUPPER
	RET
