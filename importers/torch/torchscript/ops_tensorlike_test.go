package torchscript

import (
	"strings"
	"testing"
)

// The tensor-manipulation, indexing and sorting ops, each traced by
// PyTorch 1.13 and checked against its outputs: ties, NaN, negative
// offsets and indices, and empty selections included.

func TestTracedLikeAndLayoutOps(t *testing.T) {
	traceAndCompare(t, `
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("i", torch.tensor([[1, 2], [3, 4]]))
    def forward(self, x, v):
        a = (x.detach() * 2, x.type_as(self.i), self.i.type_as(x), x.reshape_as(x.t()), v.view_as(torch.zeros(2, 3)),
             torch.tile(x, (2,)), torch.tile(v, (2, 1, 3)), x.new_empty((2, 3)).fill_(1.5), torch.empty_like(x).zero_(),
             torch.full_like(x, 7, dtype=torch.int32), torch.zeros_like(x, dtype=torch.float64))
        y = x.reshape(3, 1, 2)
        b = (torch.movedim(y, 0, -1), torch.movedim(y, (0, 1), (2, 0)), torch.moveaxis(y, -1, 0), torch.swapdims(x, 0, 1))
        c = (torch.hstack([v, v]), torch.hstack([x, x]), torch.vstack([v, v]), torch.vstack([x, v.reshape(1, 6)[:, :2]]),
             torch.dstack([x, x]), torch.dstack([v, v]), torch.column_stack([v, v]), torch.column_stack([x.t(), v.reshape(2, 3)]),
             torch.row_stack([v, v]))
        d = (torch.fliplr(x), torch.flipud(x), torch.rot90(x), torch.rot90(x, 2), torch.rot90(x, -1), torch.rot90(x, 4),
             torch.rot90(x.reshape(1, 3, 2), 1, [2, 1]), torch.roll(x, 2), torch.roll(x, -7))
        e = (torch.atleast_1d(x.sum()), torch.atleast_2d(v), torch.atleast_3d(x), torch.atleast_3d(v),
             x.reshape(1, 3, 1, 2).squeeze(0).squeeze(1),
             torch.unflatten(v, 0, (2, 3)), torch.narrow(x, 0, 1, 2), x.T)
        return a + b + c + d + e
torch.manual_seed(0)
xs = [torch.randn(3, 2), torch.randn(6)]
`)
}

func TestTracedDiagonalOps(t *testing.T) {
	traceAndCompare(t, `
class M(torch.nn.Module):
    def forward(self, x, v, s):
        return (torch.diag(v), torch.diag(v, 2), torch.diag(v, -1), torch.diag(x), torch.diag(x, 1), torch.diag(x, -2),
                torch.diag(x, 3), torch.diagonal(s), torch.diagonal(s, 1, 1, 2), torch.diagonal(s, -1, 2, 0),
                torch.diag_embed(x), torch.diag_embed(x, 1), torch.diag_embed(x, -2, 0, 2), torch.diag_embed(x, 0, 2, 0),
                torch.diagonal_scatter(s, torch.ones(2, 3), 0, 1, 2), torch.diagonal_scatter(x, torch.ones(3), 1),
                torch.select_scatter(s, torch.zeros(2, 4), 1, -1), torch.slice_scatter(s, torch.zeros(2, 3, 2), 2, 1, 4, 2),
                torch.slice_scatter(x, torch.zeros(1, 4), start=2, step=1),
                torch.tril(s, -1), torch.triu(s, 2), torch.tril_indices(3, 4, 1), torch.triu_indices(4, 3, -1),
                torch.block_diag(x, v[:2], s[0, 0, 0]), torch.cartesian_prod(v[:2], v[2:5], v[:1]),
                torch.combinations(v[:4]), torch.combinations(v[:3], 3, with_replacement=True))
torch.manual_seed(0)
xs = [torch.randn(3, 4), torch.randn(6), torch.randn(2, 3, 4)]
`)
}

