package torchscript

import (
	"testing"
)

// The loss, distance and cell modules below are traced by PyTorch 1.13;
// integer targets are buffers, as a traced archive records no input
// dtypes. Each is compared with PyTorch in the interpreter and, exported
// to ONNX, in ONNX Runtime.

const regressionLosses = `
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("pw", torch.rand(5) + 0.5)
        self.register_buffer("w", torch.rand(5) + 0.5)
    def forward(self, x, y, p, t):
        s = torch.sign(y)
        o = []
        for r in ("none", "mean", "sum"):
            o += [F.mse_loss(x, y, reduction=r), F.l1_loss(x, y, reduction=r),
                  F.huber_loss(x, y, reduction=r, delta=0.7), F.smooth_l1_loss(x, y, reduction=r, beta=0.6),
                  F.smooth_l1_loss(x, y, reduction=r, beta=0.0),
                  F.binary_cross_entropy(p, t, reduction=r), torch._C._nn.binary_cross_entropy(p, t, self.w, {"none": 0, "mean": 1, "sum": 2}[r]),
                  F.binary_cross_entropy_with_logits(x, t, weight=self.w, pos_weight=self.pw, reduction=r),
                  F.binary_cross_entropy_with_logits(x * 40, t, reduction=r),
                  F.kl_div(F.log_softmax(x, 1), p, reduction=r), F.kl_div(x, y, reduction=r, log_target=True),
                  F.poisson_nll_loss(x, t * 3, reduction=r),
                  F.poisson_nll_loss(p + 0.1, t * 3 + p, log_input=False, full=True, eps=1e-6, reduction=r),
                  F.soft_margin_loss(x * 30, s, reduction=r), F.hinge_embedding_loss(x, s, margin=0.5, reduction=r),
                  F.margin_ranking_loss(x[:, 0], y[:, 0], s[:, 1], margin=0.1, reduction=r)]
        o.append(F.mse_loss(x, y[:1].expand(3, 5)))
        o.append(F.kl_div(F.log_softmax(x, 1), p, reduction="batchmean"))
        o.append(torch.nn.HuberLoss()(x, y))
        o.append(F.soft_margin_loss(x * 100, s, reduction="none"))
        o += [F.gaussian_nll_loss(x, y, p + 0.1), F.gaussian_nll_loss(x, y, p[:, :1], full=True, eps=0.5, reduction="sum"),
              F.triplet_margin_with_distance_loss(x, y, p, margin=0.3)]
        return tuple(o)
torch.manual_seed(0)
p = torch.rand(3, 5)
p[0, 0], p[1, 1], p[2, 2] = 0.0, 1.0, 1e-30
xs = [torch.randn(3, 5), torch.randn(3, 5), p, (torch.rand(3, 5) > 0.5).float()]
`

func TestTracedRegressionLosses(t *testing.T) {
	traceAndCompareORT(t, regressionLosses, 1e-5, 1e-6)
}

const classLosses = `
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("t", torch.tensor([1, 0, 4, 2]))
        self.register_buffer("t2", torch.tensor([[[0, 2, 1], [4, 2, 3]], [[2, 2, 0], [1, 3, 4]]]))
        self.register_buffer("w", torch.rand(5) + 0.5)
        self.register_buffer("ml", torch.tensor([[3, 0, -1, 1, 2], [1, 4, 2, -1, 0], [0, -1, 0, 0, 0], [2, 2, 4, 4, 1]]))
    def forward(self, x, x4, probs):
        o = []
        lp = F.log_softmax(x, 1)
        for r in ("none", "mean", "sum"):
            o += [F.cross_entropy(x, self.t, reduction=r),
                  F.cross_entropy(x, self.t, weight=self.w, ignore_index=2, reduction=r),
                  F.cross_entropy(x, self.t, label_smoothing=0.2, reduction=r),
                  F.cross_entropy(x, self.t, weight=self.w, ignore_index=4, label_smoothing=0.3, reduction=r),
                  F.cross_entropy(x4, self.t2, weight=self.w, ignore_index=2, label_smoothing=0.1, reduction=r),
                  F.cross_entropy(x, probs, reduction=r),
                  F.cross_entropy(x, probs, weight=self.w, label_smoothing=0.25, reduction=r),
                  F.nll_loss(lp, self.t, weight=self.w, ignore_index=4, reduction=r),
                  F.nll_loss(x4, self.t2, reduction=r),
                  F.multi_margin_loss(x, self.t, p=1, margin=0.5, reduction=r),
                  F.multi_margin_loss(x, self.t, p=2, margin=1.5, weight=self.w, reduction=r),
                  F.multilabel_margin_loss(x, self.ml, reduction=r)]
        o += [F.cross_entropy(x[0], self.t[0]), F.nll_loss(lp[1], self.t[1]), F.multilabel_margin_loss(x[0], self.ml[0])]
        for r in (0, 1, 2):
            o += list(torch.ops.aten.nll_loss_forward(lp, self.t, self.w, r, 4))
            o += list(torch.ops.aten.nll_loss_forward(lp[2], self.t[2], None, r, -100))
            o += list(torch.ops.aten.nll_loss2d_forward(x4.log_softmax(1), self.t2, None, r, 2))
        return tuple(o)
torch.manual_seed(0)
xs = [torch.randn(4, 5), torch.randn(2, 5, 2, 3), torch.softmax(torch.randn(4, 5), 1)]
`

