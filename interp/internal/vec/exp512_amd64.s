//go:build !noasm

#include "textflag.h"

// The exponential of eight float64 lanes, each lane computed with the
// operations, constants and rounding of math.Exp on amd64 with FMA (the
// assembly in the standard library, after Shibata's method): k =
// round(x·log2 e), r = (x − k·ln2 upper − k·ln2 lower)/16, a Taylor
// polynomial of e^r − 1 squared up four times, then scaled by 2^k, twice
// for results below the normal range. Every lane therefore equals
// math.Exp(x) bit for bit, so the float32 kernels below give what their
// scalar loops give.

DATA expc<>+0(SB)/8, $1.4426950408889634073599246810018920 // log2 e
DATA expc<>+8(SB)/8, $0.69314718055966295651160180568695068359375 // ln2, upper part
DATA expc<>+16(SB)/8, $0.28235290563031577122588448175013436025525412068e-12 // ln2, lower part
DATA expc<>+24(SB)/8, $0.0625
DATA expc<>+32(SB)/8, $2.4801587301587301587e-5 // 1/8!
DATA expc<>+40(SB)/8, $1.9841269841269841270e-4
DATA expc<>+48(SB)/8, $1.3888888888888888889e-3
DATA expc<>+56(SB)/8, $8.3333333333333333333e-3
DATA expc<>+64(SB)/8, $4.1666666666666666667e-2
DATA expc<>+72(SB)/8, $1.6666666666666666667e-1
DATA expc<>+80(SB)/8, $0.5
DATA expc<>+88(SB)/8, $1.0
DATA expc<>+96(SB)/8, $2.0
DATA expc<>+104(SB)/8, $7.09782712893384e+02 // above: +Inf
DATA expc<>+112(SB)/8, $0x7FF0000000000000 // +Inf
DATA expc<>+120(SB)/8, $0x0010000000000000 // 2^-1022
DATA expc<>+128(SB)/8, $1023
DATA expc<>+136(SB)/8, $1022
DATA expc<>+144(SB)/8, $1
DATA expc<>+152(SB)/8, $-52
DATA expc<>+160(SB)/8, $2046
DATA expc<>+168(SB)/8, $0x8000000000000000 // sign bit
DATA expc<>+176(SB)/8, $0x7FFFFFFFFFFFFFFF // all but the sign bit
GLOBL expc<>(SB), RODATA|NOPTR, $184

// gelu32's constants (exp2_amd64.s reads them too): √2, its erfc
// polynomial from the highest coefficient down, then geluTanh's.
DATA ·geluc+0(SB)/8, $1.41421356237309504880168872420969808
DATA ·geluc+8(SB)/8, $0.17087277
DATA ·geluc+16(SB)/8, $-0.82215223
DATA ·geluc+24(SB)/8, $1.48851587
DATA ·geluc+32(SB)/8, $-1.13520398
DATA ·geluc+40(SB)/8, $0.27886807
DATA ·geluc+48(SB)/8, $-0.18628806
DATA ·geluc+56(SB)/8, $0.09678418
DATA ·geluc+64(SB)/8, $0.37409196
DATA ·geluc+72(SB)/8, $1.00002368
DATA ·geluc+80(SB)/8, $-1.26551223
DATA ·geluc+88(SB)/8, $0.044715
DATA ·geluc+96(SB)/8, $-2.0
GLOBL ·geluc(SB), RODATA|NOPTR, $104

// EXP_CONSTS loads EXP8's constants: Z16–Z31 and Z8–Z12.
#define EXP_CONSTS \
	VBROADCASTSD expc<>+0(SB), Z16 \
	VBROADCASTSD expc<>+8(SB), Z17 \
	VBROADCASTSD expc<>+16(SB), Z18 \
	VBROADCASTSD expc<>+24(SB), Z19 \
	VBROADCASTSD expc<>+32(SB), Z20 \
	VBROADCASTSD expc<>+40(SB), Z21 \
	VBROADCASTSD expc<>+48(SB), Z22 \
	VBROADCASTSD expc<>+56(SB), Z23 \
	VBROADCASTSD expc<>+64(SB), Z24 \
	VBROADCASTSD expc<>+72(SB), Z25 \
	VBROADCASTSD expc<>+80(SB), Z26 \
	VBROADCASTSD expc<>+88(SB), Z27 \
	VBROADCASTSD expc<>+96(SB), Z28 \
	VBROADCASTSD expc<>+104(SB), Z29 \
	VBROADCASTSD expc<>+112(SB), Z30 \
	VBROADCASTSD expc<>+120(SB), Z31 \
	VPBROADCASTQ expc<>+128(SB), Z8 \
	VPBROADCASTQ expc<>+136(SB), Z9 \
	VPBROADCASTQ expc<>+144(SB), Z10 \
	VPBROADCASTQ expc<>+152(SB), Z11 \
	VPBROADCASTQ expc<>+160(SB), Z12

