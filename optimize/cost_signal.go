package optimize

import (
	"math"

	"github.com/modelbridge/modelbridge/internal/optable"
)

func init() {
	optable.Add(&costTable, map[string]costRule{
		// An FFT of length n costs about 5 n log2 n operations per signal:
		// priced as 5 log2 n per output element along the transformed axis.
		"DFT": {detail: "an FFT per signal, 5·log2(n) operations per output element",
			work: func(x costArgs, c *NodeCost) {
				c.FLOPs = 5 * numelOf(x.out) * math.Max(math.Log2(float64(lastSignal(x))), 1)
			}},
		"STFT": {detail: "an FFT per frame, 5·log2(bins) operations per output element",
			work: func(x costArgs, c *NodeCost) {
				c.FLOPs = 5 * numelOf(x.out) * math.Max(math.Log2(float64(lastSignal(x))), 1)
			}},
		"HannWindow":      perOutput(4, "a cosine per sample"),
		"HammingWindow":   perOutput(4, "a cosine per sample"),
		"BlackmanWindow":  perOutput(8, "two cosines per sample"),
		"MelWeightMatrix": perOutput(2, "one ratio per matrix entry"),
		// Per output element: every input channel of its group at every
		// kernel tap is a bilinear sample (~8 operations) and a
		// multiply-add.
		"DeformConv": {detail: "per output element and tap, a bilinear sample (8 operations) and a multiply-add, per input channel of the group",
			work: func(x costArgs, c *NodeCost) {
				w := x.input(1)
				per := 1.0
				if w.RankKnown {
					for _, d := range w.Shape[1:] {
						if d.Known() {
							per *= float64(d.Size)
						}
					}
				}
				c.FLOPs = 10 * numelOf(x.out) * per
			}},
	})
}

// lastSignal is the size of the second-to-last output axis (the bins of
// STFT, a stand-in for a DFT's length), at least 2.
func lastSignal(x costArgs) int64 {
	if x.out.RankKnown && len(x.out.Shape) >= 2 {
		if d := x.out.Shape[len(x.out.Shape)-2]; d.Known() && d.Size > 1 {
			return d.Size
		}
	}
	return 2
}
