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