// EXP8 sets Z3 to exp(Z0) lane by lane; it uses Z1, Z2, Z5, Z7 and K1–K5.
// Lanes: k+1023 in [1, 2046] scale by 2^k; in [-52, 0] by 2^(k+1022)
// then 2^-1022 (rounding once into the subnormals, as math.Exp does);
// below -52 give 0; above 2046, or x above 709.78, +Inf; NaN gives x.
#define EXP8 \
	VMULPD Z16, Z0, Z1 \
	VCVTPD2DQ Z1, Y2 \
	VCVTDQ2PD Y2, Z1 \
	VMOVAPD Z0, Z3 \
	VFNMADD231PD Z17, Z1, Z3 \
	VFNMADD231PD Z18, Z1, Z3 \
	VMULPD Z19, Z3, Z3 \
	VMOVAPD Z20, Z7 \
	VFMADD213PD Z21, Z3, Z7 \
	VFMADD213PD Z22, Z3, Z7 \
	VFMADD213PD Z23, Z3, Z7 \
	VFMADD213PD Z24, Z3, Z7 \
	VFMADD213PD Z25, Z3, Z7 \
	VFMADD213PD Z26, Z3, Z7 \
	VFMADD213PD Z27, Z3, Z7 \
	VMULPD Z7, Z3, Z3 \
	VADDPD Z28, Z3, Z7 \
	VMULPD Z7, Z3, Z3 \
	VADDPD Z28, Z3, Z7 \
	VMULPD Z7, Z3, Z3 \
	VADDPD Z28, Z3, Z7 \
	VMULPD Z7, Z3, Z3 \
	VADDPD Z28, Z3, Z7 \
	VFMADD213PD Z27, Z7, Z3 \
	VPMOVSXDQ Y2, Z5 \
	VPADDQ Z8, Z5, Z5 \
	VPCMPGTQ Z5, Z10, K1 \
	VPCMPGTQ Z5, Z11, K2 \
	VPCMPGTQ Z12, Z5, K3 \
	VPADDQ Z9, Z5, K1, Z5 \
	VPSLLQ $52, Z5, Z5 \
	VMULPD Z5, Z3, Z3 \
	VMULPD Z31, Z3, K1, Z3 \
	VPXORQ Z3, Z3, K2, Z3 \
	VCMPPD $0x1e, Z29, Z0, K4 \
	KORW K4, K3, K3 \
	VMOVAPD Z30, K3, Z3 \
	VCMPPD $3, Z0, Z0, K5 \
	VMOVAPD Z0, K5, Z3

// HSUM8 adds the eight lanes of Z3 to acc (an X register) one after
// another, lane 0 first, as a scalar loop adds them; it uses X4.
#define HSUM8(acc) \
	VADDSD X3, acc, acc \
	VPERMILPD $1, X3, X4 \
	VADDSD X4, acc, acc \
	VEXTRACTF32X4 $1, Z3, X4 \
	VADDSD X4, acc, acc \
	VPERMILPD $1, X4, X4 \
	VADDSD X4, acc, acc \
	VEXTRACTF32X4 $2, Z3, X4 \
	VADDSD X4, acc, acc \
	VPERMILPD $1, X4, X4 \
	VADDSD X4, acc, acc \
	VEXTRACTF32X4 $3, Z3, X4 \
	VADDSD X4, acc, acc \
	VPERMILPD $1, X4, X4 \
	VADDSD X4, acc, acc

// func expF64AVX512(n int, dst, src *float64)
// dst[i] = math.Exp(src[i]) for i in [0, n), n a multiple of 8.
TEXT ·expF64AVX512(SB), NOSPLIT, $0-24
	MOVQ n+0(FP), CX
	MOVQ dst+8(FP), DI
	MOVQ src+16(FP), SI
	EXP_CONSTS
	SHRQ $3, CX
	JEQ expdone

exploop:
	VMOVUPD 0(SI), Z0
	EXP8
	VMOVUPD Z3, 0(DI)
	ADDQ $64, SI
	ADDQ $64, DI
	DECQ CX
	JNE exploop

expdone:
	VZEROUPPER
	RET

// func maxRowAVX512(n int, src *float32) (m float32, nan bool)
// The maximum of src[0:n], n a multiple of 16 and above 0, and whether
// any of them is NaN (then m is meaningless). A zero maximum may come out
// with either sign.
TEXT ·maxRowAVX512(SB), NOSPLIT, $0-21
	MOVQ n+0(FP), CX
	MOVQ src+8(FP), SI
	SHRQ $4, CX
	VMOVUPS 0(SI), Z1
	KXORW K1, K1, K1

maxloop:
	VMOVUPS 0(SI), Z2
	VMAXPS Z2, Z1, Z1
	VCMPPS $3, Z2, Z2, K2
	KORW K2, K1, K1
	ADDQ $64, SI
	DECQ CX
	JNE maxloop

	VEXTRACTF64X4 $1, Z1, Y2
	VMAXPS Y2, Y1, Y1
	VEXTRACTF128 $1, Y1, X2
	VMAXPS X2, X1, X1
	VPERMILPS $0x4e, X1, X2
	VMAXPS X2, X1, X1
	VPERMILPS $0xb1, X1, X2
	VMAXPS X2, X1, X1
	VMOVSS X1, m+16(FP)
	KORTESTW K1, K1
	SETNE nan+20(FP)
	VZEROUPPER
	RET

// func softmaxExpAVX512(n int, dst, src *float32, m float32) float64
// dst[i] = float32(e) with e = math.Exp(float64(src[i]-m)) for i in
// [0, n), n a multiple of 8, and returns the sum of the e, added in order
// from 0 as softmaxStrided adds them. dst may be src.
TEXT ·softmaxExpAVX512(SB), NOSPLIT, $0-40
	MOVQ n+0(FP), CX
	MOVQ dst+8(FP), DI
	MOVQ src+16(FP), SI
	VBROADCASTSS m+24(FP), Y14
	EXP_CONSTS
	VXORPD X15, X15, X15
	SHRQ $3, CX
	JEQ sxdone

sxloop:
	VMOVUPS 0(SI), Y0
	VSUBPS Y14, Y0, Y0
	VCVTPS2PD Y0, Z0
	EXP8
	VCVTPD2PS Z3, Y6
	VMOVUPS Y6, 0(DI)
	HSUM8(X15)
	ADDQ $32, SI
	ADDQ $32, DI
	DECQ CX
	JNE sxloop

