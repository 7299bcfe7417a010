package interp

import (
	"fmt"
	"math/rand"
	"runtime"
	"testing"
)

// TestGemmMatchesNaive covers every transpose combination, ragged tile
// edges, several k blocks and the parallel split, with alpha and beta.
func TestGemmMatchesNaive(t *testing.T) {
	r := rand.New(rand.NewSource(5))
	sizes := [][3]int{{1, 1, 1}, {5, 7, 3}, {6, 16, 8}, {13, 35, 300}, {130, 50, 70}, {64, 3136 / 4, 576}, {7, 1000, 0}, {200, 9, 513}}
	for _, sz := range sizes {
		for _, ta := range []bool{false, true} {
			for _, tb := range []bool{false, true} {
				m, n, k := sz[0], sz[1], sz[2]
				t.Run(fmt.Sprintf("%dx%dx%d_%v_%v", m, n, k, ta, tb), func(t *testing.T) {
					lda, ldb, ldc := k+1, n+2, n+3
					if ta {
						lda = m + 1
					}
					if tb {
						ldb = k + 2
					}
					rnd := func(n int) []float32 {
						v := make([]float32, n)
						for i := range v {
							v[i] = r.Float32()*2 - 1
						}
						return v
					}
					a := rnd(max(m, k) * (max(lda, 1) + 1))
					b := rnd(max(n, k) * (ldb + 1))
					c := rnd(m * ldc)
					want := append([]float32{}, c...)
					alpha, beta := float32(0.7), float32(-0.3)
					for i := 0; i < m; i++ {
						for j := 0; j < n; j++ {
							var s float32
							for p := 0; p < k; p++ {
								av := a[i*lda+p]
								if ta {
									av = a[p*lda+i]
								}
								bv := b[p*ldb+j]
								if tb {
									bv = b[j*ldb+p]
								}
								s += av * bv
							}
							want[i*ldc+j] = alpha*s + beta*want[i*ldc+j]
						}
					}
					c0 := append([]float32{}, c...)
					gemm(ta, tb, m, n, k, alpha, a, lda, b, ldb, c, ldc, beta)
					assertClose(t, "gemm", c, want, 1e-4)
					// The portable fallback (machines without AVX2/FMA) must agree too.
					cb := append([]float32{}, c0...)
					gemmBlas(ta, tb, m, n, k, alpha, a, lda, b, ldb, cb, ldc, beta)
					assertClose(t, "gemmBlas", cb, want, 1e-4)
					// And the pre-packed path used for constant conv weights.
					if !ta && hasFMA {
						cp := append([]float32{}, c0...)
						gemmPacked(newPackedA(false, m, k, alpha, a, lda), tb, n, b, ldb, cp, ldc, beta)
						assertClose(t, "gemmPacked", cp, want, 1e-4)
					}
				})
			}
		}
	}
}

// A product with fewer columns than workers (a long dot product) must
// still split into non-empty slabs: a zero slab width once looped forever.
func TestGemmNarrowLongProduct(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	k := 1 << 18
	a, b := make([]float32, k), make([]float32, k)
	for i := range a {
		a[i], b[i] = 1, 1
	}
	for _, packed := range []bool{false, true} {
		c := []float32{0}
		if packed {
			gemmPacked(newPackedA(false, 1, k, 1, a, k), false, 1, b, 1, c, 1, 0)
		} else {
			gemm(false, false, 1, 1, k, 1, a, k, b, 1, c, 1, 0)
		}
		if c[0] != float32(k) {
			t.Fatalf("packed=%v: got %v, want %d", packed, c[0], k)
		}
	}
}

