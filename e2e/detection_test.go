package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/formats"
	"github.com/modelbridge/modelbridge/internal/runtimes/ort"
	"github.com/modelbridge/modelbridge/internal/tensorfile"
	"github.com/modelbridge/modelbridge/internal/testfix"
	"github.com/modelbridge/modelbridge/interp"
)

// detectionCI is what MODELBRIDGE_DETECTION=1 runs: the two small models.
var detectionCI = []string{"ssdlite320_mobilenet_v3_large", "fasterrcnn_mobilenet_v3_large_320_fpn"}

// detectionAll is what MODELBRIDGE_DETECTION=all runs.
var detectionAll = append(append([]string{}, detectionCI...),
	"retinanet_resnet50_fpn", "maskrcnn_resnet50_fpn", "keypointrcnn_resnet50_fpn")

// TestTorchvisionDetection exports torchvision's detection models with
// torch.onnx.export (opset 16, dynamic image size; If, Loop, NonZero,
// TopK with a run-time k, NonMaxSuppression, RoiAlign), then checks on a
// 320x320 and a 256x384 image that the interpreter running model.onnx, the
// interpreter running modelbridge's ONNX re-export and ONNX Runtime running
// that re-export all find PyTorch's detections, with Mask R-CNN's pasted
// masks and Keypoint R-CNN's keypoints and keypoint scores; where they part
// it must be at a threshold tie, which is reported (see matchDetections).
//
//	MODELBRIDGE_DETECTION=1     the two small models (a few minutes)
//	MODELBRIDGE_DETECTION=all   all five (the ResNet-50 models take many
//	                            minutes each; see docs/detection.md)
//	MODELBRIDGE_DETECTION=a,b   the named models
func TestTorchvisionDetection(t *testing.T) {
	runDetectionModels(t, detectionCI, "make_detection_onnx.py", "exporting", checkDetectionModel)
}

// runDetectionModels makes each model MODELBRIDGE_DETECTION selects (1:
// the ones in ci) with the generator in testdata and checks its folder.
func runDetectionModels(t *testing.T, ci []string, generatorName, making string, check func(*testing.T, string)) {
	var models []string
	switch sel := os.Getenv("MODELBRIDGE_DETECTION"); sel {
	case "":
		t.Skip("skipping: set MODELBRIDGE_DETECTION=1 (the small models), =all or =name,name to make torchvision's detection models and check them (minutes each)")
	case "1":
		models = ci
	case "all":
		models = detectionAll
	default:
		models = strings.Split(sel, ",")
	}
	python := testfix.Torch(t, "torchvision", "numpy", "onnx")
	generator := filepath.Join(testfix.RepoRoot(), "testdata", generatorName)
	for _, name := range models {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			if out, err := exec.Command(python, generator, name, dir).CombinedOutput(); err != nil {
				t.Fatalf("%s %s: %v\n%s", making, name, err, detLastLines(string(out), 15))
			}
			check(t, dir)
		})
	}
}

func detLastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// checkDetectionModel runs dir/model.onnx (as made by
// testdata/make_detection_onnx.py) every way and compares with PyTorch.
func checkDetectionModel(t *testing.T, dir string) {
	raw, err := os.ReadFile(filepath.Join(dir, "names.txt"))
	if err != nil {
		t.Fatal(err)
	}
	names := strings.Fields(string(raw))
	rules := loadDetectionRules(t, dir)
	g, _, err := formats.Read(filepath.Join(dir, "model.onnx"), "onnx", formats.ReadOptions{})
	if err != nil {
		t.Fatalf("import: %v", err)
	}
	defer g.Close()
	reexport := filepath.Join(dir, "out.onnx")
	exp, err := formats.FindExporter(reexport, "onnx")
	if err != nil {
		t.Fatal(err)
	}
	if err := exp.Write(g, reexport, formats.WriteOptions{Opset: 16}); err != nil {
		t.Fatalf("ONNX export: %v", err)
	}
	back, _, err := formats.Read(reexport, "onnx", formats.ReadOptions{})
	if err != nil {
		t.Fatalf("reading the re-export: %v", err)
	}
	defer back.Close()
	for c := 0; c < 2; c++ {
		runs := []detectionRun{{"run model.onnx", g}, {"run re-export", back}}
		checkDetectionCase(t, dir, c, names, rules, runs, reexport)
	}
}

// detectionRun is one graph the interpreter runs on a case's image.
type detectionRun struct {
	label string
	graph *canon.Graph
}

// checkDetectionCase compares PyTorch's detections on dir/caseN's image
// with each run's in the interpreter and with ONNX Runtime's on the ONNX
// file onnxPath (logged and skipped when ONNX Runtime is absent).
func checkDetectionCase(t *testing.T, dir string, c int, names []string, rules detectionRules, runs []detectionRun, onnxPath string) {
	t.Helper()
	caseDir := filepath.Join(dir, fmt.Sprintf("case%d", c))
	want := make([]*canon.Tensor, len(names))
	for i, n := range names {
		var err error
		if want[i], err = tensorfile.Load(filepath.Join(caseDir, n+".npy")); err != nil {
			t.Fatal(err)
		}
	}
	in, err := tensorfile.Load(filepath.Join(caseDir, "input_0.pb"))
	if err != nil {
		t.Fatal(err)
	}
	size := fmt.Sprintf("%dx%d", in.Shape[1], in.Shape[2])
	rules.ImageH, rules.ImageW = int(in.Shape[1]), int(in.Shape[2])
	for _, run := range runs {
		outs, err := interp.Run(run.graph, map[string]*canon.Tensor{run.graph.Inputs[0].Name: in})
		if err != nil {
			t.Errorf("%s %s: %v", run.label, size, err)
			continue
		}
		got := make([]*canon.Tensor, len(names))
		for i := range names {
			got[i] = outs[run.graph.Outputs[i].Name]
		}
		reportDetections(t, run.label+" "+size, names, got, want, rules)
	}
	rt, err := ort.Find("")
	if err != nil {
		t.Logf("ONNX Runtime not run: %v", err)
		return
	}
	out := filepath.Join(dir, fmt.Sprintf("ort%d", c))
	if err := rt.RunDir(onnxPath, caseDir, out, ort.Options{}); err != nil {
		t.Errorf("ONNX Runtime %s: %v", size, err)
		return
	}
	got := make([]*canon.Tensor, len(names))
	for i := range names {
		if got[i], err = tensorfile.Load(filepath.Join(out, tensorfile.OutputFileName(i))); err != nil {
			t.Fatal(err)
		}
	}
	reportDetections(t, "ONNX Runtime "+size, names, got, want, rules)
}

// loadDetectionRules reads the cut-offs the generator wrote beside the model
// (DIR/rules.json).
func loadDetectionRules(t *testing.T, dir string) detectionRules {
	t.Helper()
	var rules detectionRules
	raw, err := os.ReadFile(filepath.Join(dir, "rules.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &rules); err != nil {
		t.Fatalf("%s: %v", filepath.Join(dir, "rules.json"), err)
	}
	return rules
}

func reportDetections(t *testing.T, label string, names []string, got, want []*canon.Tensor, rules detectionRules) {
	t.Helper()
	m, err := matchDetections(names, got, want, rules)
	if err != nil {
		t.Errorf("%s: %v", label, err)
		return
	}
	t.Logf("%s: %s", label, m)
}
