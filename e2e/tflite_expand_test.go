package e2e

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
	tfliteexport "github.com/modelbridge/modelbridge/exporters/tflite"
	"github.com/modelbridge/modelbridge/formats"
	"github.com/modelbridge/modelbridge/internal/onnxtensor"
	"github.com/modelbridge/modelbridge/internal/testfix"
	"github.com/modelbridge/modelbridge/interp"
)

// TestTFLiteExportsExpansions exports ONNX 1.22's Attention and
// RotaryEmbedding conformance cases, kinds TFLite has no op for, as
// canon's exact expansion of them: each file, read back, must give the
// stored outputs; Arm NN runs the files it can read. Cases the expansion
// or TFLite cannot express are refused naming the node.
func TestTFLiteExportsExpansions(t *testing.T) {
	root := filepath.Join(testfix.Fixtures(t), "onnx-node-1.22")
	written := map[string]bool{
		"test_attention_3d": true, "test_attention_4d": true, "test_attention_4d_causal": true,
		"test_attention_4d_attn_mask": true, "test_attention_3d_scaled": true, "test_attention_4d_softcap": true,
		"test_rotary_embedding_no_position_ids": true, "test_rotary_embedding_no_position_ids_interleaved": true,
		"test_attention_4d_with_past_and_present": true,
	}
	refused := map[string]string{
		"test_rotary_embedding": "Gather",
	}
	cases := []string{}
	for c := range written {
		cases = append(cases, c)
	}
	for c := range refused {
		cases = append(cases, c)
	}
	for _, c := range cases {
		t.Run(c, func(t *testing.T) {
			model := filepath.Join(root, c, "model.onnx")
			if _, err := os.Stat(model); err != nil {
				t.Skipf("skipping: %v", err)
			}
			g := load(t, model, "onnx", formats.ReadOptions{})
			data, rep, err := tfliteexport.Encode(g, tfliteexport.Options{})
			if want, ok := refused[c]; ok {
				if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "node ") {
					t.Fatalf("want a refusal naming the node and %q, got %v", want, err)
				}
				t.Logf("refused: %v", err)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if rep.Expanded() == 0 {
				t.Error("the report counts no expanded node")
			}
			path := filepath.Join(t.TempDir(), "m.tflite")
			if err := os.WriteFile(path, data, 0o644); err != nil {
				t.Fatal(err)
			}
			back := load(t, path, "tflite", formats.ReadOptions{})
			set := filepath.Join(root, c, "test_data_set_0")
			feeds := map[string]*canon.Tensor{}
			var ins []*canon.Tensor
			for i, in := range back.Inputs {
				x, err := onnxtensor.ReadFile(filepath.Join(set, "input_"+strconv.Itoa(i)+".pb"))
				if err != nil {
					t.Fatal(err)
				}
				x.Name = in.Name
				feeds[in.Name] = x
				ins = append(ins, x)
			}
			got, err := interp.Run(back, feeds)
			if err != nil {
				t.Fatal(err)
			}
			var wants []*canon.Tensor
			for i, o := range back.Outputs {
				want, err := onnxtensor.ReadFile(filepath.Join(set, "output_"+strconv.Itoa(i)+".pb"))
				if err != nil {
					t.Fatal(err)
				}
				wants = append(wants, want)
				d := maxAbsDiff(t, got[o.Name], want)
				t.Logf("output %d: file read back vs ONNX's stored output: max abs diff %.3g (max |y| %.3g)", i, d, maxAbs(t, want))
				if d > 1e-5*(1+maxAbs(t, want)) {
					t.Errorf("output %d differs from ONNX's stored output by %g", i, d)
				}
			}
			// Arm NN 22 lacks BATCH_MATMUL and 5-D slices: it runs the
			// files it reads (skipped when it is not installed).
			arm, armErr := runArmNNErr(t, path, ins)
			if armErr != nil {
				t.Logf("Arm NN: %v", armErr)
				return
			}
			for i, want := range wants {
				d := maxAbsDiff(t, arm[i], want)
				t.Logf("output %d: Arm NN vs ONNX's stored output: max abs diff %.3g", i, d)
				if d > 1e-4*(1+maxAbs(t, want)) {
					t.Errorf("output %d: Arm NN differs from ONNX's stored output by %g", i, d)
				}
			}
		})
	}
}
