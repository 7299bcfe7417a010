//go:build !noasm

#include "textflag.h"

// func sumPlanes8AVX512(blocks int, src *float32, stride int, dst *[8]float64)
// dst[j] = +0 + src[j*stride] + src[j*stride+1] + ... over 8·blocks values
// of each of 8 planes (stride floats apart), one float64 lane of Z24 a
// plane. Each step loads 8 values of every plane (Y0–Y7), transposes the
// 8×8 block (Y8–Y15: the t-th holds every plane's t-th value), widens
// each to float64 and adds them to Z24 in t's order.
TEXT ·sumPlanes8AVX512(SB), NOSPLIT, $0-32
	MOVQ blocks+0(FP), CX
	MOVQ src+8(FP), SI
	MOVQ stride+16(FP), R8
	MOVQ dst+24(FP), DX
	SHLQ $2, R8
	LEAQ (R8)(R8*2), R9
	LEAQ (SI)(R8*4), DI
	VPXORQ Z24, Z24, Z24
	TESTQ CX, CX
	JEQ done

loop:
	VMOVUPS (SI), Y0
	VMOVUPS (SI)(R8*1), Y1
	VMOVUPS (SI)(R8*2), Y2
	VMOVUPS (SI)(R9*1), Y3
	VMOVUPS (DI), Y4
	VMOVUPS (DI)(R8*1), Y5
	VMOVUPS (DI)(R8*2), Y6
	VMOVUPS (DI)(R9*1), Y7
	// Pairs of planes interleaved: Y8 = r0[0] r1[0] r0[1] r1[1] | r0[4] r1[4] r0[5] r1[5], ...
	VUNPCKLPS Y1, Y0, Y8
	VUNPCKHPS Y1, Y0, Y9
	VUNPCKLPS Y3, Y2, Y10
	VUNPCKHPS Y3, Y2, Y11
	VUNPCKLPS Y5, Y4, Y12
	VUNPCKHPS Y5, Y4, Y13
	VUNPCKLPS Y7, Y6, Y14
	VUNPCKHPS Y7, Y6, Y15
	// Four planes a lane: Y0 = r0..r3[0] | r0..r3[4], Y1 the values 1 and 5, ...
	VSHUFPS $0x44, Y10, Y8, Y0
	VSHUFPS $0xEE, Y10, Y8, Y1
	VSHUFPS $0x44, Y11, Y9, Y2
	VSHUFPS $0xEE, Y11, Y9, Y3
	VSHUFPS $0x44, Y14, Y12, Y4
	VSHUFPS $0xEE, Y14, Y12, Y5
	VSHUFPS $0x44, Y15, Y13, Y6
	VSHUFPS $0xEE, Y15, Y13, Y7
	// Every plane: Y8 its value 0, Y9 value 1, ..., Y15 value 7.
	VPERM2F128 $0x20, Y4, Y0, Y8
	VPERM2F128 $0x20, Y5, Y1, Y9
	VPERM2F128 $0x20, Y6, Y2, Y10
	VPERM2F128 $0x20, Y7, Y3, Y11
	VPERM2F128 $0x31, Y4, Y0, Y12
	VPERM2F128 $0x31, Y5, Y1, Y13
	VPERM2F128 $0x31, Y6, Y2, Y14
	VPERM2F128 $0x31, Y7, Y3, Y15
	VCVTPS2PD Y8, Z16
	VCVTPS2PD Y9, Z17
	VCVTPS2PD Y10, Z18
	VCVTPS2PD Y11, Z19
	VCVTPS2PD Y12, Z20
	VCVTPS2PD Y13, Z21
	VCVTPS2PD Y14, Z22
	VCVTPS2PD Y15, Z23
	VADDPD Z16, Z24, Z24
	VADDPD Z17, Z24, Z24
	VADDPD Z18, Z24, Z24
	VADDPD Z19, Z24, Z24
	VADDPD Z20, Z24, Z24
	VADDPD Z21, Z24, Z24
	VADDPD Z22, Z24, Z24
	VADDPD Z23, Z24, Z24
	ADDQ $32, SI
	ADDQ $32, DI
	DECQ CX
	JNE loop

done:
	VMOVUPD Z24, (DX)
	VZEROUPPER
	RET
