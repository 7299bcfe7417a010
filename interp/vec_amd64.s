#include "textflag.h"

// func vecAdd3Asm(n int, dst, a, b, c *float32)
// dst = a + b + c over n floats, n a multiple of 8. Needs AVX.
TEXT ·vecAdd3Asm(SB), NOSPLIT, $0-40
	MOVQ n+0(FP), CX
	MOVQ dst+8(FP), DI
	MOVQ a+16(FP), SI
	MOVQ b+24(FP), DX
	MOVQ c+32(FP), R8
	SHRQ $3, CX
	JEQ donevecAdd3Asm
loopvecAdd3Asm:
	VMOVUPS (SI), Y0
	VMOVUPS (DX), Y1
	VMOVUPS (R8), Y2
	VADDPS Y1, Y0, Y0
	VADDPS Y2, Y0, Y0
	VMOVUPS Y0, (DI)
	ADDQ $32, DI
	ADDQ $32, SI
	ADDQ $32, DX
	ADDQ $32, R8
	DECQ CX
	JNE loopvecAdd3Asm
donevecAdd3Asm:
	VZEROUPPER
	RET

// func vecSubSubAsm(n int, dst, a, b, c *float32)
// dst = a - b - c over n floats, n a multiple of 8. Needs AVX.
TEXT ·vecSubSubAsm(SB), NOSPLIT, $0-40
	MOVQ n+0(FP), CX
	MOVQ dst+8(FP), DI
	MOVQ a+16(FP), SI
	MOVQ b+24(FP), DX
	MOVQ c+32(FP), R8
	SHRQ $3, CX
	JEQ donevecSubSubAsm
loopvecSubSubAsm:
	VMOVUPS (SI), Y0
	VMOVUPS (DX), Y1
	VMOVUPS (R8), Y2
	VSUBPS Y1, Y0, Y0
	VSUBPS Y2, Y0, Y0
	VMOVUPS Y0, (DI)
	ADDQ $32, DI
	ADDQ $32, SI
	ADDQ $32, DX
	ADDQ $32, R8
	DECQ CX
	JNE loopvecSubSubAsm
donevecSubSubAsm:
	VZEROUPPER
	RET

// func gatherEvenAsm(n int, dst, src *float32)
// dst[i] = src[2i] for i < n, n a multiple of 8; reads src[0:2n]. Needs AVX2.
TEXT ·gatherEvenAsm(SB), NOSPLIT, $0-24
	MOVQ n+0(FP), CX
	MOVQ dst+8(FP), DI
	MOVQ src+16(FP), SI
	SHRQ $3, CX
	JEQ doneGatherEven
loopGatherEven:
	VMOVUPS (SI), Y0
	VMOVUPS 32(SI), Y1
	// Per 128-bit lane: src1[0], src1[2], src2[0], src2[2]; then the
	// 64-bit pairs back in order.
	VSHUFPS $0x88, Y1, Y0, Y2
	VPERMPD $0xD8, Y2, Y2
	VMOVUPS Y2, (DI)
	ADDQ $32, DI
	ADDQ $64, SI
	DECQ CX
	JNE loopGatherEven
doneGatherEven:
	VZEROUPPER
	RET

// func interleaveAsm(n int, dst, ev, od *float32)
// dst[2i] = ev[i], dst[2i+1] = od[i] for i < n, n a multiple of 8. Needs AVX.
TEXT ·interleaveAsm(SB), NOSPLIT, $0-32
	MOVQ n+0(FP), CX
	MOVQ dst+8(FP), DI
	MOVQ ev+16(FP), SI
	MOVQ od+24(FP), DX
	SHRQ $3, CX
	JEQ doneInterleave
loopInterleave:
	VMOVUPS (SI), Y0
	VMOVUPS (DX), Y1
	// Per 128-bit lane: e0 o0 e1 o1 and e2 o2 e3 o3; then the lanes in
	// order.
	VUNPCKLPS Y1, Y0, Y2
	VUNPCKHPS Y1, Y0, Y3
	VPERM2F128 $0x20, Y3, Y2, Y4
	VPERM2F128 $0x31, Y3, Y2, Y5
	VMOVUPS Y4, (DI)
	VMOVUPS Y5, 32(DI)
	ADDQ $64, DI
	ADDQ $32, SI
	ADDQ $32, DX
	DECQ CX
	JNE loopInterleave
doneInterleave:
	VZEROUPPER
	RET

// func winoRowAsm(n int, src, h0, h1, h2, h3 *float32)
// The horizontal half of Winograd F(2×2,3×3)'s input transform for n tiles
// (n a multiple of 8) of one row: with e[t] = src[2t], o[t] = src[2t+1],
// h0 = e[t]-e[t+1], h1 = o[t]+e[t+1], h2 = e[t+1]-o[t], h3 = o[t]-o[t+1].
// Reads src[0:2n+2]. Needs AVX2.
TEXT ·winoRowAsm(SB), NOSPLIT, $0-48
	MOVQ n+0(FP), CX
	MOVQ src+8(FP), SI
	MOVQ h0+16(FP), R8
	MOVQ h1+24(FP), R9
	MOVQ h2+32(FP), R10
	MOVQ h3+40(FP), R11
	SHRQ $3, CX
	JEQ doneWinoRow
