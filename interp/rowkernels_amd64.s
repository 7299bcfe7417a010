#include "textflag.h"

// func clampRowAVX(n int, y, res *float32, bias, lo, hi float32)
// y[i] = min(max(y[i] + bias (+ res[i] when res is not nil), lo), hi) for
// i in [0, n), n a multiple of 8, a NaN sum passing through unchanged as
// Go's min and max pass it. Needs AVX.
TEXT ·clampRowAVX(SB), NOSPLIT, $0-36
	MOVQ n+0(FP), CX
	MOVQ y+8(FP), DI
	MOVQ res+16(FP), SI
	VBROADCASTSS bias+24(FP), Y0
	VBROADCASTSS lo+28(FP), Y1
	VBROADCASTSS hi+32(FP), Y2
	SHRQ $3, CX
	JEQ done
	TESTQ SI, SI
	JEQ plain

withres:
	VMOVUPS 0(DI), Y3
	VADDPS Y0, Y3, Y3
	VADDPS 0(SI), Y3, Y3
	VCMPPS $3, Y3, Y3, Y4
	VMAXPS Y1, Y3, Y5
	VMINPS Y2, Y5, Y5
	VBLENDVPS Y4, Y3, Y5, Y5
	VMOVUPS Y5, 0(DI)
	ADDQ $32, DI
	ADDQ $32, SI
	DECQ CX
	JNE withres
	JMP done

plain:
	VMOVUPS 0(DI), Y3
	VADDPS Y0, Y3, Y3
	VCMPPS $3, Y3, Y3, Y4
	VMAXPS Y1, Y3, Y5
	VMINPS Y2, Y5, Y5
	VBLENDVPS Y4, Y3, Y5, Y5
	VMOVUPS Y5, 0(DI)
	ADDQ $32, DI
	DECQ CX
	JNE plain

done:
	VZEROUPPER
	RET
