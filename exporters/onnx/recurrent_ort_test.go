package onnxexport

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/formats"
	onnximport "github.com/modelbridge/modelbridge/importers/onnx"
	"github.com/modelbridge/modelbridge/internal/testfix"
	"github.com/modelbridge/modelbridge/interp"
)

// recurrentCase is one recurrent node with every optional input it uses.
type recurrentCase struct {
	name               string
	op                 canon.RecurrentOp
	seq, batch, input  int64
	bias, lens, states bool
	peep               bool
}

func pseudo(seed int, shape ...int64) []float32 {
	v := make([]float32, canon.NumElements(shape))
	for i := range v {
		v[i] = float32(0.6 * math.Sin(float64(i*7+seed*13)*0.37+0.1))
	}
	return v
}

// graph builds the case: X (and the states) are graph inputs, the weights
// initializers; every output is a graph output.
func (c recurrentCase) graph() (*canon.Graph, map[string]*canon.Tensor) {
	r := c.op.Rec()
	d, h, gates := int64(r.Direction.NumDirections()), r.HiddenSize, int64(len(c.op.Gates()))
	_, lstm := c.op.(*canon.LSTM)
	xs := []int64{c.seq, c.batch, c.input}
	st := []int64{d, c.batch, h}
	if r.BatchFirst {
		xs = []int64{c.batch, c.seq, c.input}
		st = []int64{c.batch, d, h}
	}
	g := &canon.Graph{Name: c.name}
	inputs := map[string]*canon.Tensor{}
	addIn := func(name string, t *canon.Tensor) string {
		t.Name = name
		g.Inputs = append(g.Inputs, canon.ValueInfo{Name: name, DType: t.DType, Shape: canon.DimsOf(t.Shape...), RankKnown: true})
		inputs[name] = t
		return name
	}
	addW := func(name string, seed int, shape ...int64) string {
		g.Initializers = append(g.Initializers, canon.NewFloat32Tensor(name, shape, pseudo(seed, shape...)))
		return name
	}
	ins := make([]string, len(c.op.Signature().Inputs))
	ins[canon.RecX] = addIn("X", canon.NewFloat32Tensor("", xs, pseudo(1, xs...)))
	ins[canon.RecW] = addW("W", 2, d, gates*h, c.input)
	ins[canon.RecR] = addW("R", 3, d, gates*h, h)
	if c.bias {
		ins[canon.RecB] = addW("B", 4, d, 2*gates*h)
	}
	if c.lens {
		lens := make([]int32, c.batch)
		for i := range lens {
			lens[i] = int32(c.seq - int64(i)%c.seq)
		}
		t := &canon.Tensor{DType: canon.Int32, Shape: []int64{c.batch}, Data: make([]byte, 4*c.batch)}
		for i, v := range lens {
			t.Data[4*i], t.Data[4*i+1], t.Data[4*i+2], t.Data[4*i+3] = byte(v), byte(v>>8), byte(v>>16), byte(v>>24)
		}
		ins[canon.RecSequenceLens] = addIn("lens", t)
	}
	if c.states {
		ins[canon.RecInitialH] = addIn("h0", canon.NewFloat32Tensor("", st, pseudo(5, st...)))
		if lstm {
			ins[canon.RecInitialC] = addIn("c0", canon.NewFloat32Tensor("", st, pseudo(6, st...)))
		}
	}
	if c.peep {
		ins[canon.RecP] = addW("P", 7, d, 3*h)
	}
	for len(ins) > 0 && ins[len(ins)-1] == "" {
		ins = ins[:len(ins)-1]
	}
	outs := []string{"Y", "Y_h"}
	if lstm {
		outs = append(outs, "Y_c")
	}
	g.Nodes = []*canon.Node{{Name: c.name, Op: c.op, Inputs: ins, Outputs: outs}}
	for _, o := range outs {
		g.Outputs = append(g.Outputs, canon.ValueInfo{Name: o, DType: canon.Float32})
	}
	canon.AssignLayouts(g)
	return g, inputs
}

func act(fn canon.RNNActFn, alpha, beta float32) canon.RNNActivation {
	return canon.RNNActivation{Fn: fn, Alpha: alpha, Beta: beta}
}

