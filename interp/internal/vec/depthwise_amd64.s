//go:build !noasm

#include "textflag.h"

// Offsets into dw3Args (depthwise512_amd64.go).
#define A_SRC 0
#define A_DST 8
#define A_W 16
#define A_BIAS 24
#define A_MASKS 32
#define A_PERM 40
#define A_PLANES 48
#define A_INP 56
#define A_OUTP 64
#define A_BIASSTEP 72
#define A_H 80
#define A_W4 88
#define A_OH 96
#define A_OW 104
#define A_SH 112
#define A_PT 120
#define A_ROWOFF 128
#define A_CHUNKS 136
#define A_LO 144
#define A_HI 148
#define A_PFDIST 152
#define A_PFLEN 160

// Register use in both kernels:
//   AX args, SI source plane, DI destination plane, CX output row,
//   R9 first input row of the window, R11 bit k set when window row k is
//   inside the plane, R12 input row length in bytes, R8 the
//   chunk's tap pointer in window row 0, R10 the chunk's output pointer,
//   BX the chunk's masks, DX chunks left; R13 and R9 are free after
//   ROW_START.
//   Z0–Z8 the plane's weights, Z9 its bias, Z10 lo, Z11 hi, Z12 the sums.

// PLANE_START broadcasts the plane's weights and bias.
#define PLANE_START \
	MOVQ A_W(AX), R8 \
	VBROADCASTSS 0(R8), Z0 \
	VBROADCASTSS 4(R8), Z1 \
	VBROADCASTSS 8(R8), Z2 \
	VBROADCASTSS 12(R8), Z3 \
	VBROADCASTSS 16(R8), Z4 \
	VBROADCASTSS 20(R8), Z5 \
	VBROADCASTSS 24(R8), Z6 \
	VBROADCASTSS 28(R8), Z7 \
	VBROADCASTSS 32(R8), Z8 \
	MOVQ A_BIAS(AX), R8 \
	VBROADCASTSS 0(R8), Z9

// NEXT_PLANE moves SI, DI and the weights and bias in dw3Args on to the
// next plane and counts it off (the flags say whether any are left).
#define NEXT_PLANE \
	MOVQ A_INP(AX), R8 \
	LEAQ (SI)(R8*4), SI \
	MOVQ A_OUTP(AX), R8 \
	LEAQ (DI)(R8*4), DI \
	ADDQ $36, A_W(AX) \
	MOVQ A_BIASSTEP(AX), R8 \
	ADDQ R8, A_BIAS(AX) \
	DECQ A_PLANES(AX)

// ROW_START sets R9, R11 (bit k, k = 0–4, set when window row k is inside
// the plane: R9 + k, unsigned, is below H), R8 (window row 0 at the row's first chunk), R10,
// BX and DX for output row CX.
#define ROW_START \
	MOVQ CX, R9 \
	IMULQ A_SH(AX), R9 \
	SUBQ A_PT(AX), R9 \
	XORQ R11, R11 \
	MOVQ R9, R8 \
	CMPQ R8, A_H(AX) \
	JCC 2(PC) \
	ORQ $1, R11 \
	INCQ R8 \
	CMPQ R8, A_H(AX) \
	JCC 2(PC) \
	ORQ $2, R11 \
	INCQ R8 \
	CMPQ R8, A_H(AX) \
	JCC 2(PC) \
	ORQ $4, R11 \
	INCQ R8 \
	CMPQ R8, A_H(AX) \
	JCC 2(PC) \
	ORQ $8, R11 \
	INCQ R8 \
	CMPQ R8, A_H(AX) \
	JCC 2(PC) \
	ORQ $16, R11 \
	MOVQ R9, R8 \
	IMULQ R12, R8 \
	SUBQ A_ROWOFF(AX), R8 \
	ADDQ SI, R8 \
	MOVQ CX, R10 \
	IMULQ A_OW(AX), R10 \
	LEAQ (DI)(R10*4), R10 \
	MOVQ A_MASKS(AX), BX \
	MOVQ A_CHUNKS(AX), DX

