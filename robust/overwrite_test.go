package robust

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/modelbridge/modelbridge/internal/onnxpb"
	"github.com/modelbridge/modelbridge/internal/testfix"
)

// Every command that writes must leave every file it read untouched, with
// files compared by identity (links, symlinked folders, other spellings).

// runBin runs the command and returns its stdout, stderr and exit status.
func runBin(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), runTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, modelbridgeBin, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("%v: still running after %v", args, runTimeout)
	}
	return stdout.String(), stderr.String(), cmd.ProcessState.ExitCode()
}

// keep records a file's contents so that unchanged can tell whether a
// command replaced it.
func keep(t *testing.T, path string) func() {
	t.Helper()
	before, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return func() {
		t.Helper()
		if after, err := os.ReadFile(path); err != nil || !bytes.Equal(before, after) {
			t.Errorf("%s was changed or removed (%v)", path, err)
		}
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func tinyONNX() string { return filepath.Join(testfix.RepoRoot(), "testdata/tiny_convnet.onnx") }

// wantRefused checks that a command failed with a one-line error and that
// the protected files are unchanged.
func wantRefused(t *testing.T, checks []func(), args ...string) {
	t.Helper()
	stdout, stderr, code := runBin(t, args...)
	stderr += stdout // batch mode reports each file's error in its table
	if code == 0 {
		t.Errorf("%v succeeded; want a refusal", args)
	}
	if !strings.Contains(stderr, "overwrite") && !strings.Contains(stderr, "inside the input folder") && !strings.Contains(stderr, "--inputs folder") {
		t.Errorf("%v: error does not say why: %q", args, stderr)
	}
	for _, c := range checks {
		c()
	}
}

func TestBatchOutThroughSymlinkToInput(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in")
	copyFile(t, tinyONNX(), filepath.Join(in, "a.onnx"))
	if err := os.WriteFile(filepath.Join(in, "a.safetensors"), precious, 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(in, link); err != nil {
		t.Fatal(err)
	}
	wantRefused(t, []func(){keep(t, filepath.Join(in, "a.safetensors"))},
		"convert", "--quiet", "--batch", in, "--to", "safetensors", "--out", link)
}

// A model whose external data lives in a subfolder, converted in batch
// mode into that subfolder, must not replace its own data file.
func TestBatchOutOverExternalData(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in")
	sub := filepath.Join(in, "sub")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	convertWith(t, tinyONNX(), filepath.Join(sub, "a.onnx"), "--external-data")
	// Move the model up one folder and point its tensors at sub/.
	b, err := os.ReadFile(filepath.Join(sub, "a.onnx"))
	if err != nil {
		t.Fatal(err)
	}
	var m onnxpb.ModelProto
	if err := proto.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	moved := 0
	for _, init := range m.Graph.Initializer {
		for _, kv := range init.ExternalData {
			if kv.GetKey() == "location" {
				kv.Value = proto.String("sub/" + kv.GetValue())
				moved++
			}
		}
	}
	if moved == 0 {
		t.Fatal("the model has no external data")
	}
	if b, err = proto.Marshal(&m); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(in, "a.onnx"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(sub, "a.onnx"))
	wantRefused(t, []func(){keep(t, filepath.Join(sub, "a.onnx.data"))},
		"convert", "--quiet", "--batch", in, "--to", "onnx", "--out", sub, "--external-data")
}

func TestGraphOutputOverInput(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.onnx"), filepath.Join(dir, "b.onnx")
	copyFile(t, tinyONNX(), a)
	copyFile(t, tinyONNX(), b)
	wantRefused(t, []func(){keep(t, a)}, "graph", a, "-o", a, "--format", "dot")
	wantRefused(t, []func(){keep(t, a), keep(t, b)}, "graph", a, "--diff", b, "-o", b, "--format", "dot")
	// Through a hard link: another name for the same file.
	hl := filepath.Join(dir, "a.dot")
	if err := os.Link(a, hl); err != nil {
		t.Fatal(err)
	}
	wantRefused(t, []func(){keep(t, a)}, "graph", a, "-o", hl)
}

func TestRunOutputOverInput(t *testing.T) {
	dir := t.TempDir()
	// A model that happens to be named like the first output.
	model := filepath.Join(dir, "output_0.pb")
	copyFile(t, tinyONNX(), model)
	wantRefused(t, []func(){keep(t, model)}, "run", model, "--random", "--out", dir)

	// The reference outputs of an --inputs folder.
	data := filepath.Join(dir, "set")
	src := filepath.Join(testfix.RepoRoot(), "testdata/tiny_convnet_data")
	copyFile(t, filepath.Join(src, "input_0.pb"), filepath.Join(data, "input_0.pb"))
	copyFile(t, filepath.Join(src, "output_0.pb"), filepath.Join(data, "output_0.pb"))
	wantRefused(t, []func(){keep(t, filepath.Join(data, "output_0.pb"))}, "run", tinyONNX(), "--inputs", data, "--out", data)

	// An --input file named like an output.
	other := filepath.Join(dir, "other")
	copyFile(t, filepath.Join(src, "input_0.pb"), filepath.Join(other, "output_0.pb"))
	wantRefused(t, []func(){keep(t, filepath.Join(other, "output_0.pb"))},
		"run", tinyONNX(), "--input", "input="+filepath.Join(other, "output_0.pb"), "--out", other)
}
