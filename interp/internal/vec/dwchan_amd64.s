//go:build !noasm

#include "textflag.h"

// func dwChannelsAVX512(n, taps int, offs *int32, w, bias, src *float32, origins *int32, dst *float32)
// dwChannelsRef for n pixels, n a multiple of 4 and above 0, taps above 0:
// four pixels at a time, each tap's weights loaded once for the four, its
// sums fused multiply-adds in tap order (w·x, exact, then rounded with the
// sum, as fma32 does).
TEXT ·dwChannelsAVX512(SB), NOSPLIT, $0-64
	MOVQ n+0(FP), CX
	MOVQ src+40(FP), SI
	MOVQ origins+48(FP), R12
	MOVQ dst+56(FP), DI
	MOVQ bias+32(FP), AX
	VMOVUPS (AX), Z8
	SHRQ $2, CX

dwcpix:
	MOVLQSX 0(R12), R8
	MOVLQSX 4(R12), R9
	MOVLQSX 8(R12), R10
	MOVLQSX 12(R12), R11
	SHLQ $6, R8
	SHLQ $6, R9
	SHLQ $6, R10
	SHLQ $6, R11
	VMOVAPS Z8, Z0
	VMOVAPS Z8, Z1
	VMOVAPS Z8, Z2
	VMOVAPS Z8, Z3
	MOVQ offs+16(FP), R13
	MOVQ w+24(FP), DX
	MOVQ taps+8(FP), BX

dwctap:
	MOVLQSX (R13), AX
	SHLQ $6, AX
	ADDQ SI, AX
	VMOVUPS (DX), Z4
	VFMADD231PS (AX)(R8*1), Z4, Z0
	VFMADD231PS (AX)(R9*1), Z4, Z1
	VFMADD231PS (AX)(R10*1), Z4, Z2
	VFMADD231PS (AX)(R11*1), Z4, Z3
	ADDQ $4, R13
	ADDQ $64, DX
	DECQ BX
	JNE dwctap

	VMOVUPS Z0, 0(DI)
	VMOVUPS Z1, 64(DI)
	VMOVUPS Z2, 128(DI)
	VMOVUPS Z3, 192(DI)
	ADDQ $256, DI
	ADDQ $16, R12
	DECQ CX
	JNE dwcpix

	VZEROUPPER
	RET