sxdone:
	VMOVSD X15, ret+32(FP)
	VZEROUPPER
	RET

// func scaleRowAVX512(n int, dst *float32, s float64)
// dst[i] = float32(float64(dst[i]) * s) for i in [0, n), n a multiple of 8.
TEXT ·scaleRowAVX512(SB), NOSPLIT, $0-24
	MOVQ n+0(FP), CX
	MOVQ dst+8(FP), DI
	VBROADCASTSD s+16(FP), Z1
	SHRQ $3, CX
	JEQ scdone

scloop:
	VCVTPS2PD 0(DI), Z0
	VMULPD Z1, Z0, Z0
	VCVTPD2PS Z0, Y0
	VMOVUPS Y0, 0(DI)
	ADDQ $32, DI
	DECQ CX
	JNE scloop

scdone:
	VZEROUPPER
	RET

// func sigmoidAVX512(n int, dst, src *float32)
// dst[i] = float32(1 / (1 + math.Exp(-float64(src[i])))) for i in [0, n),
// n a multiple of 8. dst may be src.
TEXT ·sigmoidAVX512(SB), NOSPLIT, $0-24
	MOVQ n+0(FP), CX
	MOVQ dst+8(FP), DI
	MOVQ src+16(FP), SI
	EXP_CONSTS
	VPBROADCASTQ expc<>+168(SB), Z14
	SHRQ $3, CX
	JEQ sgdone

sgloop:
	VCVTPS2PD 0(SI), Z0
	VPXORQ Z14, Z0, Z0
	EXP8
	VADDPD Z27, Z3, Z3
	VDIVPD Z3, Z27, Z3
	VCVTPD2PS Z3, Y3
	VMOVUPS Y3, 0(DI)
	ADDQ $32, SI
	ADDQ $32, DI
	DECQ CX
	JNE sgloop

sgdone:
	VZEROUPPER
	RET

// GELU_TERM sets Z0 = Z0·Z14 + the constant at off, rounding each step.
#define GELU_TERM(off) \
	VMULPD Z14, Z0, Z0 \
	VBROADCASTSD ·geluc+off(SB), Z15 \
	VADDPD Z15, Z0, Z0

// func gelu32AVX512(n int, dst, src *float32)
// dst[i] = gelu32(src[i]) for i in [0, n), n a multiple of 8, with
// gelu32's operations in its order. dst may be src.
TEXT ·gelu32AVX512(SB), NOSPLIT, $0-24
	MOVQ n+0(FP), CX
	MOVQ dst+8(FP), DI
	MOVQ src+16(FP), SI
	EXP_CONSTS
	SHRQ $3, CX
	JEQ gedone

geloop:
	VCVTPS2PD 0(SI), Z4
	// z = |x| / √2, t = 1 / (1 + 0.5·z)
	VPBROADCASTQ expc<>+176(SB), Z6
	VPANDQ Z6, Z4, Z6
	VBROADCASTSD ·geluc+0(SB), Z15
	VDIVPD Z15, Z6, Z6
	VMULPD Z26, Z6, Z1
	VADDPD Z27, Z1, Z1
	VDIVPD Z1, Z27, Z14
	// p, Horner from the highest coefficient
	VBROADCASTSD ·geluc+8(SB), Z0
	GELU_TERM(16)
	GELU_TERM(24)
	GELU_TERM(32)
	GELU_TERM(40)
	GELU_TERM(48)
	GELU_TERM(56)
	GELU_TERM(64)
	GELU_TERM(72)
	GELU_TERM(80)
	// exp(-z·z + p)
	VMULPD Z6, Z6, Z1
	VPBROADCASTQ expc<>+168(SB), Z15
	VPXORQ Z15, Z1, Z1
	VADDPD Z1, Z0, Z0
	EXP8
	// r = t·exp(...), 2 - r where x > 0; the result (0.5·x)·r
	VMULPD Z14, Z3, Z3
	VPXORQ Z13, Z13, Z13
	VCMPPD $0x1e, Z13, Z4, K1
	VSUBPD Z3, Z28, K1, Z3
	VMULPD Z26, Z4, Z4
	VMULPD Z4, Z3, Z4
	VCVTPD2PS Z4, Y4
	VMOVUPS Y4, 0(DI)
	ADDQ $32, SI
	ADDQ $32, DI
	DECQ CX
	JNE geloop

gedone:
	VZEROUPPER
	RET

// func geluTanhAVX512(n int, dst, src *float32, scale float64)
// dst[i] = float32(geluTanh(float64(src[i]))) for i in [0, n), n a
// multiple of 8, scale being √(2/π) as geluTanh has it. dst may be src.
TEXT ·geluTanhAVX512(SB), NOSPLIT, $0-32
	MOVQ n+0(FP), CX
	MOVQ dst+8(FP), DI
	MOVQ src+16(FP), SI
	EXP_CONSTS
	VBROADCASTSD scale+24(FP), Z14
	SHRQ $3, CX
	JEQ gtdone

gtloop:
	VCVTPS2PD 0(SI), Z4
	// u = scale·(x + 0.044715·x·x·x), then exp(-2·u)
	VBROADCASTSD ·geluc+88(SB), Z1
	VMULPD Z4, Z1, Z1
	VMULPD Z4, Z1, Z1
	VMULPD Z4, Z1, Z1
	VADDPD Z1, Z4, Z1
	VMULPD Z14, Z1, Z1
	VBROADCASTSD ·geluc+96(SB), Z15
	VMULPD Z15, Z1, Z0
	EXP8
	// x / (1 + exp(-2·u))
	VADDPD Z27, Z3, Z3
	VDIVPD Z3, Z4, Z3
	VCVTPD2PS Z3, Y3
	VMOVUPS Y3, 0(DI)
	ADDQ $32, SI
	ADDQ $32, DI
	DECQ CX
	JNE gtloop

