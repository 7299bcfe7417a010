package ort_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/compare"
	"github.com/modelbridge/modelbridge/internal/onnxpb"
	"github.com/modelbridge/modelbridge/internal/onnxtensor"
	"github.com/modelbridge/modelbridge/internal/runtimes/ort"
	"github.com/modelbridge/modelbridge/internal/testfix"
)

// tinyConvnet is a small ONNX model in the repository with one stored
// input and the output PyTorch computed for it.
func tinyConvnet(t *testing.T) (model, data string) {
	root := testfix.RepoRoot()
	return filepath.Join(root, "testdata", "tiny_convnet.onnx"), filepath.Join(root, "testdata", "tiny_convnet_data")
}

func readTensor(t *testing.T, path string) *canon.Tensor {
	t.Helper()
	v, err := onnxtensor.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestFindSaysHowToInstall(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "none")
	_, err := ort.Find(dir)
	if !ort.IsMissing(err) || !strings.Contains(err.Error(), "ORT_TOOL_DIR="+dir+" sh ../shared/tools/ort/install.sh") {
		t.Fatalf("Find(%s): %v", dir, err)
	}
}

// Run, RunDir and a batch case whose input is written in TensorProto's
// typed float_data field (not raw_data) all give PyTorch's stored output.
func TestRunMatchesPyTorch(t *testing.T) {
	rt := testfix.ORT(t)
	model, data := tinyConvnet(t)
	x := readTensor(t, filepath.Join(data, "input_0.pb"))
	want := readTensor(t, filepath.Join(data, "output_0.pb"))
	check := func(how string, got *canon.Tensor) {
		t.Helper()
		if r, err := compare.Tensors(got, want, 1e-4, 1e-5); err != nil || !r.OK {
			t.Errorf("%s: ONNX Runtime differs from PyTorch: %+v %v", how, r, err)
		}
	}

	outs, err := rt.Run(model, []*canon.Tensor{x}, ort.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(outs) != 1 || outs[0].Name != "logits" {
		t.Fatalf("Run gave %d outputs, first named %q", len(outs), outs[0].Name)
	}
	check("Run", outs[0])

	out := filepath.Join(t.TempDir(), "out")
	if err := rt.RunDir(model, data, out, ort.Options{Level: "disabled", Threads: 1}); err != nil {
		t.Fatal(err)
	}
	check("RunDir", readTensor(t, filepath.Join(out, "output_0.pb")))

	f64, err := x.Float64s()
	if err != nil {
		t.Fatal(err)
	}
	vals := make([]float32, len(f64))
	for i, v := range f64 {
		vals[i] = float32(v)
	}
	typed := &onnxpb.TensorProto{Name: proto.String("input"), Dims: x.Shape, DataType: proto.Int32(int32(onnxpb.TensorProto_FLOAT)), FloatData: vals}
	b, err := proto.Marshal(typed)
	if err != nil {
		t.Fatal(err)
	}
	in := filepath.Join(t.TempDir(), "typed.pb")
	if err := os.WriteFile(in, b, 0o644); err != nil {
		t.Fatal(err)
	}
	out2 := filepath.Join(t.TempDir(), "out")
	got, err := rt.RunBatch([]ort.Case{{Model: model, Inputs: []string{in}, Out: out2}}, 1)
	if err != nil || got[0].Err != nil {
		t.Fatalf("batch: %v %v", err, got)
	}
	if strings.Join(got[0].InputNames, ",") != "input" || strings.Join(got[0].OutputNames, ",") != "logits" {
		t.Errorf("session names %v -> %v", got[0].InputNames, got[0].OutputNames)
	}
	check("typed input", readTensor(t, filepath.Join(out2, "output_0.pb")))
}

// Samples run in one session keep their own outputs; a wrong number of
// inputs is an error that names the session's inputs.
func TestRunSamples(t *testing.T) {
	rt := testfix.ORT(t)
	model, data := tinyConvnet(t)
	x := readTensor(t, filepath.Join(data, "input_0.pb"))
	zero := canon.NewFloat32Tensor("input", x.Shape, make([]float32, x.NumElements()))
	outs, err := rt.RunSamples(model, [][]*canon.Tensor{{x}, {zero}, {x}}, ort.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(outs) != 3 || string(outs[0][0].Data) != string(outs[2][0].Data) || string(outs[0][0].Data) == string(outs[1][0].Data) {
		t.Fatalf("outputs do not follow their samples")
	}
	_, err = rt.Run(model, []*canon.Tensor{x, x}, ort.Options{})
	if err == nil || !strings.Contains(err.Error(), "takes 1 inputs (input), given 2") || !strings.Contains(err.Error(), model) {
		t.Fatalf("two inputs for one: %v", err)
	}
}

// A case ONNX Runtime refuses fails alone; the cases around it run, in
// either number of processes.
func TestRunBatchIsolatesFailures(t *testing.T) {
	rt := testfix.ORT(t)
	model, data := tinyConvnet(t)
	tmp := t.TempDir()
	bad := filepath.Join(tmp, "bad.onnx")
	if err := os.WriteFile(bad, []byte("not a model"), 0o644); err != nil {
		t.Fatal(err)
	}
	want := readTensor(t, filepath.Join(data, "output_0.pb"))
	for _, workers := range []int{1, 2} {
		var cases []ort.Case
		for i, m := range []string{model, bad, model, model} {
			cases = append(cases, ort.Case{Model: m, InputDir: data, Out: filepath.Join(tmp, "w", string(rune('0'+workers)), string(rune('a'+i))),
				Options: ort.Options{Level: []string{"all", "all", "disabled", "basic"}[i]}})
		}
		got, err := rt.RunBatch(cases, workers)
		if err != nil {
			t.Fatal(err)
		}
		for i, oc := range got {
			if i == 1 {
				if oc.Err == nil || !strings.Contains(oc.Err.Error(), bad) {
					t.Errorf("workers %d: the bad model gave %v", workers, oc.Err)
				}
				continue
			}
			if oc.Err != nil {
				t.Fatalf("workers %d case %d: %v", workers, i, oc.Err)
			}
			r, err := compare.Tensors(readTensor(t, filepath.Join(cases[i].Out, "output_0.pb")), want, 1e-4, 1e-5)
			if err != nil || !r.OK {
				t.Errorf("workers %d case %d differs from PyTorch: %+v %v", workers, i, r, err)
			}
		}
	}
}

// Time returns the asked number of positive samples for each model.
func TestTime(t *testing.T) {
	rt := testfix.ORT(t)
	model, _ := tinyConvnet(t)
	times, err := rt.Time([]string{model, model}, ort.TimeOptions{Runs: 3})
	if err != nil {
		t.Fatal(err)
	}
	if len(times) != 2 {
		t.Fatalf("%d rows of times", len(times))
	}
	for _, row := range times {
		if len(row) != 3 {
			t.Fatalf("times %v", times)
		}
		for _, s := range row {
			if !(s > 0 && s < 10) {
				t.Fatalf("times %v (seconds)", times)
			}
		}
	}
	if _, err := rt.Time([]string{filepath.Join(t.TempDir(), "none.onnx")}, ort.TimeOptions{}); err == nil || !strings.Contains(err.Error(), "none.onnx") {
		t.Fatalf("timing a missing file: %v", err)
	}
}
