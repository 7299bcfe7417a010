package main

import (
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/onnxpb"
	"github.com/modelbridge/modelbridge/internal/tensorfile"
	"github.com/modelbridge/modelbridge/internal/testfix"
)

// TestCheckFloat16Models: a model converted with --fp16 passes check
// against its float32 original at default settings (the rounding term
// takes float16's unit roundoff and says so), with float32 or float16
// inputs, while a real error in the float16 model is still caught.
func TestCheckFloat16Models(t *testing.T) {
	dir := t.TempDir()
	keep := filepath.Join(dir, "keep-io.onnx")
	half := filepath.Join(dir, "half-io.onnx")
	for _, c := range [][]string{
		{"convert", tinyModel, keep, "--fp16", "--keep-io-types"},
		{"convert", tinyModel, half, "--fp16"},
	} {
		if code, _, stderr := cli(t, c...); code != 0 {
			t.Fatalf("%v: exit %d: %s", c, code, stderr)
		}
	}
	for _, m := range []string{keep, half} {
		code, stdout, stderr := cli(t, "check", tinyModel, m, "--random", "--samples", "4")
		if code != 0 {
			t.Errorf("check %s: exit %d, want 0 (within float16 rounding):\n%s%s", filepath.Base(m), code, stdout, stderr)
		}
		if !strings.Contains(stdout, "u of f16") {
			t.Errorf("check %s does not say it used float16's unit roundoff:\n%s", filepath.Base(m), stdout)
		}
	}
	if _, stdout, _ := cli(t, "check", tinyModel, half, "--random"); !strings.Contains(stdout, "rounded to f16") {
		t.Errorf("check with float16 inputs does not say how B's inputs were made:\n%s", stdout)
	}

	// The same float16 model with one bias off by 0.05: a real error.
	b, err := os.ReadFile(keep)
	if err != nil {
		t.Fatal(err)
	}
	var mp onnxpb.ModelProto
	if err := proto.Unmarshal(b, &mp); err != nil {
		t.Fatal(err)
	}
	changed := false
	for _, init := range mp.GetGraph().GetInitializer() {
		if init.GetName() == "fc.bias" && len(init.GetRawData()) >= 2 {
			raw := init.GetRawData()
			v := canon.HalfToFloat32(binary.LittleEndian.Uint16(raw))
			binary.LittleEndian.PutUint16(raw, canon.Float32ToHalf(v+0.05))
			changed = true
		}
	}
	if !changed {
		t.Fatal("the float16 model has no fc.bias initializer with raw data to change")
	}
	broken := filepath.Join(dir, "broken.onnx")
	if b, err = proto.Marshal(&mp); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(broken, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if code, stdout, _ := cli(t, "check", tinyModel, broken, "--random", "--samples", "4"); code != 1 {
		t.Errorf("check of a float16 model with a wrong bias: exit %d, want 1 (different):\n%s", code, stdout)
	}
}

// TestCheckDTypeMismatch: inputs whose dtypes differ (not both floats)
// are refused saying so, not as a shape difference.
func TestCheckDTypeMismatch(t *testing.T) {
	dir := filepath.Join(testfix.Fixtures(t), "torch2-ops", "op_one_hot")
	if _, err := os.Stat(filepath.Join(dir, "model.onnx")); err != nil {
		t.Skipf("skipping: %v", err)
	}
	code, _, stderr := cli(t, "check", filepath.Join(dir, "model.onnx"), tinyModel, "--random")
	if code != 2 || !strings.Contains(stderr, "dtypes differ") {
		t.Errorf("exit %d, want 2 saying the dtypes differ:\n%s", code, stderr)
	}
}

// TestRandomInputsNeedRecordedSizes: --random on a TorchScript archive,
// which records no input sizes, names the free sizes and asks for them.
func TestRandomInputsNeedRecordedSizes(t *testing.T) {
	traced := filepath.Join(testfix.Fixtures(t), "torch", "tiny_convnet", "traced.pt")
	code, _, stderr := cli(t, "run", traced, "--random", "--out", t.TempDir())
	if code != 2 || !strings.Contains(stderr, "x_dim1") || !strings.Contains(stderr, "--input-shape x=") {
		t.Errorf("run --random on a traced archive: exit %d, want 2 naming the free sizes and --input-shape:\n%s", code, stderr)
	}
	if code, _, stderr := cli(t, "run", traced, "--random", "--input-shape", "x=2,3,32,32", "--out", t.TempDir()); code != 0 {
		t.Errorf("run --random with --input-shape: exit %d: %s", code, stderr)
	}
}

// TestOtherBatchSize: an input of another batch size than the file fixes
// gets a hint naming the flags; with --input-shape (with or without
// --dynamic-batch) the model runs at that size.
func TestOtherBatchSize(t *testing.T) {
	dir := t.TempDir()
	in, err := tensorfile.Random([]canon.ValueInfo{{Name: "input", DType: canon.Float32, Shape: canon.DimsOf(2, 3, 32, 32), RankKnown: true}}, nil, 3)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "b2.pb")
	if err := tensorfile.Save(in["input"], file); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := cli(t, "run", tinyModel, "--input", "input="+file, "--out", filepath.Join(dir, "o"))
	if code != 2 || !strings.Contains(stderr, "--input-shape input=2,3,32,32") || !strings.Contains(stderr, "--dynamic-batch") {
		t.Errorf("batch 2 into a batch-1 model: exit %d, want 2 with a hint naming --input-shape and --dynamic-batch:\n%s", code, stderr)
	}
	for _, extra := range [][]string{
		{"--input-shape", "input=2,3,32,32"},
		{"--input-shape", "input=2,3,32,32", "--dynamic-batch"},
		{"--dynamic-batch"},
	} {
		args := append([]string{"run", tinyModel, "--input", "input=" + file, "--out", filepath.Join(dir, "o")}, extra...)
		if code, _, stderr := cli(t, args...); code != 0 {
			t.Errorf("%v: exit %d: %s", extra, code, stderr)
		}
	}
	out := filepath.Join(dir, "b2.onnx")
	if code, _, stderr := cli(t, "convert", tinyModel, out, "--input-shape", "input=2,3,32,32"); code != 0 {
		t.Fatalf("convert --input-shape input=2,3,32,32: exit %d: %s", code, stderr)
	}
	if code, stdout, stderr := cli(t, "check", tinyModel, out, "--input", "input="+file, "--input-shape", "input=2,3,32,32"); code != 0 {
		t.Errorf("check of the batch-2 conversion: exit %d: %s %s", code, stdout, stderr)
	}
}

