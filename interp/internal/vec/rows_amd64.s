//go:build !noasm

#include "textflag.h"

// func clampRowAVX(n int, y, res *float32, bias, lo, hi float32)
// y[i] = min(max(y[i] + bias (+ res[i] when res is not nil), lo), hi) for
// i in [0, n), n a multiple of 8, a NaN sum passing through unchanged as
// Go's min and max pass it. Needs AVX.
TEXT ·clampRowAVX(SB), NOSPLIT, $0-36
	MOVQ n+0(FP), CX
	MOVQ y+8(FP), DI
	MOVQ res+16(FP), SI
	VBROADCASTSS bias+24(FP), Y0
	VBROADCASTSS lo+28(FP), Y1
	VBROADCASTSS hi+32(FP), Y2
	SHRQ $3, CX
	JEQ done
	TESTQ SI, SI
	JEQ plain

withres:
	VMOVUPS 0(DI), Y3
	VADDPS Y0, Y3, Y3
	VADDPS 0(SI), Y3, Y3
	VCMPPS $3, Y3, Y3, Y4
	VMAXPS Y1, Y3, Y5
	VMINPS Y2, Y5, Y5
	VBLENDVPS Y4, Y3, Y5, Y5
	VMOVUPS Y5, 0(DI)
	ADDQ $32, DI
	ADDQ $32, SI
	DECQ CX
	JNE withres
	JMP done

plain:
	VMOVUPS 0(DI), Y3
	VADDPS Y0, Y3, Y3
	VCMPPS $3, Y3, Y3, Y4
	VMAXPS Y1, Y3, Y5
	VMINPS Y2, Y5, Y5
	VBLENDVPS Y4, Y3, Y5, Y5
	VMOVUPS Y5, 0(DI)
	ADDQ $32, DI
	DECQ CX
	JNE plain

done:
	VZEROUPPER
	RET

// Kernel rows of the 3×3 depthwise kernels: src in BX, weights in three
// registers, one 8-output accumulator.
#define ROW1(off, w0, w1, w2, acc) \
	VFMADD231PS off(BX), w0, acc \
	VFMADD231PS off+4(BX), w1, acc \
	VFMADD231PS off+8(BX), w2, acc

// ROW2 is ROW1 for horizontal stride 2: the even and odd taps are split
// with in-lane shuffles, which leave outputs in the lane order
// 0 1 4 5 2 3 6 7 (undone by VPERMPD $0xD8 before the store).
#define ROW2(off, w0, w1, w2, acc) \
	VMOVUPS off(BX), Y13 \
	VMOVUPS off+32(BX), Y14 \
	VSHUFPS $0x88, Y14, Y13, Y11 \
	VFMADD231PS Y11, w0, acc \
	VSHUFPS $0xDD, Y14, Y13, Y11 \
	VFMADD231PS Y11, w1, acc \
	VMOVUPS off+8(BX), Y13 \
	VMOVUPS off+40(BX), Y14 \
	VSHUFPS $0x88, Y14, Y13, Y11 \
	VFMADD231PS Y11, w2, acc

// INIT starts an accumulator from dst (R10 set) or from the bias.
#define INIT(off, acc) \
	CMPQ R10, $0 \
	JEQ 3(PC) \
	VMOVUPS off(DI), acc \
	JMP 2(PC) \
	VMOVAPS Y15, acc

// INIT2 is INIT for the stride-2 kernel, whose accumulators hold the
// outputs in the lane order 0 1 4 5 2 3 6 7.
#define INIT2(off, acc) \
	CMPQ R10, $0 \
	JEQ 4(PC) \
	VMOVUPS off(DI), acc \
	VPERMPD $0xD8, acc, acc \
	JMP 2(PC) \
	VMOVAPS Y15, acc

#define LOADW \
	VBROADCASTSS 0(AX), Y0 \
	VBROADCASTSS 4(AX), Y1 \
	VBROADCASTSS 8(AX), Y2 \
	VBROADCASTSS 12(AX), Y3 \
	VBROADCASTSS 16(AX), Y4 \
	VBROADCASTSS 20(AX), Y5 \
	VBROADCASTSS 24(AX), Y6 \
	VBROADCASTSS 28(AX), Y7 \
	VBROADCASTSS 32(AX), Y8

