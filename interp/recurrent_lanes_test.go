package interp

import (
	"fmt"
	"math"
	"math/rand"
	"path/filepath"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
	onnxexport "github.com/modelbridge/modelbridge/exporters/onnx"
	"github.com/modelbridge/modelbridge/formats"
	onnximport "github.com/modelbridge/modelbridge/importers/onnx"
	"github.com/modelbridge/modelbridge/internal/runtimes/ort"
	"github.com/modelbridge/modelbridge/internal/testfix"
)

// recurrentLaneCase is one layer the float32 gate path is checked on.
type recurrentLaneCase struct {
	name   string
	op     func() canon.RecurrentOp
	gates  int64
	clip   float32
	peep   bool
	states bool // initial_h (and initial_c) and sequence_lens
}

var recurrentLaneCases = []recurrentLaneCase{
	{"LSTM", func() canon.RecurrentOp { return &canon.LSTM{} }, 4, 0, false, false},
	{"LSTM clip peepholes", func() canon.RecurrentOp { return &canon.LSTM{} }, 4, 0.7, true, false},
	{"LSTM states", func() canon.RecurrentOp { return &canon.LSTM{} }, 4, 0, false, true},
	{"LSTM coupled forget", func() canon.RecurrentOp { return &canon.LSTM{InputForget: true} }, 4, 0, true, false},
	{"GRU", func() canon.RecurrentOp { return &canon.GRU{} }, 3, 0, false, false},
	{"GRU clip states", func() canon.RecurrentOp { return &canon.GRU{} }, 3, 0.9, false, true},
	{"GRU linear_before_reset", func() canon.RecurrentOp { return &canon.GRU{LinearBeforeReset: true} }, 3, 0, false, true},
	{"RNN", func() canon.RecurrentOp { return &canon.RNN{} }, 1, 0.8, false, true},
}

// laneGraph is c's layer, bidirectional, over x [seq, 2, in], every
// output a graph output; its inputs besides x are in feeds.
func (c recurrentLaneCase) graph(t *testing.T, hidden int64) (*canon.Graph, map[string]*canon.Tensor) {
	const seq, batch, in = 6, 2, 11
	op := c.op()
	r := op.Rec()
	r.HiddenSize, r.Direction, r.Clip = hidden, canon.Bidirectional, c.clip
	r.Activations = canon.DefaultActivations(op, 2)
	nb := newNetBuilder("x", seq, batch, in)
	rnd := rand.New(rand.NewSource(5))
	feeds := map[string]*canon.Tensor{"x": randTensor(rnd, "x", seq, batch, in)}
	ins := []string{"x", nb.weight(0.5, 2, c.gates*hidden, in), nb.weight(0.5, 2, c.gates*hidden, hidden), nb.weight(0.5, 2, 2*c.gates*hidden)}
	stateShape := []int64{2, batch, hidden}
	if c.states {
		lens := &canon.Tensor{Name: "lens", DType: canon.Int32, Shape: []int64{batch}, Data: []byte{seq, 0, 0, 0, 4, 0, 0, 0}}
		nb.g.Inputs = append(nb.g.Inputs,
			canon.ValueInfo{Name: "lens", DType: canon.Int32, Shape: canon.DimsOf(batch), RankKnown: true},
			canon.ValueInfo{Name: "h0", DType: canon.Float32, Shape: canon.DimsOf(stateShape...), RankKnown: true})
		feeds["lens"], feeds["h0"] = lens, randTensor(rnd, "h0", ints(stateShape)...)
		ins = append(ins, "lens", "h0")
		if c.gates == 4 {
			nb.g.Inputs = append(nb.g.Inputs, canon.ValueInfo{Name: "c0", DType: canon.Float32, Shape: canon.DimsOf(stateShape...), RankKnown: true})
			feeds["c0"] = randTensor(rnd, "c0", ints(stateShape)...)
			ins = append(ins, "c0")
		}
	}
	if c.peep {
		for len(ins) < 7 {
			ins = append(ins, "")
		}
		ins = append(ins, nb.weight(0.5, 2, 3*hidden))
	}
	outs := []string{"y", "y_h"}
	if c.gates == 4 {
		outs = append(outs, "y_c")
	}
	nb.g.Nodes = append(nb.g.Nodes, &canon.Node{Name: "rec", Op: op, Inputs: ins, Outputs: outs})
	return nb.finish(t, outs...), feeds
}

// runRecurrentPath runs g with the float32 lanes or the float64 gates.
func runRecurrentPath(t *testing.T, g *canon.Graph, feeds map[string]*canon.Tensor, float64Gates bool) map[string][]float64 {
	t.Helper()
	defer func(old bool) { recurrentFloat64 = old }(recurrentFloat64)
	recurrentFloat64 = float64Gates
	res, err := Run(g, feeds)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]float64{}
	for _, o := range g.Outputs {
		out[o.Name], _ = res[o.Name].Float64s()
	}
	return out
}

// largestDifference is the largest |a-b| and the largest |b|.
func largestDifference(a, b []float64) (worst, scale float64) {
	for i := range b {
		worst = max(worst, math.Abs(a[i]-b[i]))
		scale = max(scale, math.Abs(b[i]))
	}
	return worst, scale
}

