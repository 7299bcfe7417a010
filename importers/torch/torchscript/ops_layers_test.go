package torchscript

import (
	"archive/zip"
	"math"
	"strings"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/formats"
	"github.com/modelbridge/modelbridge/internal/testfix/torchtrace"
	"github.com/modelbridge/modelbridge/interp"
)

// The nn layers of ops_layers_*.go, traced by PyTorch 1.13 and compared
// with its outputs, in the interpreter and, exported to ONNX, in ONNX
// Runtime: variants beyond the torch2-ops fixtures.

// traceLayers traces the script, checks the import in the interpreter and
// then its ONNX export in ONNX Runtime (when installed), both against
// PyTorch's outputs.
func traceLayers(t *testing.T, script string) {
	t.Helper()
	traceLayersWithin(t, script, 1e-5, 1e-6)
}

func traceLayersWithin(t *testing.T, script string, rtol, atol float64) {
	t.Helper()
	m := torchtrace.Trace(t, script)
	g := m.Compare(t, ReadFile, rtol, atol)
	t.Run("ORT", func(t *testing.T) { m.CompareORT(t, g, formats.WriteOptions{}, rtol, atol) })
}

// TestTracedPaddingModeConvolutions: padding="same" with even kernels and
// dilation (PyTorch puts the odd pad at the end), "valid", a weight given
// as an input, and unbatched inputs of convolutions, pools and unpools.
func TestTracedPaddingModeConvolutions(t *testing.T) {
	traceLayers(t, `
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.c1 = torch.nn.Conv1d(3, 4, 4, padding="same", dilation=2)
        self.c2 = torch.nn.Conv2d(3, 5, (2, 3), padding="same")
        self.c2d = torch.nn.Conv2d(3, 2, (4, 2), padding="same", dilation=(1, 3), groups=1)
        self.c3 = torch.nn.Conv3d(3, 2, (2, 2, 3), padding="same", dilation=(1, 2, 1))
        self.cv = torch.nn.Conv2d(3, 2, 3, padding="valid", stride=2)
        self.eval()
    def forward(self, x, w):
        x1 = x.reshape(2, 3, 48)
        x3 = x.reshape(2, 3, 4, 4, 3)
        return (self.c1(x1), self.c2(x), self.c2d(x), self.c3(x3), self.cv(x),
                F.conv2d(x, w, padding="same"), self.c1(x1[0]), self.c2(x[1]),
                F.max_pool2d(x[0], 3, 2, 1), *F.max_pool2d(x[0], 2, return_indices=True),
                F.max_unpool2d(*F.max_pool2d(x[0], 2, return_indices=True), 2),
                F.max_unpool1d(*F.max_pool1d(x1[0], 2, return_indices=True), 2))
torch.manual_seed(0)
xs = [torch.randn(2, 3, 8, 6), torch.randn(4, 3, 2, 4)]
`)
}

// TestTracedAveragePoolDivisors: ceil mode with a partial last window,
// with and without counting the padding, and divisor_override, in 1-D,
// 2-D and 3-D, batched and not.
func TestTracedAveragePoolDivisors(t *testing.T) {
	traceLayers(t, `
class M(torch.nn.Module):
    def forward(self, x):
        x1 = x.reshape(2, 6, 15)
        x3 = x.reshape(2, 2, 3, 5, 3)
        return (F.avg_pool2d(x, 3, 2, 1, ceil_mode=True, count_include_pad=True),
                F.avg_pool2d(x, 3, 2, 1, ceil_mode=True, count_include_pad=False),
                F.avg_pool2d(x, (2, 4), (3, 2), (1, 2), ceil_mode=True),
                F.avg_pool2d(x, 2, 2, divisor_override=3),
                F.avg_pool2d(x, 3, 2, 1, ceil_mode=True, divisor_override=5),
                F.avg_pool1d(x1, 4, 3, 2, ceil_mode=True, count_include_pad=False),
                F.avg_pool1d(x1, 2, ceil_mode=True),
                F.avg_pool3d(x3, 2, 2, 1, ceil_mode=True, count_include_pad=False),
                F.avg_pool3d(x3, 2, 2, ceil_mode=True, divisor_override=7),
                F.avg_pool2d(x[0], 3, 2, 1, ceil_mode=True))
torch.manual_seed(0)
xs = [torch.randn(2, 3, 5, 6)]
`)
}

