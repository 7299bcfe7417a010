package torchscript

import (
	"fmt"
	"strings"
	"testing"

	"github.com/modelbridge/modelbridge/formats"
	"github.com/modelbridge/modelbridge/internal/testfix/torchtrace"
)

// containerFooter scripts M, saves it, and runs it on args (a list of
// forward's arguments: tensors, or lists of tensors): the tensors of args,
// flattened, are x0.npy, x1.npy ...; forward's result, flattened (tuples,
// lists and dict values in order; ints as 0-d tensors), is y0.npy ....
const containerFooter = `
m = torch.jit.script(M())
m.save(sys.argv[1] + "/m.pt")
m = torch.jit.load(sys.argv[1] + "/m.pt")
flat_in = []
for a in args:
    flat_in += a if isinstance(a, list) else [a]
for k, x in enumerate(flat_in):
    np.save(sys.argv[1] + "/x%d.npy" % k, x.numpy())
outs = []
def flatten(o):
    if isinstance(o, (tuple, list)):
        for i in o:
            flatten(i)
    elif isinstance(o, dict):
        for i in o.values():
            flatten(i)
    elif isinstance(o, torch.Tensor):
        outs.append(o)
    else:
        outs.append(torch.tensor(o))
with torch.no_grad():
    flatten(m(*args))
for k, o in enumerate(outs):
    np.save(sys.argv[1] + "/y%d.npy" % k, np.require(o.numpy(), requirements="C"))
`

// scriptedContainers runs a scripted module M on args in PyTorch.
func scriptedContainers(t *testing.T, src string) *torchtrace.Module {
	t.Helper()
	return torchtrace.Run(t, "import sys, math, warnings, numpy as np, torch\nfrom typing import Dict, List, Optional, Tuple, Union\n"+src+containerFooter)
}