// The float32 gates give the float64 gates' outputs within float32
// rounding, for every gate variant (clip, peepholes, a coupled forget
// gate, linear_before_reset, initial states, sequence lengths, both
// directions, hidden sizes with a partial panel).
func TestRecurrentLanesMatchFloat64(t *testing.T) {
	for _, hidden := range []int64{13, 40} {
		for _, c := range recurrentLaneCases {
			g, feeds := c.graph(t, hidden)
			got, want := runRecurrentPath(t, g, feeds, false), runRecurrentPath(t, g, feeds, true)
			for _, o := range g.Outputs {
				worst, scale := largestDifference(got[o.Name], want[o.Name])
				t.Logf("%s h%d %s: largest difference %.3g at outputs up to %.3g", c.name, hidden, o.Name, worst, scale)
				if !(worst <= 2e-6*max(scale, 1)) {
					t.Errorf("%s h%d %s: float32 gates differ from float64 by %g (outputs up to %g)", c.name, hidden, o.Name, worst, scale)
				}
			}
		}
	}
}

// Both gate paths against ONNX Runtime on the same layers (ONNX Runtime
// has no coupled forget gate).
func TestRecurrentLanesMatchORT(t *testing.T) {
	rt := testfix.ORT(t)
	for _, c := range recurrentLaneCases {
		if c.name == "LSTM coupled forget" {
			continue
		}
		g, feeds := c.graph(t, 40)
		path := filepath.Join(t.TempDir(), "rec.onnx")
		if err := onnxexport.Write(g, path, formats.WriteOptions{Opset: 17}); err != nil {
			t.Fatal(err)
		}
		var ins []*canon.Tensor
		for _, v := range g.Inputs {
			ins = append(ins, feeds[v.Name])
		}
		want, err := rt.Run(path, ins, ort.Options{})
		if err != nil {
			t.Fatal(err)
		}
		for _, float64Gates := range []bool{false, true} {
			got := runRecurrentPath(t, g, feeds, float64Gates)
			for i, o := range g.Outputs {
				w, _ := want[i].Float64s()
				worst, scale := largestDifference(got[o.Name], w)
				what := fmt.Sprintf("%s %s, float64 gates %v", c.name, o.Name, float64Gates)
				t.Logf("%s: largest difference from ONNX Runtime %.3g at outputs up to %.3g", what, worst, scale)
				if !(worst <= 1e-5*max(scale, 1)) {
					t.Errorf("%s: differs from ONNX Runtime by %g", what, worst)
				}
			}
		}
	}
}

// The LSTM files (torch2's tiny_lstm, a 2-layer batch-first LSTM of
// PyTorch's export, and BenchmarkVsORT's LSTM of 512 units over 64 steps)
// give ONNX Runtime's outputs with either gate path; the largest
// differences are logged.
func TestRecurrentLanesOnLSTMFiles(t *testing.T) {
	rt := testfix.ORT(t)
	tiny := filepath.Join(testfix.Fixtures(t), "torch2", "tiny_lstm", "model.onnx")
	for _, m := range []struct {
		name, path string
		shape      []int
	}{{"tiny_lstm", tiny, nil}, {"LSTMh512s64", "", []int{1, 64, 256}}} {
		t.Run(m.name, func(t *testing.T) {
			var g *canon.Graph
			path := m.path
			if path == "" {
				g, path = benchModel(t, "MODELBRIDGE_LSTM_ONNX", "/tmp/lstm_h512_s64.onnx")
			} else {
				var err error
				if g, err = onnximport.Read(path, formats.ReadOptions{}); err != nil {
					t.Fatal(err)
				}
				defer g.Close()
			}
			shape := m.shape
			if shape == nil {
				for _, d := range g.Inputs[0].Shape {
					shape = append(shape, int(max(d.Size, 1)))
				}
			}
			in := randTensor(rand.New(rand.NewSource(4)), g.Inputs[0].Name, shape...)
			want, err := rt.Run(path, []*canon.Tensor{in}, ort.Options{})
			if err != nil {
				t.Fatal(err)
			}
			feeds := map[string]*canon.Tensor{in.Name: in}
			lanes, float64Gates := runRecurrentPath(t, g, feeds, false), runRecurrentPath(t, g, feeds, true)
			for i, o := range g.Outputs {
				w, _ := want[i].Float64s()
				wl, scale := largestDifference(lanes[o.Name], w)
				w64, _ := largestDifference(float64Gates[o.Name], w)
				both, _ := largestDifference(lanes[o.Name], float64Gates[o.Name])
				t.Logf("%s: largest difference from ONNX Runtime %.3g (float32 gates), %.3g (float64 gates); between them %.3g; outputs up to %.3g",
					o.Name, wl, w64, both, scale)
				if !(wl <= 1e-5*max(scale, 1e-3)) {
					t.Errorf("%s: float32 gates differ from ONNX Runtime by %g", o.Name, wl)
				}
			}
		})
	}
}
