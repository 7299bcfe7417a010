package torchexport

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/compare"
	"github.com/modelbridge/modelbridge/internal/npy"
	"github.com/modelbridge/modelbridge/interp"
)

// TestRecurrentNodeCasesRunInTorch writes every LSTM, GRU and RNN case of
// the ONNX 1.22 node suite as model.py (peepholes and sequence lengths go
// through the step loop, the rest through nn.LSTM/GRU/RNN), runs them in
// PyTorch 1.13 and compares with the suite's outputs.
func TestRecurrentNodeCasesRunInTorch(t *testing.T) {
	py := torchPython(t)
	models := nodeCaseModels(t, "test_lstm_*", "test_gru_*", "test_rnn_*", "test_simple_rnn_*")
	n := torchSweep{models: models, strictImport: true, refusalOK: func(error) bool { return false }}.run(t, py)
	if n.matched != len(models) || len(models) < 12 {
		t.Errorf("%d of %d recurrent cases match in PyTorch", n.matched, len(models))
	}
}

func wave(seed int, shape ...int64) *canon.Tensor {
	v := make([]float32, canon.NumElements(shape))
	for i := range v {
		v[i] = float32(0.6 * math.Sin(float64(i*7+seed*13)*0.37+0.1))
	}
	return canon.NewFloat32Tensor("", shape, v)
}

// recurrentGraph is one node reading X (seq 4, batch 3, input 2; batch
// first when the op says so) and every optional input asked for.
func recurrentGraph(op canon.RecurrentOp, bias, lens, states, peep bool) (*canon.Graph, map[string]*canon.Tensor) {
	r := op.Rec()
	d, h, gates := int64(r.Direction.NumDirections()), r.HiddenSize, int64(len(op.Gates()))
	const seq, batch, input = 4, 3, 2
	xs, st := []int64{seq, batch, input}, []int64{d, batch, h}
	if r.BatchFirst {
		xs, st = []int64{batch, seq, input}, []int64{batch, d, h}
	}
	g := &canon.Graph{Name: "rec"}
	feed := map[string]*canon.Tensor{}
	addIn := func(name string, t *canon.Tensor) string {
		t.Name = name
		g.Inputs = append(g.Inputs, canon.ValueInfo{Name: name, DType: t.DType, Shape: canon.DimsOf(t.Shape...), RankKnown: true})
		feed[name] = t
		return name
	}
	addW := func(name string, t *canon.Tensor) string {
		t.Name = name
		g.Initializers = append(g.Initializers, t)
		return name
	}
	ins := make([]string, len(op.Signature().Inputs))
	ins[canon.RecX] = addIn("x", wave(1, xs...))
	ins[canon.RecW] = addW("w", wave(2, d, gates*h, input))
	ins[canon.RecR] = addW("r", wave(3, d, gates*h, h))
	if bias {
		ins[canon.RecB] = addW("b", wave(4, d, 2*gates*h))
	}
	if lens {
		t := &canon.Tensor{DType: canon.Int32, Shape: []int64{batch}, Data: []byte{4, 0, 0, 0, 1, 0, 0, 0, 3, 0, 0, 0}}
		ins[canon.RecSequenceLens] = addIn("lens", t)
	}
	_, lstm := op.(*canon.LSTM)
	if states {
		ins[canon.RecInitialH] = addIn("h0", wave(5, st...))
		if lstm {
			ins[canon.RecInitialC] = addIn("c0", wave(6, st...))
		}
	}
	if peep {
		ins[canon.RecP] = addW("p", wave(7, d, 3*h))
	}
	for len(ins) > 0 && ins[len(ins)-1] == "" {
		ins = ins[:len(ins)-1]
	}
	outs := []string{"y", "y_h"}
	if lstm {
		outs = append(outs, "y_c")
	}
	g.Nodes = []*canon.Node{{Name: "rec", Op: op, Inputs: ins, Outputs: outs}}
	for _, o := range outs {
		g.Outputs = append(g.Outputs, canon.ValueInfo{Name: o, DType: canon.Float32})
	}
	canon.AssignLayouts(g)
	return g, feed
}