// TestCheckStoredOutputs: one model and a test folder compare the model's
// outputs with the folder's output_N.pb; a wrong stored value fails.
func TestCheckStoredOutputs(t *testing.T) {
	data := filepath.Join(testfix.RepoRoot(), "testdata", "tiny_convnet_data")
	if code, stdout, stderr := cli(t, "check", tinyModel, "--inputs", data); code != 0 || !strings.Contains(stdout, "stored outputs") {
		t.Fatalf("check against the stored outputs: exit %d:\n%s%s", code, stdout, stderr)
	}
	// The same folder with one output value changed.
	bad := t.TempDir()
	for _, f := range []string{"input_0.pb", "output_0.pb"} {
		copyTestFile(t, filepath.Join(data, f), filepath.Join(bad, f))
	}
	out, err := tensorfile.Load(filepath.Join(bad, "output_0.pb"))
	if err != nil {
		t.Fatal(err)
	}
	v := math.Float32frombits(binary.LittleEndian.Uint32(out.Data))
	binary.LittleEndian.PutUint32(out.Data, math.Float32bits(v+0.01))
	if err := tensorfile.Save(out, filepath.Join(bad, "output_0.pb")); err != nil {
		t.Fatal(err)
	}
	if code, stdout, _ := cli(t, "check", tinyModel, "--inputs", bad); code != 1 {
		t.Errorf("check against a changed stored output: exit %d, want 1:\n%s", code, stdout)
	}
	os.Remove(filepath.Join(bad, "output_0.pb"))
	if code, _, stderr := cli(t, "check", tinyModel, "--inputs", bad); code != 2 || !strings.Contains(stderr, "output_0.pb") {
		t.Errorf("check without stored outputs: exit %d, want 2 naming output_0.pb: %s", code, stderr)
	}
	if code, _, stderr := cli(t, "check", tinyModel, "--random"); code != 2 || !strings.Contains(stderr, "--inputs DIR") {
		t.Errorf("check of one model with --random: exit %d, want 2 asking for --inputs DIR: %s", code, stderr)
	}
}

func copyTestFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestOpsByFrameworkName: ops finds an op by a framework's own name, and
// --json prints only the ops named.
func TestOpsByFrameworkName(t *testing.T) {
	for _, name := range []string{"Conv2d", "Convolution", "aten::conv2d", "conv1d"} {
		code, stdout, stderr := cli(t, "ops", name)
		if code != 0 || !strings.Contains(stdout, "\nConv ") {
			t.Errorf("ops %s: exit %d, want the Conv row:\n%s%s", name, code, stdout, stderr)
		}
	}
	code, stdout, _ := cli(t, "ops", "Gelu", "--json")
	if code != 0 || strings.Count(stdout, `"kind"`) != 1 || !strings.Contains(stdout, `"Gelu"`) {
		t.Errorf("ops Gelu --json: exit %d, want one op:\n%.400s", code, stdout)
	}
	if code, _, _ := cli(t, "ops", "NoSuchOp"); code != 2 {
		t.Errorf("ops NoSuchOp: exit %d, want 2", code)
	}
}

// TestMissingAndFolderInputs: a missing file and a --to torch folder get
// plain messages saying what to do.
func TestMissingAndFolderInputs(t *testing.T) {
	code, _, stderr := cli(t, "inspect", "nosuch.onnx")
	if code == 0 || strings.Contains(stderr, "stat ") || !strings.Contains(stderr, "nosuch.onnx: no such file") {
		t.Errorf("inspect nosuch.onnx: exit %d: %s", code, stderr)
	}
	folder := filepath.Join(t.TempDir(), "tiny_torch")
	if code, _, stderr := cli(t, "convert", tinyModel, folder, "--to", "torch"); code != 0 {
		t.Fatalf("convert --to torch: exit %d: %s", code, stderr)
	}
	for _, c := range [][]string{{"inspect", folder}, {"convert", folder, filepath.Join(t.TempDir(), "x.onnx")}} {
		code, _, stderr := cli(t, c...)
		if code == 0 || !strings.Contains(stderr, "`convert --to torch` folder") || !strings.Contains(stderr, "check") {
			t.Errorf("%s of a --to torch folder: exit %d, want a message saying check runs it: %s", c[0], code, stderr)
		}
	}
}

// TestOutputFolderRule: every output goes into an existing folder; only
// an output that is a folder itself is created.
func TestOutputFolderRule(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "no", "such")
	for _, c := range [][]string{
		{"convert", tinyModel, filepath.Join(missing, "t.onnx")},
		{"convert", tinyModel, filepath.Join(missing, "tt"), "--to", "torch"},
		{"run", tinyModel, "--random", "--out", filepath.Join(missing, "out")},
	} {
		code, _, stderr := cli(t, c...)
		if code == 0 || !strings.Contains(stderr, "does not exist; create it first") {
			t.Errorf("%v: exit %d, want a refusal asking to create the folder: %s", c, code, stderr)
		}
	}
	if _, err := os.Stat(filepath.Dir(missing)); !os.IsNotExist(err) {
		t.Errorf("a refused output created folders: %v", err)
	}
	out := filepath.Join(t.TempDir(), "out")
	if code, _, stderr := cli(t, "run", tinyModel, "--random", "--out", out); code != 0 {
		t.Errorf("run --out into an existing folder: exit %d: %s", code, stderr)
	}
}

// TestSmallUXMessages: a weights mismatch names a few tensors per list,
// and the cost-model target does not claim to time anything.
func TestSmallUXMessages(t *testing.T) {
	dir := filepath.Join(testfix.Fixtures(t), "torch", "deconv_net")
	code, _, stderr := cli(t, "convert", tinyModel, "--weights", filepath.Join(dir, "state_dict.pt"), filepath.Join(t.TempDir(), "w.onnx"))
	if code == 0 || !strings.Contains(stderr, "and 7 more") || strings.Contains(stderr, "out.bias") {
		t.Errorf("weights mismatch: exit %d, want short lists: %s", code, stderr)
	}
	code, stdout, stderr := cli(t, "optimize", tinyModel, filepath.Join(t.TempDir(), "o.onnx"), "--target", "model", "--allow-growth")
	if code != 0 || strings.Contains(stdout, "timed,") || !strings.Contains(stdout, "judged by the cost model") {
		t.Errorf("optimize --target model: exit %d:\n%s%s", code, stdout, stderr)
	}
}