// func dwConv3s1AVX(n int, src *float32, ld, rows int, w *[9]float32, bias float32, dst *float32, acc int)
// dst[i] = bias + Σ_r Σ_k w[3r+k]·src[r·ld + i + k] for i in [0, n), r in
// [0, rows) (rows 1 to 3), n a multiple of 8, ld in elements: one output
// row of a stride-1 3×3 depthwise convolution, taps in row-major order.
// With acc set, the sums start from dst[i] instead of the bias. Needs AVX2
// and FMA3.
TEXT ·dwConv3s1AVX(SB), NOSPLIT, $0-64
	MOVQ n+0(FP), CX
	MOVQ src+8(FP), SI
	MOVQ ld+16(FP), R8
	SHLQ $2, R8
	MOVQ rows+24(FP), R9
	MOVQ w+32(FP), AX
	VBROADCASTSS bias+40(FP), Y15
	MOVQ dst+48(FP), DI
	MOVQ acc+56(FP), R10
	LOADW

s1loop32:
	CMPQ CX, $32
	JLT s1loop8
	INIT(0, Y9)
	INIT(32, Y10)
	INIT(64, Y11)
	INIT(96, Y12)
	MOVQ SI, BX
	ROW1(0, Y0, Y1, Y2, Y9)
	ROW1(32, Y0, Y1, Y2, Y10)
	ROW1(64, Y0, Y1, Y2, Y11)
	ROW1(96, Y0, Y1, Y2, Y12)
	CMPQ R9, $1
	JEQ s1store32
	ADDQ R8, BX
	ROW1(0, Y3, Y4, Y5, Y9)
	ROW1(32, Y3, Y4, Y5, Y10)
	ROW1(64, Y3, Y4, Y5, Y11)
	ROW1(96, Y3, Y4, Y5, Y12)
	CMPQ R9, $2
	JEQ s1store32
	ADDQ R8, BX
	ROW1(0, Y6, Y7, Y8, Y9)
	ROW1(32, Y6, Y7, Y8, Y10)
	ROW1(64, Y6, Y7, Y8, Y11)
	ROW1(96, Y6, Y7, Y8, Y12)

s1store32:
	VMOVUPS Y9, 0(DI)
	VMOVUPS Y10, 32(DI)
	VMOVUPS Y11, 64(DI)
	VMOVUPS Y12, 96(DI)
	ADDQ $128, SI
	ADDQ $128, DI
	SUBQ $32, CX
	JMP s1loop32

s1loop8:
	CMPQ CX, $8
	JLT s1done
	INIT(0, Y9)
	MOVQ SI, BX
	ROW1(0, Y0, Y1, Y2, Y9)
	CMPQ R9, $1
	JEQ s1store8
	ADDQ R8, BX
	ROW1(0, Y3, Y4, Y5, Y9)
	CMPQ R9, $2
	JEQ s1store8
	ADDQ R8, BX
	ROW1(0, Y6, Y7, Y8, Y9)

s1store8:
	VMOVUPS Y9, 0(DI)
	ADDQ $32, SI
	ADDQ $32, DI
	SUBQ $8, CX
	JMP s1loop8

s1done:
	VZEROUPPER
	RET

// func dwConv3s2AVX(n int, src *float32, ld, rows int, w *[9]float32, bias float32, dst *float32, acc int)
// dwConv3s1AVX for horizontal stride 2: the taps of output i are at
// src[r·ld + 2i + k]; it reads src[r·ld + 2n + 1] too.
TEXT ·dwConv3s2AVX(SB), NOSPLIT, $0-64
	MOVQ n+0(FP), CX
	MOVQ src+8(FP), SI
	MOVQ ld+16(FP), R8
	SHLQ $2, R8
	MOVQ rows+24(FP), R9
	MOVQ w+32(FP), AX
	VBROADCASTSS bias+40(FP), Y15
	MOVQ dst+48(FP), DI
	MOVQ acc+56(FP), R10
	LOADW

