//go:build !noasm

#include "textflag.h"

// Column kernels: C[16·P rows, one column] (+)= A·b for P packed 16-row
// panels of A (k groups of 16 floats each, panels lda floats apart) and one
// column of B (k floats, ldb floats apart). One ZMM accumulator per panel
// holds 16 rows of the column; each B value is broadcast once per k step
// and meets every panel, so the P accumulators make P independent FMA
// chains. The sums are the 16×16 kernel's, element for element.
//
// func sgemmColumn16xP(k int, a *float32, lda int, b *float32, ldb int, c *float32, ldc int, add bool)

DATA colIota<>+0(SB)/4, $0
DATA colIota<>+4(SB)/4, $1
DATA colIota<>+8(SB)/4, $2
DATA colIota<>+12(SB)/4, $3
DATA colIota<>+16(SB)/4, $4
DATA colIota<>+20(SB)/4, $5
DATA colIota<>+24(SB)/4, $6
DATA colIota<>+28(SB)/4, $7
DATA colIota<>+32(SB)/4, $8
DATA colIota<>+36(SB)/4, $9
DATA colIota<>+40(SB)/4, $10
DATA colIota<>+44(SB)/4, $11
DATA colIota<>+48(SB)/4, $12
DATA colIota<>+52(SB)/4, $13
DATA colIota<>+56(SB)/4, $14
DATA colIota<>+60(SB)/4, $15
GLOBL colIota<>(SB), RODATA|NOPTR, $64

// COLSETUP loads the arguments: k in CX, A panels from SI (R12 bytes apart,
// R13 = 3·R12, R14 = SI + 4·R12), B in DI stepping R9 bytes, C in DX, and
// Z20 the dword offsets of 16 rows of C, ldc apart.
#define COLSETUP \
	MOVQ k+0(FP), CX \
	MOVQ a+8(FP), SI \
	MOVQ lda+16(FP), R12 \
	SHLQ $2, R12 \
	LEAQ (R12)(R12*2), R13 \
	LEAQ (SI)(R12*4), R14 \
	MOVQ b+24(FP), DI \
	MOVQ ldb+32(FP), R9 \
	SHLQ $2, R9 \
	MOVQ c+40(FP), DX \
	VPBROADCASTD ldc+48(FP), Z21 \
	VPMULLD colIota<>(SB), Z21, Z20 \
	MOVQ ldc+48(FP), R8 \
	SHLQ $6, R8

// COLSTORE writes accumulator acc to the 16 rows of C at DX (adding what is
// there when AX is set), then moves DX down 16 rows.
#define COLSTORE(acc) \
	TESTL AX, AX \
	JEQ 5(PC) \
	KXNORW K1, K1, K1 \
	VPXORD Z22, Z22, Z22 \
	VGATHERDPS (DX)(Z20*4), K1, Z22 \
	VADDPS Z22, acc, acc \
	KXNORW K1, K1, K1 \
	VSCATTERDPS acc, K1, (DX)(Z20*4) \
	ADDQ R8, DX

// func sgemmColumn16x8(k int, a *float32, lda int, b *float32, ldb int, c *float32, ldc int, add bool)
TEXT ·sgemmColumn16x8(SB), NOSPLIT, $0-57
	COLSETUP
	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1
	VPXORD Z2, Z2, Z2
	VPXORD Z3, Z3, Z3
	VPXORD Z4, Z4, Z4
	VPXORD Z5, Z5, Z5
	VPXORD Z6, Z6, Z6
	VPXORD Z7, Z7, Z7
	TESTQ CX, CX
	JEQ store8

loop8:
	VBROADCASTSS (DI), Z16
	VFMADD231PS (SI), Z16, Z0
	VFMADD231PS (SI)(R12*1), Z16, Z1
	VFMADD231PS (SI)(R12*2), Z16, Z2
	VFMADD231PS (SI)(R13*1), Z16, Z3
	VFMADD231PS (R14), Z16, Z4
	VFMADD231PS (R14)(R12*1), Z16, Z5
	VFMADD231PS (R14)(R12*2), Z16, Z6
	VFMADD231PS (R14)(R13*1), Z16, Z7
	ADDQ R9, DI
	ADDQ $64, SI
	ADDQ $64, R14
	DECQ CX
	JNE loop8

store8:
	MOVBLZX add+56(FP), AX
	COLSTORE(Z0)
	COLSTORE(Z1)
	COLSTORE(Z2)
	COLSTORE(Z3)
	COLSTORE(Z4)
	COLSTORE(Z5)
	COLSTORE(Z6)
	COLSTORE(Z7)
	VZEROUPPER
	RET

// func sgemmColumn16x4(k int, a *float32, lda int, b *float32, ldb int, c *float32, ldc int, add bool)
TEXT ·sgemmColumn16x4(SB), NOSPLIT, $0-57
	COLSETUP
	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1
	VPXORD Z2, Z2, Z2
	VPXORD Z3, Z3, Z3
	TESTQ CX, CX
	JEQ store4

loop4:
	VBROADCASTSS (DI), Z16
	VFMADD231PS (SI), Z16, Z0
	VFMADD231PS (SI)(R12*1), Z16, Z1
	VFMADD231PS (SI)(R12*2), Z16, Z2
	VFMADD231PS (SI)(R13*1), Z16, Z3
	ADDQ R9, DI
	ADDQ $64, SI
	DECQ CX
	JNE loop4

store4:
	MOVBLZX add+56(FP), AX
	COLSTORE(Z0)
	COLSTORE(Z1)
	COLSTORE(Z2)
	COLSTORE(Z3)
	VZEROUPPER
	RET

// func sgemmColumn16x2(k int, a *float32, lda int, b *float32, ldb int, c *float32, ldc int, add bool)
TEXT ·sgemmColumn16x2(SB), NOSPLIT, $0-57
	COLSETUP
	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1
	TESTQ CX, CX
	JEQ store2

loop2:
	VBROADCASTSS (DI), Z16
	VFMADD231PS (SI), Z16, Z0
	VFMADD231PS (SI)(R12*1), Z16, Z1
	ADDQ R9, DI
	ADDQ $64, SI
	DECQ CX
	JNE loop2

store2:
	MOVBLZX add+56(FP), AX
	COLSTORE(Z0)
	COLSTORE(Z1)
	VZEROUPPER
	RET

// func sgemmColumn16x1(k int, a *float32, lda int, b *float32, ldb int, c *float32, ldc int, add bool)
TEXT ·sgemmColumn16x1(SB), NOSPLIT, $0-57
	COLSETUP
	VPXORD Z0, Z0, Z0
	TESTQ CX, CX
	JEQ store1

loop1:
	VBROADCASTSS (DI), Z16
	VFMADD231PS (SI), Z16, Z0
	ADDQ R9, DI
	ADDQ $64, SI
	DECQ CX
	JNE loop1

store1:
	MOVBLZX add+56(FP), AX
	COLSTORE(Z0)
	VZEROUPPER
	RET
