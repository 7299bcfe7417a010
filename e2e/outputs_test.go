package e2e

import (
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/modelbridge/modelbridge/canon"
	torchexport "github.com/modelbridge/modelbridge/exporters/torch"
	"github.com/modelbridge/modelbridge/formats"
	"github.com/modelbridge/modelbridge/internal/caffepb"
	"github.com/modelbridge/modelbridge/internal/mxparams"
	"github.com/modelbridge/modelbridge/internal/npy"
	"github.com/modelbridge/modelbridge/internal/onnxpb"
	"github.com/modelbridge/modelbridge/internal/runtimes/ort"
	"github.com/modelbridge/modelbridge/interp"

	"github.com/modelbridge/modelbridge/internal/testfix"
)

// outputCase is a model whose outputs are aliases: tops passed through
// (Caffe Split, Dropout), a value listed twice, an input listed as an
// output, an output an Identity computes.
type outputCase struct {
	name  string
	path  string
	names []string // the outputs expected, in order
	// check, when set, holds hand-computed values by output index.
	check map[int][]float64
}

// writeCaffe writes a prototxt and, with blobs, its caffemodel.
func writeCaffe(t *testing.T, dir, name, text string, blobs map[string][]*caffepb.BlobProto) string {
	t.Helper()
	p := filepath.Join(dir, name+".prototxt")
	os.WriteFile(p, []byte(text), 0o644)
	if blobs != nil {
		net := &caffepb.NetParameter{}
		for l, bl := range blobs {
			net.Layer = append(net.Layer, &caffepb.LayerParameter{Name: proto.String(l), Blobs: bl})
		}
		b, err := proto.Marshal(net)
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(dir, name+".caffemodel"), b, 0o644)
	}
	return p
}

func caffeBlob(shape []int64, v ...float32) *caffepb.BlobProto {
	return &caffepb.BlobProto{Shape: &caffepb.BlobShape{Dim: shape}, Data: v}
}

