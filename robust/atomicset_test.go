package robust

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/modelbridge/modelbridge/internal/onnxpb"
)

// Multi-file outputs (a PyTorch folder, an MXNet symbol and params pair)
// appear as a whole set or not at all. A full disk is simulated with a
// file-size limit (RLIMIT_FSIZE) small enough for the weights but not for
// the code or symbol, so that the old writers failed half way through.

// longChain is x + w followed by n Relus: tiny weights, long code.
func longChain(t *testing.T, n int) []byte {
	t.Helper()
	w := floatTensor(1)
	w.RawData = make([]byte, 4)
	nodes := []*onnxpb.NodeProto{{OpType: proto.String("Add"), Name: proto.String("add"), Input: []string{"x", "w"}, Output: []string{"v0"}}}
	for i := 0; i < n; i++ {
		out := fmt.Sprintf("v%d", i+1)
		if i == n-1 {
			out = "y"
		}
		nodes = append(nodes, &onnxpb.NodeProto{OpType: proto.String("Relu"), Name: proto.String(fmt.Sprintf("relu%d", i)), Input: []string{fmt.Sprintf("v%d", i)}, Output: []string{out}})
	}
	m := &onnxpb.ModelProto{
		IrVersion:   proto.Int64(8),
		OpsetImport: []*onnxpb.OperatorSetIdProto{{Domain: proto.String(""), Version: proto.Int64(13)}},
		Graph: &onnxpb.GraphProto{
			Name: proto.String("chain"), Node: nodes,
			Input: []*onnxpb.ValueInfoProto{valueInfo("x")}, Output: []*onnxpb.ValueInfoProto{valueInfo("y")},
			Initializer: []*onnxpb.TensorProto{w},
		},
	}
	b, err := proto.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// convertLimited runs convert with files limited to about 16 KB and
// returns the exit status and stderr.
func convertLimited(t *testing.T, in, out string, args ...string) (int, string) {
	t.Helper()
	shArgs := []string{"-c", `ulimit -f 32 && exec "$@"`, "sh", modelbridgeBin, "convert", "--quiet", in, out}
	cmd := exec.Command("/bin/sh", append(shArgs, args...)...)
	b, _ := cmd.CombinedOutput()
	return cmd.ProcessState.ExitCode(), string(b)
}

// snapshot is every file under dir (including hidden ones) with contents.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			b, _ := os.ReadFile(p)
			files[p] = string(b)
		}
		return nil
	})
	return files
}

func sameSnapshot(t *testing.T, before, after map[string]string) {
	t.Helper()
	for p, b := range before {
		if a, ok := after[p]; !ok || a != b {
			t.Errorf("%s was changed or removed", p)
		}
	}
	for p := range after {
		if _, ok := before[p]; !ok {
			t.Errorf("%s was left behind", p)
		}
	}
}

func TestMultiFileOutputsAtomicOnFullDisk(t *testing.T) {
	dir := t.TempDir()
	chain := filepath.Join(dir, "chain.onnx")
	if err := os.WriteFile(chain, longChain(t, 3000), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, out string
		args      []string
	}{
		{"torch-folder", "m", []string{"--to", "torch"}},
		{"mxnet-pair", "m-symbol.json", nil},
	} {
		t.Run(c.name+"/new", func(t *testing.T) {
			outDir := filepath.Join(dir, c.name+"-new")
			os.Mkdir(outDir, 0o755)
			code, msg := convertLimited(t, chain, filepath.Join(outDir, c.out), c.args...)
			if code == 0 {
				t.Fatalf("the file-size limit did not make the write fail: %s", msg)
			}
			sameSnapshot(t, map[string]string{}, snapshot(t, outDir))
			if entries, _ := os.ReadDir(outDir); len(entries) != 0 {
				t.Errorf("a failed write left %d entries (an empty folder?) in %s", len(entries), outDir)
			}
		})
		t.Run(c.name+"/replace", func(t *testing.T) {
			outDir := filepath.Join(dir, c.name+"-old")
			os.Mkdir(outDir, 0o755)
			convertWith(t, tinyONNX(), filepath.Join(outDir, c.out), c.args...)
			before := snapshot(t, outDir)
			code, msg := convertLimited(t, chain, filepath.Join(outDir, c.out), c.args...)
			if code == 0 {
				t.Fatalf("the file-size limit did not make the write fail: %s", msg)
			}
			if !strings.Contains(msg, "too large") {
				t.Logf("error: %s", msg)
			}
			sameSnapshot(t, before, snapshot(t, outDir))
		})
	}
}
