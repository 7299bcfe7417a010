package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/onnxpb"
	"github.com/modelbridge/modelbridge/internal/onnxtensor"
	"github.com/modelbridge/modelbridge/internal/runtimes"
	"github.com/modelbridge/modelbridge/internal/testfix"
)

// TestCheckExitCodes: 1 only when the outputs differ; 2 when a model
// cannot be read (missing file, unsupported op) or the flags are wrong.
func TestCheckExitCodes(t *testing.T) {
	dir := t.TempDir()
	base := smallModel()
	a := writeModel(t, dir, "a.onnx", base)
	changed := proto.Clone(base).(*onnxpb.ModelProto)
	changed.Graph.Initializer[0].RawData[3] ^= 0x80
	b := writeModel(t, dir, "b.onnx", changed)
	unsupported := proto.Clone(base).(*onnxpb.ModelProto)
	unsupported.Graph.Node[1].OpType = proto.String("NoSuchOp")
	u := writeModel(t, dir, "u.onnx", unsupported)
	cases := []struct {
		args []string
		code int
		want string // in stdout+stderr
	}{
		{[]string{a, a}, 0, "ok"},
		{[]string{a, b}, 1, "DIFFERS"},
		{[]string{a, filepath.Join(dir, "missing.onnx")}, 2, "missing.onnx"},
		{[]string{filepath.Join(dir, "missing.onnx"), a}, 2, "missing.onnx"},
		{[]string{a, u}, 2, "NoSuchOp"},
		{[]string{a, u, "--json"}, 2, `"error"`},
		{[]string{a, a, "--runtime", "tensorrt"}, 2, "unknown runtime"},
		{[]string{a, a, "--a-runtime", "torch"}, 2, "PyTorch runs TorchScript files"},
	}
	for _, c := range cases {
		args := append([]string{"check", "--random"}, c.args...)
		code, stdout, stderr := cli(t, args...)
		if code != c.code || !strings.Contains(stdout+stderr, c.want) {
			t.Errorf("%v: exit %d (want %d), want %q in:\n%s%s", args, code, c.code, c.want, stdout, stderr)
		}
	}
}

// TestCheckMissingRuntimeSaysHowToInstall: a runtime that is not there is
// exit 2 with the command that installs it.
func TestCheckMissingRuntimeSaysHowToInstall(t *testing.T) {
	dir := t.TempDir()
	a := writeModel(t, dir, "a.onnx", smallModel())
	t.Setenv("MODELBRIDGE_ORT_DIR", filepath.Join(dir, "no-ort"))
	code, _, stderr := cli(t, "check", a, a, "--random", "--b-runtime", "ort")
	if code != 2 || !strings.Contains(stderr, "ONNX Runtime is not available") || !strings.Contains(stderr, "tools/ort/install.sh") {
		t.Errorf("check --b-runtime ort without ONNX Runtime: exit %d: %s", code, stderr)
	}
	t.Setenv("MODELBRIDGE_PYTHON", filepath.Join(dir, "no-python"))
	folder := filepath.Join(dir, "torch_model")
	if code, _, stderr := cli(t, "convert", a, folder, "--to", "torch"); code != 0 {
		t.Fatalf("convert --to torch: exit %d: %s", code, stderr)
	}
	code, _, stderr = cli(t, "check", folder, a, "--random")
	if code != 2 || !strings.Contains(stderr, "PyTorch is not available") || !strings.Contains(stderr, "apt-get install python3-torch") {
		t.Errorf("check of a torch folder without PyTorch: exit %d: %s", code, stderr)
	}
}

func needORT(t *testing.T) {
	t.Helper()
	if err := runtimes.FindORT(); err != nil {
		t.Skipf("skipping: %v", err)
	}
}

func needTorch(t *testing.T) {
	t.Helper()
	if err := runtimes.FindTorch(); err != nil {
		t.Skipf("skipping: %v", err)
	}
}

