package robust

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/modelbridge/modelbridge/internal/onnxpb"
)

// hostileName has a newline, a terminal escape and another control byte.
const hostileName = "x\n\x1b[31mred\x01"

// TestHostileNamesInPicturesAndCheck: Graphviz draws a model whose names
// hold control characters, and a check that quotes such a name prints one
// line without raw control characters.
func TestHostileNamesInPicturesAndCheck(t *testing.T) {
	dir := t.TempDir()
	model := filepath.Join(dir, "hostile.onnx")
	g := &onnxpb.GraphProto{
		Name:   proto.String("hostile"),
		Node:   []*onnxpb.NodeProto{node("Relu", hostileName, []string{hostileName}, []string{"y"})},
		Input:  []*onnxpb.ValueInfoProto{tensorInfo(hostileName, 1, 4)},
		Output: []*onnxpb.ValueInfoProto{tensorInfo("y", 1, 4)},
	}
	if err := os.WriteFile(model, marshalModel(t, g), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := exec.LookPath("dot"); err == nil {
		for _, pic := range []string{"g.svg", "g.png"} {
			if _, stderr, code := runBin(t, "graph", model, "-o", filepath.Join(dir, pic)); code != 0 {
				t.Errorf("graph -o %s: exit %d: %s", pic, code, stderr)
			}
		}
	} else {
		t.Log("Graphviz not installed: pictures not drawn")
	}
	// B's input has another shape, so check quotes the hostile name.
	other := filepath.Join(dir, "other.onnx")
	g.Input = []*onnxpb.ValueInfoProto{tensorInfo(hostileName, 1, 5)}
	g.Output = []*onnxpb.ValueInfoProto{tensorInfo("y", 1, 5)}
	if err := os.WriteFile(other, marshalModel(t, g), 0o644); err != nil {
		t.Fatal(err)
	}
	_, stderr, code := runBin(t, "check", model, other, "--random")
	if code != 2 {
		t.Fatalf("check of models with different input shapes: exit %d, want 2: %q", code, stderr)
	}
	if strings.Count(strings.TrimRight(stderr, "\n"), "\n") != 0 || strings.ContainsAny(stderr, "\x1b\x01") {
		t.Errorf("check's error is not one escaped line: %q", stderr)
	}
}
