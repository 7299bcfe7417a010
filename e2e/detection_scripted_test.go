package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/formats"
	"github.com/modelbridge/modelbridge/internal/tensorfile"
)

// detectionScriptedCI is what MODELBRIDGE_DETECTION=1 runs of the scripted
// models: those the TorchScript importer reads today.
var detectionScriptedCI = []string{"ssdlite320_mobilenet_v3_large", "fasterrcnn_mobilenet_v3_large_320_fpn"}

// detectionScriptedFixedSize are the scripted models imported once per
// image size, with the reason the size cannot stay symbolic.
var detectionScriptedFixedSize = map[string]string{}

// TestTorchvisionDetectionScripted scripts torchvision's detection models
// with torch.jit.script (eval mode), imports the archive with the image
// size left symbolic (input images_0 = 3×H×W, the one image of the list),
// and checks on a 320x320 and a 256x384 image that the interpreter, the
// interpreter running modelbridge's ONNX export and ONNX Runtime running
// that export all find the scripted module's detections (the outputs are
// named after the detections dict's keys). The export is at opset 18: the
// resize to the model's input size has axes (Resize's axes attribute
// needs opset 18 when the other sizes are symbolic).
//
//	MODELBRIDGE_DETECTION=1     the models listed in detectionScriptedCI
//	MODELBRIDGE_DETECTION=all   all five (see docs/detection.md)
//	MODELBRIDGE_DETECTION=a,b   the named models
func TestTorchvisionDetectionScripted(t *testing.T) {
	runDetectionModels(t, detectionScriptedCI, "make_detection_scripted.py", "scripting", checkScriptedDetection)
}

// checkScriptedDetection imports dir/model.pt (as made by
// testdata/make_detection_scripted.py) once, with a symbolic image size,
// and compares every way of running it with PyTorch on both images.
func checkScriptedDetection(t *testing.T, dir string) {
	raw, err := os.ReadFile(filepath.Join(dir, "names.txt"))
	if err != nil {
		t.Fatal(err)
	}
	names := strings.Fields(string(raw))
	rules := loadDetectionRules(t, dir)
	symbolic := formats.ReadOptions{
		InputShapes: map[string][]int64{"images_0": {3, -1, -1}},
		DimNames:    map[string]map[int]string{"images_0": {1: "H", 2: "W"}},
	}
	var g, back *canon.Graph
	var export string
	if why, fixed := detectionScriptedFixedSize[filepath.Base(t.Name())]; fixed {
		t.Logf("imported once per image size: %s", why)
	} else {
		g, back, export = importScriptedDetection(t, dir, names, symbolic, "out.onnx")
		defer g.Close()
		defer back.Close()
	}
	for c := 0; c < 2; c++ {
		if _, fixed := detectionScriptedFixedSize[filepath.Base(t.Name())]; fixed {
			in, err := tensorfile.Load(filepath.Join(dir, fmt.Sprintf("case%d", c), "input_0.pb"))
			if err != nil {
				t.Fatal(err)
			}
			opts := formats.ReadOptions{InputShapes: map[string][]int64{"images_0": in.Shape}}
			g, back, export = importScriptedDetection(t, dir, names, opts, fmt.Sprintf("out%d.onnx", c))
			defer g.Close()
			defer back.Close()
		}
		runs := []detectionRun{{"run model.pt", g}, {"run ONNX export", back}}
		checkDetectionCase(t, dir, c, names, rules, runs, export)
	}
}

// importScriptedDetection imports dir/model.pt with opts, checks that its
// outputs are named after the detections' keys, and exports it to ONNX
// (dir/file) and reads that back.
func importScriptedDetection(t *testing.T, dir string, names []string, opts formats.ReadOptions, file string) (g, back *canon.Graph, export string) {
	t.Helper()
	g, _, err := formats.Read(filepath.Join(dir, "model.pt"), "torchscript", opts)
	if err != nil {
		t.Fatalf("import: %v", err)
	}
	for i, n := range names {
		if i >= len(g.Outputs) || g.Outputs[i].Name != n {
			t.Fatalf("graph outputs %v, want the detections' keys %v", g.Outputs, names)
		}
	}
	export = filepath.Join(dir, file)
	exp, err := formats.FindExporter(export, "onnx")
	if err != nil {
		t.Fatal(err)
	}
	if err := exp.Write(g, export, formats.WriteOptions{Opset: 18}); err != nil {
		t.Fatalf("ONNX export: %v", err)
	}
	back, _, err = formats.Read(export, "onnx", formats.ReadOptions{})
	if err != nil {
		t.Fatalf("reading the export: %v", err)
	}
	return g, back, export
}
