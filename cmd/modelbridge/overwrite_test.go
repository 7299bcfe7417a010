package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelbridge/modelbridge/internal/panicerr"
)

func mustRead(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// convert must not replace the external data file its ONNX input reads.
func TestConvertRefusesInputExternalData(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.onnx"), filepath.Join(dir, "b.onnx")
	if code, _, stderr := cli(t, "convert", "-q", tinyModel, a, "--external-data"); code != 0 {
		t.Fatal(stderr)
	}
	// a.onnx's weights now live in b.onnx.data (same name length).
	model := bytes.ReplaceAll(mustRead(t, a), []byte("a.onnx.data"), []byte("b.onnx.data"))
	if err := os.WriteFile(a, model, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(a+".data", b+".data"); err != nil {
		t.Fatal(err)
	}
	before := mustRead(t, b+".data")
	code, _, stderr := cli(t, "convert", "-q", a, b)
	if code != exitUsage || !strings.Contains(stderr, "refusing to overwrite "+b+".data") {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	if !bytes.Equal(mustRead(t, b+".data"), before) {
		t.Fatal("the input's external data was changed")
	}
	if _, err := os.Stat(b); err == nil {
		t.Fatal("an output was written")
	}
}

// convert must not replace an MXNet input's params file.
func TestConvertRefusesInputParams(t *testing.T) {
	dir := t.TempDir()
	sym := filepath.Join(dir, "m-symbol.json")
	if code, _, stderr := cli(t, "convert", "-q", tinyModel, sym); code != 0 {
		t.Fatal(stderr)
	}
	params := filepath.Join(dir, "m-0000.params")
	before := mustRead(t, params)
	other := filepath.Join(dir, "n-symbol.json")
	if err := os.WriteFile(other, mustRead(t, sym), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"convert", "-q", sym, filepath.Join(dir, "m"), "--to", "mxnet"},                       // same prefix
		{"convert", "-q", other, filepath.Join(dir, "m"), "--to", "mxnet", "--params", params}, // explicit params
	} {
		code, _, stderr := cli(t, args...)
		if code != exitUsage || !strings.Contains(stderr, "refusing to overwrite") {
			t.Errorf("%v: exit %d, stderr %q", args, code, stderr)
		}
	}
	if !bytes.Equal(mustRead(t, params), before) {
		t.Fatal("the input's params file was changed")
	}
}

// Errors are one line by default, with names from the file escaped;
// --debug adds the chain of wrapped errors.
func TestErrorsOneLineAndDebug(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "missing\n.onnx")
	code, _, stderr := cli(t, "inspect", missing)
	if code != exitFailure || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, `missing\n.onnx`) {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	code, _, stderr = cli(t, "inspect", "--debug", missing)
	if code != exitFailure || !strings.Contains(stderr, "*fs.PathError") || !strings.Contains(stderr, "syscall.Errno") {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
}

func TestDebugShowsPanicStack(t *testing.T) {
	var buf bytes.Buffer
	err := func() (err error) {
		defer func() {
			if r := recover(); r != nil {
				err = panicerr.New("node \"conv\"", r)
			}
		}()
		var m map[string]int
		m["x"] = 1
		return nil
	}()
	if strings.Contains(err.Error(), "\n") {
		t.Fatalf("panic error is not one line: %q", err)
	}
	writeErrorDetail(&buf, err)
	if out := buf.String(); !strings.Contains(out, "*panicerr.Error") || !strings.Contains(out, "runtime.Error") && !strings.Contains(out, "goroutine") {
		t.Fatalf("detail lacks the panic chain or stack:\n%s", out)
	}
}

// convert must not replace the --weights file it binds, whatever the
// output format, nor the external data of an ONNX --weights file.
func TestConvertRefusesWeightsInput(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"s.pt", "w.safetensors"} {
		w := filepath.Join(dir, name)
		if code, _, stderr := cli(t, "convert", "-q", tinyModel, w); code != 0 {
			t.Fatal(stderr)
		}
		before := mustRead(t, w)
		code, stdout, stderr := cli(t, "convert", tinyModel, "--weights", w, w)
		if code != exitUsage || !strings.Contains(stderr, "refusing to overwrite "+w+", which is part of the --weights input") {
			t.Fatalf("%s: exit %d, stdout %q, stderr %q", name, code, stdout, stderr)
		}
		if strings.Contains(stdout, "wrote") || !bytes.Equal(mustRead(t, w), before) {
			t.Fatalf("%s: the --weights file was changed", name)
		}
	}

	// An ONNX --weights file whose weights live in o.onnx.data (same
	// name length, so the protobuf stays valid).
	w, out := filepath.Join(dir, "w.onnx"), filepath.Join(dir, "o.onnx")
	if code, _, stderr := cli(t, "convert", "-q", tinyModel, w, "--external-data"); code != 0 {
		t.Fatal(stderr)
	}
	model := bytes.ReplaceAll(mustRead(t, w), []byte("w.onnx.data"), []byte("o.onnx.data"))
	if err := os.WriteFile(w, model, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(w+".data", out+".data"); err != nil {
		t.Fatal(err)
	}
	before := mustRead(t, out+".data")
	code, _, stderr := cli(t, "convert", "-q", tinyModel, "--weights", w, out)
	if code != exitUsage || !strings.Contains(stderr, "refusing to overwrite "+out+".data") {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	if !bytes.Equal(mustRead(t, out+".data"), before) {
		t.Fatal("the --weights input's external data was changed")
	}
	if _, err := os.Stat(out); err == nil {
		t.Fatal("an output was written")
	}

	// A distinct output path still works.
	if code, _, stderr := cli(t, "convert", "-q", tinyModel, "--weights", filepath.Join(dir, "w.safetensors"), filepath.Join(dir, "ok.onnx")); code != 0 {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
}