gtdone:
	VZEROUPPER
	RET

// SOFTMAX_EXP8 is softmaxExpAVX512's step for the 8 values at src, into
// dst, with the row maximum at m and the sum in acc.
#define SOFTMAX_EXP8(src, dst, m, acc) \
	VBROADCASTSS m, Y0 \
	VMOVUPS src, Y1 \
	VSUBPS Y0, Y1, Y0 \
	VCVTPS2PD Y0, Z0 \
	EXP8 \
	VCVTPD2PS Z3, Y4 \
	VMOVUPS Y4, dst \
	HSUM8(acc)

// func softmaxExp4AVX512(n, ld int, dst, src *float32, m *[4]float32, sums *[4]float64)
// softmaxExpAVX512 on four rows ld elements apart at once, row r's
// maximum in m[r] and its sum into sums[r]: the four rows' additions,
// each in its row's order, overlap.
TEXT ·softmaxExp4AVX512(SB), NOSPLIT, $0-48
	MOVQ n+0(FP), CX
	MOVQ ld+8(FP), R8
	MOVQ dst+16(FP), DI
	MOVQ src+24(FP), SI
	MOVQ m+32(FP), AX
	MOVQ sums+40(FP), BX
	SHLQ $2, R8
	LEAQ (R8)(R8*2), R9
	EXP_CONSTS
	VXORPD X6, X6, X6
	VXORPD X13, X13, X13
	VXORPD X14, X14, X14
	VXORPD X15, X15, X15
	SHRQ $3, CX
	JEQ s4done

s4loop:
	SOFTMAX_EXP8(0(SI), 0(DI), 0(AX), X6)
	SOFTMAX_EXP8((SI)(R8*1), (DI)(R8*1), 4(AX), X13)
	SOFTMAX_EXP8((SI)(R8*2), (DI)(R8*2), 8(AX), X14)
	SOFTMAX_EXP8((SI)(R9*1), (DI)(R9*1), 12(AX), X15)
	ADDQ $32, SI
	ADDQ $32, DI
	DECQ CX
	JNE s4loop

s4done:
	VMOVSD X6, 0(BX)
	VMOVSD X13, 8(BX)
	VMOVSD X14, 16(BX)
	VMOVSD X15, 24(BX)
	VZEROUPPER
	RET

// math.Tanh's constants: its rational function's numerator and
// denominator from the highest term down, the thresholds, ±1.
DATA tanhc<>+0(SB)/8, $-9.64399179425052238628e-1
DATA tanhc<>+8(SB)/8, $-9.92877231001918586564e1
DATA tanhc<>+16(SB)/8, $-1.61468768441708447952e3
DATA tanhc<>+24(SB)/8, $1.12811678491632931402e2
DATA tanhc<>+32(SB)/8, $2.23548839060100448583e3
DATA tanhc<>+40(SB)/8, $4.84406305325125486048e3
DATA tanhc<>+48(SB)/8, $44.014845965556527147994 // 0.5·log(2^127)
DATA tanhc<>+56(SB)/8, $0.625
GLOBL tanhc<>(SB), RODATA|NOPTR, $64

// func sigmoid64AVX512(n int, dst, src *float64)
// dst[i] = 1 / (1 + math.Exp(-src[i])) for i in [0, n), n a multiple of
// 8. dst may be src.
TEXT ·sigmoid64AVX512(SB), NOSPLIT, $0-24
	MOVQ n+0(FP), CX
	MOVQ dst+8(FP), DI
	MOVQ src+16(FP), SI
	EXP_CONSTS
	VPBROADCASTQ expc<>+168(SB), Z14
	SHRQ $3, CX
	JEQ s64done

s64loop:
	VMOVUPD 0(SI), Z0
	VPXORQ Z14, Z0, Z0
	EXP8
	VADDPD Z27, Z3, Z3
	VDIVPD Z3, Z27, Z3
	VMOVUPD Z3, 0(DI)
	ADDQ $64, SI
	ADDQ $64, DI
	DECQ CX
	JNE s64loop

s64done:
	VZEROUPPER
	RET

// TANH8 sets Z4 to math.Tanh(Z6) lane by lane, with its three branches
// as lanes: ±1 above 44.01, 1 - 2/(exp(2|x|)+1) with x's sign from 0.625
// up, the rational function below, x itself at ±0. It needs Z13 = the
// sign bit and uses Z0–Z3, Z5, Z7, Z14, Z15, K1–K6.
#define TANH8 \
	VPANDNQ Z6, Z13, Z14 \
	VADDPD Z14, Z14, Z0 \
	EXP8 \
	VADDPD Z27, Z3, Z3 \
	VDIVPD Z3, Z28, Z3 \
	VSUBPD Z3, Z27, Z15 \
	VPXORQ Z4, Z4, Z4 \
	VCMPPD $0x11, Z4, Z6, K6 \
	VPXORQ Z13, Z15, K6, Z15 \
	VMULPD Z6, Z6, Z4 \
	VBROADCASTSD tanhc<>+0(SB), Z1 \
	VMULPD Z4, Z1, Z1 \
	VBROADCASTSD tanhc<>+8(SB), Z2 \
	VADDPD Z2, Z1, Z1 \
	VMULPD Z4, Z1, Z1 \
	VBROADCASTSD tanhc<>+16(SB), Z2 \
	VADDPD Z2, Z1, Z1 \
	VBROADCASTSD tanhc<>+24(SB), Z2 \
	VADDPD Z2, Z4, Z3 \
	VMULPD Z4, Z3, Z3 \
	VBROADCASTSD tanhc<>+32(SB), Z2 \
	VADDPD Z2, Z3, Z3 \
	VMULPD Z4, Z3, Z3 \
	VBROADCASTSD tanhc<>+40(SB), Z2 \
	VADDPD Z2, Z3, Z3 \
	VMULPD Z4, Z6, Z4 \
	VMULPD Z1, Z4, Z4 \
	VDIVPD Z3, Z4, Z4 \
	VADDPD Z4, Z6, Z4 \
	VBROADCASTSD tanhc<>+56(SB), Z2 \
	VCMPPD $0x1d, Z2, Z14, K1 \
	VMOVAPD Z15, K1, Z4 \
	VBROADCASTSD tanhc<>+48(SB), Z2 \
	VCMPPD $0x1e, Z2, Z14, K2 \
	VMOVAPD Z27, Z3 \
	VPXORQ Z13, Z3, K6, Z3 \
	VMOVAPD Z3, K2, Z4 \
	VPXORQ Z2, Z2, Z2 \
	VCMPPD $0, Z2, Z6, K3 \
	VMOVAPD Z6, K3, Z4

