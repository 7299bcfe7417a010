package torchscript

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
	onnxexport "github.com/modelbridge/modelbridge/exporters/onnx"
	"github.com/modelbridge/modelbridge/formats"
	"github.com/modelbridge/modelbridge/internal/compare"
	"github.com/modelbridge/modelbridge/internal/runtimes/ort"
	"github.com/modelbridge/modelbridge/internal/tensorfile"
	"github.com/modelbridge/modelbridge/internal/testfix"
	"github.com/modelbridge/modelbridge/internal/testfix/torchtrace"
	"github.com/modelbridge/modelbridge/interp"
)

func TestTracedGenerateOps(t *testing.T) {
	traceAndCompare(t, `
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("i", torch.tensor([[3, 1, 3], [0, 1, 1], [3, 1, 3]]))
    def forward(self, x):
        a = torch.nonzero(x > 0)
        u = torch.unique(self.i)
        u4 = (torch.unique(self.i, dim=1),)
        u2 = torch.unique(self.i, return_inverse=True, return_counts=True)
        u3 = torch.unique(self.i, dim=0, return_inverse=True, return_counts=True)
        r = (torch.arange(4), torch.arange(1, 7, 2.0), torch.arange(x.shape[0]), torch.arange(2, 9, 3),
             torch.arange(0.5, 2.0, 0.25, dtype=torch.float64), torch.arange(10, 0, -3))
        f = (torch.full((2, 3), 1.5), torch.full((2,), 7), torch.zeros(2, 3), torch.ones(3),
             torch.ones(2, dtype=torch.int32), torch.full_like(x, 2), torch.zeros_like(x), torch.ones_like(self.i),
             x.new_full((2, 2), 3.0), x.new_zeros(2, 2), self.i.new_ones(3), torch.zeros([]))
        e = (torch.eye(3), torch.eye(3, 4), torch.eye(2, dtype=torch.int64))
        g = F.pixel_shuffle(x.reshape(1, 8, 2, 3), 2)
        h = F.pixel_unshuffle(g, 2)
        h1 = F.pixel_unshuffle(x.reshape(1, 2, 4, 6), 2)
        return (a, u) + u2 + u3 + u4 + r + f + e + (g, h, h1)
torch.manual_seed(0)
xs = [torch.randn(4, 12)]
`)
}

func TestTracedIndexAndPadOps(t *testing.T) {
	traceAndCompare(t, `
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("i", torch.tensor([1, 0, 3, -1]))
        self.register_buffer("j", torch.tensor([[0, 2], [1, 1]]))
        self.register_buffer("rows", torch.tensor([True, False, True, True]))
        self.register_buffer("i32", torch.tensor([2, 0], dtype=torch.int32))
    def forward(self, x, y):
        o = [x[self.i], x[:, self.j], x[self.i, self.i], x[self.j, 1:3][:, :, 0], x[x > 0], x[self.rows],
             x[1:3, self.i], x[None, 1:, 2], x[1], x[:, -1], x[::2], x.unflatten(1, (2, 3)), y.unflatten(1, (-1, 2)), y[self.j, self.j], y[:, self.i[:2], self.j[0]], y[y > 0.5], y[x > 0]]
        k = x.clone()
        k[x > 0] = 0.0
        k2 = x.clone()
        k2[self.i[:3]] = torch.ones(3, 6)
        k3 = x.clone()
        k3[self.j, self.j] = 5.0
        k4 = x.clone()
        k4.index_put_((self.i,), torch.ones(6), accumulate=True)
        k5 = y.clone()
        k5[y > 0] = y[y > 0] * 10
        k6 = y.clone()
        k6[x > 0] = -1.0
        k7 = y.clone()
        k7[:, self.j] = torch.arange(3.0)
        k8 = y.clone()
        k8[self.i[:2], :, self.j[0]] = 7.0
        k9 = x.clone()
        k9[:, self.i[1:]] = x[:, :3] * 2
        o += [k, k2, k3, k4, k5, k6, k7, k8, k9, y[self.i[:2], :, self.j[1]], y[self.i, 1:, self.i[0]]]
        z = x.reshape(1, 2, 4, 3)
        o += [F.pad(x, (1, 2)), F.pad(x, (1, 0, 2, 1), value=3.5), F.pad(z, (2, 1, 1, 2), mode="reflect"),
              F.pad(z, (1, 1, 2, 0), mode="replicate"), F.pad(x.reshape(1, 4, 6), (2, 3), mode="reflect"),
              F.pad(z, (-1, 1)), torch.constant_pad_nd(x, [1, 1], 2.0)]
        o += [x.narrow(1, 2, 3), x.narrow(0, -2, 2), x.flip(1), y.flip([0, 2]), torch.index_select(x, 1, self.i[:3].abs()),
              x.masked_fill(x > 0.5, -1.0), y.masked_fill(y < 0.3, 9), torch.stack([x, x * 2], 1), torch.stack([x, -x], -1),
              x != 0.5, x.ne(x * (x > 0)), self.i != 1]
        return tuple(o)
torch.manual_seed(0)
xs = [torch.randn(4, 6), torch.rand(4, 6, 3)]
`)
}

