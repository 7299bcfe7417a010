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