// outputCases builds the models. x is (1, 2, 1, 2) = (-1, 2, 3, -4) for
// the Caffe nets; their 1×1 convolution swaps and scales the channels:
// channel 0 holds (-1, 2), channel 1 (3, -4); c0 = 2·x1 + 1 = (7, -7) and
// c1 = x0 - 1 = (-2, 1).
func outputCases(t *testing.T, dir string) []outputCase {
	conv := map[string][]*caffepb.BlobProto{"conv": {caffeBlob([]int64{2, 2, 1, 1}, 0, 2, 1, 0), caffeBlob([]int64{2}, 1, -1)}}
	const head = `input: "data"
input_shape { dim: 1 dim: 2 dim: 1 dim: 2 }
layer { name: "conv" type: "Convolution" bottom: "data" top: "c" convolution_param { num_output: 2 kernel_size: 1 } }
`
	convOut := []float64{7, -7, -2, 1}
	relu := []float64{7, 0, 0, 1}
	four := writeCaffe(t, dir, "four", head+`layer { name: "drop" type: "Dropout" bottom: "c" top: "d" }
layer { name: "split" type: "Split" bottom: "c" top: "s1" top: "s2" }
layer { name: "relu" type: "ReLU" bottom: "c" top: "r" }
`, conv)
	split := writeCaffe(t, dir, "split", head+`layer { name: "split" type: "Split" bottom: "c" top: "a" top: "b" }
`, conv)
	drop := writeCaffe(t, dir, "drop", `input: "data"
input_shape { dim: 1 dim: 2 dim: 1 dim: 2 }
layer { name: "drop" type: "Dropout" bottom: "data" top: "d" dropout_param { dropout_ratio: 0.25 } }
`, nil)

	// ONNX: outputs x (the input), y, y again and z = Identity(y).
	vi := func(name string) *onnxpb.ValueInfoProto {
		return &onnxpb.ValueInfoProto{Name: proto.String(name), Type: &onnxpb.TypeProto{Value: &onnxpb.TypeProto_TensorType{TensorType: &onnxpb.TypeProto_Tensor{
			ElemType: proto.Int32(1), Shape: &onnxpb.TensorShapeProto{Dim: []*onnxpb.TensorShapeProto_Dimension{
				{Value: &onnxpb.TensorShapeProto_Dimension_DimValue{DimValue: 1}}, {Value: &onnxpb.TensorShapeProto_Dimension_DimValue{DimValue: 4}}}}}}}}
	}
	node := func(op, in, out string) *onnxpb.NodeProto {
		return &onnxpb.NodeProto{OpType: proto.String(op), Name: proto.String(out), Input: []string{in}, Output: []string{out}}
	}
	m := &onnxpb.ModelProto{IrVersion: proto.Int64(7), OpsetImport: []*onnxpb.OperatorSetIdProto{{Domain: proto.String(""), Version: proto.Int64(13)}},
		Graph: &onnxpb.GraphProto{Name: proto.String("aliases"), Node: []*onnxpb.NodeProto{node("Relu", "x", "y"), node("Identity", "y", "z")},
			Input: []*onnxpb.ValueInfoProto{vi("x")}, Output: []*onnxpb.ValueInfoProto{vi("x"), vi("y"), vi("y"), vi("z")}}}
	b, err := proto.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	onnxPath := filepath.Join(dir, "aliases.onnx")
	os.WriteFile(onnxPath, b, 0o644)

	// MXNet: heads relu, relu, data (an input) and the input again.
	sym := `{"nodes": [{"op": "null", "name": "data", "attrs": {"__shape__": "(1,4)"}, "inputs": []},
  {"op": "Activation", "name": "relu", "attrs": {"act_type": "relu"}, "inputs": [[0, 0, 0]]}],
 "arg_nodes": [0], "node_row_ptr": [0, 1, 2], "heads": [[1, 0, 0], [1, 0, 0], [0, 0, 0], [0, 0, 0]],
 "attrs": {"mxnet_version": ["int", 10900]}}`
	mxPath := filepath.Join(dir, "heads-symbol.json")
	os.WriteFile(mxPath, []byte(sym), 0o644)
	pf, err := os.Create(filepath.Join(dir, "heads-0000.params"))
	if err != nil {
		t.Fatal(err)
	}
	if err := mxparams.Write(pf, nil, nil); err != nil {
		t.Fatal(err)
	}
	pf.Close()

	return []outputCase{
		{"caffe four outputs", four, []string{"d", "s1", "s2", "r"}, map[int][]float64{0: convOut, 1: convOut, 2: convOut, 3: relu}},
		{"caffe conv split", split, []string{"a", "b"}, map[int][]float64{0: convOut, 1: convOut}},
		{"caffe dropout only", drop, []string{"d"}, map[int][]float64{0: {-1, 2, 3, -4}}},
		{"onnx aliases", onnxPath, []string{"x", "y", "y", "z"}, map[int][]float64{0: {-1, 2, 3, -4}, 1: {0, 2, 3, 0}, 2: {0, 2, 3, 0}, 3: {0, 2, 3, 0}}},
		{"mxnet heads", mxPath, []string{"relu", "relu", "data", "data"}, map[int][]float64{0: {0, 2, 3, 0}, 1: {0, 2, 3, 0}, 2: {-1, 2, 3, -4}, 3: {-1, 2, 3, -4}}},
	}
}

