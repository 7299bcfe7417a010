package torchscript

import (
	"testing"

	"github.com/modelbridge/modelbridge/internal/testfix/torchtrace"
)

// TestRunTimePoolerScale imports, once with the image size symbolic, what
// torchvision's R-CNNs do between the RPN and the box head: the pooler's
// scale 2 ** round(log2(feature / image)) (a float known only at run time)
// passed to roi_align as its spatial_scale, flatten(0, -2) of a tensor with
// a run-time row count, and indexing by [arange(1)[:, None], arange(n)[None]]
// whose batch of one stays known (the loop over it has a known trip count).
// It is checked against PyTorch on several sizes in the interpreter and in
// ONNX Runtime.
func TestRunTimePoolerScale(t *testing.T) {
	m := torchtrace.Run(t, `import sys, os, math, numpy as np, torch, torchvision
import torch.nn.functional as F
from typing import List
class M(torch.nn.Module):
    def forward(self, x):
        h = x.size(2)
        feat = F.avg_pool2d(x, 4)
        s = 2 ** float(torch.round(torch.log2(torch.tensor(float(feat.size(2)) / float(h)))))
        rois = torch.tensor([[0.0, 1.5, 2.0, 20.25, 15.0], [0.0, 5.0, 3.5, 9.0, 30.0]])
        pooled = torch.ops.torchvision.roi_align(feat, rois, s, 3, 3, 2, False)
        aligned = torch.ops.torchvision.roi_align(feat, rois, s, 2, 2, -1, True)
        flat = feat.permute(0, 2, 3, 1).reshape(1, -1, 2).flatten(0, -2)
        sel = flat.unsqueeze(0)[torch.arange(1)[:, None], torch.arange(flat.size(0))[None, :]]
        rows: List[torch.Tensor] = []
        for i in range(sel.size(0)):
            rows.append(sel[i].sum(0))
        return pooled, aligned, flat, torch.stack(rows), torch.tensor([s])
gen = torch.Generator().manual_seed(5)
cases = [torch.rand(1, 2, h, w, generator=gen) for h, w in [(32, 32), (45, 29), (20, 52)]]
`+runTimeFloatCases)
	checkRunTimeSizeCases(t, m, []int64{1, 2, -1, -1}, 2, 1e-5, 1e-6)
}
