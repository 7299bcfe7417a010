package optimize

import "github.com/modelbridge/modelbridge/internal/optable"

func init() {
	optable.Add(&costTable, map[string]costRule{
		// Four weighted corner reads per sample; the sample count per bin
		// is data dependent (adaptive) or sampling_ratio², priced at 4.
		"RoiAlign": perOutput(32, "~4 bilinear samples per bin, 8 operations each"),
		// The bin sizes depend on the regions; priced as a 2×2 window.
		"MaxRoiPool": perOutput(4, "a max over each bin's window, priced as 2×2"),
		// Pairwise IoU of the candidates dominates; the count is data
		// dependent, priced per input box.
		"NonMaxSuppression": {detail: "a sort and pairwise IoU per batch and class, priced as 20 operations per box score",
			work: func(x costArgs, c *NodeCost) { c.FLOPs = 20 * numelOf(x.input(1)) }},
	})
}
