//go:build !noasm

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

// Winograd F(4×4,3×3)'s constants (points 0, 1, -1, 1/2, -2), each
// broadcast to 8 lanes: rows of 32 bytes.
DATA wino4c<>+0(SB)/4, $0x3fc00000 // 1.5
DATA wino4c<>+4(SB)/4, $0x3fc00000 // 1.5
DATA wino4c<>+8(SB)/4, $0x3fc00000 // 1.5
DATA wino4c<>+12(SB)/4, $0x3fc00000 // 1.5
DATA wino4c<>+16(SB)/4, $0x3fc00000 // 1.5
DATA wino4c<>+20(SB)/4, $0x3fc00000 // 1.5
DATA wino4c<>+24(SB)/4, $0x3fc00000 // 1.5
DATA wino4c<>+28(SB)/4, $0x3fc00000 // 1.5
DATA wino4c<>+32(SB)/4, $0xc0000000 // -2
DATA wino4c<>+36(SB)/4, $0xc0000000 // -2
DATA wino4c<>+40(SB)/4, $0xc0000000 // -2
DATA wino4c<>+44(SB)/4, $0xc0000000 // -2
DATA wino4c<>+48(SB)/4, $0xc0000000 // -2
DATA wino4c<>+52(SB)/4, $0xc0000000 // -2
DATA wino4c<>+56(SB)/4, $0xc0000000 // -2
DATA wino4c<>+60(SB)/4, $0xc0000000 // -2
DATA wino4c<>+64(SB)/4, $0x3f000000 // 0.5
DATA wino4c<>+68(SB)/4, $0x3f000000 // 0.5
DATA wino4c<>+72(SB)/4, $0x3f000000 // 0.5
DATA wino4c<>+76(SB)/4, $0x3f000000 // 0.5
DATA wino4c<>+80(SB)/4, $0x3f000000 // 0.5
DATA wino4c<>+84(SB)/4, $0x3f000000 // 0.5
DATA wino4c<>+88(SB)/4, $0x3f000000 // 0.5
DATA wino4c<>+92(SB)/4, $0x3f000000 // 0.5
DATA wino4c<>+96(SB)/4, $0x40200000 // 2.5
DATA wino4c<>+100(SB)/4, $0x40200000 // 2.5
DATA wino4c<>+104(SB)/4, $0x40200000 // 2.5
DATA wino4c<>+108(SB)/4, $0x40200000 // 2.5
DATA wino4c<>+112(SB)/4, $0x40200000 // 2.5
DATA wino4c<>+116(SB)/4, $0x40200000 // 2.5
DATA wino4c<>+120(SB)/4, $0x40200000 // 2.5
DATA wino4c<>+124(SB)/4, $0x40200000 // 2.5
DATA wino4c<>+128(SB)/4, $0xc0200000 // -2.5
DATA wino4c<>+132(SB)/4, $0xc0200000 // -2.5
DATA wino4c<>+136(SB)/4, $0xc0200000 // -2.5
DATA wino4c<>+140(SB)/4, $0xc0200000 // -2.5
DATA wino4c<>+144(SB)/4, $0xc0200000 // -2.5
DATA wino4c<>+148(SB)/4, $0xc0200000 // -2.5
DATA wino4c<>+152(SB)/4, $0xc0200000 // -2.5
DATA wino4c<>+156(SB)/4, $0xc0200000 // -2.5
DATA wino4c<>+160(SB)/4, $0x40000000 // 2
DATA wino4c<>+164(SB)/4, $0x40000000 // 2
DATA wino4c<>+168(SB)/4, $0x40000000 // 2
DATA wino4c<>+172(SB)/4, $0x40000000 // 2
DATA wino4c<>+176(SB)/4, $0x40000000 // 2
DATA wino4c<>+180(SB)/4, $0x40000000 // 2
DATA wino4c<>+184(SB)/4, $0x40000000 // 2
DATA wino4c<>+188(SB)/4, $0x40000000 // 2
DATA wino4c<>+192(SB)/4, $0xbf000000 // -0.5
DATA wino4c<>+196(SB)/4, $0xbf000000 // -0.5
DATA wino4c<>+200(SB)/4, $0xbf000000 // -0.5
DATA wino4c<>+204(SB)/4, $0xbf000000 // -0.5
DATA wino4c<>+208(SB)/4, $0xbf000000 // -0.5
DATA wino4c<>+212(SB)/4, $0xbf000000 // -0.5
DATA wino4c<>+216(SB)/4, $0xbf000000 // -0.5
DATA wino4c<>+220(SB)/4, $0xbf000000 // -0.5
DATA wino4c<>+224(SB)/4, $0x3e800000 // 0.25
DATA wino4c<>+228(SB)/4, $0x3e800000 // 0.25
DATA wino4c<>+232(SB)/4, $0x3e800000 // 0.25
DATA wino4c<>+236(SB)/4, $0x3e800000 // 0.25
DATA wino4c<>+240(SB)/4, $0x3e800000 // 0.25
DATA wino4c<>+244(SB)/4, $0x3e800000 // 0.25
DATA wino4c<>+248(SB)/4, $0x3e800000 // 0.25
DATA wino4c<>+252(SB)/4, $0x3e800000 // 0.25
DATA wino4c<>+256(SB)/4, $0x40800000 // 4
DATA wino4c<>+260(SB)/4, $0x40800000 // 4
DATA wino4c<>+264(SB)/4, $0x40800000 // 4
DATA wino4c<>+268(SB)/4, $0x40800000 // 4
DATA wino4c<>+272(SB)/4, $0x40800000 // 4
DATA wino4c<>+276(SB)/4, $0x40800000 // 4
DATA wino4c<>+280(SB)/4, $0x40800000 // 4
DATA wino4c<>+284(SB)/4, $0x40800000 // 4
DATA wino4c<>+288(SB)/4, $0x3e000000 // 0.125
DATA wino4c<>+292(SB)/4, $0x3e000000 // 0.125
DATA wino4c<>+296(SB)/4, $0x3e000000 // 0.125
DATA wino4c<>+300(SB)/4, $0x3e000000 // 0.125
DATA wino4c<>+304(SB)/4, $0x3e000000 // 0.125
DATA wino4c<>+308(SB)/4, $0x3e000000 // 0.125
DATA wino4c<>+312(SB)/4, $0x3e000000 // 0.125
DATA wino4c<>+316(SB)/4, $0x3e000000 // 0.125
DATA wino4c<>+320(SB)/4, $0xc1000000 // -8
DATA wino4c<>+324(SB)/4, $0xc1000000 // -8
DATA wino4c<>+328(SB)/4, $0xc1000000 // -8
DATA wino4c<>+332(SB)/4, $0xc1000000 // -8
DATA wino4c<>+336(SB)/4, $0xc1000000 // -8
DATA wino4c<>+340(SB)/4, $0xc1000000 // -8
DATA wino4c<>+344(SB)/4, $0xc1000000 // -8
DATA wino4c<>+348(SB)/4, $0xc1000000 // -8
GLOBL wino4c<>(SB), RODATA|NOPTR, $352

