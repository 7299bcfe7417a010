//go:build !noasm

#include "textflag.h"

// func clampTileAVX512(rows, cols int, y *float32, ld int, bias, res *float32, lo, hi float32)
// For each of rows rows of y (row stride ld floats), the first cols (1..16)
// elements become min(max(y + bias[r] (+ res, laid out as y), lo), hi), a
// NaN sum passing through unchanged: clampRowAVX's operations, in its
// order, on one tile of 16 columns. A nil bias adds 0, as clampRow does.
// Needs AVX-512F.
TEXT ·clampTileAVX512(SB), NOSPLIT, $0-56
	MOVQ rows+0(FP), CX
	MOVQ cols+8(FP), AX
	MOVQ y+16(FP), DI
	MOVQ ld+24(FP), R8
	SHLQ $2, R8
	MOVQ bias+32(FP), BX
	MOVQ res+40(FP), SI
	VBROADCASTSS lo+48(FP), Z1
	VBROADCASTSS hi+52(FP), Z2
	VPXORD Z0, Z0, Z0
	// K1 selects the first cols lanes.
	MOVL $1, DX
	SHLXL AX, DX, DX
	DECL DX
	KMOVW DX, K1
	TESTQ CX, CX
	JEQ done

row:
	TESTQ BX, BX
	JEQ nobias
	VBROADCASTSS (BX), Z0
	ADDQ $4, BX

nobias:
	VMOVUPS.Z (DI), K1, Z3
	VADDPS Z0, Z3, Z3
	TESTQ SI, SI
	JEQ clamp
	VMOVUPS.Z (SI), K1, Z4
	VADDPS Z4, Z3, Z3
	ADDQ R8, SI

clamp:
	VCMPPS $3, Z3, Z3, K2
	VMAXPS Z1, Z3, Z5
	VMINPS Z2, Z5, Z5
	VMOVAPS Z3, K2, Z5
	VMOVUPS Z5, K1, (DI)
	ADDQ R8, DI
	DECQ CX
	JNE row

done:
	VZEROUPPER
	RET
