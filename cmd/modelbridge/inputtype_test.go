package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelbridge/modelbridge/internal/compare"
	"github.com/modelbridge/modelbridge/internal/tensorfile"
	"github.com/modelbridge/modelbridge/internal/testfix"
)

// TestInputTypes: TorchScript archives do not record input types. run and
// check take them from the input files, convert from --input-type or the
// TYPE: prefix of --input-shape; a format that records them refuses
// another; an input whose uses leave bool or integer open is refused with
// the flag that decides.
func TestInputTypes(t *testing.T) {
	dir := filepath.Join(testfix.Fixtures(t), "torch2-ops", "op_int_division")
	traced := filepath.Join(dir, "traced.pt")
	data := filepath.Join(dir, "test_data_set_0")
	out := t.TempDir()
	code, stdout, stderr := cli(t, "run", traced, "--inputs", data, "--out", out)
	if code != 0 || !strings.Contains(stdout, "i64[3 5]") {
		t.Fatalf("run with int64 input files: exit %d: %s %s", code, stdout, stderr)
	}
	for i := 0; i < 7; i++ {
		name := tensorfile.OutputFileName(i)
		got, err1 := tensorfile.Load(filepath.Join(out, name))
		want, err2 := tensorfile.Load(filepath.Join(data, name))
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		if got.DType != want.DType {
			t.Fatalf("%s: %s, PyTorch's is %s", name, got.DType, want.DType)
		}
		if r, err := compare.Tensors(got, want, 1e-6, 1e-6); err != nil || !r.OK {
			t.Errorf("%s differs from PyTorch's: %v %+v", name, err, r)
		}
	}

	onnx := filepath.Join(t.TempDir(), "intdiv.onnx")
	code, stdout, stderr = cli(t, "convert", traced, onnx, "--input-shape", "x=i64:3,5", "--input-type", "y=i64")
	if code != 0 {
		t.Fatalf("convert with input types: exit %d: %s %s", code, stdout, stderr)
	}
	code, stdout, stderr = cli(t, "check", traced, onnx, "--inputs", data)
	if code != 0 {
		t.Fatalf("check traced.pt against its ONNX export: exit %d: %s %s", code, stdout, stderr)
	}
	code, _, stderr = cli(t, "inspect", onnx, "--input-type", "x=i32")
	if code == 0 || !strings.Contains(stderr, `input "x" is given as i32, but the file records it as i64`) {
		t.Errorf("a type the ONNX file does not record: exit %d: %s", code, stderr)
	}
	code, _, stderr = cli(t, "inspect", traced, "--input-type", "x=int64")
	if code == 0 || !strings.Contains(stderr, "write i64") {
		t.Errorf("a NumPy type name: exit %d: %s", code, stderr)
	}

	// check takes A's input types from B when A's file does not record
	// them: y of op_like_eye is int64, which nothing in its code says.
	likeEye := filepath.Join(testfix.Fixtures(t), "torch2-ops", "op_like_eye", "traced.pt")
	likeEyeONNX := filepath.Join(t.TempDir(), "like_eye.onnx")
	code, stdout, stderr = cli(t, "convert", likeEye, likeEyeONNX, "--input-shape", "x=3,4", "--input-shape", "y=i64:2,3")
	if code != 0 {
		t.Fatalf("convert op_like_eye: exit %d: %s %s", code, stdout, stderr)
	}
	code, stdout, stderr = cli(t, "check", likeEye, likeEyeONNX, "--random", "--input-shape", "x=3,4", "--input-shape", "y=2,3", "--json")
	if code != 0 || !strings.Contains(stdout, "A is read with B's") {
		t.Errorf("check with A's types from B: exit %d: %s %s", code, stdout, stderr)
	}

	logical := filepath.Join(testfix.Fixtures(t), "torch2-ops", "op_logical", "traced.pt")
	code, _, stderr = cli(t, "inspect", logical, "--input-shape", "x=3,4", "--input-shape", "y=3,4")
	if code == 0 || !strings.Contains(stderr, "--input-shape x=i64:") || !strings.Contains(stderr, "input y is") {
		t.Errorf("inputs of & without types: exit %d: %s", code, stderr)
	}
	code, stdout, stderr = cli(t, "inspect", logical, "--input-shape", "x=bool:3,4", "--input-shape", "y=bool:3,4")
	if code != 0 || !strings.Contains(stdout, "bool") {
		t.Errorf("inputs of & as bool: exit %d: %s %s", code, stdout, stderr)
	}

	gather := filepath.Join(testfix.Fixtures(t), "torch2-ops", "op_gather", "traced.pt")
	code, stdout, stderr = cli(t, "inspect", gather, "--input-shape", "x=3,4", "--input-shape", "y=2,4")
	if code != 0 || !strings.Contains(stdout, "y is i64 (the index of torch.gather") {
		t.Errorf("inspect should say which type was inferred: exit %d: %s %s", code, stdout, stderr)
	}
	// Random index inputs are 0 or 1: valid along any axis of two or more.
	code, stdout, stderr = cli(t, "run", gather, "--input-shape", "x=3,4", "--input-shape", "y=2,4", "--random", "--out", t.TempDir())
	if code != 0 || !strings.Contains(stderr, "y is i64") {
		t.Errorf("run --random with an index input: exit %d: %s %s", code, stdout, stderr)
	}
}