s2loop16:
	CMPQ CX, $16
	JLT s2loop8
	INIT2(0, Y9)
	INIT2(32, Y10)
	MOVQ SI, BX
	ROW2(0, Y0, Y1, Y2, Y9)
	ROW2(64, Y0, Y1, Y2, Y10)
	CMPQ R9, $1
	JEQ s2store16
	ADDQ R8, BX
	ROW2(0, Y3, Y4, Y5, Y9)
	ROW2(64, Y3, Y4, Y5, Y10)
	CMPQ R9, $2
	JEQ s2store16
	ADDQ R8, BX
	ROW2(0, Y6, Y7, Y8, Y9)
	ROW2(64, Y6, Y7, Y8, Y10)

s2store16:
	VPERMPD $0xD8, Y9, Y9
	VPERMPD $0xD8, Y10, Y10
	VMOVUPS Y9, 0(DI)
	VMOVUPS Y10, 32(DI)
	ADDQ $128, SI
	ADDQ $64, DI
	SUBQ $16, CX
	JMP s2loop16

s2loop8:
	CMPQ CX, $8
	JLT s2done
	INIT2(0, Y9)
	MOVQ SI, BX
	ROW2(0, Y0, Y1, Y2, Y9)
	CMPQ R9, $1
	JEQ s2store8
	ADDQ R8, BX
	ROW2(0, Y3, Y4, Y5, Y9)
	CMPQ R9, $2
	JEQ s2store8
	ADDQ R8, BX
	ROW2(0, Y6, Y7, Y8, Y9)

s2store8:
	VPERMPD $0xD8, Y9, Y9
	VMOVUPS Y9, 0(DI)
	ADDQ $64, SI
	ADDQ $32, DI
	SUBQ $8, CX
	JMP s2loop8

s2done:
	VZEROUPPER
	RET

// LOADTAP loads into Y1 the taps src[i·sw] of 8 outputs from SI: one load
// for stride 1; for stride 2, the even elements of 16 (the shuffle leaves
// them in the lane order 0 1 4 5 2 3 6 7, which VPERMPD $0xD8 undoes).
#define LOADTAP \
	CMPQ DX, $1 \
	JNE 3(PC) \
	VMOVUPS 0(SI), Y1 \
	JMP 5(PC) \
	VMOVUPS 0(SI), Y1 \
	VMOVUPS 32(SI), Y2 \
	VSHUFPS $0x88, Y2, Y1, Y1 \
	VPERMPD $0xD8, Y1, Y1

// func maxStepAVX(n int, m, src *float32, sw int)
// m[i] = src[i·sw] if it is greater than m[i] or NaN, else m[i], for i in
// [0, n), n a multiple of 8, sw 1 or 2 (for 2, src[2n-1] is read too):
// one window tap of a max pool, NaN winning as in the scalar loop. Needs
// AVX2.
TEXT ·maxStepAVX(SB), NOSPLIT, $0-32
	MOVQ n+0(FP), CX
	MOVQ m+8(FP), DI
	MOVQ src+16(FP), SI
	MOVQ sw+24(FP), DX
	MOVQ DX, R8
	SHLQ $5, R8
	SHRQ $3, CX
	JEQ maxdone

maxloop:
	LOADTAP
	VMOVUPS 0(DI), Y0
	VCMPPS $3, Y1, Y1, Y3
	VMAXPS Y0, Y1, Y0
	VBLENDVPS Y3, Y1, Y0, Y0
	VMOVUPS Y0, 0(DI)
	ADDQ R8, SI
	ADDQ $32, DI
	DECQ CX
	JNE maxloop

maxdone:
	VZEROUPPER
	RET

// func sumStepAVX(n int, s, src *float32, sw int)
// s[i] += src[i·sw] for i in [0, n), n and sw as for maxStepAVX: one
// window tap of an average pool. Needs AVX2.
TEXT ·sumStepAVX(SB), NOSPLIT, $0-32
	MOVQ n+0(FP), CX
	MOVQ s+8(FP), DI
	MOVQ src+16(FP), SI
	MOVQ sw+24(FP), DX
	MOVQ DX, R8
	SHLQ $5, R8
	SHRQ $3, CX
	JEQ sumdone

sumloop:
	LOADTAP
	VMOVUPS 0(DI), Y0
	VADDPS Y1, Y0, Y0
	VMOVUPS Y0, 0(DI)
	ADDQ R8, SI
	ADDQ $32, DI
	DECQ CX
	JNE sumloop

sumdone:
	VZEROUPPER
	RET