func TestTracedSortOps(t *testing.T) {
	traceAndCompare(t, `
class M(torch.nn.Module):
    def forward(self, x, long):
        q = torch.round(x * 2)  # many ties
        n = torch.where(x > 1.0, torch.full_like(x, float("nan")), q)
        r = torch.round(long)  # ties on a row longer than 16
        out = []
        for t in (q, n):
            out += list(torch.sort(t)) + list(torch.sort(t, 0, True)) + [torch.argsort(t, 1), torch.argsort(t, dim=0, descending=True)]
            out += [torch.msort(t)] + list(torch.median(t, 1)) + list(torch.median(t, 0, True)) + [torch.median(t)]
            out += list(torch.nanmedian(t, 1)) + [torch.nanmedian(t)]
            # With ties, torch's kthvalue index is whichever its quickselect
            # meets; only the values are compared here.
            out += [torch.kthvalue(t, 3)[0], torch.kthvalue(t, 1, 0, True)[0]]
        out += list(torch.sort(r, stable=True)) + list(torch.sort(r, dim=1, descending=True, stable=True))
        out += [torch.argsort(r, dim=-1, stable=True)]
        i = torch.round(long[:, :7] * 2).long()
        out += list(torch.sort(i, 1, True)) + list(torch.median(i, 1)) + [torch.kthvalue(i, 2, 0)[0]]
        out += list(torch.kthvalue(x, 2)) + list(torch.kthvalue(x, 5, 0, True))
        out += list(torch.mode(i)) + list(torch.mode(i, 0, True)) + list(torch.mode(torch.round(long[:, :16]), 1))
        out += [torch.topk(n, 3)[0]] + list(torch.topk(x, 3)) + list(torch.topk(x, 2, 0, False))
        return tuple(out)
torch.manual_seed(0)
xs = [torch.randn(5, 7), torch.randn(3, 40)]
xs[0][1, 1] = float("nan")
`)
}