// TestTracedActivationLayers: PReLU (one and per-channel slopes), GLU,
// LogSigmoid on large magnitudes, RReLU at inference, Softplus with beta
// and threshold, Threshold with a value, channel shuffle, Bilinear and
// the dropouts of eval mode.
func TestTracedActivationLayers(t *testing.T) {
	traceLayers(t, `
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.p1 = torch.nn.PReLU()
        self.p4 = torch.nn.PReLU(4, init=0.1)
        with torch.no_grad():
            self.p4.weight.copy_(torch.tensor([0.1, -0.2, 0.3, 2.0]))
        self.bil = torch.nn.Bilinear(5, 3, 2)
        self.d = torch.nn.FeatureAlphaDropout(0.3)
        self.a = torch.nn.AlphaDropout(0.3)
        self.eval()
    def forward(self, x, y, z):
        big = x * 40
        return (self.p1(x), self.p4(x), self.p4(x[:, :, 0]), F.glu(x, 1), F.glu(x, -1),
                F.logsigmoid(big), F.logsigmoid(x * 1e-4), F.rrelu(x, 0.1, 0.3),
                F.softplus(big, 2.0, 1.0), F.softplus(big, 0.5, 30), F.softplus(x * 1e-3, 3.0, 5.0),
                F.threshold(x, 0.1, 20.0), F.threshold(x, -0.5, -7.0),
                F.channel_shuffle(x, 2), torch.nn.ChannelShuffle(2)(x.reshape(2, 4, 3, 2, 2)),
                self.bil(y, z), self.bil(y[0], z[0]), self.d(x), self.a(x))
torch.manual_seed(0)
xs = [torch.randn(2, 4, 3, 4), torch.randn(3, 5), torch.randn(3, 3)]
`)
}

// TestTracedUnfoldShuffleNorms: nn.Unfold with dilation, padding and
// stride (batched and not) with nn.Fold back, pixel (un)shuffle of rank 5
// and unbatched input, weight norm (both forms of dim), batch statistics
// (track_running_stats=False) and circular padding.
func TestTracedUnfoldShuffleNorms(t *testing.T) {
	traceLayers(t, `
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.wl = torch.nn.utils.weight_norm(torch.nn.Linear(5, 4))
        self.wc = torch.nn.utils.weight_norm(torch.nn.Conv2d(3, 2, 3), dim=None)
        self.wc1 = torch.nn.utils.weight_norm(torch.nn.Conv1d(3, 2, 2), dim=1)
        self.bn = torch.nn.BatchNorm2d(3, track_running_stats=False)
        self.bn1 = torch.nn.BatchNorm1d(5, affine=False, track_running_stats=False)
        self.cc = torch.nn.Conv1d(3, 2, 3, padding=2, padding_mode="circular")
        with torch.no_grad():
            self.bn.weight.uniform_(0.5, 2)
            self.bn.bias.uniform_(-1, 1)
        self.eval()
    def forward(self, x, v):
        u = F.unfold(x, (2, 3), dilation=(2, 1), padding=1, stride=(1, 2))
        return (u, F.fold(u, (6, 7), (2, 3), dilation=(2, 1), padding=1, stride=(1, 2)), F.unfold(x[0], 2),
                F.pixel_shuffle(x[..., :6].reshape(1, 2, 12, 3, 3), 2), F.pixel_shuffle(x[0, :2].reshape(4, 3, 7), 2),
                F.pixel_unshuffle(x[..., :6].reshape(2, 1, 3, 6, 6), 2), F.pixel_unshuffle(x[0, :, :4, :6], 2),
                self.wl(v), self.wc(x), self.wc1(x[:, :, 0]), torch._weight_norm(v, v[:, :1] + 2, 0),
                self.bn(x), self.bn1(v), self.bn1(x[:, :, 0, :5].transpose(1, 2)),
                F.pad(x, (1, 2, 3, 0), mode="circular"), self.cc(x[:, :, 0]), F.pad(x[0], (6, 7), mode="circular"),
                F.pad(x[:, :, 0], (3, -2), mode="circular"), F.pad(x, (-1, 2, 2, -3), mode="circular"))
torch.manual_seed(0)
xs = [torch.randn(2, 3, 6, 7) * 2 + 1, torch.randn(4, 5)]
`)
}

