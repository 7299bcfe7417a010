package torchscript

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/formats"
	"github.com/modelbridge/modelbridge/internal/compare"
	"github.com/modelbridge/modelbridge/interp"
)

// TestTracedAttention imports nn.MultiheadAttention and
// nn.TransformerEncoderLayer as torch.jit.trace writes them in PyTorch 1.13
// (testdata/make_attention_fixtures.py): the fused eval kernels
// _native_multi_head_attention and _transformer_encoder_layer_fwd (relu,
// and gelu with norm_first) as one Attention node each, and the unfused
// path's baddbmm/softmax/bmm with a float mask; every output is compared
// with PyTorch's.
func TestTracedAttention(t *testing.T) {
	for _, c := range []struct {
		name      string
		attention int // Attention nodes expected
	}{{"mha_fused", 1}, {"enc_layer", 1}, {"enc_layer_gelu_nf", 1}, {"mha_bmm_masked", 0}} {
		t.Run(c.name, func(t *testing.T) {
			ins, wants := loadNpys(t, c.name, "input"), loadNpys(t, c.name, "output")
			shapes := map[string][]int64{}
			for k, x := range ins {
				shapes[fmt.Sprintf("#%d", k)] = x.Shape
			}
			g, err := ReadFile(filepath.Join("testdata", c.name+".pt"), formats.ReadOptions{InputShapes: shapes})
			if err != nil {
				// The unfused path computes the head size with
				// torch.div(..., rounding_mode="trunc"), which belongs to
				// the scalar-arithmetic family.
				if strings.Contains(err.Error(), "rounding_mode is not supported") {
					t.Skipf("needs torch.div with rounding_mode: %v", err)
				}
				t.Fatal(err)
			}
			defer g.Close()
			kinds := map[string]int{}
			for _, n := range g.Nodes {
				kinds[n.Op.Kind()]++
			}
			if kinds["Attention"] != c.attention {
				t.Fatalf("imported as %v; want %d Attention nodes", kinds, c.attention)
			}
			feed := map[string]*canon.Tensor{}
			for k, x := range ins {
				v := *x
				v.Name = g.Inputs[k].Name
				feed[v.Name] = &v
			}
			outs, err := interp.Run(g, feed)
			if err != nil {
				t.Fatal(err)
			}
			if len(g.Outputs) != len(wants) {
				t.Fatalf("%d outputs, PyTorch has %d", len(g.Outputs), len(wants))
			}
			for k, want := range wants {
				rel, err := compare.RelativeToMax(outs[g.Outputs[k].Name], want)
				if err != nil {
					t.Fatalf("output %d: %v", k, err)
				}
				if rel > 1e-5 {
					t.Errorf("output %d: relative error %.3g against PyTorch > 1e-5", k, rel)
				}
			}
		})
	}
}
