package runtimes

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/testfix"
)

func TestTorchKind(t *testing.T) {
	dir := t.TempDir()
	folder := filepath.Join(dir, "m")
	os.MkdirAll(folder, 0o755)
	if TorchKind(folder) != "" || IsTorchFolder(folder) {
		t.Fatal("an empty folder taken for a torch model")
	}
	for _, f := range []string{"model.py", "weights.pt"} {
		os.WriteFile(filepath.Join(folder, f), nil, 0o644)
	}
	for path, want := range map[string]string{folder: "folder", "a/traced.pt": "script", "a/x.pt2": "pt2", "a/model.onnx": ""} {
		if got := TorchKind(path); got != want {
			t.Errorf("TorchKind(%s) = %q, want %q", path, got, want)
		}
	}
}

func TestMissingRuntimesSayHowToInstall(t *testing.T) {
	t.Setenv("MODELBRIDGE_ORT_DIR", filepath.Join(t.TempDir(), "none"))
	var me *MissingError
	if err := FindORT(); !errors.As(err, &me) || !strings.Contains(err.Error(), "install.sh") {
		t.Errorf("FindORT: %v", err)
	}
	t.Setenv("MODELBRIDGE_PYTHON", filepath.Join(t.TempDir(), "python"))
	if err := FindTorch(); !errors.As(err, &me) || !strings.Contains(err.Error(), "python3-torch") {
		t.Errorf("FindTorch: %v", err)
	}
}

// TestORTRunsTwoSamples runs a fixture in ONNX Runtime on two inputs and
// checks the outputs follow them (the second is the first scaled by 0).
func TestORTRunsTwoSamples(t *testing.T) {
	model := filepath.Join(testfix.Fixtures(t), "torch", "tiny_convnet", "model.onnx")
	if err := FindORT(); err != nil {
		t.Skipf("skipping: %v", err)
	}
	x := make([]float32, 3*32*32)
	for i := range x {
		x[i] = float32(i%7) / 7
	}
	zero := make([]float32, len(x))
	res, err := RunORT(model, []Sample{
		{canon.NewFloat32Tensor("input", []int64{1, 3, 32, 32}, x)},
		{canon.NewFloat32Tensor("input", []int64{1, 3, 32, 32}, zero)},
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Outputs) != 2 || len(res.Outputs[0]) != 1 || len(res.Names) != 1 || !strings.HasPrefix(res.Runtime, "ONNX Runtime 1.") {
		t.Fatalf("%+v", res)
	}
	a, _ := res.Outputs[0][0].Float64s()
	b, _ := res.Outputs[1][0].Float64s()
	same := true
	for i := range a {
		same = same && a[i] == b[i]
	}
	if len(a) != 10 || same {
		t.Fatalf("outputs %v and %v", a, b)
	}
	vals, _, err := ORTAllValues(model, Sample{canon.NewFloat32Tensor("input", []int64{1, 3, 32, 32}, x)})
	if err != nil {
		t.Fatal(err)
	}
	if len(vals) < 5 {
		t.Fatalf("ORTAllValues returned %d values", len(vals))
	}
}

func TestONNXSignature(t *testing.T) {
	ins, outs, err := ONNXSignature(filepath.Join(testfix.RepoRoot(), "testdata", "tiny_convnet.onnx"))
	if err != nil {
		t.Fatal(err)
	}
	if len(ins) != 1 || len(outs) != 1 || outs[0].Name != "logits" || ins[0].DType != canon.Float32 || !ins[0].RankKnown || len(ins[0].Shape) != 4 {
		t.Fatalf("inputs %+v outputs %+v", ins, outs)
	}
	if _, _, err := ONNXSignature(filepath.Join(testfix.RepoRoot(), "README.md")); err == nil {
		t.Fatal("README.md read as an ONNX model")
	}
}

func TestLastPythonError(t *testing.T) {
	tb := "Traceback (most recent call last):\n  File \"x.py\", line 1, in <module>\n    f()\nRuntimeError: \nUnknown builtin op: aten::foo.\n  File \"code/m.py\", line 3"
	if got := lastPythonError(tb); !strings.HasPrefix(got, "RuntimeError:") || !strings.Contains(got, "code/m.py") || strings.Contains(got, "x.py") {
		t.Fatalf("%q", got)
	}
	if got := lastPythonError("plain message"); got != "plain message" {
		t.Fatalf("%q", got)
	}
}
