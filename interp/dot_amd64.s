#include "textflag.h"

// func dotAVX(n int, a, b *float32) float32
// The sum of a[i]·b[i] for i in [0, n), n a multiple of 8, in float32 with
// two 8-lane FMA accumulators. Needs AVX2 and FMA3.
TEXT ·dotAVX(SB), NOSPLIT, $0-28
	MOVQ n+0(FP), CX
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), DI
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1

loop16:
	CMPQ CX, $16
	JLT  tail8
	VMOVUPS (SI), Y2
	VMOVUPS 32(SI), Y3
	VFMADD231PS (DI), Y2, Y0
	VFMADD231PS 32(DI), Y3, Y1
	ADDQ $64, SI
	ADDQ $64, DI
	SUBQ $16, CX
	JMP  loop16

tail8:
	CMPQ CX, $8
	JLT  done
	VMOVUPS (SI), Y2
	VFMADD231PS (DI), Y2, Y0

done:
	VADDPS       Y1, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VADDPS       X1, X0, X0
	VHADDPS      X0, X0, X0
	VHADDPS      X0, X0, X0
	VZEROUPPER
	MOVSS        X0, ret+24(FP)
	RET
