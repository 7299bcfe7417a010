package torchscript

import (
	"testing"

	"github.com/modelbridge/modelbridge/formats"
	"github.com/modelbridge/modelbridge/internal/testfix"
)

// TestTensorOpsExpansionsORT exports the import of a traced module that
// uses the expansions of the sorting, diagonal, scatter, search and
// run-time-size ops to ONNX and runs it in ONNX Runtime: every output must
// be PyTorch's.
func TestTensorOpsExpansionsORT(t *testing.T) {
	testfix.ORT(t)
	dir, _ := trace(t, `
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("rows", torch.tensor([2, 0, 2]))
        self.register_buffer("scat", torch.tensor([[0, 1, 0], [2, 2, 2], [3, 0, 3]]))
        self.register_buffer("bounds", torch.tensor([-1.0, 0.0, 0.0, 1.5]))
        self.register_buffer("mask", torch.tensor([[True, False, True, False], [False, False, False, True], [True, True, False, False]]))
        self.register_buffer("runs", torch.tensor([1, 1, 2, 2, 2, 3, 1, 1]))
    def forward(self, x):
        q = torch.round(x * 2)
        n = torch.where(x > 1.0, torch.full_like(x, float("nan")), q)
        r = (x[:, 0] > 0).long() + 1
        return (torch.sort(n, 1, True)[0], torch.sort(n, 0)[1], torch.median(n, 1)[0], torch.median(x, 0)[1],
                torch.nanmedian(n), torch.kthvalue(x, 2)[0], torch.mode(q.long(), 1)[0], torch.mode(q.long(), 1)[1],
                torch.topk(n, 2)[0], torch.diag(x, 1), torch.diag_embed(x[0], -1), torch.diagonal_scatter(x, x[:, 0], 0),
                torch.slice_scatter(x, x[:, :2] * 3, 1, 1, 4, 2), torch.take(x, self.scat), torch.take_along_dim(x, self.scat, 1),
                torch.index_add(x, 0, self.rows, x), torch.index_fill(x, 1, self.rows[:2] - 3, -1.0),
                torch.scatter_reduce(x, 1, self.scat, x[:, :3], "mean", include_self=False),
                torch.scatter_reduce(x, 1, self.scat, x[:, :3], "amax", include_self=False),
                torch.repeat_interleave(x, r, 0), torch.bucketize(x, self.bounds), torch.searchsorted(self.bounds, q, right=True),
                torch.masked_scatter(x, self.mask, x * 10), torch.unique_consecutive(self.runs + r[:1]),
                torch.meshgrid(x[0], x[1, :2], indexing="xy")[0], torch.rot90(x, 1), torch.roll(x, 5), torch.movedim(x, 0, 1),
                torch.hstack([x, x]), torch.block_diag(x[:2, :2], x[2]), torch.tril_indices(3, 3) + r.sum())
torch.manual_seed(0)
xs = [torch.randn(3, 4)]
xs[0][1, 2] = float("nan")
`)
	checkTracedInORT(t, dir)
}

// TestMoreTensorOpsORT is TestTensorOpsExpansionsORT for the index tables,
// factories, masked writes and views.
func TestMoreTensorOpsORT(t *testing.T) {
	testfix.ORT(t)
	dir, _ := trace(t, `
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("mask", torch.tensor([True, False, True, True]))
        self.register_buffer("flat", torch.tensor([[0, 11], [-1, 5]]))
        self.register_buffer("runs", torch.tensor([[1, 1, 2, 2, 2, 3], [1, 1, 2, 2, 5, 3]]))
    def forward(self, x):
        a = x.clone()
        a[1:, self.mask] += 2.0
        b = x.clone()
        b[:, self.mask] = 0.5
        u = torch.unique_consecutive(self.runs, return_inverse=True, return_counts=True, dim=1)
        return (a, b, torch.put(x, self.flat, x[0, :4], accumulate=True), torch.vander(x[0], 3), torch.block_diag(x[:1, :2], x[2, :3]),
                torch.combinations(x[1]), torch.cartesian_prod(x[0, :2], x[1, :3]), torch.tril_indices(3, 4, -1), torch.as_strided(x, (2, 5), (5, 1), 1),
                torch.diag_embed(x[:2, :3], 1, 0, 2), torch.select_scatter(x, x[0], 0, 2), torch.index_copy(x, 1, torch.tensor([3, 0]), x[:, :2]),
                torch.kthvalue(x, 3, 0)[0], torch.nonzero(x > 0, as_tuple=True)[1], torch.argwhere(x < 0), u[0], u[1], u[2])
torch.manual_seed(0)
xs = [torch.randn(3, 4)]
`)
	checkTracedInORT(t, dir)
}

// checkTracedInORT imports the module traced into dir, writes it as ONNX
// at the lowest opset that has its ops and checks ONNX Runtime's outputs
// against PyTorch's.
func checkTracedInORT(t *testing.T, dir string) {
	t.Helper()
	g, _, err := readTraced(t, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	compareTracedORT(t, g, dir, formats.WriteOptions{Opset: formats.OpsetAuto}, 1e-5, 1e-6)
}