func TestTracedMaxMinAndPromotion(t *testing.T) {
	traceAndCompare(t, `
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("i", torch.tensor([[7, -3, 4], [0, 9, -8]]))
        self.register_buffer("k", torch.tensor([[2, 5, -3], [4, -2, 3]]))
        self.register_buffer("b", torch.tensor([True, False, True]))
        self.register_buffer("s", torch.tensor([1, 2, 3], dtype=torch.int32))
    def forward(self, x):
        mx = torch.max(x, 1)
        mn = torch.min(x, dim=0, keepdim=True)
        o = [torch.max(x), torch.min(x), mx[0], mx[1], mn[0], mn[1], torch.max(x, x * 0.5), torch.min(x, -x),
             torch.maximum(x, x * x - 2), torch.minimum(x, 1 - x), torch.max(self.i), x.max(dim=-1)[1],
             torch.rsqrt(x.abs() + 0.1), torch.rsqrt(self.k.abs() + 1)]
        i, k = self.i, self.k
        o += [i / 2, i / k, i // 2, i // k, torch.floor_divide(i, -3), i % 3, i % k, torch.remainder(i, -4),
              torch.true_divide(i, k), i * 1.5, i + 0.5, 2.5 - i, self.b + 1, self.b * 1.5,
              torch.div(i, k, rounding_mode="floor"), torch.div(i, k, rounding_mode="trunc"),
              torch.div(x, 0.3, rounding_mode="trunc"), torch.div(x, 0.3, rounding_mode="floor"),
              i > 2.5, torch.where(i > 0, i, 0.5), self.s + i[0], self.s * 2, self.s / 2, x // 0.3, x[0] + self.s,
              torch.maximum(x, i), torch.min(self.s, i[1]), torch.max(x[0], self.s)]
        return tuple(o)
torch.manual_seed(0)
xs = [torch.randn(2, 3) * 3]
`)
}

// TestInPlaceThroughSlices: assigning into a slice or a selected row, or an
// in-place op on one, writes into the sliced tensor in torch, and so in
// the import.
func TestInPlaceThroughSlices(t *testing.T) {
	traceAndCompare(t, `
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("j", torch.tensor([[0, 2], [1, 1]]))
    def forward(self, y):
        a = y.clone()
        a[:, self.j, 1] = torch.arange(2.0)
        b = y.clone()
        b[1:3].relu_()
        c = y.clone()
        c[:, 0] = 0.5
        c[..., :2] = c[..., :2].sigmoid() * 2 - 0.5
        c[0:4:2, 1] += 3
        d = y.clone()
        d[-1, 2:5, ::2] = d[0, :3, ::2] * 10
        d[1].fill_(7)
        e = self.j.clone()
        e[0] = 9
        e.add_(1)
        return a, b, c, d, e
xs = [torch.rand(4, 6, 3) - 0.5]
`)
}

// TestInPlaceOnViewRefused: writes the importer cannot place (through a
// reshape) or whose effect on an earlier slice it does not track are
// refused rather than dropped.
func TestInPlaceOnViewRefused(t *testing.T) {
	for _, body := range []string{
		"k = y.clone()\n        k.view(-1).add_(1.0)\n        return k",
		"k = y.clone()\n        r = k[0]\n        k[0] = 5.0\n        return r * 2",
		"k = y.clone()\n        r = k[0]\n        k.relu_()\n        return r * 2",
		"self.j[0] = 5\n        return y * 2",
		"self.i[1] = 5\n        return y * 2",
		"self.j.relu_()\n        return y * 2",
	} {
		dir, _ := trace(t, `
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("j", torch.tensor([[0, 2], [1, 1]]))
        self.register_buffer("i", torch.tensor([3, 1]))
    def forward(self, y):
        `+body+`
xs = [torch.rand(4, 6, 3) - 0.5]
`)
		_, _, err := readTraced(t, dir)
		if err == nil || !strings.Contains(err.Error(), "in-place op on a") && !strings.Contains(err.Error(), "was since written") {
			t.Errorf("%q imported (%v); want a refusal of the in-place op on a view", body, err)
		}
	}
}