// TestScriptedContainers imports scripted modules that use dicts, lists
// of dicts, Optional arguments left None, isinstance, objects of scripted
// classes, list slicing and arithmetic, warnings and assertions, and checks
// them against PyTorch in the interpreter and in ONNX Runtime.
func TestScriptedContainers(t *testing.T) {
	cases := []struct {
		name    string
		src     string
		outputs string // the graph's output names, when they matter
		// listInput names forward's one List[Tensor] parameter.
		listInput string
	}{
		{"dict-ops", `
class M(torch.nn.Module):
    def forward(self, x):
        d: Dict[str, torch.Tensor] = {"a": x, "b": x * 2}
        d["c"] = d["a"] + d["b"]
        d["a"] = torch.relu(x)
        total = torch.zeros_like(x)
        for k, v in d.items():
            total = total + v
        for v in d.values():
            total = total + v
        n = 0
        for k in d.keys():
            if k != "b":
                n += 1
        named = dict([(str(i), x + i) for i in range(2)])
        return total * len(d), n, "c" in d, named["1"], d.get("z", x)
args = [torch.randn(2, 3)]
`, "", ""},
		{"dict-outputs", `
class M(torch.nn.Module):
    def forward(self, x) -> Tuple[Dict[str, torch.Tensor], List[Dict[str, torch.Tensor]]]:
        losses: Dict[str, torch.Tensor] = {}
        dets = torch.jit.annotate(List[Dict[str, torch.Tensor]], [])
        for i in range(2):
            dets.append({"boxes": x[i], "scores": x[i].sum(0)})
        return losses, dets
args = [torch.randn(2, 3, 4)]
`, "boxes scores boxes_1 scores_1", ""},
		{"list-input-optional", `
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.warned = False
        self.sizes = {"min": 2}
    def forward(self, images: List[torch.Tensor], targets: Optional[List[Dict[str, torch.Tensor]]] = None):
        if targets is not None:
            for t in targets:
                if t["boxes"].dim() != 2:
                    raise ValueError("boxes must be 2-D, got {}".format(t["boxes"].shape))
        if not self.warned:
            warnings.warn("first call")
            self.warned = True
        torch._assert(len(images) > 0, "no images")
        sizes = torch.jit.annotate(List[List[int]], [])
        for img in images:
            sizes.append(list(img.shape[-2:]))
        hw = sizes[0] + sizes[1]
        rep = [0] * 3
        scale = math.ceil(float(hw[0]) / 4.0) * 2 ** 1.5
        out = images[0] * scale + len(rep) + min(hw) + max(hw[1], hw[2]) + self.sizes["min"]
        if isinstance(targets, list):
            out = out * 0
        return out, self.warned
args = [[torch.randn(3, 5, 6), torch.randn(3, 4, 4)]]
`, "", "images"},
		{"object", `
@torch.jit.script
class Pair(object):
    def __init__(self, a: torch.Tensor, n: int):
        self.a = a
        self.n = n
    def scaled(self) -> torch.Tensor:
        return self.a * self.n
class M(torch.nn.Module):
    def forward(self, x):
        p = Pair(x, 3)
        p.n = p.n + 1
        return p.scaled(), p.a
args = [torch.randn(2, 3)]
`, "", ""},
		{"inplace-in-data-loop", `
class M(torch.nn.Module):
    def forward(self, scores, labels_f):
        labels = labels_f.long()
        keep = torch.zeros_like(scores, dtype=torch.bool)
        for c in torch.unique(labels):
            idx = torch.where(labels == c)[0]
            best = idx[scores[idx].argmax()]
            keep[best.unsqueeze(0)] = True
        return keep
args = [torch.rand(12), torch.tensor([0., 2, 2, 1, 0, 5, 5, 5, 1, 0, 2, 1])]
`, "", ""},
		{"runtime-k-numel-literal", `
class M(torch.nn.Module):
    def forward(self, x):
        s = x[x > 0]
        v, i = s.topk(min(4, s.size(0)))
        hw = torch.tensor(x.shape[-2:], dtype=torch.float32)
        return v, i, s.numel() + len(x), hw
args = [torch.randn(3, 5)]
`, "", ""},
		{"prim-builtins", `
class M(torch.nn.Module):
    def forward(self, x, y):
        w = torch.as_tensor([1.0, 2.0, 3.0], dtype=x.dtype, device=x.device)
        z = y.double().to(x.dtype) * w
        if x.device.type == "cpu":
            z = z + math.log(8.0) - math.floor(2.5) + (-math.ceil(1.2)) + math.sqrt(4.0)
        return z, x.is_floating_point()
args = [torch.randn(2, 3), torch.randn(2, 3)]
`, "", ""},
		{"list-extend", `
class M(torch.nn.Module):
    def forward(self, x):
        parts = [x]
        parts.extend([x * 2, x + 1])
        return torch.cat(parts, 0)
args = [torch.randn(2, 3)]
`, "", ""},
		{"write-large-box", `
class M(torch.nn.Module):
    def forward(self, x):
        batch = x.new_full([2, 3, 40, 40], 0)
        for i in range(1):
            batch[i, :x.size(0), :x.size(1), :x.size(2)].copy_(x)
        return batch
args = [torch.randn(3, 33, 37)]
`, "", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := scriptedContainers(t, tc.src)
			g, err := m.Import(ReadFile)
			if tc.listInput != "" {
				// A List[Tensor] argument's tensors are named NAME_0, NAME_1, ...
				shapes := map[string][]int64{}
				for k, x := range m.Inputs {
					shapes[fmt.Sprintf("%s_%d", tc.listInput, k)] = x.Shape
				}
				g, err = ReadFile(m.Path(), formats.ReadOptions{InputShapes: shapes})
			}
			if err != nil {
				t.Fatal(err)
			}
			defer g.Close()
			if tc.outputs != "" {
				var names []string
				for _, o := range g.Outputs {
					names = append(names, o.Name)
				}
				if got := strings.Join(names, " "); got != tc.outputs {
					t.Errorf("outputs %s, want %s", got, tc.outputs)
				}
			}
			m.CompareGraph(t, g, 1e-5, 1e-6)
			m.CompareORT(t, g, formats.WriteOptions{}, 1e-5, 1e-6)
		})
	}
}

// TestScriptedContainerRefusals: what the importer cannot carry is refused
// naming the construct and the line.
func TestScriptedContainerRefusals(t *testing.T) {
	cases := []struct{ name, src, want string }{
		{"rank-differs-between-branches-inside-a-branch", `
class M(torch.nn.Module):
    def forward(self, x):
        if bool(x.mean() > 0.25):
            if bool(x.sum() > 0):
                y = x.reshape(2, -1, 3)
            else:
                y = x
            a, b = torch.split(y, [1, 1])
            z = a.sum()
        else:
            z = x.sum()
        return z
args = [torch.rand(2, 3)]
`, "the if lies inside a loop body or another run-time if's branch"},
		{"dict-changed-in-run-time-branch", `
class M(torch.nn.Module):
    def forward(self, x):
        d: Dict[str, torch.Tensor] = {"a": x}
        if bool(x.sum() > 0):
            d["b"] = x
        return d["a"]
args = [torch.rand(4, 3)]
`, "changing a dict from outside a branch or loop inside it"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := scriptedContainers(t, tc.src)
			g, err := m.Import(ReadFile)
			if err == nil {
				g.Close()
				t.Fatalf("imported; want an error containing %q", tc.want)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %q, want it to contain %q", err, tc.want)
			}
		})
	}
}
