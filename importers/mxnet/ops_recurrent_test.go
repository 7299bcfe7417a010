package mxnetimport

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/formats"
	"github.com/modelbridge/modelbridge/internal/compare"
	"github.com/modelbridge/modelbridge/internal/tensorfile"
	"github.com/modelbridge/modelbridge/interp"
)

// rnnSymbol is RNN(data, parameters, state[, state_cell]) with
// state_outputs, every output a head.
func rnnSymbol(attrs string, lstm bool) string {
	nodes := `{"op":"null","name":"data","inputs":[]},{"op":"null","name":"parameters","inputs":[]},{"op":"null","name":"state","inputs":[]}`
	inputs := `[0,0,0],[1,0,0],[2,0,0]`
	heads := `[3,0,0],[3,1,0]`
	n := 3
	if lstm {
		nodes += `,{"op":"null","name":"state_cell","inputs":[]}`
		inputs += `,[3,0,0]`
		n = 4
		heads = `[4,0,0],[4,1,0],[4,2,0]`
	}
	return fmt.Sprintf(`{"nodes":[%s,{"op":"RNN","name":"rnn","attrs":%s,"inputs":[%s]}],"arg_nodes":[0,1,2],"heads":[%s],"attrs":{"mxnet_version":["int",10500]}}`,
		nodes, attrs, inputs, strings.ReplaceAll(heads, "[3,", fmt.Sprintf("[%d,", n)))
}

// TestFusedRNNAgainstPyTorch reads MXNet's fused RNN with a parameters
// vector packed as Gluon packs it, from PyTorch's weights
// (testdata/make_rnn_fixtures.py), and compares every output with what
// PyTorch computed: the packing order (weights of every layer and
// direction, then biases) and cuDNN's gate order are read right.
func TestFusedRNNAgainstPyTorch(t *testing.T) {
	for _, c := range []struct {
		name, attrs string
		lstm        bool
	}{
		{"rnn_lstm", `{"mode":"lstm","state_size":"4","num_layers":"2","bidirectional":"True","state_outputs":"True","p":"0.3"}`, true},
		{"rnn_gru", `{"mode":"gru","state_size":"5","num_layers":"2","state_outputs":"True"}`, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			load := func(suffix string) *canon.Tensor {
				x, err := tensorfile.Load(filepath.Join("testdata", c.name+"_"+suffix+".npy"))
				if err != nil {
					t.Fatal(err)
				}
				return x
			}
			feed := map[string]*canon.Tensor{"data": load("data"), "state": load("state0")}
			wants := []*canon.Tensor{load("out"), load("out_state0")}
			if c.lstm {
				feed["state_cell"] = load("state1")
				wants = append(wants, load("out_state1"))
			}
			shapes := map[string][]int64{}
			for k, v := range feed {
				v.Name = k
				shapes[k] = v.Shape
			}
			sym := checkpoint(t, rnnSymbol(c.attrs, c.lstm), map[string]*canon.Tensor{"arg:parameters": load("parameters")})
			g, err := Read(sym, formats.ReadOptions{InputShapes: shapes})
			if err != nil {
				t.Fatal(err)
			}
			defer g.Close()
			if g.Initializer("parameters") != nil {
				t.Error("the flat parameters vector is still an initializer after being split per layer")
			}
			outs, err := interp.Run(g, feed)
			if err != nil {
				t.Fatal(err)
			}
			if len(g.Outputs) != len(wants) {
				t.Fatalf("%d outputs, want %d", len(g.Outputs), len(wants))
			}
			for k, want := range wants {
				rel, err := compare.RelativeToMax(outs[g.Outputs[k].Name], want)
				if err != nil || rel > 1e-5 {
					t.Errorf("output %d: relative error %.3g against PyTorch (%v)", k, rel, err)
				}
			}
		})
	}
}

// TestFusedRNNRefusals: attributes with no canonical meaning are refused
// by name.
func TestFusedRNNRefusals(t *testing.T) {
	for attrs, want := range map[string]string{
		`{"mode":"lstm","state_size":"2","projection_size":"1"}`:       "projection_size",
		`{"mode":"lstm","state_size":"2","lstm_state_clip_min":"-1"}`:  "lstm_state_clip_min",
		`{"mode":"gru","state_size":"2","use_sequence_length":"True"}`: "use_sequence_length",
		`{"mode":"elman","state_size":"2"}`:                            "not lstm, gru",
	} {
		sym := checkpoint(t, rnnSymbol(attrs, false), map[string]*canon.Tensor{"arg:parameters": f32s([]int64{1}, 0)})
		_, err := Read(sym, formats.ReadOptions{InputShapes: map[string][]int64{"data": {2, 1, 1}, "state": {1, 1, 2}}})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want one naming %q", attrs, err, want)
		}
	}
}
