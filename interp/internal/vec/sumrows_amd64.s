//go:build !noasm

#include "textflag.h"
#include "fold_amd64.h"

// func sumRowsF64AVX(rows, count int, src *float32, dst *float64)
// dst[r] is the float64 sum of the r-th of rows consecutive rows of count
// float32s at src, each in SumF64's order (see sum.go): whole groups of 16
// into four 4-lane accumulators, the fold, then the rest one by one. One
// call for many rows lets the rows' addition chains overlap. Needs AVX.
TEXT ·sumRowsF64AVX(SB), NOSPLIT, $0-32
	MOVQ rows+0(FP), DX
	MOVQ count+8(FP), BX
	MOVQ src+16(FP), SI
	MOVQ dst+24(FP), DI
	MOVQ BX, R8
	ANDQ $-16, R8
	MOVQ BX, R9
	SUBQ R8, R9
	TESTQ DX, DX
	JZ   done

row:
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	MOVQ   R8, CX
	TESTQ  CX, CX
	JZ     fold

loop16:
	VCVTPS2PD (SI), Y4
	VCVTPS2PD 16(SI), Y5
	VCVTPS2PD 32(SI), Y6
	VCVTPS2PD 48(SI), Y7
	VADDPD    Y4, Y0, Y0
	VADDPD    Y5, Y1, Y1
	VADDPD    Y6, Y2, Y2
	VADDPD    Y7, Y3, Y3
	ADDQ      $64, SI
	SUBQ      $16, CX
	JNE       loop16

fold:
	FOLD_SUM16
	MOVQ         R9, CX
	TESTQ        CX, CX
	JZ           store

tail:
	VCVTSS2SD (SI), X2, X2
	VADDSD    X2, X0, X0
	ADDQ      $4, SI
	DECQ      CX
	JNE       tail

store:
	VMOVSD X0, (DI)
	ADDQ   $8, DI
	DECQ   DX
	JNE    row

done:
	VZEROUPPER
	RET
