//go:build !noasm

#include "textflag.h"

// func stripMoveAVX512(rows, cols int, dst *float32, ldd int, src *float32, lds int, bias, res *float32)
// For each of rows rows, the first cols (1..16) elements of src (row
// stride lds floats) become, in dst (row stride ldd), bias[j] + src (when
// bias is not nil), then res + that (when res, laid out as dst, is not
// nil): stripMoveRef's float32 operations on one strip of 16 columns.
// Needs AVX-512F.
TEXT ·stripMoveAVX512(SB), NOSPLIT, $0-64
	MOVQ rows+0(FP), CX
	MOVQ cols+8(FP), AX
	MOVQ dst+16(FP), DI
	MOVQ ldd+24(FP), R8
	SHLQ $2, R8
	MOVQ src+32(FP), SI
	MOVQ lds+40(FP), R9
	SHLQ $2, R9
	MOVQ bias+48(FP), BX
	MOVQ res+56(FP), DX
	// K1 selects the first cols lanes.
	MOVL $1, R10
	SHLXL AX, R10, R10
	DECL R10
	KMOVW R10, K1
	TESTQ CX, CX
	JEQ done
	TESTQ BX, BX
	JEQ row
	VMOVUPS.Z (BX), K1, Z0

row:
	VMOVUPS.Z (SI), K1, Z1
	TESTQ BX, BX
	JEQ nobias
	VADDPS Z1, Z0, Z1

nobias:
	TESTQ DX, DX
	JEQ store
	VMOVUPS.Z (DX), K1, Z2
	VADDPS Z1, Z2, Z1
	ADDQ R8, DX

store:
	VMOVUPS Z1, K1, (DI)
	ADDQ R9, SI
	ADDQ R8, DI
	DECQ CX
	JNE row

done:
	VZEROUPPER
	RET
