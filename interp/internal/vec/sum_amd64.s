//go:build !noasm

#include "textflag.h"
#include "fold_amd64.h"

// func sumF64AVX(n int, row *float32) float64
// The float64 sum of row[:n], n a positive multiple of 16, in SumF64's
// order (see sum.go): four 4-lane float64 accumulators, element i into
// lane i mod 4 of accumulator i/4 mod 4. Needs AVX.
TEXT ·sumF64AVX(SB), NOSPLIT, $0-24
	MOVQ n+0(FP), CX
	MOVQ row+8(FP), SI
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3

loop16:
	VCVTPS2PD (SI), Y4
	VCVTPS2PD 16(SI), Y5
	VCVTPS2PD 32(SI), Y6
	VCVTPS2PD 48(SI), Y7
	VADDPD Y4, Y0, Y0
	VADDPD Y5, Y1, Y1
	VADDPD Y6, Y2, Y2
	VADDPD Y7, Y3, Y3
	ADDQ $64, SI
	SUBQ $16, CX
	JNE  loop16

	FOLD_SUM16
	VZEROUPPER
	MOVSD        X0, ret+16(FP)
	RET

// func sumSqDevF64AVX(n int, row *float32, mean float64) float64
// The float64 sum of (row[i] - mean)² over row[:n], n a positive multiple
// of 16, in SumSqDevF64's order (see sum.go): sumF64AVX's accumulators,
// each square added by one fused multiply-add. Needs AVX and FMA3.
TEXT ·sumSqDevF64AVX(SB), NOSPLIT, $0-32
	MOVQ n+0(FP), CX
	MOVQ row+8(FP), SI
	VBROADCASTSD mean+16(FP), Y8
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3

sqloop16:
	VCVTPS2PD (SI), Y4
	VCVTPS2PD 16(SI), Y5
	VCVTPS2PD 32(SI), Y6
	VCVTPS2PD 48(SI), Y7
	VSUBPD Y8, Y4, Y4
	VSUBPD Y8, Y5, Y5
	VSUBPD Y8, Y6, Y6
	VSUBPD Y8, Y7, Y7
	VFMADD231PD Y4, Y4, Y0
	VFMADD231PD Y5, Y5, Y1
	VFMADD231PD Y6, Y6, Y2
	VFMADD231PD Y7, Y7, Y3
	ADDQ $64, SI
	SUBQ $16, CX
	JNE  sqloop16

	FOLD_SUM16
	VZEROUPPER
	MOVSD        X0, ret+24(FP)
	RET
