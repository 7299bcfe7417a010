package pt2

import (
	"fmt"
	"path/filepath"
	"sort"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
	onnxexport "github.com/modelbridge/modelbridge/exporters/onnx"
	"github.com/modelbridge/modelbridge/formats"
	"github.com/modelbridge/modelbridge/importers/torch/torchscript"
	"github.com/modelbridge/modelbridge/internal/compare"
	"github.com/modelbridge/modelbridge/internal/runtimes/ort"
	"github.com/modelbridge/modelbridge/internal/tensorfile"
	"github.com/modelbridge/modelbridge/internal/testfix"
	"github.com/modelbridge/modelbridge/interp"
)

// mathOpCases are the cases of ../shared/fixtures/torch2-ops whose
// operators are math, elementwise and reduction ones (read by the shared
// TorchScript handlers). Traced archives record no input dtypes, so the
// cases with bool or integer inputs are checked from exported.pt2 only.
var mathOpCases = map[string]bool{
	"op_exp_log": true, "op_expm1_sinh_cosh": true, "op_atan2": true, "op_logaddexp": true, "op_pow_sqrt": true,
	"op_trunc_frac": true, "op_std_var": true, "op_cumprod": true, "op_norm": true, "op_addcmul_addcdiv": true,
	"op_lerp": true, "op_all_any": false, "op_count_nonzero": true, "op_nan_inf": true, "op_clamp": true,
	"op_diff": true, "op_cross": true, "op_kron": true, "op_bmm_mm_mv_outer_dot": true, "op_arange_linspace": true,
	"op_bitwise": false, "op_cdist": true,
}

// TestMathOpFixtures reads each case from exported.pt2 and traced.pt,
// runs it in the interpreter and, exported to ONNX, in ONNX Runtime, and
// compares with the outputs PyTorch 2.6 stored.
func TestMathOpFixtures(t *testing.T) {
	root := filepath.Join(testfix.Fixtures(t), "torch2-ops")
	rt := testfix.ORT(t)
	names := make([]string, 0, len(mathOpCases))
	for n := range mathOpCases {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		for _, file := range []string{"exported.pt2", "traced.pt"} {
			if file == "traced.pt" && !mathOpCases[name] {
				continue
			}
			t.Run(name+"/"+file, func(t *testing.T) {
				dir := filepath.Join(root, name)
				ins, _ := filepath.Glob(filepath.Join(dir, "test_data_set_0", "input_*.pb"))
				sort.Strings(ins)
				shapes := map[string][]int64{}
				var feeds []*canon.Tensor
				for k, p := range ins {
					v, err := tensorfile.Load(p)
					if err != nil {
						t.Fatal(err)
					}
					shapes[fmt.Sprintf("#%d", k)] = v.Shape
					feeds = append(feeds, v)
				}
				opts := formats.ReadOptions{InputShapes: shapes}
				var g *canon.Graph
				var err error
				if file == "traced.pt" {
					g, err = torchscript.ReadFile(filepath.Join(dir, file), opts)
				} else {
					g, err = Read(filepath.Join(dir, file), opts)
				}
				if err != nil {
					t.Fatal(err)
				}
				defer g.Close()
				if len(g.Inputs) != len(feeds) {
					t.Fatalf("%d inputs, the case has %d", len(g.Inputs), len(feeds))
				}
				feed := map[string]*canon.Tensor{}
				tmp := t.TempDir()
				for k, in := range g.Inputs {
					feeds[k].Name = in.Name
					feed[in.Name] = feeds[k]
					if err := tensorfile.Save(feeds[k], filepath.Join(tmp, fmt.Sprintf("input_%d.pb", k))); err != nil {
						t.Fatal(err)
					}
				}
				res, err := interp.Run(g, feed)
				if err != nil {
					t.Fatal(err)
				}
				model := filepath.Join(tmp, "model.onnx")
				// The lowest opset that expresses the graph: op_bitwise's
				// BitwiseAnd needs 18.
				if err := onnxexport.Write(g, model, formats.WriteOptions{Opset: formats.OpsetAuto}); err != nil {
					t.Fatal(err)
				}
				outDir := filepath.Join(tmp, "out")
				if err := rt.RunDir(model, tmp, outDir, ort.Options{}); err != nil {
					t.Fatalf("ONNX Runtime: %v", err)
				}
				for k, o := range g.Outputs {
					want, err := tensorfile.Load(filepath.Join(dir, "test_data_set_0", fmt.Sprintf("output_%d.pb", k)))
					if err != nil {
						t.Fatal(err)
					}
					ort, err := tensorfile.Load(filepath.Join(outDir, tensorfile.OutputFileName(k)))
					if err != nil {
						t.Fatal(err)
					}
					for who, got := range map[string]*canon.Tensor{"interpreter": res[o.Name], "ONNX Runtime": ort} {
						if r, err := compare.Tensors(got, want, 1e-4, 1e-5); err != nil || !r.OK {
							t.Errorf("%s, output %d: %+v %v", who, k, r, err)
						}
					}
				}
			})
		}
	}
}
