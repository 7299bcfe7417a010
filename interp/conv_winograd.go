package interp

// Winograd F(2×2, 3×3) for 3×3, stride-1, undilated, ungrouped 2-D
// convolutions (Lavin & Gray 2015): each 2×2 output tile takes 16
// multiplications per channel pair instead of 36. The weights are
// transformed once (U = G·g·Gᵀ) into 16 packed cout×cin matrices; each run
// transforms 4×4 input tiles (V = Bᵀ·d·B), does 16 GEMMs M = U·V, and
// transforms back (Y = Aᵀ·M·A).

// winogradMinChannels is where Winograd starts to beat im2col on
// BenchmarkConv3x3: with fewer channels the tile transforms, in scalar
// code, cost more than the multiplications they save.
var winogradMinChannels = 128

// winogradOK reports a convolution Winograd serves, and that is big enough
// for the transforms to pay.
func winogradOK(g *geom3, groups, cin, cout int) bool {
	return hasFMA && groups == 1 && g.in[0] == 1 && g.k == [3]int{1, 3, 3} &&
		g.s == [3]int{1, 1, 1} && g.d == [3]int{1, 1, 1} && cin >= winogradMinChannels && cout >= winogradMinChannels &&
		g.out[1] >= 4 && g.out[2] >= 4
}

// winogradWeights returns the 16 transformed weight matrices of the step's
// constant weights, made on first use; nil when the memory budget refuses.
func (x *exec) winogradWeights(w []float32, cout, cin int) []*packedA {
	if x.s.wino != nil {
		return x.s.wino
	}
	size := int64(16) * int64((cout+gemmMR-1)/gemmMR*gemmMR) * int64(cin) * 4
	if x.p.packedBytes+size > maxPackedBytes || x.p.pool.budget.tryCharge("winograd weights", size) != nil {
		return nil
	}
	x.p.packedBytes += size
	u := make([]float32, 16*cout*cin)
	for co := 0; co < cout; co++ {
		for ci := 0; ci < cin; ci++ {
			k := w[(co*cin+ci)*9 : (co*cin+ci)*9+9]
			// t = G·g (4×3), then t·Gᵀ (4×4).
			var t [4][3]float32
			for j := 0; j < 3; j++ {
				g0, g1, g2 := k[j], k[3+j], k[6+j]
				t[0][j] = g0
				t[1][j] = (g0 + g1 + g2) / 2
				t[2][j] = (g0 - g1 + g2) / 2
				t[3][j] = g2
			}
			for i := 0; i < 4; i++ {
				r := [4]float32{t[i][0], (t[i][0] + t[i][1] + t[i][2]) / 2, (t[i][0] - t[i][1] + t[i][2]) / 2, t[i][2]}
				for j := 0; j < 4; j++ {
					u[((i*4+j)*cout+co)*cin+ci] = r[j]
				}
			}
		}
	}
	x.s.wino = make([]*packedA, 16)
	for e := range x.s.wino {
		x.s.wino[e] = newPackedA(false, cout, cin, 1, u[e*cout*cin:(e+1)*cout*cin], cin)
	}
	return x.s.wino
}

// convWinograd computes one image's convolution y (cout planes) from x
// (cin planes), adding the bias and clamping as ep says.
func convWinograd(x *exec, g *geom3, u []*packedA, xs, ys, bias []float32, cin, cout int, ep clampEp) {
	H, W := g.in[1], g.in[2]
	OH, OW := g.out[1], g.out[2]
	py, px := g.pb[1], g.pb[2]
	TH, TW := (OH+1)/2, (OW+1)/2
	T := TH * TW
	v := x.scratch(16 * cin * T)
	m := x.scratch(16 * cout * T)
	defer x.release(v)
	defer x.release(m)
	parallelFor(cin, T*64, func(c0, c1 int) {
		for ci := c0; ci < c1; ci++ {
			plane := xs[ci*H*W : (ci+1)*H*W]
			for ty := 0; ty < TH; ty++ {
				for tx := 0; tx < TW; tx++ {
					var d [4][4]float32
					y0, x0 := 2*ty-py, 2*tx-px
					if y0 >= 0 && y0+3 < H && x0 >= 0 && x0+3 < W {
						for i := 0; i < 4; i++ {
							r := plane[(y0+i)*W+x0 : (y0+i)*W+x0+4]
							d[i] = [4]float32{r[0], r[1], r[2], r[3]}
						}
					} else {
						for i := 0; i < 4; i++ {
							if iy := y0 + i; iy >= 0 && iy < H {
								for j := 0; j < 4; j++ {
									if ix := x0 + j; ix >= 0 && ix < W {
										d[i][j] = plane[iy*W+ix]
									}
								}
							}
						}
					}
					// Bᵀ·d, then ·B.
					var t [4][4]float32
					for j := 0; j < 4; j++ {
						t[0][j] = d[0][j] - d[2][j]
						t[1][j] = d[1][j] + d[2][j]
						t[2][j] = d[2][j] - d[1][j]
						t[3][j] = d[1][j] - d[3][j]
					}
					col := ty*TW + tx
					for i := 0; i < 4; i++ {
						r := [4]float32{t[i][0] - t[i][2], t[i][1] + t[i][2], t[i][2] - t[i][1], t[i][1] - t[i][3]}
						for j := 0; j < 4; j++ {
							v[((i*4+j)*cin+ci)*T+col] = r[j]
						}
					}
				}
			}
		}
	})
	for e := 0; e < 16; e++ {
		gemmPacked(u[e], false, T, v[e*cin*T:(e+1)*cin*T], T, m[e*cout*T:(e+1)*cout*T], T, 0)
	}
	parallelFor(cout, T*32, func(c0, c1 int) {
		for co := c0; co < c1; co++ {
			out := ys[co*OH*OW : (co+1)*OH*OW]
			var bv float32
			if bias != nil {
				bv = bias[co]
			}
			for ty := 0; ty < TH; ty++ {
				for tx := 0; tx < TW; tx++ {
					col := ty*TW + tx
					var s [4][4]float32
					for e := 0; e < 16; e++ {
						s[e/4][e%4] = m[(e*cout+co)*T+col]
					}
					// Aᵀ·s (2×4), then ·A (2×2).
					var t [2][4]float32
					for j := 0; j < 4; j++ {
						t[0][j] = s[0][j] + s[1][j] + s[2][j]
						t[1][j] = s[1][j] - s[2][j] - s[3][j]
					}
					for i := 0; i < 2; i++ {
						oy := 2*ty + i
						if oy >= OH {
							break
						}
						r := [2]float32{t[i][0] + t[i][1] + t[i][2], t[i][1] - t[i][2] - t[i][3]}
						for j := 0; j < 2; j++ {
							if ox := 2*tx + j; ox < OW {
								out[oy*OW+ox] = r[j] + bv
							}
						}
					}
				}
			}
			ep.apply(out, OH*OW, nil, 0, 1, 0, OH*OW)
		}
	})
}

// useWinograd turns the Winograd path on (tests compare both ways).
var useWinograd = true

// winogradFor returns the transformed weights when the convolution takes
// the Winograd path: constant weights only, since they are transformed once.
func winogradFor(x *exec, g *geom3, groups, cin, cout int, w *tensor) []*packedA {
	if !useWinograd || !winogradOK(g, groups, cin, cout) || len(x.s.in) < 2 || x.s.in[1] < 0 || x.p.consts[x.s.in[1]] == nil {
		return nil
	}
	return x.winogradWeights(w.f, cout, cin)
}