// TestRecurrentVariantsRunInTorch: clip, every activation, input_forget,
// sequence lengths, reverse, batch first and GRU's two reset forms, through
// nn.* modules or the step loop, against the interpreter.
func TestRecurrentVariantsRunInTorch(t *testing.T) {
	py := torchPython(t)
	acts := func(v ...canon.RNNActivation) []canon.RNNActivation { return v }
	a := func(fn canon.RNNActFn, al, be float32) canon.RNNActivation {
		return canon.RNNActivation{Fn: fn, Alpha: al, Beta: be}
	}
	rec := func(h int64, dir canon.RNNDirection, bf bool, clip float32) canon.Recurrent {
		return canon.Recurrent{HiddenSize: h, Direction: dir, BatchFirst: bf, Clip: clip}
	}
	withActs := func(op canon.RecurrentOp, v []canon.RNNActivation) canon.RecurrentOp {
		op.Rec().Activations = v
		if v == nil {
			op.Rec().Activations = canon.DefaultActivations(op, op.Rec().Direction.NumDirections())
		}
		return op
	}
	cases := []struct {
		name                     string
		op                       canon.RecurrentOp
		bias, lens, states, peep bool
		module                   bool // written as an nn.* module
	}{
		{"lstm_module_bidir_bf", withActs(&canon.LSTM{Recurrent: rec(3, canon.Bidirectional, true, 0)}, nil), true, false, true, false, true},
		{"lstm_module_nobias", withActs(&canon.LSTM{Recurrent: rec(3, canon.Forward, false, 0)}, nil), false, false, false, false, true},
		{"lstm_loop_everything", withActs(&canon.LSTM{Recurrent: rec(3, canon.Bidirectional, false, 0.4)}, nil), true, true, true, true, false},
		{"lstm_loop_input_forget_bf", withActs(&canon.LSTM{Recurrent: rec(2, canon.Reverse, true, 0)}, nil), true, true, true, false, false},
		{"lstm_loop_acts", withActs(&canon.LSTM{Recurrent: rec(3, canon.Forward, false, 0)},
			acts(a(canon.ActHardSigmoid, 0.3, 0.6), a(canon.ActScaledTanh, 0.8, 1.2), a(canon.ActSoftsign, 0, 0))), true, false, false, false, false},
		{"gru_module_bidir", withActs(&canon.GRU{Recurrent: rec(4, canon.Bidirectional, false, 0), LinearBeforeReset: true}, nil), true, false, true, false, true},
		{"gru_loop_before_reset", withActs(&canon.GRU{Recurrent: rec(4, canon.Bidirectional, true, 0)}, nil), true, true, true, false, false},
		{"gru_loop_acts", withActs(&canon.GRU{Recurrent: rec(3, canon.Reverse, false, 0.5), LinearBeforeReset: true},
			acts(a(canon.ActLeakyRelu, 0.1, 0), a(canon.ActElu, 0.7, 0))), true, false, true, false, false},
		{"rnn_module_relu", withActs(&canon.RNN{Recurrent: rec(5, canon.Bidirectional, true, 0)},
			acts(a(canon.ActRelu, 0, 0), a(canon.ActRelu, 0, 0))), true, false, true, false, true},
		{"rnn_loop_acts", withActs(&canon.RNN{Recurrent: rec(5, canon.Bidirectional, false, 0)},
			acts(a(canon.ActAffine, 0.5, 0.1), a(canon.ActThresholdedRelu, 0.05, 0))), true, true, false, false, false},
		{"rnn_loop_softplus", withActs(&canon.RNN{Recurrent: rec(2, canon.Forward, false, 0)}, acts(a(canon.ActSoftplus, 0, 0))), false, false, true, false, false},
	}
	root := t.TempDir()
	var jobs []*sweepJob
	for i, c := range cases {
		if c.op.Kind() == "LSTM" && strings.Contains(c.name, "input_forget") {
			c.op.(*canon.LSTM).InputForget = true
		}
		g, feed := recurrentGraph(c.op, c.bias, c.lens, c.states, c.peep)
		if err := g.Validate(); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		dir := filepath.Join(root, fmt.Sprint(i))
		if _, err := Export(g, dir); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		src, err := os.ReadFile(filepath.Join(dir, "model.py"))
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(string(src), "nn."+c.op.Kind()+"("); got != c.module {
			t.Errorf("%s: written as an nn.%s module: %v, want %v", c.name, c.op.Kind(), got, c.module)
		}
		outs, err := interp.Run(g, feed)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		job := &sweepJob{Dir: dir, name: c.name}
		for k, v := range g.Inputs {
			p := filepath.Join(dir, fmt.Sprintf("input_%d.npy", k))
			if err := writeNpy(p, feed[v.Name]); err != nil {
				t.Fatal(err)
			}
			job.Inputs = append(job.Inputs, p)
		}
		for k, o := range g.Outputs {
			job.Outputs = append(job.Outputs, filepath.Join(dir, fmt.Sprintf("output_%d.npy", k)))
			job.want = append(job.want, outs[o.Name])
		}
		jobs = append(jobs, job)
	}
	b, _ := json.Marshal(jobs)
	jobsPath, driver, reportPath := filepath.Join(root, "jobs.json"), filepath.Join(root, "driver.py"), filepath.Join(root, "report.json")
	os.WriteFile(jobsPath, b, 0o644)
	os.WriteFile(driver, []byte(sweepDriver), 0o644)
	if out, err := exec.Command(py, driver, jobsPath, reportPath).CombinedOutput(); err != nil {
		t.Fatalf("driver failed: %v\n%s", err, out)
	}
	var report []string
	rb, _ := os.ReadFile(reportPath)
	if err := json.Unmarshal(rb, &report); err != nil || len(report) != len(jobs) {
		t.Fatalf("bad report (%v): %s", err, rb)
	}
	for i, job := range jobs {
		if report[i] != "" {
			t.Errorf("%s: PyTorch failed:\n%s", job.name, report[i])
			continue
		}
		for k, want := range job.want {
			got, err := npy.ReadFile(job.Outputs[k])
			if err != nil {
				t.Fatal(err)
			}
			if res, err := compare.Tensors(got, want, 1e-4, 1e-5); err != nil || !res.OK {
				t.Errorf("%s: output %d differs from the interpreter: %v %+v", job.name, k, err, res)
			}
		}
	}
}