// func wino4ColAsm(n int, s, o *[6][]float32)
// The 1-D input transform of F(4×4,3×3), o = Bᵀ·s, element by element
// over n floats (n a multiple of 8), factored as wino4In. Needs AVX2/FMA.
TEXT ·wino4ColAsm(SB), NOSPLIT, $0-24
	MOVQ n+0(FP), CX
	MOVQ s+8(FP), SI
	MOVQ o+16(FP), DI
	MOVQ 0(SI), R8
	MOVQ 24(SI), R9
	MOVQ 48(SI), R10
	MOVQ 72(SI), R11
	MOVQ 96(SI), R12
	MOVQ 120(SI), R13
	XORQ AX, AX
	SHRQ $3, CX
	JEQ doneWino4Col
loopWino4Col:
	VMOVUPS (R8)(AX*1), Y0
	VMOVUPS (R9)(AX*1), Y1
	VMOVUPS (R10)(AX*1), Y2
	VMOVUPS (R11)(AX*1), Y3
	VMOVUPS (R12)(AX*1), Y4
	VMOVUPS (R13)(AX*1), Y5
	VSUBPS Y1, Y3, Y6 // x = d3-d1
	VSUBPS Y2, Y4, Y7 // q = d4-d2
	// v0 = (d0+d4) + 1.5x - 2d2
	VADDPS Y4, Y0, Y8
	VFMADD231PS wino4c<>+0(SB), Y6, Y8
	VFMADD231PS wino4c<>+32(SB), Y2, Y8
	MOVQ 0(DI), DX
	VMOVUPS Y8, (DX)(AX*1)
	// v1 = (d4-d1) + 0.5d2 + 2.5d3
	VSUBPS Y1, Y4, Y8
	VFMADD231PS wino4c<>+64(SB), Y2, Y8
	VFMADD231PS wino4c<>+96(SB), Y3, Y8
	MOVQ 24(DI), DX
	VMOVUPS Y8, (DX)(AX*1)
	// v2 = (d4+d1) - 2.5d2 + 0.5d3
	VADDPS Y1, Y4, Y8
	VFMADD231PS wino4c<>+128(SB), Y2, Y8
	VFMADD231PS wino4c<>+64(SB), Y3, Y8
	MOVQ 48(DI), DX
	VMOVUPS Y8, (DX)(AX*1)
	// v3 = q + 2x
	VMOVAPS Y7, Y8
	VFMADD231PS wino4c<>+160(SB), Y6, Y8
	MOVQ 72(DI), DX
	VMOVUPS Y8, (DX)(AX*1)
	// v4 = q - 0.5x
	VMOVAPS Y7, Y8
	VFMADD231PS wino4c<>+192(SB), Y6, Y8
	MOVQ 96(DI), DX
	VMOVUPS Y8, (DX)(AX*1)
	// v5 = (d5+d1) + 1.5q - 2d3
	VADDPS Y1, Y5, Y8
	VFMADD231PS wino4c<>+0(SB), Y7, Y8
	VFMADD231PS wino4c<>+32(SB), Y3, Y8
	MOVQ 120(DI), DX
	VMOVUPS Y8, (DX)(AX*1)
	ADDQ $32, AX
	DECQ CX
	JNE loopWino4Col
