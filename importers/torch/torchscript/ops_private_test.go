package torchscript

import (
	"fmt"
	"strings"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/formats"
	"github.com/modelbridge/modelbridge/internal/testfix/torchtrace"
	"github.com/modelbridge/modelbridge/interp"
)

// TestTracedPrivateOps checks the underscore aten operators and the other
// registry stragglers beyond their registry cases: unfold over a middle
// axis with step > 1 and a negative dim, conv_tbc with padding, where with
// one argument on 1-D and 3-D conditions, a reshape target computed at run
// time, _dim_arange of the last axis, shape tensors used in arithmetic,
// _unique without inverse, and native_dropout with p = 0 in training.
func TestTracedPrivateOps(t *testing.T) {
	traceAndCompare(t, `
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(3)
        self.w = torch.nn.Parameter(torch.randn(3, 4, 5), requires_grad=False)
        self.b = torch.nn.Parameter(torch.randn(5), requires_grad=False)
    def forward(self, x, y):
        u1 = x.unfold(1, 3, 2)
        u2 = x.unfold(-1, 2, 3)
        c = torch.conv_tbc(y, self.w, self.b, 1)
        w1 = torch.where(y[:, 0, 0] > 0)
        w3 = torch.where(x > 0.5)
        s = (torch.tensor([7.0, 12.0]) * y.abs().sum().clamp(1, 1)).long()
        r = torch._reshape_from_tensor(x, s)
        a = torch._dim_arange(x, -1)
        st = torch._shape_as_tensor(x) * 2
        u, inv = torch._unique(torch.round(x * 2), True, False)
        d, m = torch.native_dropout(y, 0.0, True)
        h = torch._cast_Half(x).float() - x
        l = torch._log_softmax(x, -1, False)
        p = torch.ops.aten._pad_circular(y, [1, 2])
        return u1, u2, c, w1, w3, r, a, st, u, inv, d, m, h, l, p
torch.manual_seed(0)
xs = [torch.randn(2, 7, 6), torch.randn(6, 2, 4)]
`)
}

// TestTracedStridedWindows: as_strided with strides that are not
// row-major (overlapping windows, a transposed read, a storage offset, a
// 0-d result, an axis of stride 0) is a Gather of the entries addressed.
func TestTracedStridedWindows(t *testing.T) {
	traceAndCompare(t, `
class M(torch.nn.Module):
    def forward(self, x):
        return (torch.as_strided(x, (3, 3), (1, 1)), torch.as_strided(x, (4, 4), (1, 4)),
                torch.as_strided(x, (2, 3, 2), (5, 2, 1), 3), torch.as_strided(x, (), (), 7),
                torch.as_strided(x, (3, 2), (0, 3), 2))
torch.manual_seed(0)
xs = [torch.randn(4, 4)]
`)
}

// TestStridedOfElementwiseRefused: the result of x.t() * 2 keeps the
// transposed layout in PyTorch, so as_strided of it reads entries in
// another order than the value's; it is refused, not misread.
func TestStridedOfElementwiseRefused(t *testing.T) {
	dir, _ := trace(t, `
class M(torch.nn.Module):
    def forward(self, x):
        return torch.as_strided(x.t() * 2, (16,), (1,))
xs = [torch.randn(4, 4)]
`)
	_, _, err := readTraced(t, dir)
	if err == nil || !strings.Contains(err.Error(), "graph input") {
		t.Fatalf("want as_strided of an intermediate refused, got %v", err)
	}
}

// TestScriptedSizeOutputs: a scripted forward that returns sizes (an int
// and a list of ints) gives them as 0-d int64 outputs, constants when the
// input shape is given and computed from the input when it is not.
func TestScriptedSizeOutputs(t *testing.T) {
	scripted := torchtrace.Run(t, `
import sys, torch
from typing import List, Tuple
class M(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> Tuple[torch.Tensor, int, List[int], torch.Tensor, torch.Tensor, torch.Tensor]:
        return x * 2, x.size(1), x.shape, torch._shape_as_tensor(x), torch.native_dropout(x, 0.5, False)[1], torch._dim_arange(x, 1)
torch.jit.script(M()).save(sys.argv[1] + "/m.pt")
`)
	x := canon.NewFloat32Tensor("", []int64{2, 5}, make([]float32, 10))
	for _, shapes := range []map[string][]int64{{"#0": {2, 5}}, {"#0": {-1, -1}}} {
		g, err := ReadFile(scripted.Path(), formats.ReadOptions{InputShapes: shapes})
		if err != nil {
			t.Fatal(err)
		}
		x.Name = g.Inputs[0].Name
		res, err := interp.Run(g, map[string]*canon.Tensor{x.Name: x})
		g.Close()
		if err != nil {
			t.Fatal(err)
		}
		if len(g.Outputs) != 7 {
			t.Fatalf("%d outputs, want 7 (the tensor, the size, the shape's two entries, the shape tensor, the mask, the arange)", len(g.Outputs))
		}
		for k, want := range []int64{5, 2, 5} {
			got := res[g.Outputs[k+1].Name]
			v, err := got.Int64s()
			if err != nil || got.DType != canon.Int64 || len(got.Shape) != 0 || v[0] != want {
				t.Errorf("shapes %v: output %d is %s%v %v, want the 0-d int64 %d", shapes, k+1, got.DType, got.Shape, v, want)
			}
		}
		if v, err := res[g.Outputs[4].Name].Int64s(); err != nil || fmt.Sprint(v) != "[2 5]" {
			t.Errorf("shapes %v: _shape_as_tensor gives %v %v, want [2 5]", shapes, v, err)
		}
		if m := res[g.Outputs[5].Name]; m.DType != canon.Bool || fmt.Sprint(m.Shape) != "[2 5]" || strings.Count(string(m.Data), "\x01") != 10 {
			t.Errorf("shapes %v: native_dropout's mask is %s%v %v, want ten trues", shapes, m.DType, m.Shape, m.Data)
		}
		if v, err := res[g.Outputs[6].Name].Int64s(); err != nil || fmt.Sprint(v) != "[0 1 2 3 4]" {
			t.Errorf("shapes %v: _dim_arange gives %v %v, want [0 1 2 3 4]", shapes, v, err)
		}
	}
}
