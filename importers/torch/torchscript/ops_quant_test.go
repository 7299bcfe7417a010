package torchscript

import (
	"testing"

	"github.com/modelbridge/modelbridge/internal/testfix/torchtrace"
	"github.com/modelbridge/modelbridge/interp"
)

// fakeQuantModule is traced by PyTorch 1.13: two fake quantizations (uint8
// range with a zero point, int8 range), with inputs on and next to the
// rounding boundaries, outside the range and exactly at half steps.
const fakeQuantModule = `
import sys, numpy as np, torch
class M(torch.nn.Module):
    def forward(self, x):
        a = torch.fake_quantize_per_tensor_affine(x, 0.0213, 3, 0, 255)
        b = torch.fake_quantize_per_tensor_affine(x * 7.0, 0.1, 0, -128, 127)
        return a + b
torch.manual_seed(0)
x = torch.randn(2, 3, 17, 19) * 3
x.view(-1)[:40] = torch.arange(40, dtype=torch.float32) * 0.0213 * 0.5
xs = [x]
`

// TestTracedFakeQuantize: fake_quantize_per_tensor_affine is read as the
// float ops PyTorch computes, and gives PyTorch's values bit for bit.
func TestTracedFakeQuantize(t *testing.T) {
	m := torchtrace.Trace(t, fakeQuantModule)
	g, err := m.Import(ReadFile)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	outs, err := interp.Run(g, m.Feed(g))
	if err != nil {
		t.Fatal(err)
	}
	want := m.Outputs[0]
	got := outs[g.Outputs[0].Name]
	if string(got.Data) != string(want.Data) {
		gv, _ := got.Float64s()
		wv, _ := want.Float64s()
		for i := range gv {
			if gv[i] != wv[i] {
				t.Fatalf("element %d is %g, PyTorch's %g (not bit-exact)", i, gv[i], wv[i])
			}
		}
		t.Fatalf("outputs differ: %s%v vs %s%v", got.DType, got.Shape, want.DType, want.Shape)
	}
}
