//go:build amd64 && !noasm

package vec

// The assembly routines, one declaration each. Every routine works on a
// whole number of vectors and trusts the lengths its Go caller (the
// family's *_amd64.go file) checked; none is called without the CPU
// features its comment names.

const asmBuild = true

// dot_amd64.s (AVX2 + FMA)

//go:noescape
func dotAVX(n int, a, b *float32) float32

//go:noescape
func dot4AVX(n int, a, w *float32, ldw int, out *[4]float32)

// exp_avx512_amd64.s, exp_avx2_amd64.s (generated): float64-lane exponentials

//go:noescape
func expF64AVX512(n int, dst, src *float64)

//go:noescape
func expF64AVX2(n int, dst, src *float64)

//go:noescape
func maxRowAVX512(n int, src *float32) (m float32, nan bool)

//go:noescape
func maxRowAVX2(n int, src *float32) (m float32, nan bool)

//go:noescape
func scaleRowAVX512(n int, dst *float32, s float64)

//go:noescape
func scaleRowAVX2(n int, dst *float32, s float64)

//go:noescape
func sigmoidAVX512(n int, dst, src *float32)

//go:noescape
func sigmoidAVX2(n int, dst, src *float32)

//go:noescape
func sigmoid64AVX512(n int, dst, src *float64)

//go:noescape
func sigmoid64AVX2(n int, dst, src *float64)

//go:noescape
func tanhAVX512(n int, dst, src *float32)

//go:noescape
func tanhAVX2(n int, dst, src *float32)

//go:noescape
func tanh64AVX512(n int, dst, src *float64)

//go:noescape
func tanh64AVX2(n int, dst, src *float64)

//go:noescape
func gelu32AVX512(n int, dst, src *float32)

//go:noescape
func gelu32AVX2(n int, dst, src *float32)

//go:noescape
func geluTanhAVX512(n int, dst, src *float32, scale float64)

//go:noescape
func geluTanhAVX2(n int, dst, src *float32, scale float64)

//go:noescape
func erfAVX512(n int, dst, src *float32)

//go:noescape
func erfAVX2(n int, dst, src *float32)

//go:noescape
func erf64AVX512(n int, dst, src *float64)

//go:noescape
func erf64AVX2(n int, dst, src *float64)

//go:noescape
func maxRow64AVX512(n int, src *float64) (m float64, nan bool)

//go:noescape
func softmaxExp64AVX512(n int, row *float64, m float64) float64

//go:noescape
func divRow64AVX512(n int, row *float64, s float64)

// rows_amd64.s (AVX2 + FMA)

//go:noescape
func clampRowAVX(n int, y, res *float32, bias, lo, hi float32)

//go:noescape
func dwConv3s1AVX(n int, src *float32, ld, rows int, w *[9]float32, bias float32, dst *float32, acc int)

//go:noescape
func dwConv3s2AVX(n int, src *float32, ld, rows int, w *[9]float32, bias float32, dst *float32, acc int)

//go:noescape
func maxStepAVX(n int, m, src *float32, sw int)

//go:noescape
func sumStepAVX(n int, s, src *float32, sw int)

// gemm_avx2_amd64.s, gemm_avx512_amd64.s (generated), gemmcol_amd64.s (AVX-512F)

//go:noescape
func sgemmKernel6x16(k int, a, b, c *float32, ldc int, add bool)

//go:noescape
func sgemmKernel16x16(k int, a, b *float32, ldb int, c *float32, ldc int, add, prefetch bool)

//go:noescape
func sgemmKernel8x16(k int, a, b *float32, ldb int, c *float32, ldc int, add, prefetch bool)

//go:noescape
func sgemmColumn16x8(k int, a *float32, lda int, b *float32, ldb int, c *float32, ldc int, add bool)

//go:noescape
func sgemmColumn16x4(k int, a *float32, lda int, b *float32, ldb int, c *float32, ldc int, add bool)

//go:noescape
func sgemmColumn16x2(k int, a *float32, lda int, b *float32, ldb int, c *float32, ldc int, add bool)

//go:noescape
func sgemmColumn16x1(k int, a *float32, lda int, b *float32, ldb int, c *float32, ldc int, add bool)

// rows_tile_amd64.s (AVX-512F)

//go:noescape
func clampTileAVX512(rows, cols int, y *float32, ld int, bias, res *float32, lo, hi float32)

// wino_amd64.s (AVX, AVX2 + FMA, AVX-512F where named)

//go:noescape
func vecAdd3Asm(n int, dst, a, b, c *float32)

//go:noescape
func vecSubSubAsm(n int, dst, a, b, c *float32)

//go:noescape
func gatherEvenAsm(n int, dst, src *float32)

//go:noescape
func interleaveAsm(n int, dst, ev, od *float32)

//go:noescape
func winoRowAsm(n int, src, h0, h1, h2, h3 *float32)

//go:noescape
func winoColAsm(a, b, c, d, o0, o1, o2, o3 *float32)

//go:noescape
func panelTaps1Asm(n int, taps *int32, src, dst *float32)

//go:noescape
func wino4ColAsm(n int, s, o *[6][]float32)

//go:noescape
func wino4PanelsAsm(chunks, gap int, s, o *[6][]float32)

//go:noescape
func wino4OutAsm(n int, s *[6][]float32, o *[4][]float32)

//go:noescape
func interleave4Asm(n int, dst, o0, o1, o2, o3 *float32)

//go:noescape
func wino4RowAsm(n int, src, h *float32, stride int)

// panel_avx512_amd64.s, panel_avx2_amd64.s (generated)

//go:noescape
func panelTaps2AVX512(n int, taps *int32, src, dst *float32)

//go:noescape
func panelTaps2AVX2(n int, taps *int32, src, dst *float32)

//go:noescape
func panelGatherAVX512(n int, taps, cols *int32, src, dst *float32)

//go:noescape
func panelGatherAVX2(n int, taps, cols *int32, src, dst *float32)

// depthwise_amd64.s, pool_amd64.s (AVX-512F)

//go:noescape
func dw3s1AVX512(a *DW3Args)

//go:noescape
func dw3s2AVX512(a *DW3Args)

//go:noescape
func pool2AVX512(a *Pool2Args)