doneWino4Col:
	VZEROUPPER
	RET

// func wino4OutAsm(n int, s *[6][]float32, o *[4][]float32)
// The 1-D output transform of F(4×4,3×3), o = Aᵀ·s, element by element
// over n floats (n a multiple of 8), factored as wino4Out. Needs AVX2/FMA.
TEXT ·wino4OutAsm(SB), NOSPLIT, $0-24
	MOVQ n+0(FP), CX
	MOVQ s+8(FP), SI
	MOVQ o+16(FP), DI
	MOVQ 0(SI), R8
	MOVQ 24(SI), R9
	MOVQ 48(SI), R10
	MOVQ 72(SI), R11
	MOVQ 96(SI), R12
	MOVQ 120(SI), R13
	XORQ AX, AX
	SHRQ $3, CX
	JEQ doneWino4Out
loopWino4Out:
	VMOVUPS (R8)(AX*1), Y0
	VMOVUPS (R9)(AX*1), Y1
	VMOVUPS (R10)(AX*1), Y2
	VMOVUPS (R11)(AX*1), Y3
	VMOVUPS (R12)(AX*1), Y4
	VMOVUPS (R13)(AX*1), Y5
	VADDPS Y2, Y1, Y6 // a = m1+m2
	VSUBPS Y2, Y1, Y7 // b = m1-m2
	// y0 = (m0+a) + (m3+m4)
	VADDPS Y6, Y0, Y8
	VADDPS Y4, Y3, Y9
	VADDPS Y9, Y8, Y8
	MOVQ 0(DI), DX
	VMOVUPS Y8, (DX)(AX*1)
	// y1 = b + 0.5m3 - 2m4
	VMOVAPS Y7, Y8
	VFMADD231PS wino4c<>+64(SB), Y3, Y8
	VFMADD231PS wino4c<>+32(SB), Y4, Y8
	MOVQ 24(DI), DX
	VMOVUPS Y8, (DX)(AX*1)
	// y2 = a + 0.25m3 + 4m4
	VMOVAPS Y6, Y8
	VFMADD231PS wino4c<>+224(SB), Y3, Y8
	VFMADD231PS wino4c<>+256(SB), Y4, Y8
	MOVQ 48(DI), DX
	VMOVUPS Y8, (DX)(AX*1)
	// y3 = (b+m5) + 0.125m3 - 8m4
	VADDPS Y5, Y7, Y8
	VFMADD231PS wino4c<>+288(SB), Y3, Y8
	VFMADD231PS wino4c<>+320(SB), Y4, Y8
	MOVQ 72(DI), DX
	VMOVUPS Y8, (DX)(AX*1)
	ADDQ $32, AX
	DECQ CX
	JNE loopWino4Out