// TestTracedEmbeddingsAndAdaptiveMax: embedding (padding_idx, indices of
// rank 2), embedding bags in every mode with offsets, per-sample weights,
// padding_idx, include_last_offset and empty bags, and adaptive max
// pooling with its indices (even and uneven windows, global, unbatched).
func TestTracedEmbeddingsAndAdaptiveMax(t *testing.T) {
	traceLayers(t, `
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.e = torch.nn.Embedding(10, 3, padding_idx=2)
        self.bags = [torch.nn.EmbeddingBag(10, 3, mode=m) for m in ("sum", "mean", "max")]
        self.bagp = torch.nn.EmbeddingBag(10, 3, mode="mean", padding_idx=4)
        self.bagl = torch.nn.EmbeddingBag(10, 3, mode="sum", include_last_offset=True)
        for i, b in enumerate(self.bags):
            self.add_module("b%d" % i, b)
        self.register_buffer("offsets", torch.tensor([0, 3, 3, 7]))
        self.register_buffer("last", torch.tensor([0, 2, 2, 9]))
        self.eval()
    def forward(self, x):
        idx = (x.abs() * 7).long() % 10
        flat = idx.reshape(-1)[:9]
        offsets = self.offsets
        w = x.reshape(-1)[:9]
        return (self.e(idx), self.e(flat),
                self.bags[0](flat, offsets), self.bags[1](flat, offsets), self.bags[2](flat, offsets),
                self.bags[0](flat, offsets, per_sample_weights=w), self.bags[1](idx.reshape(-1)[:12].reshape(4, 3)),
                self.bagp(flat, offsets), self.bagl(flat, self.last),
                *F.adaptive_max_pool2d(x, (3, 2), return_indices=True), *F.adaptive_max_pool2d(x, (4, 3), return_indices=True),
                *F.adaptive_max_pool2d(x, 1, return_indices=True), *F.adaptive_max_pool1d(x[0], 4, return_indices=True),
                *F.adaptive_max_pool3d(x.reshape(1, 2, 3, 2, 6), (2, 2, 4), return_indices=True),
                *F.adaptive_max_pool2d(x[0], (2, 5), return_indices=True))
torch.manual_seed(0)
xs = [torch.randn(2, 3, 6, 2).round(decimals=1)]
`)
}

// TestTracedDistances: nn.CosineSimilarity (broadcast operands, a zero
// row against eps), nn.PairwiseDistance and F.pdist of several orders.
func TestTracedLayerDistances(t *testing.T) {
	traceLayers(t, `
class M(torch.nn.Module):
    def forward(self, x, y):
        z = torch.cat([x[:1] * 0, x[1:]])
        return (F.cosine_similarity(x, y), F.cosine_similarity(z, y[0], dim=-1, eps=1e-3),
                F.pairwise_distance(x, y), F.pairwise_distance(x, y, 1.5, 1e-3, True),
                F.pairwise_distance(x, y, 1.0), F.pairwise_distance(x, y[0], 4.0),
                F.pairwise_distance(x, y, 0.5), torch.nn.PairwiseDistance(p=3.0)(x, y),
                F.pdist(x), F.pdist(x, 0.5), F.pdist(y, 3.0), F.pdist(y, 1.0))
torch.manual_seed(0)
xs = [torch.randn(4, 6), torch.randn(4, 6)]
`)
}

// TestTracedFractionalMaxPool: nn.FractionalMaxPool2d/3d with fixed
// samples (their windows are then known), with indices, and unbatched.
func TestTracedFractionalMaxPool(t *testing.T) {
	traceLayers(t, `
torch.manual_seed(1)
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.p2 = torch.nn.FractionalMaxPool2d((2, 3), output_size=(4, 3), return_indices=True, _random_samples=torch.rand(2, 3, 2))
        self.p3 = torch.nn.FractionalMaxPool3d(2, output_ratio=0.6, _random_samples=torch.rand(1, 2, 3))
        self.pu = torch.nn.FractionalMaxPool2d(2, output_size=5, _random_samples=torch.rand(1, 3, 2))
    def forward(self, x):
        return (*self.p2(x), self.p3(x[:1, :2].reshape(1, 2, 3, 7, 3)), self.pu(x[0]))
xs = [torch.randn(2, 3, 7, 9).round(decimals=1)]
`)
}

// TestTracedUpsampleScales: scale factors float32 cannot hold (1.1, 1.3,
// 1.7, 2.3), and axes whose size a scale keeps or doubles, which
// PyTorch's linear kernels copy, its nearest kernel copies (or halves) for
// a single channel and maps by the scale otherwise, and its bicubic kernel
// maps by the scale. A scale float32 rounds moves bicubic taps by a few
// float32 steps, hence the tolerance.
func TestTracedUpsampleScales(t *testing.T) {
	traceLayersWithin(t, `
class M(torch.nn.Module):
    def forward(self, x):
        v = x.reshape(1, 2, 5, 3, 4)
        return (F.interpolate(x, scale_factor=(1.1, 1.3), mode="bilinear"),
                F.interpolate(x, scale_factor=(1.7, 2.3), mode="bicubic"),
                F.interpolate(x, scale_factor=(1.125, 2), mode="bicubic"),
                F.interpolate(x, scale_factor=(1.125, 1.5), mode="bilinear"),
                F.interpolate(x, scale_factor=(1.125, 2.125), mode="nearest"),
                F.interpolate(x[:, :1], scale_factor=(1.7, 2.3), mode="nearest"),
                F.interpolate(v[:, :1], scale_factor=(1.7, 1, 2), mode="nearest"),
                F.interpolate(x, scale_factor=(1.125, 2.125), mode="nearest-exact"),
                F.interpolate(x[0], scale_factor=1.1, mode="linear"),
                F.interpolate(x[0], scale_factor=1.125, mode="nearest"),
                F.interpolate(v, scale_factor=(1.5, 2, 1.1), mode="trilinear"),
                F.interpolate(x, scale_factor=(1.1, 1.7), mode="bilinear", align_corners=True))
torch.manual_seed(0)
xs = [torch.randn(2, 3, 5, 4)]
`, 1e-4, 1e-5)
}