// TestCheckTorchAgainstORT runs every torch fixture's TorchScript file in
// PyTorch and its ONNX export in ONNX Runtime, on PyTorch's stored input
// and on random inputs.
func TestCheckTorchAgainstORT(t *testing.T) {
	if testing.Short() {
		t.Skip("skipping: starts PyTorch and ONNX Runtime for each fixture (-short)")
	}
	root := filepath.Join(testfix.Fixtures(t), "torch")
	needORT(t)
	needTorch(t)
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		dir := filepath.Join(root, e.Name())
		traced, onnxFile := filepath.Join(dir, "traced.pt"), filepath.Join(dir, "model.onnx")
		if _, err := os.Stat(traced); err != nil {
			continue
		}
		code, stdout, stderr := cli(t, "check", traced, onnxFile, "--a-runtime", "torch", "--b-runtime", "ort",
			"--inputs", filepath.Join(dir, "test_data_set_0"), "--json")
		var rep checkReport
		if err := json.Unmarshal([]byte(stdout), &rep); err != nil || code != 0 || !rep.OK {
			t.Errorf("%s: exit %d: %v %s %s", e.Name(), code, err, stdout, stderr)
			continue
		}
		if !strings.HasPrefix(rep.RuntimeA, "PyTorch ") || !strings.HasPrefix(rep.RuntimeB, "ONNX Runtime ") {
			t.Errorf("%s: runtimes %q and %q", e.Name(), rep.RuntimeA, rep.RuntimeB)
		}
		// PyTorch's own output is the reference the fixture stored.
		want, err := os.ReadFile(filepath.Join(dir, "test_data_set_0", "output_0.pb"))
		if err != nil {
			t.Fatal(err)
		}
		if len(want) == 0 {
			t.Fatalf("%s: empty reference output", e.Name())
		}
		t.Logf("%s: PyTorch vs ONNX Runtime max abs %.3g, max rel %.3g", e.Name(), rep.Outputs[0].MaxAbs, rep.Outputs[0].MaxRel)
	}
	// Random inputs: the shape comes from the ONNX side.
	dir := filepath.Join(root, "tiny_convnet")
	code, stdout, stderr := cli(t, "check", filepath.Join(dir, "traced.pt"), filepath.Join(dir, "model.onnx"), "--a-runtime", "torch", "--b-runtime", "ort", "--random", "--samples", "2")
	if code != 0 || !strings.Contains(stdout, "A run by: PyTorch") || !strings.Contains(stdout, "B run by: ONNX Runtime") {
		t.Errorf("random inputs: exit %d: %s %s", code, stdout, stderr)
	}
}

// TestCheckTorchRuntimeSeesADifference: PyTorch on the fixture against
// ONNX Runtime on a corrupted export is exit 1, so the runtimes' agreement
// above is measured, not assumed.
func TestCheckTorchRuntimeSeesADifference(t *testing.T) {
	dir := filepath.Join(testfix.Fixtures(t), "torch", "deconv_net")
	needORT(t)
	needTorch(t)
	bad := corruptConvTranspose(t, filepath.Join(dir, "model.onnx"), "up2.weight")
	code, stdout, stderr := cli(t, "check", filepath.Join(dir, "traced.pt"), bad, "--a-runtime", "torch", "--b-runtime", "ort", "--inputs", filepath.Join(dir, "test_data_set_0"))
	if code != 1 || !strings.Contains(stdout, "DIFFERS") {
		t.Errorf("exit %d: %s %s", code, stdout, stderr)
	}
}

// TestCheckTorchFolder: check takes the folder convert --to torch wrote and
// runs it in PyTorch; the interpreter cannot run it.
func TestCheckTorchFolder(t *testing.T) {
	dir := filepath.Join(testfix.Fixtures(t), "torch", "tiny_convnet")
	needTorch(t)
	folder := filepath.Join(t.TempDir(), "tiny_torch")
	onnxFile := filepath.Join(dir, "model.onnx")
	if code, _, stderr := cli(t, "convert", onnxFile, folder, "--to", "torch"); code != 0 {
		t.Fatalf("convert --to torch: exit %d: %s", code, stderr)
	}
	code, stdout, stderr := cli(t, "check", onnxFile, folder, "--inputs", filepath.Join(dir, "test_data_set_0"))
	if code != 0 || !strings.Contains(stdout, "B run by: PyTorch") {
		t.Errorf("check ONNX vs folder: exit %d: %s %s", code, stdout, stderr)
	}
	code, stdout, stderr = cli(t, "check", folder, onnxFile, "--random", "--seed", "3")
	if code != 0 || !strings.Contains(stdout, "A run by: PyTorch") {
		t.Errorf("check folder vs ONNX with random inputs: exit %d: %s %s", code, stdout, stderr)
	}
	code, _, stderr = cli(t, "check", onnxFile, folder, "--random", "--runtime", "interp")
	if code != 2 || !strings.Contains(stderr, "only PyTorch runs it") {
		t.Errorf("folder in the interpreter: exit %d: %s", code, stderr)
	}
}

