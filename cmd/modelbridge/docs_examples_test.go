package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/npy"
	"github.com/modelbridge/modelbridge/internal/runtimes"
	"github.com/modelbridge/modelbridge/internal/runtimes/ort"
	"github.com/modelbridge/modelbridge/internal/tensorfile"
	"github.com/modelbridge/modelbridge/internal/testfix"
)

// The README's command examples run as written, so they cannot drift from
// the tool. Example files the repository does not ship (traced.pt,
// model.onnx, ...) stand for real fixtures of ../shared, and /tmp for a
// test folder; exampleFiles lists each stand-in.

// exampleFiles maps a file an example names to what the test runs it on:
// "shared:" paths are under ../shared/fixtures, "tmp:" under the test's
// folder, "repo:" in the repository.
var exampleFiles = map[string]string{
	"traced.pt":                       "shared:torch/tiny_convnet/traced.pt",
	"exported.pt2":                    "shared:torch2/tiny_convnet/exported.pt2",
	"model-symbol.json":               "shared:mxnet/tutorial_cnn/Neural_Net-symbol.json",
	"state_dict.pt":                   "shared:torch/tiny_convnet/state_dict.pt",
	"model.onnx":                      "shared:torch/tiny_convnet/model.onnx",
	"new.pt":                          "shared:torch/tiny_convnet/state_dict.pt",
	"big.onnx":                        "repo:testdata/tiny_convnet.onnx",
	"resnext.onnx":                    "repo:testdata/tiny_convnet.onnx",
	"converted.onnx":                  "tmp:converted.onnx",
	"image.npy":                       "tmp:image.npy",
	"out.onnx":                        "tmp:out.onnx",
	"weights.safetensors":             "tmp:weights.safetensors",
	"docs/tiny_convnet_optimized.svg": "tmp:tiny_convnet_optimized.svg",
}

// exampleArgs replaces argument values whose sizes belong to the model an
// example imagines (a 224² ImageNet network) by the stand-in's.
var exampleArgs = map[string]string{
	"x=1,3,224,224":    "x=1,3,32,32",
	"data=1,3,224,224": "data=1,1,28,28",
	"data=image.npy":   "input=image.npy",
	"ids=i64:1,15":     "x=f32:1,3,32,32", // the stand-in takes an image, not token ids
}

func TestReadmeExamplesRun(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	root := testfix.RepoRoot()
	shared := filepath.Join(testfix.SharedDir(), "fixtures")
	_, haveShared := os.Stat(shared)
	tmp := t.TempDir()
	// converted.onnx (a conversion of model.onnx) and image.npy exist
	// before the examples that read them.
	source := tinyModel
	if haveShared == nil {
		source = filepath.Join(shared, strings.TrimPrefix(exampleFiles["model.onnx"], "shared:"))
	}
	if code, _, stderr := cli(t, "convert", source, filepath.Join(tmp, "converted.onnx"), "--opset", "17"); code != 0 {
		t.Fatalf("making converted.onnx: %s", stderr)
	}
	img, err := tensorfile.Random([]canon.ValueInfo{{Name: "input", DType: canon.Float32, Shape: canon.DimsOf(1, 3, 32, 32), RankKnown: true}}, nil, 5)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(filepath.Join(tmp, "image.npy"))
	if err != nil {
		t.Fatal(err)
	}
	if err := npy.Write(f, img["input"]); err != nil {
		t.Fatal(err)
	}
	f.Close()
	_, ortErr := ort.Find("")
	_, torchErr := exec.LookPath(runtimes.Python())
	ran := 0
	for _, line := range readmeCommands(string(readme)) {
		args := splitExample(line)
		skip := ""
		for i, a := range args {
			if v, ok := exampleArgs[a]; ok {
				a = v
			}
			name, value, hasValue := strings.Cut(a, "=")
			file := a
			if hasValue {
				file = value
			}
			if sub, ok := exampleFiles[file]; ok {
				kind, rel, _ := strings.Cut(sub, ":")
				switch kind {
				case "shared":
					if haveShared != nil {
						skip = "needs ../shared"
					}
					file = filepath.Join(shared, rel)
				case "tmp":
					file = filepath.Join(tmp, rel)
				case "repo":
					file = filepath.Join(root, rel)
				}
			} else if strings.HasPrefix(file, "/tmp/") {
				file = filepath.Join(tmp, strings.TrimPrefix(file, "/tmp/"))
			} else if strings.HasPrefix(file, "testdata/") {
				file = filepath.Join(root, file)
			}
			if hasValue {
				a = name + "=" + file
			} else {
				a = file
			}
			args[i] = a
			if a == "ort" && ortErr != nil {
				skip = "needs ONNX Runtime"
			}
			if a == "torch" && i > 0 && strings.HasSuffix(args[i-1], "-runtime") && torchErr != nil {
				skip = "needs PyTorch"
			}
		}
		if skip != "" {
			t.Logf("skipped (%s): %s", skip, line)
			continue
		}
		code, stdout, stderr := cli(t, args...)
		if code != 0 {
			t.Errorf("README example %q: exit %d\n%s%s", line, code, stdout, stderr)
		}
		ran++
	}
	if ran < 20 {
		t.Errorf("only %d README examples ran; the parser may have lost them", ran)
	}
}

// readmeCommands returns the modelbridge command lines of the README's sh
// blocks (without the program name and trailing comments).
func readmeCommands(text string) []string {
	var out []string
	inSh := false
	prefix := regexp.MustCompile(`^(\./modelbridge|go run \./cmd/modelbridge) `)
	for _, line := range strings.Split(text, "\n") {
		switch {
		case strings.HasPrefix(line, "```sh"):
			inSh = true
			continue
		case strings.HasPrefix(line, "```"):
			inSh = false
			continue
		}
		if !inSh || !prefix.MatchString(line) {
			continue
		}
		line = prefix.ReplaceAllString(line, "")
		if i := strings.Index(line, " #"); i >= 0 {
			line = line[:i]
		}
		out = append(out, strings.TrimSpace(line))
	}
	return out
}

// splitExample splits a command line at spaces; the README's examples use
// no quoting.
func splitExample(line string) []string { return strings.Fields(line) }
