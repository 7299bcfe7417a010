//go:build !noasm

#include "textflag.h"

// func scoreRowsAVX512(rows, n int, s *float32, c float32, op int, mask *float32)
// For each of rows rows of n floats at s (one after the other), every
// element v becomes v / c (op 1) or v * c (op 2) or stays (op 0), then
// that + mask[j] when mask is not nil: scoreRowsRef's float32 operations.
// Needs AVX-512F.
TEXT ·scoreRowsAVX512(SB), NOSPLIT, $0-48
	MOVQ rows+0(FP), CX
	MOVQ n+8(FP), R8
	MOVQ s+16(FP), DI
	VBROADCASTSS c+24(FP), Z1
	MOVQ op+32(FP), R9
	MOVQ mask+40(FP), SI
	// K1 selects the n%16 lanes of a row's last, partial vector.
	MOVQ R8, AX
	ANDQ $15, AX
	MOVL $1, R10
	SHLXL AX, R10, R10
	DECL R10
	KMOVW R10, K1
	MOVQ R8, R11
	SHRQ $4, R11
	TESTQ CX, CX
	JEQ done

row:
	XORQ BX, BX
	MOVQ R11, DX
	TESTQ DX, DX
	JEQ tail

full:
	VMOVUPS (DI)(BX*1), Z0
	CMPQ R9, $1
	JNE fullmul
	VDIVPS Z1, Z0, Z0
	JMP fullmask

fullmul:
	CMPQ R9, $2
	JNE fullmask
	VMULPS Z1, Z0, Z0

fullmask:
	TESTQ SI, SI
	JEQ fullstore
	VADDPS (SI)(BX*1), Z0, Z0

fullstore:
	VMOVUPS Z0, (DI)(BX*1)
	ADDQ $64, BX
	DECQ DX
	JNE full

tail:
	TESTQ AX, AX
	JEQ next
	VMOVUPS.Z (DI)(BX*1), K1, Z0
	CMPQ R9, $1
	JNE tailmul
	VDIVPS Z1, Z0, Z0
	JMP tailmask

tailmul:
	CMPQ R9, $2
	JNE tailmask
	VMULPS Z1, Z0, Z0

tailmask:
	TESTQ SI, SI
	JEQ tailstore
	VMOVUPS.Z (SI)(BX*1), K1, Z2
	VADDPS Z2, Z0, Z0

tailstore:
	VMOVUPS Z0, K1, (DI)(BX*1)

next:
	LEAQ (DI)(R8*4), DI
	DECQ CX
	JNE row

done:
	VZEROUPPER
	RET