func TestTracedClassificationLosses(t *testing.T) {
	traceAndCompareORT(t, classLosses, 1e-5, 1e-6)
}

const distances = `
class M(torch.nn.Module):
    def forward(self, x, y, a, b, big):
        o = [F.cosine_similarity(x, y), F.cosine_similarity(x, y[:1], dim=1), F.cosine_similarity(x * 1e-9, y, eps=1e-8),
             F.cosine_similarity(x.t(), y.t(), dim=0), F.cosine_similarity(torch.arange(12).reshape(3, 4), x[:, :4])]
        for p in (2.0, 1.0, 1.5, float("inf"), 0.0):
            o += [F.pairwise_distance(x, y, p=p), F.pairwise_distance(x, y, p=p, eps=0.1, keepdim=True),
                  torch.cdist(a, b, p=p), torch.dist(x, y, p=p)]
        o += [torch.cdist(big, big[:27]), torch.cdist(a, b, compute_mode="use_mm_for_euclid_dist"),
              torch.cdist(big, big[:27], compute_mode="donot_use_mm_for_euclid_dist"), torch.cdist(a[0], b[0]),
              F.pdist(x), F.pdist(x, p=1.0), F.pdist(x, p=3.0)]
        for r in ("none", "mean", "sum"):
            o += [F.cosine_embedding_loss(x, y, torch.sign(y[:, 0]), margin=0.1, reduction=r),
                  F.triplet_margin_loss(x, y, a[0, :, :3].t()[:3].reshape(3, 4).repeat(1, 2), margin=0.5, swap=True, reduction=r),
                  F.triplet_margin_loss(x, y, -y, p=1.0, reduction=r)]
        return tuple(o)
torch.manual_seed(0)
big = torch.randn(30, 3)
big[3] = big[1]
xs = [torch.randn(3, 8), torch.randn(3, 8), torch.randn(2, 4, 3), torch.randn(2, 5, 3), big]
`

func TestTracedDistances(t *testing.T) {
	traceAndCompareORT(t, distances, 1e-5, 1e-5)
}

const cells = `
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.gru = torch.nn.GRUCell(6, 8)
        self.lstm = torch.nn.LSTMCell(6, 8)
        self.tanh = torch.nn.RNNCell(6, 8)
        self.relu = torch.nn.RNNCell(6, 8, nonlinearity="relu", bias=False)
    def forward(self, x, h, c):
        hl, cl = self.lstm(x, (h, c))
        return (self.gru(x, h), hl, cl, self.tanh(x, h), self.relu(x), self.gru(x),
                torch.gru_cell(x, h, self.gru.weight_ih, self.gru.weight_hh, self.gru.bias_ih, self.gru.bias_hh),
                torch.rnn_tanh_cell(x, h, self.tanh.weight_ih, self.tanh.weight_hh),
                torch.rnn_relu_cell(x, h, self.relu.weight_ih, self.relu.weight_hh),
                torch.lstm_cell(x, (h, c), self.lstm.weight_ih, self.lstm.weight_hh, self.lstm.bias_ih, self.lstm.bias_hh)[1]) + \
               torch.unsafe_split(x, 4, 1) + torch.unsafe_split_with_sizes(x, [2, 4], 1) + torch.unsafe_chunk(h, 3, 1)
torch.manual_seed(0)
xs = [torch.randn(3, 6), torch.randn(3, 8), torch.randn(3, 8)]
`

func TestTracedRecurrentCells(t *testing.T) {
	traceAndCompareORT(t, cells, 1e-5, 1e-6)
}

// TestTracedLossesFloat64 checks that the expansions compute in the
// operands' dtype: float64 losses, distances and a cell.
func TestTracedLossesFloat64(t *testing.T) {
	traceAndCompareORT(t, `
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("t", torch.tensor([1, 0, 4]))
        self.cell = torch.nn.GRUCell(5, 5).double()
    def forward(self, x, y):
        x, y = x.double(), y.double()
        p = torch.sigmoid(y)
        return (F.mse_loss(x, y), F.binary_cross_entropy(p, (y > 0).double()), F.binary_cross_entropy_with_logits(x, p),
                F.cross_entropy(x, self.t, label_smoothing=0.1), F.nll_loss(x, self.t, reduction="none"),
                F.cosine_similarity(x, y), F.pairwise_distance(x, y, p=3.0), torch.cdist(x, y), F.kl_div(x, p),
                F.smooth_l1_loss(x, y, beta=0.5), self.cell(x, y))
torch.manual_seed(0)
xs = [torch.randn(3, 5), torch.randn(3, 5)]
`, 1e-12, 1e-12)
}