// BenchmarkGemmPacked times the packed GEMM on one core at resnet-like
// sizes, reporting GFLOP/s.
func BenchmarkGemmPacked(b *testing.B) {
	for _, sz := range [][3]int{{64, 3136, 576}, {256, 196, 2304}, {512, 64, 512}} {
		m, n, k := sz[0], sz[1], sz[2]
		b.Run(fmt.Sprintf("%dx%dx%d", m, n, k), func(b *testing.B) {
			r := rand.New(rand.NewSource(1))
			a, bm, c := make([]float32, m*k), make([]float32, k*n), make([]float32, m*n)
			for i := range a {
				a[i] = r.Float32()
			}
			for i := range bm {
				bm[i] = r.Float32()
			}
			pa := newPackedA(false, m, k, 1, a, k)
			b.ResetTimer()
			for range b.N {
				gemmPackedSerial(pa, 0, m, false, n, bm, n, c, n, 0)
			}
			b.ReportMetric(2*float64(m*n*k)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
	}
}

// packedBLayout places every row where packB would, across several column
// and row blocks and a ragged last panel.
func TestPackedBLayoutMatchesPackB(t *testing.T) {
	k, n := gemmKC+37, gemmNC+45
	b := make([]float32, k*n)
	for i := range b {
		b[i] = float32(i%251) + 0.5
	}
	lay := packedBLayout{k: k, n: n}
	p := make([]float32, lay.size())
	for i := range p {
		p[i] = -1 // padding must be written as zeros
	}
	for r := 0; r < k; r++ {
		for c0 := 0; c0 < n; c0 += gemmNR {
			d := p[lay.at(r, c0):][:gemmNR]
			clear(d)
			copy(d, b[r*n+c0:r*n+min(n, c0+gemmNR)])
		}
	}
	for jc := 0; jc < n; jc += gemmNC {
		nb := min(gemmNC, n-jc)
		for pc := 0; pc < k; pc += gemmKC {
			kb := min(gemmKC, k-pc)
			want := make([]float32, kb*roundUp(nb, gemmNR))
			packB(false, b, n, pc, jc, kb, nb, want)
			got := lay.panel(p, pc, jc, kb)
			if len(got) != len(want) {
				t.Fatalf("block (%d, %d): %d floats, want %d", pc, jc, len(got), len(want))
			}
			for i := range want {
				if got[i] != want[i] {
					t.Fatalf("block (%d, %d): float %d is %v, want %v", pc, jc, i, got[i], want[i])
				}
			}
		}
	}
}

// The slabs and tasks a product is cut into cover it once, start on whole
// tiles, and are none of them empty; a slab of two tiles or more starts
// within half a tile of an even share; even tasks differ by at most a
// tile, shrinking ones never grow.
func TestEvenShares(t *testing.T) {
	defer func(on bool) { shrinkingTasks = on }(shrinkingTasks)
	for _, size := range []int{1, 15, 16, 49, 80, 112, 196, 784, 3072, 12544} {
		tiles := (size + 15) / 16
		for _, w := range []int{1, 2, 3, 4, 8} {
			edges := slabEdges(size, w, 16)
			parts := len(edges) - 1
			spans := map[string][][2]int{}
			for p := range parts {
				lo, hi := edges[p], edges[p+1]
				spans["slabs"] = append(spans["slabs"], [2]int{lo, hi})
				if ideal := p * size / parts; size >= 2*parts*16 && (lo > ideal+8 || lo < ideal-8) {
					t.Errorf("size %d, %d workers: slab %d starts at %d, an even share at %d", size, w, p, lo, ideal)
				}
			}
			for _, shrink := range []bool{false, true} {
				shrinkingTasks = shrink
				edges := weightTasks(tiles, w)
				what := fmt.Sprintf("tasks (shrinking %v)", shrink)
				least, most, last := tiles, 0, tiles
				for i := range len(edges) - 1 {
					spans[what] = append(spans[what], [2]int{edges[i] * 16, min(edges[i+1]*16, size)})
					n := edges[i+1] - edges[i]
					least, most = min(least, n), max(most, n)
					if shrink && n > last {
						t.Errorf("size %d, %d workers: %s %v grow", size, w, what, edges)
					}
					last = n
				}
				if !shrink && most-least > 1 {
					t.Errorf("size %d, %d workers: %s %v of %d to %d tiles", size, w, what, edges, least, most)
				}
			}
			for what, spans := range spans {
				end := 0
				for _, s := range spans {
					if s[0] != end || s[0]%16 != 0 || s[1] <= s[0] {
						t.Fatalf("size %d, %d workers: %s %v do not tile [0, %d) on whole tiles, none empty", size, w, what, spans, size)
					}
					end = s[1]
				}
				if end != size {
					t.Fatalf("size %d, %d workers: %s %v end at %d", size, w, what, spans, end)
				}
			}
		}
	}
}
