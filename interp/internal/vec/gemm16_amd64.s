//go:build !noasm

#include "textflag.h"

// LOADB4 loads four rows of B (ldb floats apart: R9 bytes, R10 = 3·R9).
#define LOADB4 \
	VMOVUPS (DI), Z16 \
	VMOVUPS (DI)(R9*1), Z17 \
	VMOVUPS (DI)(R9*2), Z18 \
	VMOVUPS (DI)(R10*1), Z19

// BPREFETCH asks for the same four rows of B two 16-column panels ahead.
// When B is read in place from a large feature map, its rows lie far
// apart and the next panels' rows would otherwise be fetched only when the
// kernel stalls on them; for small maps or packed B it costs loads for
// nothing, so the kernels run it only when asked.
#define BPREFETCH \
	PREFETCHT0 128(DI) \
	PREFETCHT0 128(DI)(R9*1) \
	PREFETCHT0 128(DI)(R9*2) \
	PREFETCHT0 128(DI)(R10*1)

// CPREFETCH16 asks for the 16 rows of C (R8 bytes apart from DX) two
// 16-column strips ahead: when B is a large feature map, so is C, and its
// strips are written far from where the last ones were.
#define CPREFETCH16 \
	MOVQ DX, AX \
	PREFETCHT0 128(AX) \
	PREFETCHT0 128(AX)(R8*1) \
	PREFETCHT0 128(AX)(R8*2) \
	LEAQ (AX)(R8*2), AX \
	PREFETCHT0 128(AX)(R8*1) \
	PREFETCHT0 128(AX)(R8*2) \
	LEAQ (AX)(R8*2), AX \
	PREFETCHT0 128(AX)(R8*1) \
	PREFETCHT0 128(AX)(R8*2) \
	LEAQ (AX)(R8*2), AX \
	PREFETCHT0 128(AX)(R8*1) \
	PREFETCHT0 128(AX)(R8*2) \
	LEAQ (AX)(R8*2), AX \
	PREFETCHT0 128(AX)(R8*1) \
	PREFETCHT0 128(AX)(R8*2) \
	LEAQ (AX)(R8*2), AX \
	PREFETCHT0 128(AX)(R8*1) \
	PREFETCHT0 128(AX)(R8*2) \
	LEAQ (AX)(R8*2), AX \
	PREFETCHT0 128(AX)(R8*1) \
	PREFETCHT0 128(AX)(R8*2) \
	LEAQ (AX)(R8*2), AX \
	PREFETCHT0 128(AX)(R8*1)

// K16 is one k step of the 16-row kernel: B's row in zb meets the 16 A
// values of the k group at aoff(SI), one accumulator per row.
#define K16(aoff, zb) \
	VFMADD231PS.BCST aoff+0(SI), zb, Z0 \
	VFMADD231PS.BCST aoff+4(SI), zb, Z1 \
	VFMADD231PS.BCST aoff+8(SI), zb, Z2 \
	VFMADD231PS.BCST aoff+12(SI), zb, Z3 \
	VFMADD231PS.BCST aoff+16(SI), zb, Z4 \
	VFMADD231PS.BCST aoff+20(SI), zb, Z5 \
	VFMADD231PS.BCST aoff+24(SI), zb, Z6 \
	VFMADD231PS.BCST aoff+28(SI), zb, Z7 \
	VFMADD231PS.BCST aoff+32(SI), zb, Z8 \
	VFMADD231PS.BCST aoff+36(SI), zb, Z9 \
	VFMADD231PS.BCST aoff+40(SI), zb, Z10 \
	VFMADD231PS.BCST aoff+44(SI), zb, Z11 \
	VFMADD231PS.BCST aoff+48(SI), zb, Z12 \
	VFMADD231PS.BCST aoff+52(SI), zb, Z13 \
	VFMADD231PS.BCST aoff+56(SI), zb, Z14 \
	VFMADD231PS.BCST aoff+60(SI), zb, Z15

// K8 is one k step of the 8-row kernel: A's first 8 values only.
#define K8(aoff, zb) \
	VFMADD231PS.BCST aoff+0(SI), zb, Z0 \
	VFMADD231PS.BCST aoff+4(SI), zb, Z1 \
	VFMADD231PS.BCST aoff+8(SI), zb, Z2 \
	VFMADD231PS.BCST aoff+12(SI), zb, Z3 \
	VFMADD231PS.BCST aoff+16(SI), zb, Z4 \
	VFMADD231PS.BCST aoff+20(SI), zb, Z5 \
	VFMADD231PS.BCST aoff+24(SI), zb, Z6 \
	VFMADD231PS.BCST aoff+28(SI), zb, Z7