func TestTracedIndexOps(t *testing.T) {
	traceAndCompare(t, `
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("flat", torch.tensor([[0, 11], [-1, 5]]))
        self.register_buffer("along", torch.tensor([[0, 3], [2, 2], [1, 0]]))
        self.register_buffer("rows", torch.tensor([2, 0, 2]))
        self.register_buffer("cols", torch.tensor([3, -1]))
        self.register_buffer("none", torch.zeros(0, dtype=torch.long))
        self.register_buffer("scat", torch.tensor([[0, 1, 0, 3], [2, 2, 2, 2], [3, 0, 3, 0]]))
        self.register_buffer("counts", torch.tensor([2, 0, 3]))
        self.register_buffer("bounds", torch.tensor([-1.0, 0.0, 0.0, 1.5]))
        self.register_buffer("mask", torch.tensor([[True, False, True, False], [False, False, False, True], [True, True, False, False]]))
        self.register_buffer("runs", torch.tensor([[1, 1, 2, 2, 2, 3, 1, 1], [1, 1, 2, 2, 5, 3, 1, 1]]))
    def forward(self, x, v):
        s = torch.round(v * 2)
        a = (torch.take(x, self.flat), torch.take_along_dim(x, self.along), torch.take_along_dim(x, self.along[:, :1], 1),
             torch.take_along_dim(x, torch.argsort(x, 1), 1), torch.take_along_dim(x, self.along[:1, :1], 0))
        b = (torch.index_add(x, 0, self.rows, torch.ones(3, 4)), torch.index_add(x, 1, self.cols[:1], x[:, :1], alpha=-2.5),
             torch.index_copy(x, 1, torch.tensor([3, 0]), x[:, 1:3]), torch.index_fill(x, 1, self.cols, -1.0),
             torch.index_fill(x, 0, self.none, 5.0), torch.index_fill(x, 0, self.rows, torch.tensor(2.5)),
             x.clone().index_add_(1, self.cols[:1], x[:, 2:3]), x.clone().index_fill_(1, self.cols, 0.0))
        c = (torch.scatter_reduce(x, 1, self.scat[:, :3], v.reshape(3, 2)[:, :1].expand(3, 3), "mean"),
             torch.scatter_reduce(x, 1, self.scat[:, :3], x[:, :3] * 3, "mean", include_self=False),
             torch.scatter_reduce(x, 1, self.scat[:, :3], x[:, :3] * 3, "sum", include_self=False),
             torch.scatter_reduce(x, 1, self.scat[:, :3], x[:, :3] * 3, "prod", include_self=False),
             torch.scatter_reduce(x, 1, self.scat[:, :3], x[:, :3] * 3, "amax", include_self=False),
             torch.scatter_reduce(x, 1, self.scat[:, :3], x[:, :3] * 3, "amin", include_self=False),
             torch.scatter_reduce(self.scat, 0, self.scat[:2] % 3, self.scat[:2] - 7, "mean"))
        d = (torch.repeat_interleave(x, self.counts, 0), torch.repeat_interleave(x, self.counts[1:2] + 2, 1),
             torch.repeat_interleave(self.counts), torch.repeat_interleave(x, self.counts[2:3]))
        e = (torch.bucketize(x, self.bounds), torch.bucketize(x, self.bounds, right=True),
             torch.bucketize(s, self.bounds, out_int32=True), torch.bucketize(torch.full((2,), float("nan")), self.bounds),
             torch.searchsorted(self.bounds, s), torch.searchsorted(self.bounds, s, right=True),
             torch.searchsorted(self.bounds, s, side="right"), torch.searchsorted(torch.sort(x, 1)[0], x[:, :2] + 0.1),
             torch.searchsorted(self.bounds[torch.tensor([3, 1, 0, 2])], s, sorter=torch.tensor([2, 1, 3, 0])))
        f = (torch.nonzero(x > 0, as_tuple=True) + (torch.argwhere(x > 0), x[self.mask], x[self.mask[:, 0]], x[:, self.mask[1]],
             x[self.mask[:, 2], 1:], torch.masked_scatter(x, self.mask, v * 10), torch.masked_scatter(x, self.mask[2], v * 10)))
        g = ((torch.unique_consecutive(self.runs),) + torch.unique_consecutive(self.runs, return_inverse=True, return_counts=True)
             + torch.unique_consecutive(self.runs, return_counts=True, dim=1) + (torch.unique_consecutive(s),)
             + torch.unique(self.runs, sorted=True, return_inverse=True, return_counts=True) + (torch.unique(self.runs, dim=1),))
        h = (tuple(torch.meshgrid(v[:2], v[2:5], indexing="ij")) + tuple(torch.meshgrid(v[:2], v[2:5], v[:1], indexing="xy"))
             + tuple(torch.meshgrid([v[:3], v[:2]])) + (x.clone().put_(self.flat, v[:4]), torch.put(x, self.flat, v[:4], accumulate=True)))
        return a + b + c + d + e + f + g + h
torch.manual_seed(0)
xs = [torch.randn(3, 4), torch.randn(6)]
`)
}

func TestTracedSplitAndPutOps(t *testing.T) {
	traceAndCompare(t, `
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("rows", torch.tensor([2, 0]))
        self.register_buffer("cols", torch.tensor([1, 1]))
        self.register_buffer("mask", torch.tensor([[True, False, True, False, False], [False, False, False, True, True], [True, True, False, False, False]]))
    def forward(self, x, v):
        a = torch.chunk(v, 3) + torch.chunk(v, 4) + torch.chunk(x, 2, 1) + torch.chunk(x, 5, 0) + v.chunk(10)
        b = torch.split(v, [2, 0, 5]) + torch.split(x, 2, -1) + torch.tensor_split(v, 3) + torch.tensor_split(x, (1, 4), 1)
        c = torch.unbind(x, -1) + torch.tensor_split(v, torch.tensor([2, 5]))
        y = x.clone()
        y[self.rows, self.cols] = 7.0
        z = x.clone()
        z.index_put_((self.rows, self.cols), torch.tensor([1.0, 2.0]), accumulate=True)
        w = x.clone()
        w[self.mask] = 0.5
        u = x.clone()
        u[:, self.cols] += 1
        d = (y, z, w, u, torch.as_strided(x, (5, 3), (3, 1)), torch.as_strided(x, (2, 2), (2, 1), 4))
        return a + b + c + d
torch.manual_seed(0)
xs = [torch.randn(3, 5), torch.randn(7)]
`)
}