// PREFETCH_AHEAD asks for the input n bytes (n in R9) that lie A_PFDIST
// bytes past the window's first row (R8): what the window reaches in a few
// rows. A layer's input comes from the previous layer, mostly no longer
// in the nearest caches, and the hardware prefetchers miss this 2-D walk.
#define PREFETCH_AHEAD \
	MOVQ R8, R13 \
	ADDQ A_PFDIST(AX), R13 \
	PREFETCHT0 (R13) \
	ADDQ $64, R13 \
	SUBQ $64, R9 \
	JGT -3(PC)

// PREFETCH_OUT_AHEAD does the same for the output, n bytes (n in R9) A_PFDIST
// bytes past the row's outputs (R10): the outputs' lines are
// read before they are written, and the buffer was last used long ago.
#define PREFETCH_OUT_AHEAD \
	MOVQ R10, R13 \
	ADDQ A_PFDIST(AX), R13 \
	PREFETCHT0 (R13) \
	ADDQ $64, R13 \
	SUBQ $64, R9 \
	JGT -3(PC)

// FINISH clamps acc to [lo, hi], NaN passing through as Go's min and max
// pass it (see clampRowAVX), and stores the chunk's outputs (mask K4) at
// addr.
#define FINISH(acc, addr) \
	VCMPPS $3, acc, acc, K7 \
	VMAXPS Z10, acc, Z13 \
	VMINPS Z11, Z13, Z13 \
	VMOVAPS acc, K7, Z13 \
	VMOVUPS Z13, K4, addr

// S1_LOADS loads the taps of window row r (at addr0) for horizontal stride
// 1: the taps of output i are at addr0 + 4(i + k), k = 0, 1, 2, into Z13–Z15
// under masks K1–K3, which leave out the taps in the pads.
#define S1_LOADS(addr0, addr1, addr2) \
	VMOVUPS.Z addr0, K1, Z13 \
	VMOVUPS.Z addr1, K2, Z14 \
	VMOVUPS.Z addr2, K3, Z15

// S1_FMAS adds the loaded taps times w0–w2 to acc, each in its masked
// lanes only, so a tap in the pads is not added at all.
#define S1_FMAS(acc, w0, w1, w2) \
	VFMADD231PS Z13, w0, K1, acc \
	VFMADD231PS Z14, w1, K2, acc \
	VFMADD231PS Z15, w2, K3, acc

// func dw3s1AVX512(a *dw3Args)
// One or more planes of a 3×3 depthwise convolution with unit dilation and
// horizontal stride 1 (see dw3Args): each output is the bias plus the
// taps inside the input plane, in row-major tap order, each added by a
// fused multiply-add, then clamped. Masked loads never touch memory the
// masks leave out. Needs AVX-512F.
TEXT ·dw3s1AVX512(SB), NOSPLIT, $0-8
	MOVQ a+0(FP), AX
	VBROADCASTSS A_LO(AX), Z10
	VBROADCASTSS A_HI(AX), Z11
	MOVQ A_W4(AX), R12
	MOVQ A_SRC(AX), SI
	MOVQ A_DST(AX), DI

s1plane:
	PLANE_START
	XORQ CX, CX

s1row:
	ROW_START
	MOVQ A_OH(AX), R13
	SUBQ CX, R13
	CMPQ R13, $2
	JLT s1one
	CMPQ A_SH(AX), $1
	JNE s1one
	MOVQ A_PFLEN(AX), R9
	SHLQ $1, R9
	PREFETCH_AHEAD
	MOVQ A_OW(AX), R9
	SHLQ $3, R9
	PREFETCH_OUT_AHEAD
	MOVQ A_OW(AX), R9
	SHLQ $3, R9
	PREFETCH_OUT_AHEAD

	// Two output rows at once: window rows 1 and 2 serve both, loaded once.
	MOVQ A_OW(AX), R9
	SHLQ $2, R9

s1pair:
	KMOVW 0(BX), K1
	KMOVW 2(BX), K2
	KMOVW 4(BX), K3
	VMOVAPS Z9, Z12
	VMOVAPS Z9, Z20
	LEAQ (R8)(R12*1), R13
	TESTQ $1, R11
	JEQ s1p1
	S1_LOADS(0(R8), 4(R8), 8(R8))
	S1_FMAS(Z12, Z0, Z1, Z2)

