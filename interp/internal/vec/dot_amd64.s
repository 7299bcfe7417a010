//go:build !noasm

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

// func dot4AVX(n int, a, w *float32, ldw int, out *[4]float32)
// out[r] = the sum of a[i]·w[r·ldw+i] for i in [0, n), r < 4, n a multiple
// of 8: four of dotAVX's sums at once, each with its own two accumulators
// and dotAVX's exact order of operations, so each equals dotAVX(n, a, w_r);
// a is loaded once for the four rows. The next four rows of W are
// prefetched while these are summed (rows come four by four, and a row
// is often too short for a prefetch distance within it). Needs AVX2 and FMA3.
TEXT ·dot4AVX(SB), NOSPLIT, $0-40
	MOVQ n+0(FP), CX
	MOVQ a+8(FP), SI
	MOVQ w+16(FP), DI
	MOVQ ldw+24(FP), DX
	SHLQ $2, DX
	LEAQ (DI)(DX*1), R8
	LEAQ (R8)(DX*1), R9
	LEAQ (R9)(DX*1), R10
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y4, Y4, Y4
	VXORPS Y5, Y5, Y5
	VXORPS Y6, Y6, Y6
	VXORPS Y7, Y7, Y7
	VXORPS Y8, Y8, Y8
	VXORPS Y9, Y9, Y9

dot4loop16:
	CMPQ CX, $16
	JLT  dot4tail8
	PREFETCHT0 (DI)(DX*4)
	PREFETCHT0 (R8)(DX*4)
	PREFETCHT0 (R9)(DX*4)
	PREFETCHT0 (R10)(DX*4)
	VMOVUPS (SI), Y2
	VMOVUPS 32(SI), Y3
	VFMADD231PS (DI), Y2, Y0
	VFMADD231PS 32(DI), Y3, Y1
	VFMADD231PS (R8), Y2, Y4
	VFMADD231PS 32(R8), Y3, Y5
	VFMADD231PS (R9), Y2, Y6
	VFMADD231PS 32(R9), Y3, Y7
	VFMADD231PS (R10), Y2, Y8
	VFMADD231PS 32(R10), Y3, Y9
	ADDQ $64, SI
	ADDQ $64, DI
	ADDQ $64, R8
	ADDQ $64, R9
	ADDQ $64, R10
	SUBQ $16, CX
	JMP  dot4loop16

dot4tail8:
	CMPQ CX, $8
	JLT  dot4done
	VMOVUPS (SI), Y2
	VFMADD231PS (DI), Y2, Y0
	VFMADD231PS (R8), Y2, Y4
	VFMADD231PS (R9), Y2, Y6
	VFMADD231PS (R10), Y2, Y8

dot4done:
	MOVQ out+32(FP), AX
	// Each row's two accumulators reduced as dotAVX does.
	VADDPS       Y1, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VADDPS       X1, X0, X0
	VHADDPS      X0, X0, X0
	VHADDPS      X0, X0, X0
	MOVSS        X0, (AX)
	VADDPS       Y5, Y4, Y4
	VEXTRACTF128 $1, Y4, X5
	VADDPS       X5, X4, X4
	VHADDPS      X4, X4, X4
	VHADDPS      X4, X4, X4
	MOVSS        X4, 4(AX)
	VADDPS       Y7, Y6, Y6
	VEXTRACTF128 $1, Y6, X7
	VADDPS       X7, X6, X6
	VHADDPS      X6, X6, X6
	VHADDPS      X6, X6, X6
	MOVSS        X6, 8(AX)
	VADDPS       Y9, Y8, Y8
	VEXTRACTF128 $1, Y8, X9
	VADDPS       X9, X8, X8
	VHADDPS      X8, X8, X8
	VHADDPS      X8, X8, X8
	MOVSS        X8, 12(AX)
	VZEROUPPER
	RET
