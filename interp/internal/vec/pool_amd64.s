//go:build !noasm

#include "textflag.h"

// Offsets into pool2Args (pool512_amd64.go).
#define A_SRC 0
#define A_DST 8
#define A_MASKS 16
#define A_PERM 24
#define A_COLDIV 32
#define A_ROWDIV 40
#define A_PLANES 48
#define A_INP 56
#define A_OUTP 64
#define A_H 72
#define A_W4 80
#define A_OH 88
#define A_OW 96
#define A_KH 104
#define A_SH 112
#define A_PT 120
#define A_ROWOFF 128
#define A_CHUNKS 136
#define A_CHUNKIN 144
#define A_ISMAX 152
#define A_START 160
#define A_PFDIST 168
#define A_PFLEN 176
#define A_FROM1 184
#define A_ROWS 192

// Register use:
//   AX args, SI source plane, DI destination plane, CX the pass's first
//   output row, R8 the chunk's tap pointer in window row 0, R9 the input
//   row of window row R13, R10 the chunk's output pointer, R11 window row
//   R13's tap pointer, R12 input row length in bytes, BX the chunk's masks,
//   DX chunks left, R14 scratch.
//   Z10 the start value (-Inf or 0), Z12 and Z20 the pass's two output
//   rows, Z13–Z15 the window row's taps k = 0–2, Z16 and Z17 the stride-2
//   permutations. K1–K3 the lanes whose tap k is inside the input, K5–K7
//   the stride-2 load masks, K4 scratch (the NaN taps), then the outputs.
//   The pass's second output row's window starts at window row From1 (all
//   ones when the pass has one output row); the pass reads Rows window rows.

// S1_LOADS loads window row taps for horizontal stride 1: the taps of
// output i are at addr + 4(i + k), under masks K1–K3.
#define S1_LOADS(addr0, addr1, addr2) \
	VMOVUPS.Z addr0, K1, Z13 \
	VMOVUPS.Z addr1, K2, Z14 \
	VMOVUPS.Z addr2, K3, Z15

// S2_LOADS loads window row taps for horizontal stride 2 (see dw3s2AVX512):
// the 32 inputs from the chunk's first tap hold taps k = 0 at even and
// k = 1 at odd places; taps k = 2 are taps k = 0 one lane on, the last from
// the input after the 32.
#define S2_LOADS(addr, addrh, addrn) \
	VMOVUPS.Z addr, K5, Z18 \
	VMOVUPS.Z addrh, K6, Z19 \
	VBROADCASTSS.Z addrn, K7, Z21 \
	VMOVAPS Z16, Z13 \
	VPERMI2PS Z19, Z18, Z13 \
	VMOVAPS Z17, Z14 \
	VPERMI2PS Z19, Z18, Z14 \
	VALIGND $1, Z13, Z21, Z15

// MAX_TAP applies tap v (lanes k) to acc as poolPoint does: acc takes v
// when v is greater (VMAXPS keeps acc on ties and when acc is NaN) or NaN
// (K4, set by NAN_LANES).
#define NAN_LANES(v, k) \
	VCMPPS $3, v, v, k, K4

#define MAX_TAP(v, k, acc) \
	VMAXPS acc, v, k, acc \
	VMOVAPS v, K4, acc

#define MAX_ROW(acc) \
	NAN_LANES(Z13, K1) \
	MAX_TAP(Z13, K1, acc) \
	NAN_LANES(Z14, K2) \
	MAX_TAP(Z14, K2, acc) \
	NAN_LANES(Z15, K3) \
	MAX_TAP(Z15, K3, acc)

#define MAX_ROW2 \
	NAN_LANES(Z13, K1) \
	MAX_TAP(Z13, K1, Z12) \
	MAX_TAP(Z13, K1, Z20) \
	NAN_LANES(Z14, K2) \
	MAX_TAP(Z14, K2, Z12) \
	MAX_TAP(Z14, K2, Z20) \
	NAN_LANES(Z15, K3) \
	MAX_TAP(Z15, K3, Z12) \
	MAX_TAP(Z15, K3, Z20)

// SUM_ROW adds the window row's taps to acc, each in its lanes only.
#define SUM_ROW(acc) \
	VADDPS Z13, acc, K1, acc \
	VADDPS Z14, acc, K2, acc \
	VADDPS Z15, acc, K3, acc

// PREFETCH_AHEAD asks for R13 bytes from PFDist bytes past R14: the
// input a few rows on, or the outputs, which a layer finds out of the
// near caches and the hardware prefetchers miss in this 2-D walk.
#define PREFETCH_AHEAD \
	ADDQ A_PFDIST(AX), R14 \
	PREFETCHT0 (R14) \
	ADDQ $64, R14 \
	SUBQ $64, R13 \
	JGT -3(PC)

// func pool2AVX512(a *pool2Args)
// Planes of a 2-D max or average pool with windows up to 3 wide, unit
// dilation and horizontal stride 1 or 2 (see pool2Args): each output
// starts at Start and takes its window's taps inside the input plane in
// window order; an average then divides by ColDiv·RowDiv. Masked loads
// never touch memory the masks leave out. Needs AVX-512F.
TEXT ·pool2AVX512(SB), NOSPLIT, $0-8
	MOVQ a+0(FP), AX
	VBROADCASTSS A_START(AX), Z10
	MOVQ A_PERM(AX), R8
	VMOVUPS 0(R8), Z16
	VMOVUPS 64(R8), Z17
	MOVQ A_W4(AX), R12
	MOVQ A_SRC(AX), SI
	MOVQ A_DST(AX), DI