s1p1:
	TESTQ $2, R11
	JEQ s1p2
	S1_LOADS(0(R13), 4(R13), 8(R13))
	S1_FMAS(Z12, Z3, Z4, Z5)
	S1_FMAS(Z20, Z0, Z1, Z2)

s1p2:
	TESTQ $4, R11
	JEQ s1p3
	S1_LOADS(0(R13)(R12*1), 4(R13)(R12*1), 8(R13)(R12*1))
	S1_FMAS(Z12, Z6, Z7, Z8)
	S1_FMAS(Z20, Z3, Z4, Z5)

s1p3:
	TESTQ $8, R11
	JEQ s1pfin
	S1_LOADS(0(R13)(R12*2), 4(R13)(R12*2), 8(R13)(R12*2))
	S1_FMAS(Z20, Z6, Z7, Z8)

s1pfin:
	KMOVW 6(BX), K4
	FINISH(Z12, (R10))
	FINISH(Z20, (R10)(R9*1))
	ADDQ $64, R8
	ADDQ $64, R10
	ADDQ $16, BX
	DECQ DX
	JNE s1pair
	ADDQ $2, CX
	JMP s1next

s1one:
	MOVQ A_PFLEN(AX), R9
	PREFETCH_AHEAD
	MOVQ A_OW(AX), R9
	SHLQ $2, R9
	PREFETCH_OUT_AHEAD

s1chunk:
	KMOVW 0(BX), K1
	KMOVW 2(BX), K2
	KMOVW 4(BX), K3
	VMOVAPS Z9, Z12
	TESTQ $1, R11
	JEQ s1r1
	S1_LOADS(0(R8), 4(R8), 8(R8))
	S1_FMAS(Z12, Z0, Z1, Z2)

s1r1:
	TESTQ $2, R11
	JEQ s1r2
	S1_LOADS(0(R8)(R12*1), 4(R8)(R12*1), 8(R8)(R12*1))
	S1_FMAS(Z12, Z3, Z4, Z5)

s1r2:
	TESTQ $4, R11
	JEQ s1fin
	S1_LOADS(0(R8)(R12*2), 4(R8)(R12*2), 8(R8)(R12*2))
	S1_FMAS(Z12, Z6, Z7, Z8)

s1fin:
	KMOVW 6(BX), K4
	FINISH(Z12, (R10))
	ADDQ $64, R8
	ADDQ $64, R10
	ADDQ $16, BX
	DECQ DX
	JNE s1chunk
	INCQ CX

s1next:
	CMPQ CX, A_OH(AX)
	JLT s1row

	NEXT_PLANE
	JNE s1plane
	VZEROUPPER
	RET

// S2_LOADS loads the taps of window row r for horizontal stride 2 into
// Z13–Z15 (tap k of output i in lane i of Z13+k): the 32 inputs from the
// chunk's first tap (addr, addr+64, masks K5 and K6) hold taps k = 0 at even
// and k = 1 at odd places (Z16 and Z17 pick them); taps k = 2 are taps k = 0
// one lane on, the last from the input after the 32 (addr+128, mask K7).
#define S2_LOADS(addr, addrh, addrn) \
	VMOVUPS.Z addr, K5, Z18 \
	VMOVUPS.Z addrh, K6, Z19 \
	VBROADCASTSS.Z addrn, K7, Z21 \
	VMOVAPS Z16, Z13 \
	VPERMI2PS Z19, Z18, Z13 \
	VMOVAPS Z17, Z14 \
	VPERMI2PS Z19, Z18, Z14 \
	VALIGND $1, Z13, Z21, Z15

// S2_MASKS loads the chunk's masks for horizontal stride 2.
#define S2_MASKS \
	KMOVW 0(BX), K1 \
	KMOVW 2(BX), K2 \
	KMOVW 4(BX), K3 \
	KMOVW 8(BX), K5 \
	KMOVW 10(BX), K6 \
	KMOVW 12(BX), K7