// TestFrontOpsFixture reads testdata/front_ops.pt (made by
// testdata/make_fixtures.py with PyTorch 1.13): F.pad in its three modes,
// the pixel shuffles, max/min overloads, rsqrt, arange, full_like, eye,
// indexing, indexed assignment and integer promotion, against PyTorch's
// output. It needs no Python.
func TestFrontOpsFixture(t *testing.T) {
	in, err := tensorfile.Load(filepath.Join("testdata", "front_ops_input.npy"))
	if err != nil {
		t.Fatal(err)
	}
	want, err := tensorfile.Load(filepath.Join("testdata", "front_ops_output.npy"))
	if err != nil {
		t.Fatal(err)
	}
	g, err := ReadFile(filepath.Join("testdata", "front_ops.pt"), formats.ReadOptions{InputShapes: map[string][]int64{"x": in.Shape}})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	in.Name = g.Inputs[0].Name
	outs, err := interp.Run(g, map[string]*canon.Tensor{in.Name: in})
	if err != nil {
		t.Fatal(err)
	}
	got := outs[g.Outputs[0].Name]
	if fmt.Sprint(got.Shape) != fmt.Sprint(want.Shape) {
		t.Fatalf("output shape %v, PyTorch's %v", got.Shape, want.Shape)
	}
	r, err := compare.Tensors(got, want, 1e-5, 1e-6)
	if err != nil || !r.OK {
		t.Errorf("output differs from PyTorch: %+v %v", r, err)
	}
	kinds := map[string]bool{}
	for _, n := range g.Nodes {
		kinds[n.Op.Kind()] = true
	}
	for _, k := range []string{"Pad", "DepthToSpace", "SpaceToDepth", "ReduceMax", "ArgMax", "Min", "Range", "ConstantOfShape", "EyeLike", "Gather", "ScatterND", "Cast", "Mod"} {
		if !kinds[k] {
			t.Errorf("no %s node: the fixture no longer exercises it", k)
		}
	}
}

// TestFactoriesOfRunTimeSizes imports, without input sizes, a module
// whose zeros and new_ones take the input's batch size (known only when
// it runs), and runs it on inputs of two batch sizes.
func TestFactoriesOfRunTimeSizes(t *testing.T) {
	traced := torchtrace.Trace(t, `
class M(torch.nn.Module):
    def forward(self, x):
        x = x.reshape(-1, 5)
        z = torch.zeros(x.size(0), 3, x.size(1)) + x.new_ones(1, x.size(1))
        return z * torch.arange(x.size(1)) + x.unsqueeze(1)
xs = [torch.randn(2, 5)]
`)
	// The input's shape is not given: the reshape makes it (?, 5).
	g, err := ReadFile(traced.Path(), formats.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	for _, shape := range [][2]int{{2, 5}, {3, 5}} {
		n, m := shape[0], shape[1]
		x := make([]float32, n*m)
		for i := range x {
			x[i] = float32(i%7) - 3
		}
		in := canon.NewFloat32Tensor(g.Inputs[0].Name, []int64{int64(n), int64(m)}, x)
		outs, err := interp.Run(g, map[string]*canon.Tensor{in.Name: in})
		if err != nil {
			t.Fatal(err)
		}
		got := outs[g.Outputs[0].Name]
		if fmt.Sprint(got.Shape) != fmt.Sprint([]int64{int64(n), 3, int64(m)}) {
			t.Fatalf("shape %v for input %dx%d", got.Shape, n, m)
		}
		v, _ := got.Float64s()
		for i := range n {
			for k := range 3 {
				for j := range m {
					if want := float64(j) + float64(x[i*m+j]); v[(i*3+k)*m+j] != want {
						t.Fatalf("input %dx%d: [%d,%d,%d] is %v, want %v", n, m, i, k, j, v[(i*3+k)*m+j], want)
					}
				}
			}
		}
	}
}

// TestFrontOpsFixtureORT exports the import of testdata/front_ops.pt to
// ONNX and runs it in ONNX Runtime: the canonical ops the front end reads
// (Pad, DepthToSpace, SpaceToDepth, ScatterND, Range, EyeLike...) must also
// be written as ONNX that computes PyTorch's numbers.
func TestFrontOpsFixtureORT(t *testing.T) {
	rt := testfix.ORT(t)
	in, err := tensorfile.Load(filepath.Join("testdata", "front_ops_input.npy"))
	if err != nil {
		t.Fatal(err)
	}
	want, err := tensorfile.Load(filepath.Join("testdata", "front_ops_output.npy"))
	if err != nil {
		t.Fatal(err)
	}
	g, err := ReadFile(filepath.Join("testdata", "front_ops.pt"), formats.ReadOptions{InputShapes: map[string][]int64{"x": in.Shape}})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	tmp := t.TempDir()
	model := filepath.Join(tmp, "model.onnx")
	if err := onnxexport.Write(g, model, formats.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	ins := filepath.Join(tmp, "in")
	if err := os.MkdirAll(ins, 0o755); err != nil {
		t.Fatal(err)
	}
	in.Name = g.Inputs[0].Name
	if err := tensorfile.Save(in, filepath.Join(ins, "input_0.pb")); err != nil {
		t.Fatal(err)
	}
	outDir := filepath.Join(tmp, "out")
	if err := rt.RunDir(model, ins, outDir, ort.Options{}); err != nil {
		t.Fatalf("ONNX Runtime: %v", err)
	}
	got, err := tensorfile.Load(filepath.Join(outDir, tensorfile.OutputFileName(0)))
	if err != nil {
		t.Fatal(err)
	}
	r, err := compare.Tensors(got, want, 1e-5, 1e-6)
	if err != nil || !r.OK {
		t.Errorf("ONNX Runtime differs from PyTorch: %+v %v", r, err)
	}
}