// func tanh64AVX512(n int, dst, src *float64)
// dst[i] = math.Tanh(src[i]) for i in [0, n), n a multiple of 8. dst may
// be src.
TEXT ·tanh64AVX512(SB), NOSPLIT, $0-24
	MOVQ n+0(FP), CX
	MOVQ dst+8(FP), DI
	MOVQ src+16(FP), SI
	EXP_CONSTS
	VPBROADCASTQ expc<>+168(SB), Z13
	SHRQ $3, CX
	JEQ t64done

t64loop:
	VMOVUPD 0(SI), Z6
	TANH8
	VMOVUPD Z4, 0(DI)
	ADDQ $64, SI
	ADDQ $64, DI
	DECQ CX
	JNE t64loop

t64done:
	VZEROUPPER
	RET

// func maxRow64AVX512(n int, src *float64) (m float64, nan bool)
// The maximum of src[0:n], n a multiple of 8 and above 0, and whether any
// of them is NaN (then m is meaningless). A zero maximum may come out with
// either sign.
TEXT ·maxRow64AVX512(SB), NOSPLIT, $0-25
	MOVQ n+0(FP), CX
	MOVQ src+8(FP), SI
	SHRQ $3, CX
	VMOVUPD 0(SI), Z1
	KXORW K1, K1, K1

max64loop:
	VMOVUPD 0(SI), Z2
	VMAXPD Z2, Z1, Z1
	VCMPPD $3, Z2, Z2, K2
	KORW K2, K1, K1
	ADDQ $64, SI
	DECQ CX
	JNE max64loop

	VEXTRACTF64X4 $1, Z1, Y2
	VMAXPD Y2, Y1, Y1
	VEXTRACTF128 $1, Y1, X2
	VMAXPD X2, X1, X1
	VPERMILPD $1, X1, X2
	VMAXPD X2, X1, X1
	VMOVSD X1, m+16(FP)
	KORTESTW K1, K1
	SETNE nan+24(FP)
	VZEROUPPER
	RET

// func softmaxExp64AVX512(n int, row *float64, m float64) float64
// row[i] = math.Exp(row[i]-m) for i in [0, n), n a multiple of 8, and
// returns their sum added in order from 0.
TEXT ·softmaxExp64AVX512(SB), NOSPLIT, $0-32
	MOVQ n+0(FP), CX
	MOVQ row+8(FP), DI
	VBROADCASTSD m+16(FP), Z14
	EXP_CONSTS
	VXORPD X15, X15, X15
	SHRQ $3, CX
	JEQ sx64done

sx64loop:
	VMOVUPD 0(DI), Z0
	VSUBPD Z14, Z0, Z0
	EXP8
	VMOVUPD Z3, 0(DI)
	HSUM8(X15)
	ADDQ $64, DI
	DECQ CX
	JNE sx64loop

sx64done:
	VMOVSD X15, ret+24(FP)
	VZEROUPPER
	RET

// func divRow64AVX512(n int, row *float64, s float64)
// row[i] /= s for i in [0, n), n a multiple of 8.
TEXT ·divRow64AVX512(SB), NOSPLIT, $0-24
	MOVQ n+0(FP), CX
	MOVQ row+8(FP), DI
	VBROADCASTSD s+16(FP), Z1
	SHRQ $3, CX
	JEQ div64done

div64loop:
	VMOVUPD 0(DI), Z0
	VDIVPD Z1, Z0, Z0
	VMOVUPD Z0, 0(DI)
	ADDQ $64, DI
	DECQ CX
	JNE div64loop

div64done:
	VZEROUPPER
	RET

// func softmaxColsAVX512(n, stride int, dst, src *float32) (nan bool)
// softmaxStrided on eight adjacent columns at once, a lane each: column c
// is the n values src[c], src[c+stride], ... (n above 0). Each lane finds
// its maximum, adds its exponentials in order and scales by 1/sum, as the
// scalar loop does for one column. If a column holds a NaN it reports
// true, having written nothing. dst may be src.
TEXT ·softmaxColsAVX512(SB), NOSPLIT, $0-33
	MOVQ n+0(FP), CX
	MOVQ stride+8(FP), R8
	MOVQ dst+16(FP), DI
	MOVQ src+24(FP), SI
	SHLQ $2, R8
	// the maxima, and any NaN
	MOVQ SI, AX
	MOVQ CX, DX
	VMOVUPS 0(SI), Y14
	VXORPS Y4, Y4, Y4

