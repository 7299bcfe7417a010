package e2e

import (
	"os"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/modelbridge/modelbridge/canon"
	tfliteexport "github.com/modelbridge/modelbridge/exporters/tflite"
	"github.com/modelbridge/modelbridge/formats"
	"github.com/modelbridge/modelbridge/internal/npy"
	"github.com/modelbridge/modelbridge/interp"
)

// TestTFLiteZooAgainstPyTorch exports every model of a torchvision zoo
// made by testdata/make_torchvision_zoo.py (the folder in
// MODELBRIDGE_TFLITE_ZOO) to .tflite with NHWC inputs and outputs, runs it
// in Arm NN on the stored input and compares with PyTorch's own output at
// 1e-4 of its largest magnitude. No TRANSPOSE may be written but the
// model's own.
func TestTFLiteZooAgainstPyTorch(t *testing.T) {
	dir := os.Getenv("MODELBRIDGE_TFLITE_ZOO")
	if dir == "" {
		t.Skip("skipping: set MODELBRIDGE_TFLITE_ZOO to a folder made by testdata/make_torchvision_zoo.py")
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		if _, err := os.Stat(filepath.Join(dir, e.Name(), "traced.pt")); err == nil {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			md := filepath.Join(dir, name)
			x, err := npy.ReadFile(filepath.Join(md, "input_0.npy"))
			if err != nil {
				t.Fatal(err)
			}
			want, err := npy.ReadFile(filepath.Join(md, "output_0.npy"))
			if err != nil {
				t.Fatal(err)
			}
			g := load(t, filepath.Join(md, "traced.pt"), "", formats.ReadOptions{InputShapes: map[string][]int64{"#0": x.Shape}})
			start := time.Now()
			data, _, err := tfliteexport.Encode(g, tfliteexport.Options{NHWCIO: true})
			if err != nil {
				t.Fatalf("refused: %v", err)
			}
			took := time.Since(start)
			edge, inner, codes := transposeCounts(t, data)
			if own := countKind(g, "Transpose"); inner > own || edge != 0 {
				t.Errorf("%d TRANSPOSE ops inside (the model has %d), %d at the edges", inner, own, edge)
			}
			path := filepath.Join(t.TempDir(), name+".tflite")
			if err := os.WriteFile(path, data, 0o644); err != nil {
				t.Fatal(err)
			}
			xin := toLayout(t, x, "NCHW", "NHWC")
			runner := "Arm NN"
			arm, err := runArmNNErr(t, path, []*canon.Tensor{xin})
			if err != nil {
				if codes["BATCH_MATMUL"] == 0 && codes["GELU"] == 0 && !armNNLacks(err) {
					t.Fatal(err)
				}
				// An op Arm NN 22 does not read: the file read back runs
				// in the interpreter instead.
				t.Logf("%v", err)
				runner = "the interpreter (file read back)"
				back := load(t, path, "tflite", formats.ReadOptions{})
				in := *xin
				in.Name = back.Inputs[0].Name
				res, err := interp.Run(back, map[string]*canon.Tensor{in.Name: &in})
				if err != nil {
					t.Fatal(err)
				}
				arm = []*canon.Tensor{res[back.Outputs[0].Name]}
			}
			d, scale := maxAbsDiff(t, want, arm[0]), maxAbs(t, want)
			t.Logf("%s: %d ops, %.1f MB, encoded in %v; %s vs PyTorch max abs %.3g (%.3g of max |y| %.3g); TRANSPOSE inside %d", name, countOps(codes), float64(len(data))/1e6, took.Round(time.Millisecond), runner, d, d/scale, scale, inner)
			if d > 1e-4*scale {
				t.Errorf("Arm NN differs from PyTorch by %g (max |y| %g)", d, scale)
			}
		})
	}
}

func countOps(codes map[string]int) int {
	n := 0
	for _, c := range codes {
		n += c
	}
	return n
}