func recurrentCases() []recurrentCase {
	lstm := func(dir canon.RNNDirection, batchFirst bool, clip float32, acts []canon.RNNActivation, inputForget bool) *canon.LSTM {
		op := &canon.LSTM{Recurrent: canon.Recurrent{HiddenSize: 3, Direction: dir, BatchFirst: batchFirst, Clip: clip}, InputForget: inputForget}
		op.Activations = acts
		if acts == nil {
			op.Activations = canon.DefaultActivations(op, dir.NumDirections())
		}
		return op
	}
	gru := func(dir canon.RNNDirection, lbr bool, clip float32, acts []canon.RNNActivation) *canon.GRU {
		op := &canon.GRU{Recurrent: canon.Recurrent{HiddenSize: 4, Direction: dir, Clip: clip}, LinearBeforeReset: lbr}
		op.Activations = acts
		if acts == nil {
			op.Activations = canon.DefaultActivations(op, dir.NumDirections())
		}
		return op
	}
	rnn := func(dir canon.RNNDirection, batchFirst bool, acts []canon.RNNActivation) *canon.RNN {
		return &canon.RNN{Recurrent: canon.Recurrent{HiddenSize: 5, Direction: dir, BatchFirst: batchFirst, Activations: acts}}
	}
	return []recurrentCase{
		{name: "lstm_bidir_everything", op: lstm(canon.Bidirectional, false, 0, nil, false), seq: 4, batch: 3, input: 2, bias: true, lens: true, states: true, peep: true},
		{name: "lstm_reverse_clip", op: lstm(canon.Reverse, false, 0.3, nil, false), seq: 5, batch: 2, input: 3, bias: true, lens: true, peep: true},
		{name: "lstm_input_forget", op: lstm(canon.Forward, false, 0, nil, true), seq: 3, batch: 2, input: 2, bias: true, states: true},
		{name: "lstm_batch_first", op: lstm(canon.Bidirectional, true, 0, nil, false), seq: 3, batch: 2, input: 4, bias: true, states: true},
		{name: "lstm_activations", op: lstm(canon.Bidirectional, false, 0, []canon.RNNActivation{
			act(canon.ActHardSigmoid, 0.3, 0.6), act(canon.ActScaledTanh, 0.8, 1.2), act(canon.ActSoftsign, 0, 0),
			act(canon.ActSigmoid, 0, 0), act(canon.ActElu, 0.7, 0), act(canon.ActSoftplus, 0, 0)}, false), seq: 3, batch: 2, input: 2, bias: true},
		{name: "gru_before_reset", op: gru(canon.Reverse, false, 0, nil), seq: 4, batch: 3, input: 3, bias: true, lens: true, states: true},
		{name: "gru_linear_before_reset", op: gru(canon.Bidirectional, true, 0.5, nil), seq: 4, batch: 2, input: 3, bias: true, states: true},
		{name: "gru_activations", op: gru(canon.Forward, false, 0, []canon.RNNActivation{
			act(canon.ActHardSigmoid, 0.25, 0.45), act(canon.ActLeakyRelu, 0.1, 0)}), seq: 3, batch: 2, input: 2, bias: true},
		{name: "rnn_relu_bidir", op: rnn(canon.Bidirectional, false, []canon.RNNActivation{act(canon.ActRelu, 0, 0), act(canon.ActAffine, 0.5, 0.1)}), seq: 4, batch: 2, input: 3, bias: true, lens: true, states: true},
		{name: "rnn_batch_first", op: rnn(canon.Reverse, true, []canon.RNNActivation{act(canon.ActThresholdedRelu, 0.05, 0)}), seq: 3, batch: 2, input: 3, bias: true, states: true},
	}
}

// TestRecurrentORT runs each case in the interpreter and, written as ONNX
// at opsets 11 and 17, in ONNX Runtime: both must agree. Read back, the
// graph must equal the original (batch-first cases go through layout-0
// Transposes, so they are compared by output only).
func TestRecurrentORT(t *testing.T) {
	rt := testfix.ORT(t)
	tmp := t.TempDir()
	var jobs []*ortJob
	for _, c := range recurrentCases() {
		g, inputs := c.graph()
		if err := g.Validate(); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		p, err := interp.New(g)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		outs, err := p.Run(inputs)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		in, want := filepath.Join(tmp, c.name, "in"), filepath.Join(tmp, c.name, "want")
		for _, d := range []string{in, want} {
			if err := os.MkdirAll(d, 0o755); err != nil {
				t.Fatal(err)
			}
		}
		for i, v := range g.Inputs {
			if err := WriteTensorFile(inputs[v.Name], filepath.Join(in, fmt.Sprintf("input_%d.pb", i))); err != nil {
				t.Fatal(err)
			}
		}
		for i, o := range g.Outputs {
			if err := WriteTensorFile(outs[o.Name], filepath.Join(want, fmt.Sprintf("output_%d.pb", i))); err != nil {
				t.Fatal(err)
			}
		}
		for _, opset := range []int{11, 17} {
			path := filepath.Join(tmp, c.name, fmt.Sprint(opset), "model.onnx")
			os.MkdirAll(filepath.Dir(path), 0o755)
			if err := Write(g, path, formats.WriteOptions{Opset: opset}); err != nil {
				t.Fatalf("%s at opset %d: %v", c.name, opset, err)
			}
			if !c.op.Rec().BatchFirst {
				back, err := onnximport.Read(path, formats.ReadOptions{})
				if err != nil {
					t.Fatalf("%s: re-import: %v", c.name, err)
				}
				if err := canon.Equal(g, back); err != nil {
					t.Errorf("%s at opset %d: re-imported graph differs: %v", c.name, opset, err)
				}
				back.Close()
			}
			jobs = append(jobs, &ortJob{ID: len(jobs), Model: path, Inputs: in, Out: filepath.Join(filepath.Dir(path), "out"),
				label: fmt.Sprintf("%s@%d", c.name, opset), want: want})
		}
	}
	results := runORT(t, rt, jobs)
	var worst float64
	for _, j := range jobs {
		if r := results[j.ID]; !r.OK {
			t.Errorf("%s: ONNX Runtime: %s", j.label, r.Err)
		} else if err := compareOutputs(j, &worst); err != nil {
			t.Errorf("%s: %v", j.label, err)
		}
	}
}
