//go:build !noasm

#include "textflag.h"

// func lerpRowAVX512(n int, dst *float32, row *float64, rowLen int, i0, i1 *int32, w0, w1 *float64)
// dst[o] = float32((0 + w0[o]·row[i0[o]]) + w1[o]·row[i1[o]]) for o < n (a
// multiple of 8): each index gathered only where it is below rowLen
// (unsigned, so a negative one too is left out and its lane is zero).
// Needs AVX-512F.
TEXT ·lerpRowAVX512(SB), NOSPLIT, $0-64
	MOVQ n+0(FP), CX
	MOVQ dst+8(FP), DI
	MOVQ row+16(FP), SI
	VPBROADCASTD rowLen+24(FP), Y10
	MOVQ i0+32(FP), R8
	MOVQ i1+40(FP), R9
	MOVQ w0+48(FP), R10
	MOVQ w1+56(FP), R11
	VPXORQ Z11, Z11, Z11

loop:
	VMOVDQU32 (R8), Y0
	VMOVDQU32 (R9), Y1
	VPCMPUD $1, Y10, Y0, K1
	VPCMPUD $1, Y10, Y1, K2
	VPXORQ Z2, Z2, Z2
	VPXORQ Z3, Z3, Z3
	VGATHERDPD (SI)(Y0*8), K1, Z2
	VGATHERDPD (SI)(Y1*8), K2, Z3
	VMULPD (R10), Z2, Z2
	VADDPD Z2, Z11, Z2
	VMULPD (R11), Z3, Z3
	VADDPD Z3, Z2, Z2
	VCVTPD2PS Z2, Y2
	VMOVUPS Y2, (DI)
	ADDQ $32, R8
	ADDQ $32, R9
	ADDQ $64, R10
	ADDQ $64, R11
	ADDQ $32, DI
	SUBQ $8, CX
	JNE loop
	VZEROUPPER
	RET
