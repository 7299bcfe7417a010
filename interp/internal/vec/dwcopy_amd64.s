//go:build !noasm

#include "textflag.h"

// func copyRowsClampAVX512(rows, cols int, dst *float32, ldd int, src *float32, lds int, lo, hi float32)
// dst[r·ldd+c] = min(max(src[r·lds+c], lo), hi) for r < rows, c < cols,
// a NaN passing through as Go's min and max pass it (see clampRowAVX):
// whole vectors, then the row's last 1–16 values under a mask, so nothing
// outside the rows is read or written. Needs AVX-512F.
TEXT ·copyRowsClampAVX512(SB), NOSPLIT, $0-56
	MOVQ rows+0(FP), CX
	MOVQ cols+8(FP), DX
	MOVQ dst+16(FP), DI
	MOVQ ldd+24(FP), R8
	SHLQ $2, R8
	MOVQ src+32(FP), SI
	MOVQ lds+40(FP), R9
	SHLQ $2, R9
	VBROADCASTSS lo+48(FP), Z10
	VBROADCASTSS hi+52(FP), Z11
	// R12 whole vectors before the last, which holds 1–16 values (mask K1).
	LEAQ -1(DX), R12
	SHRQ $4, R12
	MOVQ R12, AX
	SHLQ $4, AX
	SUBQ AX, DX
	MOVL $16, AX
	SUBQ DX, AX
	MOVL $0xFFFF, BX
	SHRXL AX, BX, BX
	KMOVW BX, K1

row:
	MOVQ SI, R10
	MOVQ DI, R11
	MOVQ R12, R13
	TESTQ R13, R13
	JEQ last

whole:
	VMOVUPS (R10), Z0
	VCMPPS $3, Z0, Z0, K7
	VMAXPS Z10, Z0, Z1
	VMINPS Z11, Z1, Z1
	VMOVAPS Z0, K7, Z1
	VMOVUPS Z1, (R11)
	ADDQ $64, R10
	ADDQ $64, R11
	DECQ R13
	JNE whole

last:
	VMOVUPS.Z (R10), K1, Z0
	VCMPPS $3, Z0, Z0, K7
	VMAXPS Z10, Z0, Z1
	VMINPS Z11, Z1, Z1
	VMOVAPS Z0, K7, Z1
	VMOVUPS Z1, K1, (R11)
	ADDQ R9, SI
	ADDQ R8, DI
	DECQ CX
	JNE row
	VZEROUPPER
	RET

// func deinterleaveRowsAVX512(rows, w int, src *float32, lds int, even, odd *float32, ldd int)
// even[r·ldd+i] = src[r·lds+2i], odd[r·ldd+i] = src[r·lds+2i+1] for r < rows
// and 2i (2i+1) < w: 32 inputs an iteration by two-source permutes, the
// row's last 1–32 under masks, so nothing outside the rows is read or
// written. Needs AVX-512F.
TEXT ·deinterleaveRowsAVX512(SB), NOSPLIT, $0-56
	MOVQ rows+0(FP), CX
	MOVQ w+8(FP), DX
	MOVQ src+16(FP), SI
	MOVQ lds+24(FP), R8
	SHLQ $2, R8
	MOVQ even+32(FP), DI
	MOVQ odd+40(FP), R9
	MOVQ ldd+48(FP), R10
	SHLQ $2, R10
	VMOVUPS dwEvenIdx<>(SB), Z30
	VMOVUPS dwOddIdx<>(SB), Z29
	// R11 whole chunks of 32 before the last, which holds DX = 1–32 inputs.
	LEAQ -1(DX), R11
	SHRQ $5, R11
	MOVQ R11, AX
	SHLQ $5, AX
	SUBQ AX, DX
	// K1, K2: the last chunk's inputs in its two vectors; K3, K4: its
	// evens and odds. A mask of n (0–16) lanes is 0xFFFF >> (16 - n).
	MOVQ $16, BX
	CMPQ DX, BX
	CMOVQLT DX, BX
	MOVQ $16, AX
	SUBQ BX, AX
	MOVL $0xFFFF, R12
	SHRXL AX, R12, R12
	KMOVW R12, K1
	MOVQ DX, AX
	SUBQ BX, AX
	NEGQ AX
	ADDQ $16, AX
	MOVL $0xFFFF, R12
	SHRXL AX, R12, R12
	KMOVW R12, K2
	LEAQ 1(DX), BX
	SHRQ $1, BX
	MOVQ $16, AX
	SUBQ BX, AX
	MOVL $0xFFFF, R12
	SHRXL AX, R12, R12
	KMOVW R12, K3
	MOVQ DX, BX
	SHRQ $1, BX
	MOVQ $16, AX
	SUBQ BX, AX
	MOVL $0xFFFF, R12
	SHRXL AX, R12, R12
	KMOVW R12, K4

