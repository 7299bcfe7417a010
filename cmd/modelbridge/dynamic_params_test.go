package main

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelbridge/modelbridge/internal/compare"
	"github.com/modelbridge/modelbridge/internal/tensorfile"
	"github.com/modelbridge/modelbridge/internal/testfix"
)

// TestRunDynamicParams runs ONNX conformance models whose op parameters
// (slice bounds, pads, clip bounds, axes, split sizes) are graph inputs, fed
// from the test data set as shipped, and compares with ONNX's outputs.
func TestRunDynamicParams(t *testing.T) {
	fx := filepath.Join(testfix.Fixtures(t), "onnx-node")
	for _, name := range []string{"test_slice", "test_clip", "test_constant_pad", "test_squeeze", "test_split_variable_parts_1d", "test_resize_upsample_scales_nearest"} {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join(fx, name)
			data := filepath.Join(dir, "test_data_set_0")
			out := t.TempDir()
			code, _, stderr := cli(t, "run", filepath.Join(dir, "model.onnx"), "--inputs", data, "--out", out)
			if code != 0 {
				t.Fatalf("run: exit %d: %s", code, stderr)
			}
			for i := 0; ; i++ {
				f := fmt.Sprintf("output_%d.pb", i)
				want, err := tensorfile.Load(filepath.Join(data, f))
				if err != nil {
					if i == 0 {
						t.Fatal(err)
					}
					break
				}
				got, err := tensorfile.Load(filepath.Join(out, f))
				if err != nil {
					t.Fatal(err)
				}
				if name == "test_slice" {
					// Slicing moves values: the result must be bit-exact.
					if fmt.Sprint(got.Shape) != fmt.Sprint(want.Shape) || got.DType != want.DType || !bytes.Equal(got.Data, want.Data) {
						t.Fatalf("%s: got %s%v, want %s%v (or data differs)", f, got.DType, got.Shape, want.DType, want.Shape)
					}
					continue
				}
				if res, err := compare.Tensors(got, want, 1e-5, 1e-6); err != nil || !res.OK {
					t.Fatalf("%s differs from ONNX's output: %+v %v", f, res, err)
				}
			}
		})
	}
}

// TestConvertDynamicParamsOpset checks that a parameter computed at run time
// is written as an ONNX input where the target opset allows it and refused,
// naming the node and the opset needed, where it does not.
func TestConvertDynamicParamsOpset(t *testing.T) {
	model := filepath.Join(testfix.Fixtures(t), "onnx-node", "test_squeeze", "model.onnx")
	dir := t.TempDir()
	out := filepath.Join(dir, "squeeze.onnx")
	if code, _, stderr := cli(t, "convert", model, out, "--opset", "13"); code != 0 {
		t.Fatalf("convert --opset 13: exit %d: %s", code, stderr)
	}
	code, _, stderr := cli(t, "convert", model, filepath.Join(dir, "old.onnx"), "--opset", "11")
	if code == 0 || !strings.Contains(stderr, `"Squeeze_0"`) || !strings.Contains(stderr, "opset 13") {
		t.Fatalf("convert --opset 11: exit %d, want a refusal naming the node and opset 13: %s", code, stderr)
	}
}