colmax:
	VMOVUPS 0(AX), Y2
	VMAXPS Y2, Y14, Y14
	VCMPPS $3, Y2, Y2, Y3
	VORPS Y3, Y4, Y4
	ADDQ R8, AX
	DECQ DX
	JNE colmax
	VMOVMSKPS Y4, AX
	TESTL AX, AX
	JNE colnan

	// exponentials and their sums
	EXP_CONSTS
	VPXORQ Z15, Z15, Z15
	MOVQ SI, AX
	MOVQ DI, BX
	MOVQ CX, DX

colexp:
	VMOVUPS 0(AX), Y0
	VSUBPS Y14, Y0, Y0
	VCVTPS2PD Y0, Z0
	EXP8
	VADDPD Z3, Z15, Z15
	VCVTPD2PS Z3, Y6
	VMOVUPS Y6, 0(BX)
	ADDQ R8, AX
	ADDQ R8, BX
	DECQ DX
	JNE colexp

	// scale by 1/sum
	VDIVPD Z15, Z27, Z15
	MOVQ DI, BX

colscale:
	VCVTPS2PD 0(BX), Z0
	VMULPD Z15, Z0, Z0
	VCVTPD2PS Z0, Y0
	VMOVUPS Y0, 0(BX)
	ADDQ R8, BX
	DECQ CX
	JNE colscale
	MOVB $0, nan+32(FP)
	VZEROUPPER
	RET

colnan:
	MOVB $1, nan+32(FP)
	VZEROUPPER
	RET

// func tanhAVX512(n int, dst, src *float32)
// dst[i] = float32(math.Tanh(float64(src[i]))) for i in [0, n), n a
// multiple of 8. dst may be src.
TEXT ·tanhAVX512(SB), NOSPLIT, $0-24
	MOVQ n+0(FP), CX
	MOVQ dst+8(FP), DI
	MOVQ src+16(FP), SI
	EXP_CONSTS
	VPBROADCASTQ expc<>+168(SB), Z13
	SHRQ $3, CX
	JEQ t32done

t32loop:
	VCVTPS2PD 0(SI), Z6
	TANH8
	VCVTPD2PS Z4, Y4
	VMOVUPS Y4, 0(DI)
	ADDQ $32, SI
	ADDQ $32, DI
	DECQ CX
	JNE t32loop

t32done:
	VZEROUPPER
	RET

// math.Erf's constants (erf.go; exp2_amd64.s reads them too): its branch
// edges, the tiny-x factors, the fits on [0, 0.84375) and [0.84375, 1.25),
// then the two fits of erfc from 1.25 up, the one below 1/0.35 (ra, sa)
// and the one above (rb, sb), each from its highest term down, the second
// padded with a leading 0 so both run the same Horner steps.
DATA ·erfk+0(SB)/8, $0.84375
DATA ·erfk+8(SB)/8, $1.25
DATA ·erfk+16(SB)/8, $6.0
DATA ·erfk+24(SB)/8, $0x3E30000000000000 // 2^-28
DATA ·erfk+32(SB)/8, $0x0080000000000000 // 2.848094538889218e-306
DATA ·erfk+40(SB)/8, $1.28379167095512586316e-01 // efx
DATA ·erfk+48(SB)/8, $1.02703333676410069053e+00 // efx8
DATA ·erfk+56(SB)/8, $8.0
DATA ·erfk+64(SB)/8, $0.125
DATA ·erfk+72(SB)/8, $1.28379167095512558561e-01 // pp0
DATA ·erfk+80(SB)/8, $-3.25042107247001499370e-01
DATA ·erfk+88(SB)/8, $-2.84817495755985104766e-02
DATA ·erfk+96(SB)/8, $-5.77027029648944159157e-03
DATA ·erfk+104(SB)/8, $-2.37630166566501626084e-05 // pp4
DATA ·erfk+112(SB)/8, $3.97917223959155352819e-01 // qq1
DATA ·erfk+120(SB)/8, $6.50222499887672944485e-02
DATA ·erfk+128(SB)/8, $5.08130628187576562776e-03
DATA ·erfk+136(SB)/8, $1.32494738004321644526e-04
DATA ·erfk+144(SB)/8, $-3.96022827877536812320e-06 // qq5
DATA ·erfk+152(SB)/8, $8.45062911510467529297e-01 // erx
DATA ·erfk+160(SB)/8, $-2.36211856075265944077e-03 // pa0
DATA ·erfk+168(SB)/8, $4.14856118683748331666e-01
DATA ·erfk+176(SB)/8, $-3.72207876035701323847e-01
DATA ·erfk+184(SB)/8, $3.18346619901161753674e-01
DATA ·erfk+192(SB)/8, $-1.10894694282396677476e-01
DATA ·erfk+200(SB)/8, $3.54783043256182359371e-02
DATA ·erfk+208(SB)/8, $-2.16637559486879084300e-03 // pa6
DATA ·erfk+216(SB)/8, $1.06420880400844228286e-01 // qa1
DATA ·erfk+224(SB)/8, $5.40397917702171048937e-01
DATA ·erfk+232(SB)/8, $7.18286544141962662868e-02
DATA ·erfk+240(SB)/8, $1.26171219808761642112e-01
DATA ·erfk+248(SB)/8, $1.36370839120290507362e-02
DATA ·erfk+256(SB)/8, $1.19844998467991074170e-02 // qa6
DATA ·erfk+264(SB)/8, $0x4006DB6DB6DB6DB7 // 1/0.35
DATA ·erfk+272(SB)/8, $-9.81432934416914548592e+00 // ra7
DATA ·erfk+280(SB)/8, $-8.12874355063065934246e+01
DATA ·erfk+288(SB)/8, $-1.84605092906711035994e+02
DATA ·erfk+296(SB)/8, $-1.62396669462573470355e+02
DATA ·erfk+304(SB)/8, $-6.23753324503260060396e+01
DATA ·erfk+312(SB)/8, $-1.05586262253232909814e+01
DATA ·erfk+320(SB)/8, $-6.93858572707181764372e-01
DATA ·erfk+328(SB)/8, $-9.86494403484714822705e-03 // ra0
DATA ·erfk+336(SB)/8, $0.0
DATA ·erfk+344(SB)/8, $-4.83519191608651397019e+02 // rb6
DATA ·erfk+352(SB)/8, $-1.02509513161107724954e+03
DATA ·erfk+360(SB)/8, $-6.37566443368389627722e+02
DATA ·erfk+368(SB)/8, $-1.60636384855821916062e+02
DATA ·erfk+376(SB)/8, $-1.77579549177547519889e+01
DATA ·erfk+384(SB)/8, $-7.99283237680523006574e-01
DATA ·erfk+392(SB)/8, $-9.86494292470009928597e-03 // rb0
DATA ·erfk+400(SB)/8, $-6.04244152148580987438e-02 // sa8
DATA ·erfk+408(SB)/8, $6.57024977031928170135e+00
DATA ·erfk+416(SB)/8, $1.08635005541779435134e+02
DATA ·erfk+424(SB)/8, $4.29008140027567833386e+02
DATA ·erfk+432(SB)/8, $6.45387271733267880336e+02
DATA ·erfk+440(SB)/8, $4.34565877475229228821e+02
DATA ·erfk+448(SB)/8, $1.37657754143519042600e+02
DATA ·erfk+456(SB)/8, $1.96512716674392571292e+01 // sa1
DATA ·erfk+464(SB)/8, $0.0
DATA ·erfk+472(SB)/8, $-2.24409524465858183362e+01 // sb7
DATA ·erfk+480(SB)/8, $4.74528541206955367215e+02
DATA ·erfk+488(SB)/8, $2.55305040643316442583e+03
DATA ·erfk+496(SB)/8, $3.19985821950859553908e+03
DATA ·erfk+504(SB)/8, $1.53672958608443695994e+03
DATA ·erfk+512(SB)/8, $3.25792512996573918826e+02
DATA ·erfk+520(SB)/8, $3.03380607434824582924e+01 // sb1
DATA ·erfk+528(SB)/8, $0.5625
DATA ·erfk+536(SB)/8, $0xFFFFFFFF00000000 // x to 20 bits
DATA ·erfk+544(SB)/8, $0x7FF8000000000001 // math.NaN()
GLOBL ·erfk(SB), RODATA|NOPTR, $552