doneWino4Out:
	VZEROUPPER
	RET

// func interleave4Asm(n int, dst, o0, o1, o2, o3 *float32)
// dst[4t+c] = oc[t] for t < n, n a multiple of 8. Needs AVX.
TEXT ·interleave4Asm(SB), NOSPLIT, $0-48
	MOVQ n+0(FP), CX
	MOVQ dst+8(FP), DI
	MOVQ o0+16(FP), R8
	MOVQ o1+24(FP), R9
	MOVQ o2+32(FP), R10
	MOVQ o3+40(FP), R11
	XORQ AX, AX
	SHRQ $3, CX
	JEQ doneInterleave4
loopInterleave4:
	VMOVUPS (R8)(AX*1), Y0
	VMOVUPS (R9)(AX*1), Y1
	VMOVUPS (R10)(AX*1), Y2
	VMOVUPS (R11)(AX*1), Y3
	// A 4×4 transpose inside each 128-bit lane: tile t's four values
	// together, tiles t and t+4 in the low and high lanes.
	VUNPCKLPS Y1, Y0, Y4
	VUNPCKHPS Y1, Y0, Y5
	VUNPCKLPS Y3, Y2, Y6
	VUNPCKHPS Y3, Y2, Y7
	VUNPCKLPD Y6, Y4, Y0
	VUNPCKHPD Y6, Y4, Y1
	VUNPCKLPD Y7, Y5, Y2
	VUNPCKHPD Y7, Y5, Y3
	VPERM2F128 $0x20, Y1, Y0, Y4
	VPERM2F128 $0x20, Y3, Y2, Y5
	VPERM2F128 $0x31, Y1, Y0, Y6
	VPERM2F128 $0x31, Y3, Y2, Y7
	VMOVUPS Y4, (DI)
	VMOVUPS Y5, 32(DI)
	VMOVUPS Y6, 64(DI)
	VMOVUPS Y7, 96(DI)
	ADDQ $128, DI
	ADDQ $32, AX
	DECQ CX
	JNE loopInterleave4
doneInterleave4:
	VZEROUPPER
	RET

// func wino4PanelsAsm(chunks, gap int, s, o *[6][]float32)
// wino4ColAsm over chunks runs of 16 floats: run c reads s[k][16c:] and
// writes o[k][c·gap:] (gap ≥ 16, so runs of 16 can sit in packed panels).
// Needs AVX2/FMA.
TEXT ·wino4PanelsAsm(SB), NOSPLIT, $0-32
	MOVQ chunks+0(FP), CX
	MOVQ s+16(FP), SI
	MOVQ o+24(FP), DI
	MOVQ 0(SI), R8
	MOVQ 24(SI), R9
	MOVQ 48(SI), R10
	MOVQ 72(SI), R11
	MOVQ 96(SI), R12
	MOVQ 120(SI), R13
	MOVQ gap+8(FP), SI
	SHLQ $2, SI
	SUBQ $64, SI // from a run's end to the next one's start, in bytes
	XORQ AX, AX
	XORQ BX, BX
	TESTQ CX, CX
	JEQ doneWino4Panels
