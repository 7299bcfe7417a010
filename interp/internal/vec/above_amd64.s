//go:build !noasm

#include "textflag.h"

// func nextAVX512(n int, row *float32, bar float32, below int) int
// The first i < n (a multiple of 16) with !(row[i] <= bar) (below = 0) or
// !(row[i] >= bar) (below = 1), or n. Needs AVX-512F.
TEXT ·nextAVX512(SB), NOSPLIT, $0-40
	MOVQ n+0(FP), CX
	MOVQ row+8(FP), SI
	VBROADCASTSS bar+16(FP), Z1
	MOVQ below+24(FP), DX
	XORQ AX, AX
	TESTQ DX, DX
	JNE below16

above16:
	VCMPPS $0x19, (SI)(AX*4), Z1, K1 // !(bar >= v): v not at or below the bar, NaN true
	KORTESTW K1, K1
	JNE found
	ADDQ $16, AX
	CMPQ AX, CX
	JNE above16
	MOVQ AX, ret+32(FP)
	VZEROUPPER
	RET

below16:
	VCMPPS $0x16, (SI)(AX*4), Z1, K1 // !(bar <= v), NaN true
	KORTESTW K1, K1
	JNE found
	ADDQ $16, AX
	CMPQ AX, CX
	JNE below16
	MOVQ AX, ret+32(FP)
	VZEROUPPER
	RET

found:
	KMOVW K1, BX
	TZCNTL BX, BX
	ADDQ BX, AX
	MOVQ AX, ret+32(FP)
	VZEROUPPER
	RET

// func nextAVX2(n int, row *float32, bar float32, below int) int
// nextAVX512 8 entries a step (n a multiple of 8). Needs AVX.
TEXT ·nextAVX2(SB), NOSPLIT, $0-40
	MOVQ n+0(FP), CX
	MOVQ row+8(FP), SI
	VBROADCASTSS bar+16(FP), Y1
	MOVQ below+24(FP), DX
	XORQ AX, AX
	TESTQ DX, DX
	JNE below8

above8:
	VCMPPS $0x19, (SI)(AX*4), Y1, Y2
	VMOVMSKPS Y2, BX
	TESTL BX, BX
	JNE found8
	ADDQ $8, AX
	CMPQ AX, CX
	JNE above8
	MOVQ AX, ret+32(FP)
	VZEROUPPER
	RET

below8:
	VCMPPS $0x16, (SI)(AX*4), Y1, Y2
	VMOVMSKPS Y2, BX
	TESTL BX, BX
	JNE found8
	ADDQ $8, AX
	CMPQ AX, CX
	JNE below8
	MOVQ AX, ret+32(FP)
	VZEROUPPER
	RET

found8:
	TZCNTL BX, BX
	ADDQ BX, AX
	MOVQ AX, ret+32(FP)
	VZEROUPPER
	RET
