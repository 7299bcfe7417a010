package vec

import (
	"fmt"
	"math/rand"
	"sort"
	"testing"
	"time"
)

// GemvPanels gives its reference's bits at every level, for k around the
// four-step iterations and runs of one to several panels, and writes
// nothing past its panels' outputs.
func TestGemvPanelsMatchReference(t *testing.T) {
	levels(t, func(t *testing.T) {
		r := rand.New(rand.NewSource(11))
		for _, k := range []int{1, 2, 3, 4, 5, 7, 8, 13, 64, 67} {
			for _, n := range []int{1, 2, 5} {
				h, panels := randF32(r, k, 1), randF32(r, n*PanelRows*k, 1)
				got, want := guard32(n*PanelRows), make([]float32, n*PanelRows)
				GemvPanels(got, h, panels)
				gemvPanelsRef(want, h, panels)
				sameBits32(t, fmt.Sprintf("GemvPanels k=%d n=%d", k, n), got, want)
				checkGuard32(t, "GemvPanels", got)
			}
		}
	})
}

// The reference is the definition: four partial sums by k mod 4.
func TestGemvPanelsRefByHand(t *testing.T) {
	const k = 6
	h := []float32{1, 2, 3, 4, 5, 6}
	panels := make([]float32, PanelRows*k)
	for j := range k {
		panels[j*PanelRows+3] = float32(10 * (j + 1)) // row 3: 10, 20, ..., 60
	}
	out := make([]float32, PanelRows)
	gemvPanelsRef(out, h, panels)
	// s0 = 1·10 + 5·50, s1 = 2·20 + 6·60, s2 = 3·30, s3 = 4·40.
	if want := float32((260 + 400) + (90 + 160)); out[3] != want || out[0] != 0 {
		t.Fatalf("row 3 = %v, row 0 = %v; want %v and 0", out[3], out[0], want)
	}
}

// BenchmarkGemvPanels is one LSTM step's recurrent product at hidden 512
// (2048 rows, 4 MB: streamed from L3), in alternation with Dot4 over the
// same rows four at a time: 41 rounds of 8 passes each, reporting each
// side's median pass and the median of the paired ratios (x-dot4), so
// that both meet the same machine load.
func BenchmarkGemvPanels(b *testing.B) {
	const k, rows, passes = 512, 2048, 8
	r := rand.New(rand.NewSource(1))
	h, m := randF32(r, k, 1), randF32(r, rows*k, 1)
	out := make([]float32, rows)
	timed := func(f func()) float64 {
		start := time.Now()
		for range passes {
			f()
		}
		return float64(time.Since(start).Microseconds()) / passes
	}
	panels := func() { GemvPanels(out, h, m) }
	dots := func() {
		var d [4]float32
		for i := 0; i < rows; i += 4 {
			Dot4(h, m[i*k:(i+4)*k], k, &d)
		}
	}
	var ps, ds, ratios []float64
	for range b.N {
		for range 41 {
			p, d := timed(panels), timed(dots)
			ps, ds, ratios = append(ps, p), append(ds, d), append(ratios, p/d)
		}
	}
	b.ReportMetric(medianOf(ps), "us-panels")
	b.ReportMetric(medianOf(ds), "us-dot4")
	b.ReportMetric(medianOf(ratios), "x-dot4")
}

func medianOf(v []float64) float64 {
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	return s[len(s)/2]
}