loopWinoRow:
	// Columns 2t..2t+15 and, shifted by one tile, 2t+2..2t+17, each split
	// into even (e) and odd (o) columns.
	VMOVUPS (SI), Y0
	VMOVUPS 32(SI), Y1
	VMOVUPS 8(SI), Y2
	VMOVUPS 40(SI), Y3
	VSHUFPS $0x88, Y1, Y0, Y4
	VSHUFPS $0xDD, Y1, Y0, Y5
	VSHUFPS $0x88, Y3, Y2, Y6
	VSHUFPS $0xDD, Y3, Y2, Y7
	VPERMPD $0xD8, Y4, Y4 // e[t]
	VPERMPD $0xD8, Y5, Y5 // o[t]
	VPERMPD $0xD8, Y6, Y6 // e[t+1]
	VPERMPD $0xD8, Y7, Y7 // o[t+1]
	VSUBPS Y6, Y4, Y8
	VADDPS Y6, Y5, Y9
	VSUBPS Y5, Y6, Y10
	VSUBPS Y7, Y5, Y11
	VMOVUPS Y8, (R8)
	VMOVUPS Y9, (R9)
	VMOVUPS Y10, (R10)
	VMOVUPS Y11, (R11)
	ADDQ $64, SI
	ADDQ $32, R8
	ADDQ $32, R9
	ADDQ $32, R10
	ADDQ $32, R11
	DECQ CX
	JNE loopWinoRow
doneWinoRow:
	VZEROUPPER
	RET

// func winoColAsm(a, b, c, d, o0, o1, o2, o3 *float32)
// The vertical half of Winograd F(2×2,3×3)'s input transform for 16 tiles:
// o0 = a-c, o1 = b+c, o2 = c-b, o3 = b-d. Needs AVX.
TEXT ·winoColAsm(SB), NOSPLIT, $0-64
	MOVQ a+0(FP), AX
	MOVQ b+8(FP), BX
	MOVQ c+16(FP), CX
	MOVQ d+24(FP), DX
	MOVQ o0+32(FP), R8
	MOVQ o1+40(FP), R9
	MOVQ o2+48(FP), R10
	MOVQ o3+56(FP), R11
	VMOVUPS (AX), Y0
	VMOVUPS 32(AX), Y1
	VMOVUPS (BX), Y2
	VMOVUPS 32(BX), Y3
	VMOVUPS (CX), Y4
	VMOVUPS 32(CX), Y5
	VMOVUPS (DX), Y6
	VMOVUPS 32(DX), Y7
	VSUBPS Y4, Y0, Y8
	VSUBPS Y5, Y1, Y9
	VMOVUPS Y8, (R8)
	VMOVUPS Y9, 32(R8)
	VADDPS Y4, Y2, Y8
	VADDPS Y5, Y3, Y9
	VMOVUPS Y8, (R9)
	VMOVUPS Y9, 32(R9)
	VSUBPS Y2, Y4, Y8
	VSUBPS Y3, Y5, Y9
	VMOVUPS Y8, (R10)
	VMOVUPS Y9, 32(R10)
	VSUBPS Y6, Y2, Y8
	VSUBPS Y7, Y3, Y9
	VMOVUPS Y8, (R11)
	VMOVUPS Y9, 32(R11)
	VZEROUPPER
	RET

// func panelTaps1Asm(n int, taps *int32, src, dst *float32)
// dst[16p+i] = src[taps[p]+i] for p < n, i < 16. Needs AVX.
TEXT ·panelTaps1Asm(SB), NOSPLIT, $0-32
	MOVQ n+0(FP), CX
	MOVQ taps+8(FP), BX
	MOVQ src+16(FP), SI
	MOVQ dst+24(FP), DI
loopPanelTaps1:
	MOVLQSX (BX), AX
	VMOVUPS (SI)(AX*4), Y0
	VMOVUPS 32(SI)(AX*4), Y1
	VMOVUPS Y0, (DI)
	VMOVUPS Y1, 32(DI)
	ADDQ $4, BX
	ADDQ $64, DI
	DECQ CX
	JNE loopPanelTaps1
	VZEROUPPER
	RET

// func panelTaps2Asm(n int, taps *int32, src, dst *float32)
// dst[16p+i] = src[taps[p]+2i] for p < n, i < 16; reads src[taps[p]:][:32].
// Needs AVX2.
TEXT ·panelTaps2Asm(SB), NOSPLIT, $0-32
	MOVQ n+0(FP), CX
	MOVQ taps+8(FP), BX
	MOVQ src+16(FP), SI
	MOVQ dst+24(FP), DI
