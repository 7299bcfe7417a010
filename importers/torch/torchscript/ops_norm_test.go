package torchscript

import (
	"archive/zip"
	"math"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/formats"
	"github.com/modelbridge/modelbridge/interp"
)

// normModule is traced by PyTorch 1.13: the normalization layers with and
// without affine parameters, a tracked InstanceNorm in eval mode, the
// native_layer_norm statistics, and MaxPool2d's indices fed to
// MaxUnpool2d (indices are also returned, so their numbering is checked),
// and F.normalize (x / max(norm, eps), read as its norm, clamp_min,
// expand_as and div; rows of zeros included).
const normModule = `
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.ln = torch.nn.LayerNorm([5, 6])
        self.ln_plain = torch.nn.LayerNorm(6, elementwise_affine=False, eps=1e-3)
        self.gn = torch.nn.GroupNorm(2, 4)
        self.gn_plain = torch.nn.GroupNorm(4, 4, affine=False)
        self.inorm = torch.nn.InstanceNorm2d(4, affine=True)
        self.inorm_plain = torch.nn.InstanceNorm2d(4)
        self.inorm_tracked = torch.nn.InstanceNorm2d(4, track_running_stats=True)
        self.pool = torch.nn.MaxPool2d(2, stride=2, padding=1, return_indices=True)
        self.unpool = torch.nn.MaxUnpool2d(2, stride=2, padding=1)
        for p in self.parameters():
            torch.nn.init.uniform_(p, -1.5, 1.5)
        self.inorm_tracked.running_mean.uniform_(-1, 1)
        self.inorm_tracked.running_var.uniform_(0.5, 2)
        self.eval()
    def forward(self, x):
        y, idx = self.pool(x)
        stats = torch.native_layer_norm(x, [6], None, None, 1e-5)
        return (self.ln(x), self.ln_plain(x), self.gn(x), self.gn_plain(x), self.inorm(x), self.inorm_plain(x),
                self.inorm_tracked(x), y, idx, self.unpool(y, idx, output_size=x.shape[2:]), stats[0], stats[1], stats[2],
                torch.nn.functional.normalize(x, p=2.0, dim=1), torch.nn.functional.normalize(torch.relu(x - 3.0), p=1.0, dim=-1))
torch.manual_seed(0)
xs = [torch.randn(2, 4, 5, 6) * 2 + 0.5]
`

func TestTracedNormOps(t *testing.T) {
	g := traceAndCompareWithin(t, normModule, 1e-4, 1e-5)
	kinds := map[string]bool{}
	for _, n := range g.Nodes {
		kinds[n.Op.Kind()] = true
	}
	for _, k := range []string{"LayerNormalization", "GroupNormalization", "InstanceNormalization", "BatchNormalization", "MaxPool", "MaxUnpool"} {
		if !kinds[k] {
			t.Errorf("no %s node among %v", k, kinds)
		}
	}
	if len(g.Outputs) != 15 {
		t.Fatalf("%d outputs, want 15", len(g.Outputs))
	}
}

// TestRMSNormCall reads torch.rms_norm as PyTorch 2.4+ serializes it
// (PyTorch 1.13 cannot trace it): x / sqrt(mean(x²) + eps) · weight, eps
// None being float32's machine epsilon.
func TestRMSNormCall(t *testing.T) {
	x := canon.NewFloat32Tensor("x", []int64{2, 3}, []float32{1, -2, 2, 0, 3, 4})
	for _, c := range []struct {
		body string
		eps  float64
	}{{"torch.rms_norm(x, [3], None, 0.5)", 0.5}, {"torch.rms_norm(x, [3])", 1.1920928955078125e-07}} {
		p := writeArchive(t, map[string]string{"data.pkl": rootPickle, "code/__torch__.py": moduleSource("    return " + c.body + "\n")}, zip.Store)
		g, err := ReadFile(p, formats.ReadOptions{InputShapes: map[string][]int64{"x": {2, 3}}})
		if err != nil {
			t.Fatal(err)
		}
		outs, err := interp.Run(g, map[string]*canon.Tensor{"x": x})
		g.Close()
		if err != nil {
			t.Fatal(err)
		}
		got, _ := outs[g.Outputs[0].Name].Float64s()
		xv, _ := x.Float64s()
		for r := 0; r < 2; r++ {
			ms := (xv[3*r]*xv[3*r] + xv[3*r+1]*xv[3*r+1] + xv[3*r+2]*xv[3*r+2]) / 3
			for k := 0; k < 3; k++ {
				if w := xv[3*r+k] / math.Sqrt(ms+c.eps); math.Abs(got[3*r+k]-w) > 1e-6 {
					t.Fatalf("%s: got %v, element %d want %g", c.body, got, 3*r+k, w)
				}
			}
		}
	}
}