// func sgemmKernel16x16(k int, a, b *float32, ldb int, c *float32, ldc int, add, prefetch bool)
// C[16x16] += A·B (or = A·B when add is false) over k steps, with A packed as k groups of 16 floats (one
// per row) and B as k rows of 16 floats ldb floats apart (16 when packed); C has row stride ldc.
// One ZMM accumulator per row of C; each A value is broadcast straight from
// memory into its FMA. With prefetch, B's rows two panels ahead are
// prefetched (see BPREFETCH). Needs AVX-512F.
TEXT ·sgemmKernel16x16(SB), NOSPLIT, $0-50
	MOVQ k+0(FP), CX
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), DI
	MOVQ ldb+24(FP), R9
	SHLQ $2, R9
	LEAQ (R9)(R9*2), R10
	LEAQ (R9*4), R11
	MOVQ c+32(FP), DX
	MOVQ ldc+40(FP), R8
	SHLQ $2, R8
	MOVBLZX prefetch+49(FP), R12
	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1
	VPXORD Z2, Z2, Z2
	VPXORD Z3, Z3, Z3
	VPXORD Z4, Z4, Z4
	VPXORD Z5, Z5, Z5
	VPXORD Z6, Z6, Z6
	VPXORD Z7, Z7, Z7
	VPXORD Z8, Z8, Z8
	VPXORD Z9, Z9, Z9
	VPXORD Z10, Z10, Z10
	VPXORD Z11, Z11, Z11
	VPXORD Z12, Z12, Z12
	VPXORD Z13, Z13, Z13
	VPXORD Z14, Z14, Z14
	VPXORD Z15, Z15, Z15
	MOVQ CX, BX
	SHRQ $2, BX
	ANDQ $3, CX
	TESTQ BX, BX
	JEQ tail16
	TESTL R12, R12
	JEQ loop16x4
	CPREFETCH16
	JMP loop16x4pf

loop16x4:
	LOADB4
	K16(0, Z16)
	K16(64, Z17)
	K16(128, Z18)
	K16(192, Z19)
	ADDQ $256, SI
	ADDQ R11, DI
	DECQ BX
	JNE loop16x4
	JMP tail16

loop16x4pf:
	LOADB4
	BPREFETCH
	K16(0, Z16)
	K16(64, Z17)
	K16(128, Z18)
	K16(192, Z19)
	ADDQ $256, SI
	ADDQ R11, DI
	DECQ BX
	JNE loop16x4pf

tail16:
	TESTQ CX, CX
	JEQ store16

loop16:
	VMOVUPS (DI), Z16
	K16(0, Z16)
	ADDQ $64, SI
	ADDQ R9, DI
	DECQ CX
	JNE loop16

store16:
	MOVBLZX add+48(FP), AX
	TESTL AX, AX
	JEQ set16
	VADDPS (DX), Z0, Z0
	VMOVUPS Z0, (DX)
	ADDQ R8, DX
	VADDPS (DX), Z1, Z1
	VMOVUPS Z1, (DX)
	ADDQ R8, DX
	VADDPS (DX), Z2, Z2
	VMOVUPS Z2, (DX)
	ADDQ R8, DX
	VADDPS (DX), Z3, Z3
	VMOVUPS Z3, (DX)
	ADDQ R8, DX
	VADDPS (DX), Z4, Z4
	VMOVUPS Z4, (DX)
	ADDQ R8, DX
	VADDPS (DX), Z5, Z5
	VMOVUPS Z5, (DX)
	ADDQ R8, DX
	VADDPS (DX), Z6, Z6
	VMOVUPS Z6, (DX)
	ADDQ R8, DX
	VADDPS (DX), Z7, Z7
	VMOVUPS Z7, (DX)
	ADDQ R8, DX
	VADDPS (DX), Z8, Z8
	VMOVUPS Z8, (DX)
	ADDQ R8, DX
	VADDPS (DX), Z9, Z9
	VMOVUPS Z9, (DX)
	ADDQ R8, DX
	VADDPS (DX), Z10, Z10
	VMOVUPS Z10, (DX)
	ADDQ R8, DX
	VADDPS (DX), Z11, Z11
	VMOVUPS Z11, (DX)
	ADDQ R8, DX
	VADDPS (DX), Z12, Z12
	VMOVUPS Z12, (DX)
	ADDQ R8, DX
	VADDPS (DX), Z13, Z13
	VMOVUPS Z13, (DX)
	ADDQ R8, DX
	VADDPS (DX), Z14, Z14
	VMOVUPS Z14, (DX)
	ADDQ R8, DX
	VADDPS (DX), Z15, Z15
	VMOVUPS Z15, (DX)
	VZEROUPPER
	RET

