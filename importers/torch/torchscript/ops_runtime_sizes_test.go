package torchscript

import (
	"strconv"
	"strings"
	"testing"

	"github.com/modelbridge/modelbridge/canon"

	"github.com/modelbridge/modelbridge/formats"
)

// TestRunTimeSizedDetectionOps imports the operations torchvision's R-CNN
// heads apply to tensors with one row per detection (a count only a run
// tells) and checks them against PyTorch in the interpreter and in ONNX
// Runtime: indexing with two run-time index tensors, a column written into
// zeros_like, zeros of a run-time and known sizes read by a convolution,
// a split into the one piece of the whole, and dict.update.
func TestRunTimeSizedDetectionOps(t *testing.T) {
	const src = `
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 2, 2)
    def forward(self, x, boxes, scores):
        keep = torch.where(scores > 0.5)[0]
        b = boxes[keep]
        n = b.size(0)
        labels = keep % 3
        picked = x[keep][torch.arange(n), labels]
        exp = torch.zeros_like(b)
        exp[:, 0] = b[:, 2] * 0.5
        exp[:, 3] = b[:, 1] - 1.0
        pooled = torch.zeros([n, 3, 3, 3])
        pooled = pooled + picked.sum()
        y = self.conv(pooled)
        parts = torch.split(b, [n])
        d: Dict[str, torch.Tensor] = {"picked": picked}
        empty: Dict[str, torch.Tensor] = {}
        d.update(empty)
        d.update({"exp": exp, "picked": picked + 1.0})
        return d["picked"], d["exp"], y.flatten(1), parts[0] * 2.0
torch.manual_seed(0)
args = [torch.randn(6, 3, 4), torch.rand(6, 4) * 10, torch.tensor([0.9, 0.1, 0.7, 0.6, 0.2, 0.8])]
`
	m := scriptedContainers(t, src)
	g, err := m.Import(ReadFile)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	m.CompareGraph(t, g, 1e-5, 1e-6)
	m.CompareORT(t, g, formats.WriteOptions{}, 1e-5, 1e-6)
}

// TestRunTimeBoxPaste is torchvision's paste_mask_in_image: a mask resized
// to a box's size (ints read from the box at run time), written into the
// part of an image the box covers (a slice with run-time bounds, clipped at
// the image's edges), checked against PyTorch for a box inside the image
// and one over its corner, resized bilinearly (Mask R-CNN) and bicubically
// (Keypoint R-CNN's heatmaps).
func TestRunTimeBoxPaste(t *testing.T) {
	const src = `
class M(torch.nn.Module):
    def forward(self, mask, box):
        w = int(box[2] - box[0] + 1)
        h = int(box[3] - box[1] + 1)
        w = max(w, 1)
        h = max(h, 1)
        m = torch.nn.functional.interpolate(mask[None, None], size=(h, w), mode=MODE, align_corners=False)[0][0]
        im = torch.zeros((12, 14))
        x_0 = max(box[0], 0)
        x_1 = min(box[2] + 1, 14)
        y_0 = max(box[1], 0)
        y_1 = min(box[3] + 1, 12)
        im[y_0:y_1, x_0:x_1] = m[(y_0 - box[1]):(y_1 - box[1]), (x_0 - box[0]):(x_1 - box[0])]
        return im
torch.manual_seed(0)
`
	cases := []struct{ name, mode, box string }{
		{"inside", "bilinear", "[2, 3, 9, 7]"},
		{"over-the-corner", "bilinear", "[-2, 5, 16, 15]"},
		{"bicubic", "bicubic", "[-2, 5, 16, 15]"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := scriptedContainers(t, strings.Replace(src, "MODE", strconv.Quote(tc.mode), 1)+"args = [torch.rand(5, 5), torch.tensor("+tc.box+")]\n")
			g, err := ReadFile(m.Path(), formats.ReadOptions{
				InputShapes: map[string][]int64{"mask": {5, 5}, "box": {4}},
				InputDTypes: map[string]canon.DType{"box": canon.Int64},
			})
			if err != nil {
				t.Fatal(err)
			}
			defer g.Close()
			m.CompareGraph(t, g, 1e-5, 1e-6)
			m.CompareORT(t, g, formats.WriteOptions{}, 1e-5, 1e-6)
		})
	}
}

// TestRunTimeRowWrites is heatmaps_to_keypoints' pattern: a loop over a
// run-time number of rows writing parts of row i of tensors made before
// it (x[i, 0, :] = ..., x[i, :] = ...), with a remainder by a run-time
// int, checked against PyTorch.
func TestRunTimeRowWrites(t *testing.T) {
	const src = `
class M(torch.nn.Module):
    def forward(self, rois, maps):
        keep = torch.where(rois[:, 0] > 0.3)[0]
        r = rois[keep]
        out = torch.zeros((len(r), 3, 4))
        scores = torch.zeros((len(r), 4))
        for i in range(len(r)):
            out[i, 0, :] = r[i] * 2.0
            out[i, 2, :] = 1
            scores[i, :] = (maps[0].sum(0) * r[i] * 10.0) % (i + 2)
        return out.permute(0, 2, 1), scores
torch.manual_seed(0)
args = [torch.rand(6, 4), torch.rand(2, 3, 4)]
`
	m := scriptedContainers(t, src)
	g, err := m.Import(ReadFile)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	if countKind(g, "Loop") != 1 {
		t.Errorf("%d Loop nodes, want the one loop over the rows", countKind(g, "Loop"))
	}
	m.CompareGraph(t, g, 1e-5, 1e-6)
	m.CompareORT(t, g, formats.WriteOptions{}, 1e-5, 1e-6)
}
