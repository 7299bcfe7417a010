package ortinstall

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fakeNode puts a node on PATH that prints $ORT_DIR and its arguments.
func fakeNode(t *testing.T) string {
	t.Helper()
	bin := t.TempDir()
	node := filepath.Join(bin, "node")
	if err := os.WriteFile(node, []byte("#!/bin/sh\necho \"$ORT_DIR\" \"$@\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin)
	return node
}

// fakeInstall makes dir/node_modules/M for each module given and, when
// packageJSON is not empty, onnxruntime-node's package.json.
func fakeInstall(t *testing.T, packageJSON string, modules ...string) string {
	t.Helper()
	dir := t.TempDir()
	for _, m := range modules {
		if err := os.MkdirAll(filepath.Join(dir, "node_modules", m), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if packageJSON != "" {
		if err := os.WriteFile(filepath.Join(dir, "node_modules", "onnxruntime-node", "package.json"), []byte(packageJSON), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestDirPrefersArgumentThenEnvironment(t *testing.T) {
	t.Setenv(DirEnv, "")
	if got := Dir(""); got != DefaultDir {
		t.Errorf("Dir(\"\") without %s = %q", DirEnv, got)
	}
	t.Setenv(DirEnv, "/from/env")
	if got := Dir(""); got != "/from/env" {
		t.Errorf("Dir(\"\") = %q, want $%s", got, DirEnv)
	}
	if got := Dir("/given"); got != "/given" {
		t.Errorf("Dir(/given) = %q", got)
	}
}

func TestFindReadsVersionAndRunsScripts(t *testing.T) {
	node := fakeNode(t)
	dir := fakeInstall(t, `{"name": "onnxruntime-node", "version": "1.30.0"}`, Modules...)
	in, err := Find(dir)
	if err != nil {
		t.Fatal(err)
	}
	if in.Dir != dir || in.Node != node || in.Version != "1.30.0" {
		t.Fatalf("%+v", in)
	}
	out, err := in.Command("script.js", "job.json").Output()
	if err != nil {
		t.Fatal(err)
	}
	if got, want := strings.TrimSpace(string(out)), dir+" script.js job.json"; got != want {
		t.Errorf("node printed %q, want %q", got, want)
	}
}

func TestFindNamesWhatIsMissing(t *testing.T) {
	fakeNode(t)
	good := `{"version": "1.30.0"}`
	for _, c := range []struct {
		name, packageJSON string
		modules           []string
		want              []string
	}{
		{"empty folder", "", nil, []string{"no node_modules/onnxruntime-node, node_modules/onnx-proto"}},
		{"no onnx-proto", good, []string{"onnxruntime-node"}, []string{"no node_modules/onnx-proto"}},
		{"no package.json", "", Modules, []string{"package.json"}},
		{"bad package.json", "{version", Modules, []string{"package.json", "invalid character"}},
		{"no version", `{"name": "onnxruntime-node"}`, Modules, []string{"names no version"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := fakeInstall(t, c.packageJSON, c.modules...)
			_, err := Find(dir)
			var me *MissingError
			if !errors.As(err, &me) {
				t.Fatalf("Find: %v", err)
			}
			for _, w := range append(c.want, "ORT_TOOL_DIR="+dir+" sh ../shared/tools/ort/install.sh") {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("%q lacks %q", err, w)
				}
			}
		})
	}
}

func TestFindWithoutNode(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	dir := fakeInstall(t, `{"version": "1.30.0"}`, Modules...)
	_, err := Find(dir)
	if err == nil || !strings.Contains(err.Error(), "node is not on PATH") || !strings.Contains(err.Error(), "apt-get install nodejs") {
		t.Fatalf("Find without node: %v", err)
	}
}
