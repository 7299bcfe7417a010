package onnxexport

import (
	"encoding/binary"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/testfix"
)

// TestNormNodeCasesRoundTrip converts the ONNX 1.22 node cases of the
// normalization and pooling family that ONNX Runtime passes, at every
// opset the exporter writes, and runs them in ONNX Runtime against the
// suite's expected outputs: below an op's opset its expansion runs. A
// refusal must name the opset that expresses the op.
func TestNormNodeCasesRoundTrip(t *testing.T) {
	ort := map[string]bool{}
	for _, c := range ortPassingCases(t) {
		ort[c] = true
	}
	var cases []string
	for _, c := range nodeCasesMatching(t, []string{"test_layer_normalization_*", "test_group_normalization_*", "test_instancenorm_*",
		"test_rms_normalization_*", "test_l1normalization_*", "test_l2normalization_*", "test_lpnormalization_*", "test_mvn*",
		"test_lppool_*", "test_globallppool*", "test_maxunpool_*", "test_maxpool_with_argmax_*"}) {
		if ort[c] && filepath.Ext(c) == "" {
			cases = append(cases, c)
		}
	}
	if len(cases) < 60 {
		t.Fatalf("found %d normalization and pooling cases ONNX Runtime passes, want over 60", len(cases))
	}
	read, runs, refused := nodeRoundTrip{cases: cases, opsets: allOpsets(), refusal: refusedByOpset, skipUnreadable: true}.run(t)
	t.Logf("%d cases (%d read), %d runs in ONNX Runtime, %d case×opset pairs refused by opset", len(cases), read, runs, refused)
}

// normGraph holds the forms the node suite leaves out: GroupNormalization
// with constant scale and bias (uniform per group, which GroupNormalization-18
// can carry, and not), LayerNormalization with its Mean and InvStdDev over
// two axes, RMSNormalization, MaxPool Indices fed to MaxUnpool with an
// output shape, and LpPool with uneven pads.
func normGraph() *canon.Graph {
	g := &canon.Graph{Name: "norms", Inputs: []canon.ValueInfo{{Name: "x", DType: canon.Float32, Shape: canon.DimsOf(2, 4, 3, 5), RankKnown: true}}}
	init := func(name string, shape []int64, v ...float32) string {
		g.Initializers = append(g.Initializers, canon.NewFloat32Tensor(name, shape, v))
		return name
	}
	add := func(op canon.Op, ins []string, outs ...string) {
		g.Nodes = append(g.Nodes, &canon.Node{Name: outs[0], Op: op, Inputs: ins, Outputs: outs})
		for _, o := range outs {
			if !strings.HasPrefix(o, "tmp_") {
				g.Outputs = append(g.Outputs, canon.ValueInfo{Name: o})
			}
		}
	}
	add(&canon.GroupNorm{NumGroups: 2, Epsilon: 1e-3, Stash: canon.Float32},
		[]string{"x", init("gs_u", []int64{4}, 2, 2, -1, -1), init("gb_u", []int64{4}, 0.5, 0.5, 1, 1)}, "gn_uniform")
	add(&canon.GroupNorm{NumGroups: 2, Epsilon: 1e-3, Stash: canon.Float32},
		[]string{"x", init("gs", []int64{4}, 1, 2, 3, -1), init("gb", []int64{4}, 0, 1, 0, -1)}, "gn")
	add(&canon.LayerNorm{Axis: 2, Epsilon: 1e-2, Stash: canon.Float32},
		[]string{"x", init("ls", []int64{3, 5}, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15), init("lb", []int64{5}, 1, 0, -1, 0, 1)}, "ln", "ln_mean", "ln_inv")
	add(&canon.RMSNorm{Axis: -1, Epsilon: 1e-2, Stash: canon.Float32}, []string{"x", init("rs", []int64{5}, 1, -1, 2, 0.5, 3)}, "rms")
	add(&canon.MaxPool{Kernel: []int64{2, 2}, Strides: []int64{2, 2}, Dilations: []int64{1, 1}, PadsBegin: []int64{0, 0}, PadsEnd: []int64{0, 0}},
		[]string{"x"}, "tmp_pooled", "tmp_indices")
	add(&canon.MaxUnpool{Kernel: []int64{2, 2}, Strides: []int64{2, 2}, PadsBegin: []int64{0, 0}, PadsEnd: []int64{0, 0}, OutputShape: []int64{2, 4, 3, 5}},
		[]string{"tmp_pooled", "tmp_indices"}, "unpooled")
	add(&canon.LpPool{Kernel: []int64{2, 3}, Strides: []int64{1, 2}, Dilations: []int64{1, 1}, PadsBegin: []int64{1, 0}, PadsEnd: []int64{0, 2}, P: 2},
		[]string{"x"}, "lp")
	// A float16 LayerNormalization: statistics in float32 (its stash type).
	half := func(name string, shape []int64, v ...float32) string {
		t := &canon.Tensor{Name: name, DType: canon.Float16, Shape: shape, Data: make([]byte, 2*len(v))}
		for i, f := range v {
			binary.LittleEndian.PutUint16(t.Data[2*i:], canon.Float32ToHalf(f))
		}
		g.Initializers = append(g.Initializers, t)
		return name
	}
	add(&canon.Cast{To: canon.Float16}, []string{"x"}, "tmp_x_half")
	add(&canon.LayerNorm{Axis: -1, Epsilon: 1e-3, Stash: canon.Float32},
		[]string{"tmp_x_half", half("hs", []int64{5}, 1, 2, -1, 0.5, 3), half("hb", []int64{5}, 0, 1, 0, -1, 0.25)}, "tmp_ln_half", "ln_half_mean")
	add(&canon.Cast{To: canon.Float32}, []string{"tmp_ln_half"}, "ln_half")
	canon.AssignLayouts(g)
	return g
}

// TestNormGraphORT writes normGraph at every opset and runs it in ONNX
// Runtime against the interpreter.
func TestNormGraphORT(t *testing.T) {
	rt := testfix.ORT(t)
	g := normGraph()
	if err := g.Infer(); err != nil {
		t.Fatal(err)
	}
	if err := g.Validate(); err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	var jobs []*interpJob
	for opset := MinOpset; opset <= MaxOpset; opset++ {
		label := fmt.Sprintf("norms@%d", opset)
		if j := addInterpJob(t, g, opset, filepath.Join(tmp, label), label, len(jobs)); j != nil {
			jobs = append(jobs, j)
		}
	}
	var plain []*ortJob
	for _, j := range jobs {
		plain = append(plain, j.ortJob)
	}
	results := runORT(t, rt, plain)
	for _, j := range jobs {
		if r, ok := results[j.ID]; !ok || !r.OK {
			t.Errorf("%s: ONNX Runtime: %s", j.label, r.Err)
			continue
		}
		for i, want := range j.want {
			got, err := readTensorPB(filepath.Join(j.Out, fmt.Sprintf("output_%d.pb", i)))
			if err != nil {
				t.Errorf("%s: %v", j.label, err)
				continue
			}
			rtol := 1e-4
			if g.Outputs[i].Name == "ln_half" {
				rtol = 2e-3 // float16 results: one rounding apart at most
			}
			if err := compareElem(got, want, rtol, rtol/10); err != nil {
				t.Errorf("%s output %s: ONNX Runtime vs interpreter: %v", j.label, g.Outputs[i].Name, err)
			}
		}
	}
}