set16:
	VMOVUPS Z0, (DX)
	ADDQ R8, DX
	VMOVUPS Z1, (DX)
	ADDQ R8, DX
	VMOVUPS Z2, (DX)
	ADDQ R8, DX
	VMOVUPS Z3, (DX)
	ADDQ R8, DX
	VMOVUPS Z4, (DX)
	ADDQ R8, DX
	VMOVUPS Z5, (DX)
	ADDQ R8, DX
	VMOVUPS Z6, (DX)
	ADDQ R8, DX
	VMOVUPS Z7, (DX)
	ADDQ R8, DX
	VMOVUPS Z8, (DX)
	ADDQ R8, DX
	VMOVUPS Z9, (DX)
	ADDQ R8, DX
	VMOVUPS Z10, (DX)
	ADDQ R8, DX
	VMOVUPS Z11, (DX)
	ADDQ R8, DX
	VMOVUPS Z12, (DX)
	ADDQ R8, DX
	VMOVUPS Z13, (DX)
	ADDQ R8, DX
	VMOVUPS Z14, (DX)
	ADDQ R8, DX
	VMOVUPS Z15, (DX)
	VZEROUPPER
	RET

// func sgemmKernel8x16(k int, a, b *float32, ldb int, c *float32, ldc int, add, prefetch bool)
// sgemmKernel16x16 for the first 8 rows of a packed 16-row panel of A (the
// rest being padding): the same sums, with half the FMAs, stored straight
// into C.
TEXT ·sgemmKernel8x16(SB), NOSPLIT, $0-50
	MOVQ k+0(FP), CX
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), DI
	MOVQ ldb+24(FP), R9
	SHLQ $2, R9
	LEAQ (R9)(R9*2), R10
	LEAQ (R9*4), R11
	MOVQ c+32(FP), DX
	MOVQ ldc+40(FP), R8
	SHLQ $2, R8
	MOVBLZX prefetch+49(FP), R12
	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1
	VPXORD Z2, Z2, Z2
	VPXORD Z3, Z3, Z3
	VPXORD Z4, Z4, Z4
	VPXORD Z5, Z5, Z5
	VPXORD Z6, Z6, Z6
	VPXORD Z7, Z7, Z7
	MOVQ CX, BX
	SHRQ $2, BX
	ANDQ $3, CX
	TESTQ BX, BX
	JEQ tail8
	TESTL R12, R12
	JNE loop8x4pf

loop8x4:
	LOADB4
	K8(0, Z16)
	K8(64, Z17)
	K8(128, Z18)
	K8(192, Z19)
	ADDQ $256, SI
	ADDQ R11, DI
	DECQ BX
	JNE loop8x4
	JMP tail8

loop8x4pf:
	LOADB4
	BPREFETCH
	K8(0, Z16)
	K8(64, Z17)
	K8(128, Z18)
	K8(192, Z19)
	ADDQ $256, SI
	ADDQ R11, DI
	DECQ BX
	JNE loop8x4pf

tail8:
	TESTQ CX, CX
	JEQ store8

loop8:
	VMOVUPS (DI), Z16
	K8(0, Z16)
	ADDQ $64, SI
	ADDQ R9, DI
	DECQ CX
	JNE loop8

store8:
	MOVBLZX add+48(FP), AX
	TESTL AX, AX
	JEQ set8
	VADDPS (DX), Z0, Z0
	VMOVUPS Z0, (DX)
	ADDQ R8, DX
	VADDPS (DX), Z1, Z1
	VMOVUPS Z1, (DX)
	ADDQ R8, DX
	VADDPS (DX), Z2, Z2
	VMOVUPS Z2, (DX)
	ADDQ R8, DX
	VADDPS (DX), Z3, Z3
	VMOVUPS Z3, (DX)
	ADDQ R8, DX
	VADDPS (DX), Z4, Z4
	VMOVUPS Z4, (DX)
	ADDQ R8, DX
	VADDPS (DX), Z5, Z5
	VMOVUPS Z5, (DX)
	ADDQ R8, DX
	VADDPS (DX), Z6, Z6
	VMOVUPS Z6, (DX)
	ADDQ R8, DX
	VADDPS (DX), Z7, Z7
	VMOVUPS Z7, (DX)
	VZEROUPPER
	RET

set8:
	VMOVUPS Z0, (DX)
	ADDQ R8, DX
	VMOVUPS Z1, (DX)
	ADDQ R8, DX
	VMOVUPS Z2, (DX)
	ADDQ R8, DX
	VMOVUPS Z3, (DX)
	ADDQ R8, DX
	VMOVUPS Z4, (DX)
	ADDQ R8, DX
	VMOVUPS Z5, (DX)
	ADDQ R8, DX
	VMOVUPS Z6, (DX)
	ADDQ R8, DX
	VMOVUPS Z7, (DX)
	VZEROUPPER
	RET
