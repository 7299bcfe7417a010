#include "textflag.h"

// func dwRow3(n int, src, w, dst *float32)
// dst[i] += w[0]·src[i] + w[1]·src[i+1] + w[2]·src[i+2] for i in [0, n),
// n a multiple of 8: one kernel row of a stride-1 3-tap depthwise
// convolution. Needs AVX2 and FMA3.
TEXT ·dwRow3(SB), NOSPLIT, $0-32
	MOVQ n+0(FP), CX
	MOVQ src+8(FP), SI
	MOVQ w+16(FP), AX
	MOVQ dst+24(FP), DX
	VBROADCASTSS 0(AX), Y0
	VBROADCASTSS 4(AX), Y1
	VBROADCASTSS 8(AX), Y2
	SHRQ $3, CX
	JEQ done

loop:
	VMOVUPS 0(DX), Y3
	VFMADD231PS 0(SI), Y0, Y3
	VFMADD231PS 4(SI), Y1, Y3
	VFMADD231PS 8(SI), Y2, Y3
	VMOVUPS Y3, 0(DX)
	ADDQ $32, SI
	ADDQ $32, DX
	DECQ CX
	JNE loop

done:
	VZEROUPPER
	RET