// func dw3s2AVX512(a *dw3Args)
// dw3s1AVX512 for horizontal stride 2; at vertical stride 2 it computes two
// output rows at once, loading the window row they share once.
TEXT ·dw3s2AVX512(SB), NOSPLIT, $0-8
	MOVQ a+0(FP), AX
	VBROADCASTSS A_LO(AX), Z10
	VBROADCASTSS A_HI(AX), Z11
	MOVQ A_PERM(AX), R8
	VMOVUPS 0(R8), Z16
	VMOVUPS 64(R8), Z17
	MOVQ A_W4(AX), R12
	MOVQ A_SRC(AX), SI
	MOVQ A_DST(AX), DI

s2plane:
	PLANE_START
	XORQ CX, CX

s2row:
	ROW_START
	MOVQ A_OH(AX), R13
	SUBQ CX, R13
	CMPQ R13, $2
	JLT s2one
	CMPQ A_SH(AX), $2
	JNE s2one
	MOVQ A_PFLEN(AX), R9
	SHLQ $1, R9
	PREFETCH_AHEAD
	MOVQ A_OW(AX), R9
	SHLQ $3, R9
	PREFETCH_OUT_AHEAD
	MOVQ A_OW(AX), R9
	SHLQ $3, R9
	PREFETCH_OUT_AHEAD

	// Two output rows: window rows 0–2 and 2–4.
	MOVQ A_OW(AX), R9
	SHLQ $2, R9

s2pair:
	S2_MASKS
	VMOVAPS Z9, Z12
	VMOVAPS Z9, Z20
	LEAQ (R8)(R12*2), R13
	TESTQ $1, R11
	JEQ s2p1
	S2_LOADS(0(R8), 64(R8), 128(R8))
	S1_FMAS(Z12, Z0, Z1, Z2)

s2p1:
	TESTQ $2, R11
	JEQ s2p2
	S2_LOADS(0(R8)(R12*1), 64(R8)(R12*1), 128(R8)(R12*1))
	S1_FMAS(Z12, Z3, Z4, Z5)

s2p2:
	TESTQ $4, R11
	JEQ s2p3
	S2_LOADS(0(R13), 64(R13), 128(R13))
	S1_FMAS(Z12, Z6, Z7, Z8)
	S1_FMAS(Z20, Z0, Z1, Z2)

s2p3:
	TESTQ $8, R11
	JEQ s2p4
	S2_LOADS(0(R13)(R12*1), 64(R13)(R12*1), 128(R13)(R12*1))
	S1_FMAS(Z20, Z3, Z4, Z5)

s2p4:
	TESTQ $16, R11
	JEQ s2pfin
	S2_LOADS(0(R13)(R12*2), 64(R13)(R12*2), 128(R13)(R12*2))
	S1_FMAS(Z20, Z6, Z7, Z8)

s2pfin:
	KMOVW 6(BX), K4
	FINISH(Z12, (R10))
	FINISH(Z20, (R10)(R9*1))
	ADDQ $128, R8
	ADDQ $64, R10
	ADDQ $16, BX
	DECQ DX
	JNE s2pair
	ADDQ $2, CX
	JMP s2next

s2one:
	MOVQ A_PFLEN(AX), R9
	PREFETCH_AHEAD
	MOVQ A_OW(AX), R9
	SHLQ $2, R9
	PREFETCH_OUT_AHEAD

s2chunk:
	S2_MASKS
	VMOVAPS Z9, Z12
	TESTQ $1, R11
	JEQ s2r1
	S2_LOADS(0(R8), 64(R8), 128(R8))
	S1_FMAS(Z12, Z0, Z1, Z2)

s2r1:
	TESTQ $2, R11
	JEQ s2r2
	S2_LOADS(0(R8)(R12*1), 64(R8)(R12*1), 128(R8)(R12*1))
	S1_FMAS(Z12, Z3, Z4, Z5)

s2r2:
	TESTQ $4, R11
	JEQ s2fin
	S2_LOADS(0(R8)(R12*2), 64(R8)(R12*2), 128(R8)(R12*2))
	S1_FMAS(Z12, Z6, Z7, Z8)

s2fin:
	KMOVW 6(BX), K4
	FINISH(Z12, (R10))
	ADDQ $128, R8
	ADDQ $64, R10
	ADDQ $16, BX
	DECQ DX
	JNE s2chunk
	INCQ CX

s2next:
	CMPQ CX, A_OH(AX)
	JLT s2row

	NEXT_PLANE
	JNE s2plane
	VZEROUPPER
	RET
