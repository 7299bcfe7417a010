package torchscript

import (
	"testing"
)

// resampleModule is traced by PyTorch 1.13: the upsample_* calls
// F.interpolate makes (both overloads: sizes and scale factors), adaptive
// pooling with uneven windows, grid_sampler, affine_grid_generator and
// col2im.
const resampleModule = `
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(1)
        self.register_buffer("grid", torch.rand(1, 4, 5, 2) * 2.6 - 1.3)
        self.register_buffer("theta", torch.randn(1, 2, 3))
        self.register_buffer("cols", torch.randn(1, 18, 12))
    def forward(self, x):
        v = x.mean(2)
        return (
            F.interpolate(x, scale_factor=2, mode="nearest"),
            F.interpolate(x, size=(5, 4), mode="nearest"),
            F.interpolate(x, size=(11, 13), mode="bilinear", align_corners=False),
            F.interpolate(x, size=(11, 13), mode="bilinear", align_corners=True),
            F.interpolate(x, scale_factor=(1.5, 0.5), mode="bilinear", align_corners=False),
            F.interpolate(x, size=(10, 6), mode="bicubic", align_corners=False),
            F.interpolate(x, scale_factor=2, mode="bicubic", align_corners=True),
            F.interpolate(x, size=(4, 12), mode="nearest-exact"),
            F.interpolate(v, size=17, mode="linear"),
            F.interpolate(x.unsqueeze(2), size=(3, 5, 4), mode="trilinear"),
            F.adaptive_avg_pool2d(x, (3, 4)),
            F.adaptive_max_pool2d(x, (3, 4)),
            F.adaptive_avg_pool1d(v, 4),
            F.adaptive_avg_pool3d(x.unsqueeze(1), (2, 3, 4)),
            F.adaptive_max_pool2d(x, (7, 3)),
            F.grid_sample(x, self.grid, mode="bilinear", padding_mode="zeros", align_corners=False),
            F.grid_sample(x, self.grid, mode="bicubic", padding_mode="reflection", align_corners=True),
            F.grid_sample(x, self.grid, mode="nearest", padding_mode="reflection", align_corners=False),
            F.affine_grid(self.theta, [1, 3, 5, 6], align_corners=False),
            F.fold(self.cols, (5, 6), (2, 3), stride=(2, 1), dilation=(1, 2), padding=1),
            F.interpolate(x, size=(4, 5), mode="bilinear", antialias=True),
            F.interpolate(x, size=(3, 4), mode="bicubic", antialias=True),
        )
torch.manual_seed(0)
xs = [torch.randn(1, 3, 7, 9)]
`

func TestTracedResampleOps(t *testing.T) {
	g := traceAndCompareWithin(t, resampleModule, 1e-4, 1e-5)
	if len(g.Outputs) != 22 {
		t.Fatalf("%d outputs, want 22", len(g.Outputs))
	}
}