#define ERFK(off) ·erfk+off(SB)

// ERF_TERM sets acc = acc·v + the constant at off, rounding each step
// (erf.go's a + v*(...), unfused on amd64).
#define ERF_TERM(acc, v, off) \
	VMULPD v, acc, acc \
	VADDPD.BCST ERFK(off), acc, acc

// ERFC_TERM is ERF_TERM for the fits from 1.25 up: each lane takes the
// constant at a, or at b where K7 is set (x at least 1/0.35).
#define ERFC_TERM(acc, a, b) \
	VBROADCASTSD ERFK(a), Z2 \
	VBROADCASTSD ERFK(b), K7, Z2 \
	VMULPD Z1, acc, acc \
	VADDPD Z2, acc, acc

// ERF8 sets Z13 to math.Erf(Z4) lane by lane with erf.go's operations on
// |x|, then gives it x's sign (math.NaN() for NaN): each range that holds
// a lane is computed in all lanes and kept in its own, the others skipped.
// Below 0.84375, x + x·(r/s), or x + efx·x below 2^-28 (and the scaled
// form below 2^-1015); to 1.25, erx + P/Q at |x| - 1; to 6, 1 - r/|x|
// with r = exp(-z·z - 0.5625)·exp((z-x)(z+x) + R/S), z being x cut to 20
// bits; 1 from 6 up. It needs EXP_CONSTS and uses Z0–Z3, Z5–Z7, Z14,
// Z15, K1–K7 and the labels erfA, erfB and erfC.
#define ERF8 \
	VPANDQ.BCST expc<>+176(SB), Z4, Z6 \
	VMOVAPD Z27, Z13 \
	VCMPPD.BCST $1, ERFK(0), Z6, K6 \
	KORTESTW K6, K6 \
	JEQ erfA \
	VMULPD Z6, Z6, Z1 \
	VMULPD.BCST ERFK(104), Z1, Z2 \
	VADDPD.BCST ERFK(96), Z2, Z2 \
	ERF_TERM(Z2, Z1, 88) \
	ERF_TERM(Z2, Z1, 80) \
	ERF_TERM(Z2, Z1, 72) \
	VMULPD.BCST ERFK(144), Z1, Z3 \
	VADDPD.BCST ERFK(136), Z3, Z3 \
	ERF_TERM(Z3, Z1, 128) \
	ERF_TERM(Z3, Z1, 120) \
	ERF_TERM(Z3, Z1, 112) \
	VMULPD Z1, Z3, Z3 \
	VADDPD Z27, Z3, Z3 \
	VDIVPD Z3, Z2, Z2 \
	VMULPD Z6, Z2, Z2 \
	VADDPD Z6, Z2, Z2 \
	VCMPPD.BCST $1, ERFK(24), Z6, K7 \
	VMULPD.BCST ERFK(40), Z6, Z3 \
	VADDPD Z6, Z3, K7, Z2 \
	VCMPPD.BCST $1, ERFK(32), Z6, K7 \
	VMULPD.BCST ERFK(56), Z6, Z3 \
	VMULPD.BCST ERFK(48), Z6, Z5 \
	VADDPD Z5, Z3, Z3 \
	VMULPD.BCST ERFK(64), Z3, K7, Z2 \
	VMOVAPD Z2, K6, Z13 \