// TestAliasOutputsSurvive reads models whose outputs are aliases and
// checks that every output survives, in order and with the right values:
// on import (against hand-computed values), written as ONNX (in ONNX
// Runtime), as MXNet (read back) and as model.py (in PyTorch 1.13).
func TestAliasOutputsSurvive(t *testing.T) {
	dir := t.TempDir()
	cases := outputCases(t, dir)
	x := canon.NewFloat32Tensor("x", nil, []float32{-1, 2, 3, -4})
	rt, ortErr := ort.Find("")
	if ortErr != nil {
		t.Logf("ONNX exports not run in ONNX Runtime: %v", ortErr)
	}
	type torchJob struct {
		Dir     string   `json:"dir"`
		Inputs  []string `json:"inputs"`
		Outputs []string `json:"outputs"`
	}
	var jobs []torchJob
	var wants [][]*canon.Tensor
	for k, c := range cases {
		g := load(t, c.path, "", formats.ReadOptions{})
		var names []string
		for _, o := range g.Outputs {
			names = append(names, o.Name)
		}
		if strings.Join(names, ",") != strings.Join(c.names, ",") {
			t.Errorf("%s: outputs %v, want %v", c.name, names, c.names)
			continue
		}
		in := *x
		s, _ := g.Inputs[0].StaticShape()
		in.Shape = s
		inputs := map[string]*canon.Tensor{g.Inputs[0].Name: &in}
		want := runOrdered(t, g, inputs)
		for i, v := range c.check {
			expectValues(t, c.name+" imported, output "+c.names[i], want[i], v)
		}
		// ONNX, in ONNX Runtime.
		if ortErr == nil {
			got := runORT(t, rt, g, inputs)
			if len(got) != len(want) {
				t.Errorf("%s: ONNX Runtime gives %d outputs, want %d", c.name, len(got), len(want))
			}
			for i := range min(len(got), len(want)) {
				if d := maxAbsDiff(t, got[i], want[i]); d != 0 {
					t.Errorf("%s: ONNX output %d differs by %g", c.name, i, d)
				}
			}
		}
		// MXNet, read back.
		mx := filepath.Join(dir, "mx"+strconv.Itoa(k)+"-symbol.json")
		write(t, g, mx, "mxnet")
		g2 := load(t, mx, "", formats.ReadOptions{})
		got := runOrdered(t, g2, map[string]*canon.Tensor{g2.Inputs[0].Name: &in})
		if len(got) != len(want) {
			t.Errorf("%s: the MXNet export has %d outputs, want %d", c.name, len(got), len(want))
		}
		for i := range min(len(got), len(want)) {
			if d := maxAbsDiff(t, got[i], want[i]); d != 0 {
				t.Errorf("%s: MXNet output %d differs by %g", c.name, i, d)
			}
		}
		// model.py, run later in one PyTorch process.
		td := filepath.Join(dir, "torch"+strconv.Itoa(k))
		if _, err := torchexport.Export(g, td); err != nil {
			t.Fatalf("%s: torch export: %v", c.name, err)
		}
		j := torchJob{Dir: td, Inputs: []string{filepath.Join(td, "input_0.npy")}}
		f, _ := os.Create(j.Inputs[0])
		npy.Write(f, &in)
		f.Close()
		for i := range want {
			j.Outputs = append(j.Outputs, filepath.Join(td, "output_"+strconv.Itoa(i)+".npy"))
		}
		jobs = append(jobs, j)
		wants = append(wants, want)
	}
	python := testfix.Torch(t, "numpy")
	jb, _ := json.Marshal(jobs)
	jobsPath, report, driver := filepath.Join(dir, "jobs.json"), filepath.Join(dir, "report.json"), filepath.Join(dir, "driver.py")
	os.WriteFile(jobsPath, jb, 0o644)
	os.WriteFile(driver, []byte(caffeTorchDriver+countOutputs), 0o644)
	if out, err := exec.Command(python, driver, jobsPath, report).CombinedOutput(); err != nil {
		t.Fatalf("driver failed: %v\n%s", err, out)
	}
	var errs []string
	rb, _ := os.ReadFile(report)
	json.Unmarshal(rb, &errs)
	for k, j := range jobs {
		if k >= len(errs) || errs[k] != "" {
			t.Errorf("%s: PyTorch failed: %v", cases[k].name, errs)
			continue
		}
		for i, p := range j.Outputs {
			got, err := npy.ReadFile(p)
			if err != nil {
				t.Errorf("%s: model.py output %d: %v", cases[k].name, i, err)
				continue
			}
			if d := maxAbsDiff(t, got, wants[k][i]); d != 0 {
				t.Errorf("%s: model.py output %d differs by %g", cases[k].name, i, d)
			}
		}
		if b, _ := os.ReadFile(filepath.Join(j.Dir, "count")); strings.TrimSpace(string(b)) != strconv.Itoa(len(j.Outputs)) {
			t.Errorf("%s: model.py returns %s outputs, want %d", cases[k].name, b, len(j.Outputs))
		}
	}
}

// countOutputs makes the driver record how many outputs each model.py
// returned, so that a missing one is seen.
const countOutputs = `
for job in jobs:
    spec = importlib.util.spec_from_file_location("count_model", job["dir"] + "/model.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    model = mod.Model()
    model.load_state_dict(torch.load(job["dir"] + "/weights.pt"), strict=True)
    with torch.no_grad():
        outs = model(*[torch.from_numpy(np.load(p)) for p in job["inputs"]])
    open(job["dir"] + "/count", "w").write(str(len(outs) if isinstance(outs, tuple) else 1))
`

// runOrdered runs g and returns its outputs in g's order.
func runOrdered(t *testing.T, g *canon.Graph, inputs map[string]*canon.Tensor) []*canon.Tensor {
	t.Helper()
	res, err := interp.Run(g, inputs)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]*canon.Tensor, len(g.Outputs))
	for i, o := range g.Outputs {
		out[i] = res[o.Name]
	}
	return out
}

func expectValues(t *testing.T, what string, got *canon.Tensor, want []float64) {
	t.Helper()
	v, err := got.Float64s()
	if err != nil || len(v) != len(want) {
		t.Errorf("%s: %v (%v), want %v", what, v, err, want)
		return
	}
	for i := range v {
		if math.Abs(v[i]-want[i]) > 1e-6 {
			t.Errorf("%s: %v, want %v", what, v, want)
			return
		}
	}
}