// TestCheckPT2InTorch: a .pt2 runs in PyTorch when it has torch.export;
// PyTorch 1.13 has not, and check says so.
func TestCheckPT2InTorch(t *testing.T) {
	dir := filepath.Join(testfix.Fixtures(t), "torch2", "tiny_convnet")
	needTorch(t)
	code, stdout, stderr := cli(t, "check", filepath.Join(dir, "exported.pt2"), filepath.Join(dir, "model.onnx"),
		"--a-runtime", "torch", "--inputs", filepath.Join(dir, "test_data_set_0"))
	switch code {
	case 0:
		if !strings.Contains(stdout, "A run by: PyTorch 2.") {
			t.Errorf("runtime not printed: %s", stdout)
		}
	case 2:
		if !strings.Contains(stderr, "torch.export.load arrived in PyTorch 2.1") {
			t.Errorf("PyTorch without torch.export: %s", stderr)
		}
	default:
		t.Errorf("exit %d: %s %s", code, stdout, stderr)
	}
}

// corruptConvTranspose writes a copy of an ONNX model whose named weight
// holds its values in the wrong layout (OIHW bytes under an IOHW shape, as
// a converter forgetting ConvTranspose's layout would write them).
func corruptConvTranspose(t *testing.T, src, weight string) string {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	mp := &onnxpb.ModelProto{}
	if err := proto.Unmarshal(b, mp); err != nil {
		t.Fatal(err)
	}
	found := false
	for i, tp := range mp.Graph.Initializer {
		if tp.GetName() != weight {
			continue
		}
		w, err := onnxtensor.ReadProto(tp, filepath.Dir(src))
		if err != nil {
			t.Fatal(err)
		}
		v, err := w.Float64s()
		if err != nil || len(w.Shape) != 4 {
			t.Fatalf("%s: %v %v", weight, w.Shape, err)
		}
		d0, d1, rest := w.Shape[0], w.Shape[1], w.Shape[2]*w.Shape[3]
		moved := make([]float32, len(v))
		for i0 := int64(0); i0 < d0; i0++ {
			for i1 := int64(0); i1 < d1; i1++ {
				for k := int64(0); k < rest; k++ {
					moved[(i1*d0+i0)*rest+k] = float32(v[(i0*d1+i1)*rest+k])
				}
			}
		}
		mp.Graph.Initializer[i] = onnxtensor.ToProto(canon.NewFloat32Tensor(weight, w.Shape, moved))
		found = true
	}
	if !found {
		t.Fatalf("%s has no weight %s", src, weight)
	}
	out, err := proto.Marshal(mp)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "corrupted.onnx")
	if err := os.WriteFile(p, out, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestCheckFrameworksWithoutImport: PyTorch 2.6's files against their ONNX
// exports in ONNX Runtime. Where modelbridge cannot import a side, the
// side runs with the declared (or the other side's) inputs and outputs and
// a note says so; a file PyTorch 1.13 cannot load is exit 2 naming why.
func TestCheckFrameworksWithoutImport(t *testing.T) {
	if testing.Short() {
		t.Skip("skipping: starts PyTorch and ONNX Runtime for each fixture (-short)")
	}
	root := filepath.Join(testfix.Fixtures(t), "torch2")
	needORT(t)
	needTorch(t)
	for _, name := range []string{"tiny_unet", "tiny_lstm", "tiny_transformer"} {
		dir := filepath.Join(root, name)
		code, stdout, stderr := cli(t, "check", filepath.Join(dir, "traced.pt"), filepath.Join(dir, "model.onnx"),
			"--a-runtime", "torch", "--b-runtime", "ort", "--inputs", filepath.Join(dir, "test_data_set_0"), "--json")
		var rep checkReport
		json.Unmarshal([]byte(stdout), &rep)
		switch {
		case code == 0 && rep.OK:
			for _, n := range rep.Notes {
				if !strings.Contains(n, "cannot import") {
					t.Errorf("%s: note %q", name, n)
				}
			}
			t.Logf("%s: max abs %.3g; notes: %q", name, rep.Outputs[0].MaxAbs, rep.Notes)
		case code == 2 && strings.Contains(stderr, "cannot load") && strings.Contains(stderr, "newer PyTorch"):
			t.Logf("%s: %s", name, strings.SplitN(stderr, "\n", 2)[0])
		default:
			t.Errorf("%s: exit %d: %s %s", name, code, stdout, stderr)
		}
	}
}