loopWino4Panels:
	VMOVUPS (R8)(AX*1), Y0
	VMOVUPS (R9)(AX*1), Y1
	VMOVUPS (R10)(AX*1), Y2
	VMOVUPS (R11)(AX*1), Y3
	VMOVUPS (R12)(AX*1), Y4
	VMOVUPS (R13)(AX*1), Y5
	VSUBPS Y1, Y3, Y6 // x = d3-d1
	VSUBPS Y2, Y4, Y7 // q = d4-d2
	// v0 = (d0+d4) + 1.5x - 2d2
	VADDPS Y4, Y0, Y8
	VFMADD231PS wino4c<>+0(SB), Y6, Y8
	VFMADD231PS wino4c<>+32(SB), Y2, Y8
	MOVQ 0(DI), DX
	VMOVUPS Y8, (DX)(BX*1)
	// v1 = (d4-d1) + 0.5d2 + 2.5d3
	VSUBPS Y1, Y4, Y8
	VFMADD231PS wino4c<>+64(SB), Y2, Y8
	VFMADD231PS wino4c<>+96(SB), Y3, Y8
	MOVQ 24(DI), DX
	VMOVUPS Y8, (DX)(BX*1)
	// v2 = (d4+d1) - 2.5d2 + 0.5d3
	VADDPS Y1, Y4, Y8
	VFMADD231PS wino4c<>+128(SB), Y2, Y8
	VFMADD231PS wino4c<>+64(SB), Y3, Y8
	MOVQ 48(DI), DX
	VMOVUPS Y8, (DX)(BX*1)
	// v3 = q + 2x
	VMOVAPS Y7, Y8
	VFMADD231PS wino4c<>+160(SB), Y6, Y8
	MOVQ 72(DI), DX
	VMOVUPS Y8, (DX)(BX*1)
	// v4 = q - 0.5x
	VMOVAPS Y7, Y8
	VFMADD231PS wino4c<>+192(SB), Y6, Y8
	MOVQ 96(DI), DX
	VMOVUPS Y8, (DX)(BX*1)
	// v5 = (d5+d1) + 1.5q - 2d3
	VADDPS Y1, Y5, Y8
	VFMADD231PS wino4c<>+0(SB), Y7, Y8
	VFMADD231PS wino4c<>+32(SB), Y3, Y8
	MOVQ 120(DI), DX
	VMOVUPS Y8, (DX)(BX*1)
	ADDQ $32, AX
	ADDQ $32, BX
	VMOVUPS (R8)(AX*1), Y0
	VMOVUPS (R9)(AX*1), Y1
	VMOVUPS (R10)(AX*1), Y2
	VMOVUPS (R11)(AX*1), Y3
	VMOVUPS (R12)(AX*1), Y4
	VMOVUPS (R13)(AX*1), Y5
	VSUBPS Y1, Y3, Y6 // x = d3-d1
	VSUBPS Y2, Y4, Y7 // q = d4-d2
	// v0 = (d0+d4) + 1.5x - 2d2
	VADDPS Y4, Y0, Y8
	VFMADD231PS wino4c<>+0(SB), Y6, Y8
	VFMADD231PS wino4c<>+32(SB), Y2, Y8
	MOVQ 0(DI), DX
	VMOVUPS Y8, (DX)(BX*1)
	// v1 = (d4-d1) + 0.5d2 + 2.5d3
	VSUBPS Y1, Y4, Y8
	VFMADD231PS wino4c<>+64(SB), Y2, Y8
	VFMADD231PS wino4c<>+96(SB), Y3, Y8
	MOVQ 24(DI), DX
	VMOVUPS Y8, (DX)(BX*1)
	// v2 = (d4+d1) - 2.5d2 + 0.5d3
	VADDPS Y1, Y4, Y8
	VFMADD231PS wino4c<>+128(SB), Y2, Y8
	VFMADD231PS wino4c<>+64(SB), Y3, Y8
	MOVQ 48(DI), DX
	VMOVUPS Y8, (DX)(BX*1)
	// v3 = q + 2x
	VMOVAPS Y7, Y8
	VFMADD231PS wino4c<>+160(SB), Y6, Y8
	MOVQ 72(DI), DX
	VMOVUPS Y8, (DX)(BX*1)
	// v4 = q - 0.5x
	VMOVAPS Y7, Y8
	VFMADD231PS wino4c<>+192(SB), Y6, Y8
	MOVQ 96(DI), DX
	VMOVUPS Y8, (DX)(BX*1)
	// v5 = (d5+d1) + 1.5q - 2d3
	VADDPS Y1, Y5, Y8
	VFMADD231PS wino4c<>+0(SB), Y7, Y8
	VFMADD231PS wino4c<>+32(SB), Y3, Y8
	MOVQ 120(DI), DX
	VMOVUPS Y8, (DX)(BX*1)
	ADDQ $32, AX
	ADDQ $32, BX
	ADDQ SI, BX
	DECQ CX
	JNE loopWino4Panels
doneWino4Panels:
	VZEROUPPER
	RET

// func wino4RowAsm(n int, src, h *float32, stride int)
// The horizontal half of F(4×4,3×3)'s input transform for n tiles (n a
// multiple of 8) of one row: tile t's six columns src[4t..4t+5] go through
// Bᵀ (factored as wino4In) and element j of the result to h[j·stride+t].
// Reads src[0:4n+4]. Needs AVX2/FMA.
TEXT ·wino4RowAsm(SB), NOSPLIT, $0-32
	MOVQ n+0(FP), CX
	MOVQ src+8(FP), SI
	MOVQ h+16(FP), DI
	MOVQ stride+24(FP), DX
	SHLQ $2, DX
	LEAQ (DI)(DX*1), R8
	LEAQ (R8)(DX*1), R9
	LEAQ (R9)(DX*1), R10
	LEAQ (R10)(DX*1), R11
	LEAQ (R11)(DX*1), R12
	XORQ AX, AX
	SHRQ $3, CX
	JEQ doneWino4Row
