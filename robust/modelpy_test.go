package robust

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/modelbridge/modelbridge/internal/onnxpb"

	"github.com/modelbridge/modelbridge/internal/testfix"
)

// A model whose names collide with Python (keywords after lower-casing,
// builtins the generated code calls, nn.Module methods) converts to a
// model.py that real PyTorch runs.
func TestModelPyNamesInTorch(t *testing.T) {
	py := testfix.Torch(t)
	w := &onnxpb.TensorProto{Name: proto.String("register_forward_hook"), DataType: proto.Int32(1), Dims: []int64{1, 1, 1, 1}, RawData: f32Raw(2)}
	b := &onnxpb.TensorProto{Name: proto.String("compile"), DataType: proto.Int32(1), Dims: []int64{1}, RawData: f32Raw(0.5)}
	model := marshalModel(t, &onnxpb.GraphProto{
		Name: proto.String("names"),
		Node: []*onnxpb.NodeProto{
			node("Relu", "getattr", []string{"IF"}, []string{"getattr"}),
			node("Conv", "Class", []string{"getattr", "register_forward_hook", "compile"}, []string{"float"}),
			node("Sigmoid", "FLOAT", []string{"float"}, []string{"Return"}),
		},
		Initializer: []*onnxpb.TensorProto{w, b},
		Input:       []*onnxpb.ValueInfoProto{tensorInfo("IF", 1, 1, 2, 2)},
		Output:      []*onnxpb.ValueInfoProto{tensorInfo("Return", 1, 1, 2, 2)},
	})
	dir := t.TempDir()
	in := filepath.Join(dir, "names.onnx")
	if err := os.WriteFile(in, model, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, stderr, code := runBin(t, "convert", "--quiet", in, filepath.Join(dir, "m"), "--to", "torch"); code != 0 {
		t.Fatalf("convert: %s", stderr)
	}
	script := `
import importlib.util, sys, torch
d = sys.argv[1]
spec = importlib.util.spec_from_file_location("m", d + "/m/model.py")
mod = importlib.util.module_from_spec(spec)
spec.loader.exec_module(mod)
m = mod.Model()
m.load_state_dict(torch.load(d + "/m/weights.pt"), strict=True)
assert callable(m.register_forward_hook)
y = m(torch.tensor([[[[-1.0, 0.0], [1.0, 2.0]]]]))
want = torch.sigmoid(torch.tensor([[[[0.0, 0.0], [2.0, 4.0]]]]) + 0.5)
assert (y - want).abs().max().item() < 1e-6, y
print("ok")
`
	if out, err := exec.Command(py, "-c", script, dir).CombinedOutput(); err != nil || !strings.Contains(string(out), "ok") {
		src, _ := os.ReadFile(filepath.Join(dir, "m", "model.py"))
		t.Fatalf("model.py fails in PyTorch: %v\n%s\n%s", err, out, src)
	}
}
