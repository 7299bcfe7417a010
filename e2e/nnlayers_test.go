package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/formats"
	"github.com/modelbridge/modelbridge/internal/compare"
	"github.com/modelbridge/modelbridge/internal/runtimes/ort"
	"github.com/modelbridge/modelbridge/internal/tensorfile"
	"github.com/modelbridge/modelbridge/internal/testfix"
	"github.com/modelbridge/modelbridge/interp"
)

// nnLayerCases are torch2-ops fixtures of torch.nn layers whose aten ops
// the TorchScript handlers (shared by the .pt2 importer) expand exactly:
// padding-mode and unbatched convolutions and pools, embeddings, the
// activations without a canonical op of PyTorch's form, unfold, weight
// norm, batch statistics, circular padding, adaptive max pooling's
// indices, fractional max pooling with fixed samples, upsampling scales
// float32 cannot hold, and the distances.
var nnLayerCases = []string{
	"f_conv2d_weight_input", "f_embedding", "f_pad_modes", "f_unfold_fold",
	"nn_adaptivemaxpool1d", "nn_adaptivemaxpool2d_indices", "nn_adaptivemaxpool3d",
	"nn_avgpool2d", "nn_avgpool2d_divisor", "nn_batchnorm2d_noaffine_batchstats", "nn_bilinear",
	"nn_channelshuffle", "nn_circularpad", "nn_conv2d_circular", "nn_conv2d_same", "nn_conv2d_unbatched",
	"nn_cosinesimilarity_pairwisedistance", "nn_dropout", "nn_embedding", "nn_embeddingbag_2d_weights",
	"nn_embeddingbag_modes", "nn_fractionalmaxpool", "nn_glu", "nn_logsigmoid", "nn_maxpool2d_unbatched",
	"nn_pixelshuffle_rank5", "nn_prelu", "nn_rrelu", "nn_softplus", "nn_threshold", "nn_unfold",
	"nn_upsample_bicubic", "nn_utils_parametrizations_weight_norm", "nn_utils_weight_norm",
}

// TestTorch2OpsLayers reads each case's traced.pt and exported.pt2, runs
// the import in the interpreter and, exported to ONNX, in ONNX Runtime
// (when installed), and compares both with PyTorch 2.6's stored outputs.
// A traced.pt does not record input dtypes, so a case with integer inputs
// gets them from its stored inputs.
func TestTorch2OpsLayers(t *testing.T) {
	root := filepath.Join(testfix.Fixtures(t), "torch2-ops")
	if _, err := os.Stat(root); err != nil {
		t.Skipf("skipping: no torch2-ops fixtures at %s", root)
	}
	rt, ortErr := ort.Find("")
	for _, name := range nnLayerCases {
		for _, file := range []string{"traced.pt", "exported.pt2"} {
			t.Run(name+"/"+file, func(t *testing.T) {
				dir := filepath.Join(root, name)
				path := filepath.Join(dir, file)
				if _, err := os.Stat(path); err != nil {
					t.Skipf("no %s", file)
				}
				ins, wants := nnLayerStored(t, dir)
				shapes := map[string][]int64{}
				for i, in := range ins {
					if file == "traced.pt" && in.DType != canon.Float32 {
						t.Skipf("input %d is %s; a traced.pt reads float32 inputs unless told their dtypes", i, in.DType)
					}
					shapes[fmt.Sprintf("#%d", i)] = in.Shape
				}
				g := load(t, path, "", formats.ReadOptions{InputShapes: shapes})
				feed := map[string]*canon.Tensor{}
				for i, in := range ins {
					in.Name = g.Inputs[i].Name
					feed[in.Name] = in
				}
				outs, err := interp.Run(g, feed)
				if err != nil {
					t.Fatal(err)
				}
				if len(g.Outputs) != len(wants) {
					t.Fatalf("%d outputs, PyTorch stored %d", len(g.Outputs), len(wants))
				}
				for i, o := range g.Outputs {
					nnLayerCheck(t, "interpreter", i, outs[o.Name], wants[i])
				}
				if ortErr != nil {
					t.Logf("ONNX Runtime not run: %v", ortErr)
					return
				}
				tmp := t.TempDir()
				model := filepath.Join(tmp, "model.onnx")
				write(t, g, model, "onnx")
				inDir, outDir := filepath.Join(tmp, "in"), filepath.Join(tmp, "out")
				if err := os.MkdirAll(inDir, 0o755); err != nil {
					t.Fatal(err)
				}
				for i, in := range ins {
					if err := tensorfile.Save(in, filepath.Join(inDir, fmt.Sprintf("input_%d.pb", i))); err != nil {
						t.Fatal(err)
					}
				}
				if err := rt.RunDir(model, inDir, outDir, ort.Options{}); err != nil {
					t.Fatalf("ONNX Runtime: %v", err)
				}
				for i := range wants {
					got, err := tensorfile.Load(filepath.Join(outDir, tensorfile.OutputFileName(i)))
					if err != nil {
						t.Fatal(err)
					}
					nnLayerCheck(t, "ONNX Runtime", i, got, wants[i])
				}
			})
		}
	}
}

// nnLayerStored loads a fixture's test_data_set_0 inputs and outputs.
func nnLayerStored(t *testing.T, dir string) (ins, outs []*canon.Tensor) {
	t.Helper()
	load := func(pattern string) []*canon.Tensor {
		paths, _ := filepath.Glob(filepath.Join(dir, "test_data_set_0", pattern))
		sort.Strings(paths)
		var ts []*canon.Tensor
		for _, p := range paths {
			v, err := tensorfile.Load(p)
			if err != nil {
				t.Fatal(err)
			}
			ts = append(ts, v)
		}
		return ts
	}
	return load("input_*.pb"), load("output_*.pb")
}

// nnLayerCheck compares one output with PyTorch's: same dtype and shape,
// integers exactly, floats within 1e-4 relative to the largest magnitude.
func nnLayerCheck(t *testing.T, runtime string, i int, got, want *canon.Tensor) {
	t.Helper()
	if got == nil || got.DType != want.DType || fmt.Sprint(got.Shape) != fmt.Sprint(want.Shape) {
		t.Errorf("%s output %d: %v, PyTorch's is %s%v", runtime, i, nnLayerDescribe(got), want.DType, want.Shape)
		return
	}
	if want.DType != canon.Float32 {
		r, err := compare.Tensors(got, want, 0, 0)
		if err != nil || !r.OK {
			t.Errorf("%s output %d differs from PyTorch: %+v %v", runtime, i, r, err)
		}
		return
	}
	rel, err := compare.RelativeToMax(got, want)
	if err != nil || rel > 1e-4 {
		t.Errorf("%s output %d: relative error %.3g to PyTorch (%v)", runtime, i, rel, err)
	}
}

func nnLayerDescribe(v *canon.Tensor) string {
	if v == nil {
		return "missing"
	}
	return fmt.Sprintf("%s%v", v.DType, v.Shape)
}