loopWino4Row:
	// Columns 4t+q of 8 tiles: tiles t|t+4, t+1|t+5, t+2|t+6 and
	// t+3|t+7 in the two lanes, then a 4×4 transpose inside each lane:
	// Y4..Y7 = d0..d3.
	VMOVUPS (SI), Y0
	VMOVUPS 32(SI), Y1
	VMOVUPS 64(SI), Y2
	VMOVUPS 96(SI), Y3
	VPERM2F128 $0x20, Y2, Y0, Y4
	VPERM2F128 $0x31, Y2, Y0, Y5
	VPERM2F128 $0x20, Y3, Y1, Y6
	VPERM2F128 $0x31, Y3, Y1, Y7
	VUNPCKLPS Y5, Y4, Y0
	VUNPCKHPS Y5, Y4, Y1
	VUNPCKLPS Y7, Y6, Y2
	VUNPCKHPS Y7, Y6, Y3
	VUNPCKLPD Y2, Y0, Y4
	VUNPCKHPD Y2, Y0, Y5
	VUNPCKLPD Y3, Y1, Y6
	VUNPCKHPD Y3, Y1, Y7
	// Columns 4t+4 and 4t+5, the next tile's first two: Y10, Y11 = d4, d5.
	VMOVUPS 16(SI), Y0
	VMOVUPS 48(SI), Y1
	VMOVUPS 80(SI), Y2
	VMOVUPS 112(SI), Y3
	VPERM2F128 $0x20, Y2, Y0, Y12
	VPERM2F128 $0x31, Y2, Y0, Y13
	VPERM2F128 $0x20, Y3, Y1, Y14
	VPERM2F128 $0x31, Y3, Y1, Y15
	VUNPCKLPS Y13, Y12, Y8
	VUNPCKLPS Y15, Y14, Y9
	VUNPCKLPD Y9, Y8, Y10
	VUNPCKHPD Y9, Y8, Y11
	VSUBPS Y5, Y7, Y0 // x = d3-d1
	VSUBPS Y6, Y10, Y1 // q = d4-d2
	// v0 = (d0+d4) + 1.5x - 2d2
	VADDPS Y10, Y4, Y2
	VFMADD231PS wino4c<>+0(SB), Y0, Y2
	VFMADD231PS wino4c<>+32(SB), Y6, Y2
	VMOVUPS Y2, (DI)(AX*1)
	// v1 = (d4-d1) + 0.5d2 + 2.5d3
	VSUBPS Y5, Y10, Y2
	VFMADD231PS wino4c<>+64(SB), Y6, Y2
	VFMADD231PS wino4c<>+96(SB), Y7, Y2
	VMOVUPS Y2, (R8)(AX*1)
	// v2 = (d4+d1) - 2.5d2 + 0.5d3
	VADDPS Y5, Y10, Y2
	VFMADD231PS wino4c<>+128(SB), Y6, Y2
	VFMADD231PS wino4c<>+64(SB), Y7, Y2
	VMOVUPS Y2, (R9)(AX*1)
	// v3 = q + 2x
	VMOVAPS Y1, Y2
	VFMADD231PS wino4c<>+160(SB), Y0, Y2
	VMOVUPS Y2, (R10)(AX*1)
	// v4 = q - 0.5x
	VMOVAPS Y1, Y2
	VFMADD231PS wino4c<>+192(SB), Y0, Y2
	VMOVUPS Y2, (R11)(AX*1)
	// v5 = (d5+d1) + 1.5q - 2d3
	VADDPS Y5, Y11, Y2
	VFMADD231PS wino4c<>+0(SB), Y1, Y2
	VFMADD231PS wino4c<>+32(SB), Y7, Y2
	VMOVUPS Y2, (R12)(AX*1)
	ADDQ $128, SI
	ADDQ $32, AX
	DECQ CX
	JNE loopWino4Row
doneWino4Row:
	VZEROUPPER
	RET