// TestUpsampleLayoutDependentRefused: nearest upsampling of one channel
// by a scale that keeps or doubles an axis reads different inputs in
// PyTorch's two kernels (which one runs depends on the memory layout), and
// bicubic scales that keep the shape are copied by ONNX Runtime: both are
// refused by name.
func TestUpsampleLayoutDependentRefused(t *testing.T) {
	for body, want := range map[string]string{
		"torch.upsample_nearest2d(x, None, [1.125, 2.125])":        "depends on the input's memory layout",
		"torch.upsample_bicubic2d(x, None, False, [1.125, 1.125])": "ONNX Runtime copies a Resize",
	} {
		p := writeArchive(t, map[string]string{"data.pkl": rootPickle, "code/__torch__.py": moduleSource("    return " + body + "\n")}, zip.Store)
		g, err := ReadFile(p, formats.ReadOptions{InputShapes: map[string][]int64{"x": {1, 1, 5, 4}}})
		if err == nil {
			g.Close()
			t.Errorf("%s: imported, want an error containing %q", body, want)
			continue
		}
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %q does not contain %q", body, err, want)
		}
	}
}

// TestDecomposedLayerForms: the aten forms decomposed programs record
// (log_sigmoid_forward, rrelu_with_noise) read like their plain forms;
// values from PyTorch 1.13 in float64 on x = [-3, -1, -0.5, 0, 2, 40, -40].
func TestDecomposedLayerForms(t *testing.T) {
	x := canon.NewFloat32Tensor("x", []int64{7}, []float32{-3, -1, -0.5, 0, 2, 40, -40})
	for body, want := range map[string][]float64{
		"    _0, _1 = torch.log_sigmoid_forward(x)\n    return _0\n": {-3.04858735, -1.31326169, -0.974076984, -0.693147181, -0.126928011, -4.24835426e-18, -40},
		"    return torch.rrelu_with_noise(x, x, 0.1, 0.3, False)\n": {-0.6, -0.2, -0.1, 0, 2, 40, -8},
	} {
		p := writeArchive(t, map[string]string{"data.pkl": rootPickle, "code/__torch__.py": moduleSource(body)}, zip.Store)
		g, err := ReadFile(p, formats.ReadOptions{InputShapes: map[string][]int64{"x": {7}}})
		if err != nil {
			t.Fatalf("%s: %v", body, err)
		}
		outs, err := interp.Run(g, map[string]*canon.Tensor{"x": x})
		g.Close()
		if err != nil {
			t.Fatal(err)
		}
		got, _ := outs[g.Outputs[0].Name].Float64s()
		for i, w := range want {
			if math.Abs(got[i]-w) > 1e-6*(1+math.Abs(w)) {
				t.Fatalf("%s: got %v, want %v", body, got, want)
			}
		}
	}
}

// TestTracedEmbeddingMaxNorm: embedding_renorm_ (F.embedding's
// max_norm) rescales the named rows of the weight in place; a later read
// of the weight (a tied output layer) sees exactly those rows changed.
// (F.embedding itself renormalizes a detached alias of the weight.)
func TestTracedEmbeddingMaxNorm(t *testing.T) {
	traceLayers(t, `
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("w", torch.randn(10, 4))
        self.register_buffer("w1", torch.randn(10, 4))
    def forward(self, x):
        idx = (x.abs() * 7).long() % 10
        with torch.no_grad():
            torch.embedding_renorm_(self.w, idx[:, :3], 1.5, 2.0)
            torch.embedding_renorm_(self.w1, idx, 2.0, 1.0)
        h = F.embedding(idx[:, :3], self.w)
        return h, F.embedding(idx, self.w1), F.linear(h, self.w)
torch.manual_seed(0)
xs = [torch.randn(2, 5)]
`)
}