func TestTracedFactoryAndVanderOps(t *testing.T) {
	traceAndCompare(t, `
class M(torch.nn.Module):
    def forward(self, x, v):
        i = torch.round(v * 3).long()
        return (torch.vander(v, 4), torch.vander(v, increasing=True), torch.vander(i, 3), torch.vander(v, 1),
                x.new_tensor([[1, 2], [3, 4]]) * x[:2, :2], torch.scalar_tensor(3.5) + v[0], torch.empty(2, 3).zero_() + 1,
                torch.empty_like(x).fill_(2), x.new_empty(2).fill_(3) * v[:2], torch.diag(i), torch.diag(i.reshape(1, 5), 2))
torch.manual_seed(0)
xs = [torch.randn(3, 4), torch.randn(5)]
`)
}

// TestTracedTensorOpRefusals: what cannot be read exactly is refused by
// name, with the reason.
func TestTracedTensorOpRefusals(t *testing.T) {
	for _, tc := range []struct{ name, expr, want string }{
		{"as_strided of a transpose", "torch.as_strided(x.t(), (2, 2), (2, 1))", "view"},
		{"empty combinations", "torch.combinations(x[0], 5)", "no combinations"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, _ := trace(t, `
class M(torch.nn.Module):
    def forward(self, x):
        return `+tc.expr+`
xs = [torch.randn(4, 4)]
`)
			_, _, err := readTraced(t, dir)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("want an error saying %q, got %v", tc.want, err)
			}
		})
	}
}

// TestTracedAdaptiveLogSoftmax reads nn.AdaptiveLogSoftmaxWithLoss: an
// output made by new_zeros/new_empty and filled through index_copy_ and
// index_fill_ at rows that nonzero finds at run time.
func TestTracedAdaptiveLogSoftmax(t *testing.T) {
	traceAndCompare(t, `
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(1)
        self.m = torch.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [4, 8]).eval()
        self.register_buffer("target", torch.tensor([0, 9, 5, 3, 7, 1]))
    def forward(self, x):
        with torch.no_grad():
            return tuple(self.m(x, self.target))
torch.manual_seed(0)
xs = [torch.randn(6, 8)]
`)
}

func TestTracedIndexPutForms(t *testing.T) {
	traceAndCompare(t, `
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("rows", torch.tensor([2, 0]))
        self.register_buffer("mask", torch.tensor([True, False, True, True, False]))
        self.register_buffer("m2", torch.tensor([[True, False, True, False, False], [False, False, False, True, True], [True, True, False, False, False]]))
    def forward(self, x, v):
        a = x.clone()
        a[self.m2] = v[:6]
        b = x.clone()
        b[self.rows] = v[:5]
        c = x.clone()
        c[:, self.mask] = 0.0
        d = x.clone()
        d[self.rows, 1:3] = v[:2].reshape(2, 1)
        e = x.clone()
        e[x > 0] = v[0]
        f = x.clone()
        f[1:, self.mask] += 2.0
        g = x.clone()
        g.index_put_((self.rows,), v[:5], accumulate=True)
        h = torch.index_put(x, (self.rows, self.rows), v[:2])
        return a, b, c, d, e, f, g, h
torch.manual_seed(0)
xs = [torch.randn(3, 5), torch.randn(7)]
`)
}
