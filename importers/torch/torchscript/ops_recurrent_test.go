package torchscript

import (
	"archive/zip"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/formats"
	"github.com/modelbridge/modelbridge/internal/compare"
	"github.com/modelbridge/modelbridge/internal/tensorfile"
	"github.com/modelbridge/modelbridge/interp"
)

// loadNpys reads testdata/NAME_KIND_0.npy, _1, ... in order.
func loadNpys(t *testing.T, name, kind string) []*canon.Tensor {
	t.Helper()
	var out []*canon.Tensor
	for k := 0; ; k++ {
		p := filepath.Join("testdata", fmt.Sprintf("%s_%s_%d.npy", name, kind, k))
		if _, err := os.Stat(p); err != nil {
			break
		}
		x, err := tensorfile.Load(p)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, x)
	}
	if len(out) == 0 {
		t.Fatalf("no testdata/%s_%s_*.npy", name, kind)
	}
	return out
}

// TestTracedRecurrent imports nn.LSTM, nn.GRU and nn.RNN as torch.jit.trace
// writes them in PyTorch 1.13 (testdata/make_recurrent_fixtures.py: two
// layers, bidirectional, batch first, given initial states, relu, no bias;
// pack_padded_sequence and pad_packed_sequence around a layer, read as
// sequence_lens)
// and compares every output with PyTorch's.
func TestTracedRecurrent(t *testing.T) {
	for _, c := range []struct {
		name string
		kind string
	}{{"lstm_bidir2", "LSTM"}, {"gru2", "GRU"}, {"rnn_relu_bidir", "RNN"}, {"rnn_tanh_nobias", "RNN"},
		{"gru_packed", "GRU"}, {"lstm_packed_bidir", "LSTM"}} {
		t.Run(c.name, func(t *testing.T) {
			ins, wants := loadNpys(t, c.name, "input"), loadNpys(t, c.name, "output")
			shapes := map[string][]int64{}
			for k, x := range ins {
				shapes[fmt.Sprintf("#%d", k)] = x.Shape
			}
			g, err := ReadFile(filepath.Join("testdata", c.name+".pt"), formats.ReadOptions{InputShapes: shapes})
			if err != nil {
				// nn.LSTM's zero initial state is torch.zeros(...,
				// device=torch.device("cpu")): the factory functions'
				// family, not this one.
				if strings.Contains(err.Error(), "operator torch.device is not supported") || strings.Contains(err.Error(), "operator torch.zeros is not supported") {
					t.Skipf("needs the TorchScript factory functions: %v", err)
				}
				t.Fatal(err)
			}
			defer g.Close()
			found := 0
			for _, n := range g.Nodes {
				if n.Op.Kind() == c.kind {
					found++
					for _, in := range n.Inputs[1:3] {
						if w := g.Initializer(in); w == nil || w.Layout != "DGI" {
							t.Errorf("%s: weight %q is not a DGI initializer", n.Name, in)
						}
					}
				}
			}
			if found == 0 {
				t.Fatalf("no %s node in the imported graph", c.kind)
			}
			feed := map[string]*canon.Tensor{}
			for k, x := range ins {
				v := *x
				if in := g.Inputs[k]; in.DType == canon.Float32 && v.DType == canon.Int64 {
					// Traced inputs are declared float32: lengths too.
					ints, _ := x.Int64s()
					f := make([]float32, len(ints))
					for i, n := range ints {
						f[i] = float32(n)
					}
					v = *canon.NewFloat32Tensor("", x.Shape, f)
				}
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

// TestRecurrentRefusals: the packed-sequence overload, a projected LSTM
// on a 2-D input and training-mode dropout are refused with what to do.
func TestRecurrentRefusals(t *testing.T) {
	for _, c := range []struct{ body, wantErr string }{
		{"torch.lstm(x, x, [x, x], [x, x, x, x], True, 1, 0., False, False)[0]", "packed-sequence form"},
		{"torch.lstm(x, [x, x], [x, x, x, x, x], True, 1, 0., False, False, False)[0]", "takes (seq, batch, features)"},
		{"torch.gru(x, x, [x, x, x, x, x, x, x, x], True, 2, 0.5, True, False, False)[0]", "call model.eval() before tracing"},
		{"torch.rnn_tanh(x, x, [x, x], False, 1, 0., False, False, False)[0]", "computed at run time"},
	} {
		t.Run(c.wantErr, func(t *testing.T) {
			p := writeArchive(t, map[string]string{"data.pkl": rootPickle, "code/__torch__.py": moduleSource("    return " + c.body + "\n")}, zip.Store)
			_, err := ReadFile(p, formats.ReadOptions{InputShapes: map[string][]int64{"x": {2, 3}}})
			if err == nil || !strings.Contains(err.Error(), c.wantErr) {
				t.Fatalf("error %v, want one containing %q", err, c.wantErr)
			}
		})
	}
}