erfA: \
	VCMPPD.BCST $1, ERFK(8), Z6, K7 \
	KANDNW K7, K6, K6 \
	KORTESTW K6, K6 \
	JEQ erfB \
	VSUBPD Z27, Z6, Z1 \
	VMULPD.BCST ERFK(208), Z1, Z2 \
	VADDPD.BCST ERFK(200), Z2, Z2 \
	ERF_TERM(Z2, Z1, 192) \
	ERF_TERM(Z2, Z1, 184) \
	ERF_TERM(Z2, Z1, 176) \
	ERF_TERM(Z2, Z1, 168) \
	ERF_TERM(Z2, Z1, 160) \
	VMULPD.BCST ERFK(256), Z1, Z3 \
	VADDPD.BCST ERFK(248), Z3, Z3 \
	ERF_TERM(Z3, Z1, 240) \
	ERF_TERM(Z3, Z1, 232) \
	ERF_TERM(Z3, Z1, 224) \
	ERF_TERM(Z3, Z1, 216) \
	VMULPD Z1, Z3, Z3 \
	VADDPD Z27, Z3, Z3 \
	VDIVPD Z3, Z2, Z2 \
	VADDPD.BCST ERFK(152), Z2, K6, Z13 \
erfB: \
	VCMPPD.BCST $1, ERFK(16), Z6, K6 \
	KANDNW K6, K7, K6 \
	KORTESTW K6, K6 \
	JEQ erfC \
	VCMPPD.BCST $0x1d, ERFK(264), Z6, K7 \
	VMULPD Z6, Z6, Z1 \
	VDIVPD Z1, Z27, Z1 \
	VBROADCASTSD ERFK(272), Z14 \
	VBROADCASTSD ERFK(336), K7, Z14 \
	ERFC_TERM(Z14, 280, 344) \
	ERFC_TERM(Z14, 288, 352) \
	ERFC_TERM(Z14, 296, 360) \
	ERFC_TERM(Z14, 304, 368) \
	ERFC_TERM(Z14, 312, 376) \
	ERFC_TERM(Z14, 320, 384) \
	ERFC_TERM(Z14, 328, 392) \
	VBROADCASTSD ERFK(400), Z15 \
	VBROADCASTSD ERFK(464), K7, Z15 \
	ERFC_TERM(Z15, 408, 472) \
	ERFC_TERM(Z15, 416, 480) \
	ERFC_TERM(Z15, 424, 488) \
	ERFC_TERM(Z15, 432, 496) \
	ERFC_TERM(Z15, 440, 504) \
	ERFC_TERM(Z15, 448, 512) \
	ERFC_TERM(Z15, 456, 520) \
	VMULPD Z1, Z15, Z15 \
	VADDPD Z27, Z15, Z15 \
	VDIVPD Z15, Z14, Z14 \
	VPANDQ.BCST ERFK(536), Z6, Z15 \
	VSUBPD Z6, Z15, Z0 \
	VADDPD Z6, Z15, Z1 \
	VMULPD Z1, Z0, Z0 \
	VADDPD Z0, Z14, Z14 \
	VMULPD Z15, Z15, Z0 \
	VPXORQ.BCST expc<>+168(SB), Z0, Z0 \
	VSUBPD.BCST ERFK(528), Z0, Z0 \
	EXP8 \
	VMOVAPD Z3, Z15 \
	VMOVAPD Z14, Z0 \
	EXP8 \
	VMULPD Z3, Z15, Z3 \
	VDIVPD Z6, Z3, Z3 \
	VSUBPD Z3, Z27, K6, Z13 \
erfC: \
	VPANDQ.BCST expc<>+168(SB), Z4, Z5 \
	VPORQ Z5, Z13, Z13 \
	VCMPPD $3, Z4, Z4, K6 \
	VBROADCASTSD ERFK(544), K6, Z13

// func erfAVX512(n int, dst, src *float32)
// dst[i] = float32(math.Erf(float64(src[i]))) for i in [0, n), n a
// multiple of 8. dst may be src.
TEXT ·erfAVX512(SB), NOSPLIT, $0-24
	MOVQ n+0(FP), CX
	MOVQ dst+8(FP), DI
	MOVQ src+16(FP), SI
	EXP_CONSTS
	SHRQ $3, CX
	JEQ erf32done

erf32loop:
	VCVTPS2PD 0(SI), Z4
	ERF8
	VCVTPD2PS Z13, Y13
	VMOVUPS Y13, 0(DI)
	ADDQ $32, SI
	ADDQ $32, DI
	DECQ CX
	JNE erf32loop

erf32done:
	VZEROUPPER
	RET

// func erf64AVX512(n int, dst, src *float64)
// dst[i] = math.Erf(src[i]) for i in [0, n), n a multiple of 8. dst may
// be src.
TEXT ·erf64AVX512(SB), NOSPLIT, $0-24
	MOVQ n+0(FP), CX
	MOVQ dst+8(FP), DI
	MOVQ src+16(FP), SI
	EXP_CONSTS
	SHRQ $3, CX
	JEQ erf64done

erf64loop:
	VMOVUPD 0(SI), Z4
	ERF8
	VMOVUPD Z13, 0(DI)
	ADDQ $64, SI
	ADDQ $64, DI
	DECQ CX
	JNE erf64loop

erf64done:
	VZEROUPPER
	RET