loopPanelTaps2:
	MOVLQSX (BX), AX
	LEAQ (SI)(AX*4), R8
	VMOVUPS (R8), Y0
	VMOVUPS 32(R8), Y1
	VMOVUPS 64(R8), Y2
	VMOVUPS 96(R8), Y3
	// Even elements of each pair of vectors, as in gatherEvenAsm.
	VSHUFPS $0x88, Y1, Y0, Y4
	VSHUFPS $0x88, Y3, Y2, Y5
	VPERMPD $0xD8, Y4, Y4
	VPERMPD $0xD8, Y5, Y5
	VMOVUPS Y4, (DI)
	VMOVUPS Y5, 32(DI)
	ADDQ $4, BX
	ADDQ $64, DI
	DECQ CX
	JNE loopPanelTaps2
	VZEROUPPER
	RET

// Indices of the even elements of two vectors of 16 floats, for VPERMT2PS.
DATA evenIdx16<>+0(SB)/4, $0
DATA evenIdx16<>+4(SB)/4, $2
DATA evenIdx16<>+8(SB)/4, $4
DATA evenIdx16<>+12(SB)/4, $6
DATA evenIdx16<>+16(SB)/4, $8
DATA evenIdx16<>+20(SB)/4, $10
DATA evenIdx16<>+24(SB)/4, $12
DATA evenIdx16<>+28(SB)/4, $14
DATA evenIdx16<>+32(SB)/4, $16
DATA evenIdx16<>+36(SB)/4, $18
DATA evenIdx16<>+40(SB)/4, $20
DATA evenIdx16<>+44(SB)/4, $22
DATA evenIdx16<>+48(SB)/4, $24
DATA evenIdx16<>+52(SB)/4, $26
DATA evenIdx16<>+56(SB)/4, $28
DATA evenIdx16<>+60(SB)/4, $30
GLOBL evenIdx16<>(SB), RODATA|NOPTR, $64

// func panelTaps2AVX512(n int, taps *int32, src, dst *float32)
// panelTaps2Asm with one 16-lane permute a panel row. Needs AVX-512F.
TEXT ·panelTaps2AVX512(SB), NOSPLIT, $0-32
	MOVQ n+0(FP), CX
	MOVQ taps+8(FP), BX
	MOVQ src+16(FP), SI
	MOVQ dst+24(FP), DI
	VMOVUPS evenIdx16<>(SB), Z31
loopPanelTaps2Z:
	MOVLQSX (BX), AX
	LEAQ (SI)(AX*4), R8
	VMOVUPS (R8), Z0
	VPERMT2PS 64(R8), Z31, Z0
	VMOVUPS Z0, (DI)
	ADDQ $4, BX
	ADDQ $64, DI
	DECQ CX
	JNE loopPanelTaps2Z
	VZEROUPPER
	RET

// func panelGatherAVX512(n int, taps, cols *int32, src, dst *float32)
// dst[16p+i] = src[taps[p]+cols[i]] for p < n, i < 16: one 16-lane gather
// a panel row. Needs AVX-512F.
TEXT ·panelGatherAVX512(SB), NOSPLIT, $0-40
	MOVQ n+0(FP), CX
	MOVQ taps+8(FP), BX
	MOVQ cols+16(FP), DX
	MOVQ src+24(FP), SI
	MOVQ dst+32(FP), DI
	VMOVDQU32 (DX), Z30
loopPanelGatherZ:
	VPBROADCASTD (BX), Z0
	VPADDD Z30, Z0, Z0
	KXNORW K0, K0, K1
	VGATHERDPS (SI)(Z0*4), K1, Z1
	VMOVUPS Z1, (DI)
	ADDQ $4, BX
	ADDQ $64, DI
	DECQ CX
	JNE loopPanelGatherZ
	VZEROUPPER
	RET

// func panelGatherAVX2(n int, taps, cols *int32, src, dst *float32)
// panelGatherAVX512 as two 8-lane gathers a panel row. Needs AVX2.
TEXT ·panelGatherAVX2(SB), NOSPLIT, $0-40
	MOVQ n+0(FP), CX
	MOVQ taps+8(FP), BX
	MOVQ cols+16(FP), DX
	MOVQ src+24(FP), SI
	MOVQ dst+32(FP), DI
	VMOVDQU (DX), Y14
	VMOVDQU 32(DX), Y15
loopPanelGatherY:
	VPBROADCASTD (BX), Y0
	VPADDD Y14, Y0, Y1
	VPADDD Y15, Y0, Y2
	// The gathers clear their masks: all ones again each time.
	VPCMPEQD Y3, Y3, Y3
	VGATHERDPS Y3, (SI)(Y1*4), Y4
	VPCMPEQD Y3, Y3, Y3
	VGATHERDPS Y3, (SI)(Y2*4), Y5
	VMOVUPS Y4, (DI)
	VMOVUPS Y5, 32(DI)
	ADDQ $4, BX
	ADDQ $64, DI
	DECQ CX
	JNE loopPanelGatherY
	VZEROUPPER
	RET