plane:
	XORQ CX, CX

row:
	// Two output rows a pass when two remain and their windows overlap.
	MOVQ A_KH(AX), R13
	MOVQ R13, A_ROWS(AX)
	MOVQ $-1, A_FROM1(AX)
	MOVQ A_OH(AX), R14
	SUBQ CX, R14
	CMPQ R14, $2
	JLT onerow
	MOVQ A_SH(AX), R14
	CMPQ R14, R13
	JGT onerow
	MOVQ R14, A_FROM1(AX)
	ADDQ R14, A_ROWS(AX)

onerow:
	MOVQ CX, R8
	IMULQ A_SH(AX), R8
	SUBQ A_PT(AX), R8
	IMULQ R12, R8
	SUBQ A_ROWOFF(AX), R8
	ADDQ SI, R8
	MOVQ CX, R10
	IMULQ A_OW(AX), R10
	LEAQ (DI)(R10*4), R10

	MOVQ A_PFLEN(AX), R13
	CMPQ A_FROM1(AX), $-1
	JEQ 2(PC)
	SHLQ $1, R13
	MOVQ R8, R14
	PREFETCH_AHEAD
	MOVQ A_OW(AX), R13
	SHLQ $2, R13
	CMPQ A_FROM1(AX), $-1
	JEQ 2(PC)
	SHLQ $1, R13
	MOVQ R10, R14
	PREFETCH_AHEAD

	MOVQ A_MASKS(AX), BX
	MOVQ A_CHUNKS(AX), DX

chunk:
	KMOVW 0(BX), K1
	KMOVW 2(BX), K2
	KMOVW 4(BX), K3
	KMOVW 8(BX), K5
	KMOVW 10(BX), K6
	KMOVW 12(BX), K7
	VMOVAPS Z10, Z12
	VMOVAPS Z10, Z20
	MOVQ CX, R9
	IMULQ A_SH(AX), R9
	SUBQ A_PT(AX), R9
	MOVQ R8, R11
	XORQ R13, R13

tap:
	// Window rows outside the plane (R9, unsigned, not below H) have no taps.
	CMPQ R9, A_H(AX)
	JCC tapnext
	CMPQ A_CHUNKIN(AX), $64
	JNE s2loads
	S1_LOADS(0(R11), 4(R11), 8(R11))
	JMP apply

s2loads:
	S2_LOADS(0(R11), 64(R11), 128(R11))

apply:
	CMPQ A_ISMAX(AX), $0
	JEQ sum
	CMPQ R13, A_KH(AX)
	JCC max1
	CMPQ R13, A_FROM1(AX)
	JCS max0
	MAX_ROW2
	JMP tapnext

max0:
	MAX_ROW(Z12)
	JMP tapnext

max1:
	MAX_ROW(Z20)
	JMP tapnext

sum:
	CMPQ R13, A_KH(AX)
	JCC sum1
	SUM_ROW(Z12)
	CMPQ R13, A_FROM1(AX)
	JCS tapnext

sum1:
	SUM_ROW(Z20)

tapnext:
	ADDQ R12, R11
	INCQ R9
	INCQ R13
	CMPQ R13, A_ROWS(AX)
	JLT tap

	CMPQ A_ISMAX(AX), $0
	JNE store
	// The chunk's column divisors are 64 bytes a chunk, its masks 16.
	MOVQ BX, R11
	SUBQ A_MASKS(AX), R11
	SHLQ $2, R11
	ADDQ A_COLDIV(AX), R11
	MOVQ A_ROWDIV(AX), R14
	VBROADCASTSS (R14)(CX*4), Z13
	VMULPS (R11), Z13, Z13
	VDIVPS Z13, Z12, Z12
	CMPQ A_FROM1(AX), $-1
	JEQ store
	VBROADCASTSS 4(R14)(CX*4), Z13
	VMULPS (R11), Z13, Z13
	VDIVPS Z13, Z20, Z20

store:
	KMOVW 6(BX), K4
	VMOVUPS Z12, K4, (R10)
	CMPQ A_FROM1(AX), $-1
	JEQ nextchunk
	MOVQ A_OW(AX), R11
	VMOVUPS Z20, K4, (R10)(R11*4)

nextchunk:
	ADDQ A_CHUNKIN(AX), R8
	ADDQ $64, R10
	ADDQ $16, BX
	DECQ DX
	JNE chunk

	INCQ CX
	CMPQ A_FROM1(AX), $-1
	JEQ 2(PC)
	INCQ CX
	CMPQ CX, A_OH(AX)
	JLT row

	MOVQ A_INP(AX), R8
	LEAQ (SI)(R8*4), SI
	MOVQ A_OUTP(AX), R8
	LEAQ (DI)(R8*4), DI
	DECQ A_PLANES(AX)
	JNE plane
	VZEROUPPER
	RET
