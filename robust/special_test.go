package robust

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// Non-regular files (a FIFO, a device, a symlink to /dev/zero) as a model,
// an ONNX external data file, an MXNet params file found beside its
// symbol, or an input tensor are refused at once instead of blocking or
// reading without end; an automatically found params file must lie in the
// symbol's folder, as ONNX external data must.

// special makes each kind of non-regular file at path, one per call.
var specials = []struct {
	name string
	make func(t *testing.T, path string)
}{
	{"fifo", func(t *testing.T, path string) {
		if err := syscall.Mkfifo(path, 0o644); err != nil {
			t.Skipf("cannot make a FIFO: %v", err)
		}
	}},
	{"symlink-to-dev-zero", func(t *testing.T, path string) {
		if err := os.Symlink("/dev/zero", path); err != nil {
			t.Fatal(err)
		}
	}},
}

func wantSpecialRefused(t *testing.T, args ...string) {
	t.Helper()
	stdout, stderr, code := runBin(t, args...)
	msg := stderr + stdout
	if code == 0 {
		t.Fatalf("%v succeeded", args)
	}
	if !strings.Contains(msg, "not a regular file") && !strings.Contains(msg, "outside") {
		t.Errorf("%v: error does not say what is wrong: %q", args, msg)
	}
	if strings.Count(strings.TrimSpace(stderr), "\n") > 0 || strings.Contains(msg, "panic") {
		t.Errorf("%v: want a one-line error: %q", args, msg)
	}
}

func TestNonRegularInputs(t *testing.T) {
	for _, sp := range specials {
		t.Run(sp.name, func(t *testing.T) {
			t.Run("model", func(t *testing.T) {
				dir := t.TempDir()
				in := filepath.Join(dir, "model.onnx")
				sp.make(t, in)
				wantSpecialRefused(t, "convert", "--quiet", in, filepath.Join(dir, "out.onnx"))
			})
			t.Run("onnx-external-data", func(t *testing.T) {
				dir := t.TempDir()
				model := filepath.Join(dir, "model.onnx")
				convertWith(t, tinyONNX(), model, "--external-data")
				os.Remove(model + ".data")
				sp.make(t, model+".data")
				wantSpecialRefused(t, "convert", "--quiet", model, filepath.Join(dir, "out.onnx"))
			})
			t.Run("mxnet-params", func(t *testing.T) {
				dir := t.TempDir()
				convertWith(t, tinyONNX(), filepath.Join(dir, "tiny-symbol.json"))
				os.Remove(filepath.Join(dir, "tiny-0000.params"))
				sp.make(t, filepath.Join(dir, "tiny-0000.params"))
				wantSpecialRefused(t, "convert", "--quiet", filepath.Join(dir, "tiny-symbol.json"), filepath.Join(dir, "out.onnx"))
			})
			t.Run("input-file", func(t *testing.T) {
				dir := t.TempDir()
				sp.make(t, filepath.Join(dir, "input_0.pb"))
				wantSpecialRefused(t, "run", tinyONNX(), "--inputs", dir, "--out", filepath.Join(dir, "out"))
				wantSpecialRefused(t, "run", tinyONNX(), "--input", "input="+filepath.Join(dir, "input_0.pb"), "--out", filepath.Join(dir, "out"))
			})
		})
	}
}

// A params file found beside the symbol that is a symlink to a file
// outside the folder is not followed.
func TestMXNetParamsConfined(t *testing.T) {
	dir := t.TempDir()
	elsewhere := filepath.Join(dir, "elsewhere")
	model := filepath.Join(dir, "model")
	for _, d := range []string{elsewhere, model} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	convertWith(t, tinyONNX(), filepath.Join(elsewhere, "tiny-symbol.json"))
	convertWith(t, tinyONNX(), filepath.Join(model, "tiny-symbol.json"))
	os.Remove(filepath.Join(model, "tiny-0000.params"))
	if err := os.Symlink(filepath.Join(elsewhere, "tiny-0000.params"), filepath.Join(model, "tiny-0000.params")); err != nil {
		t.Fatal(err)
	}
	wantSpecialRefused(t, "convert", "--quiet", filepath.Join(model, "tiny-symbol.json"), filepath.Join(dir, "out.onnx"))
	// Given explicitly, the same file is the user's choice.
	if _, stderr, code := runBin(t, "convert", "--quiet", filepath.Join(model, "tiny-symbol.json"), filepath.Join(dir, "out.onnx"), "--params", filepath.Join(model, "tiny-0000.params")); code != 0 {
		t.Errorf("--params: %s", stderr)
	}
}