drow:
	MOVQ SI, BX
	MOVQ DI, R12
	MOVQ R9, R13
	MOVQ R11, AX
	TESTQ AX, AX
	JEQ dlast

dwhole:
	VMOVUPS (BX), Z0
	VMOVUPS 64(BX), Z1
	VMOVAPS Z0, Z2
	VPERMT2PS Z1, Z30, Z2
	VPERMT2PS Z1, Z29, Z0
	VMOVUPS Z2, (R12)
	VMOVUPS Z0, (R13)
	ADDQ $128, BX
	ADDQ $64, R12
	ADDQ $64, R13
	DECQ AX
	JNE dwhole

dlast:
	VMOVUPS.Z (BX), K1, Z0
	VMOVUPS.Z 64(BX), K2, Z1
	VMOVAPS Z0, Z2
	VPERMT2PS Z1, Z30, Z2
	VPERMT2PS Z1, Z29, Z0
	VMOVUPS Z2, K3, (R12)
	VMOVUPS Z0, K4, (R13)
	ADDQ R8, SI
	ADDQ R10, DI
	ADDQ R10, R9
	DECQ CX
	JNE drow
	VZEROUPPER
	RET

// dwEvenIdx and dwOddIdx are the permutes' indices: the even and the odd
// places of 32.
DATA dwEvenIdx<>+0(SB)/4, $0
DATA dwEvenIdx<>+4(SB)/4, $2
DATA dwEvenIdx<>+8(SB)/4, $4
DATA dwEvenIdx<>+12(SB)/4, $6
DATA dwEvenIdx<>+16(SB)/4, $8
DATA dwEvenIdx<>+20(SB)/4, $10
DATA dwEvenIdx<>+24(SB)/4, $12
DATA dwEvenIdx<>+28(SB)/4, $14
DATA dwEvenIdx<>+32(SB)/4, $16
DATA dwEvenIdx<>+36(SB)/4, $18
DATA dwEvenIdx<>+40(SB)/4, $20
DATA dwEvenIdx<>+44(SB)/4, $22
DATA dwEvenIdx<>+48(SB)/4, $24
DATA dwEvenIdx<>+52(SB)/4, $26
DATA dwEvenIdx<>+56(SB)/4, $28
DATA dwEvenIdx<>+60(SB)/4, $30
GLOBL dwEvenIdx<>(SB), RODATA|NOPTR, $64

DATA dwOddIdx<>+0(SB)/4, $1
DATA dwOddIdx<>+4(SB)/4, $3
DATA dwOddIdx<>+8(SB)/4, $5
DATA dwOddIdx<>+12(SB)/4, $7
DATA dwOddIdx<>+16(SB)/4, $9
DATA dwOddIdx<>+20(SB)/4, $11
DATA dwOddIdx<>+24(SB)/4, $13
DATA dwOddIdx<>+28(SB)/4, $15
DATA dwOddIdx<>+32(SB)/4, $17
DATA dwOddIdx<>+36(SB)/4, $19
DATA dwOddIdx<>+40(SB)/4, $21
DATA dwOddIdx<>+44(SB)/4, $23
DATA dwOddIdx<>+48(SB)/4, $25
DATA dwOddIdx<>+52(SB)/4, $27
DATA dwOddIdx<>+56(SB)/4, $29
DATA dwOddIdx<>+60(SB)/4, $31
GLOBL dwOddIdx<>(SB), RODATA|NOPTR, $64
