package robust

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/modelbridge/modelbridge/internal/onnxpb"
)

// Names that are not valid UTF-8 are refused the same way by every
// exporter (JSON would turn two of them into one key, and an MXNet symbol
// would stop matching its params), and nothing is written.
func TestInvalidUTF8NamesRefusedEverywhere(t *testing.T) {
	w1 := &onnxpb.TensorProto{Name: proto.String("w\xff"), DataType: proto.Int32(1), Dims: []int64{1}, RawData: f32Raw(1)}
	w2 := &onnxpb.TensorProto{Name: proto.String("w\xfe"), DataType: proto.Int32(1), Dims: []int64{1}, RawData: f32Raw(2)}
	model := marshalModel(t, &onnxpb.GraphProto{
		Name: proto.String("g"),
		Node: []*onnxpb.NodeProto{
			node("Add", "a", []string{"x", "w\xff"}, []string{"t"}),
			node("Add", "b", []string{"t", "w\xfe"}, []string{"y"}),
		},
		Initializer: []*onnxpb.TensorProto{w1, w2},
		Input:       []*onnxpb.ValueInfoProto{tensorInfo("x", 1)},
		Output:      []*onnxpb.ValueInfoProto{tensorInfo("y", 1)},
	})
	dir := t.TempDir()
	in := filepath.Join(dir, "bad.onnx")
	if err := os.WriteFile(in, model, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, out := range []string{"o.safetensors", "o-symbol.json", "o.pt", "o.onnx", "folder"} {
		t.Run(out, func(t *testing.T) {
			outDir := filepath.Join(dir, out+"-out")
			os.Mkdir(outDir, 0o755)
			args := []string{"convert", "--quiet", in, filepath.Join(outDir, out)}
			if out == "folder" {
				args = append(args, "--to", "torch")
			}
			_, stderr, code := runBin(t, args...)
			if code == 0 || !strings.Contains(stderr, `"w\xff" is not valid UTF-8`) {
				t.Errorf("exit %d: %q; want the invalid name refused", code, stderr)
			}
			if entries, _ := os.ReadDir(outDir); len(entries) != 0 {
				t.Errorf("%d files written", len(entries))
			}
		})
	}
}
