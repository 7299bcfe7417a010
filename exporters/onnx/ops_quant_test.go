package onnxexport

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/formats"
	"github.com/modelbridge/modelbridge/internal/onnxtensor"
	"github.com/modelbridge/modelbridge/internal/testfix"
	"github.com/modelbridge/modelbridge/interp"
)

// TestQuantNodeCasesRoundTrip: every quantized-op case of the ONNX 1.22
// node suite that ONNX Runtime passes and the importer reads is written at
// each opset and gives the expected outputs (integers exact) in ONNX
// Runtime; an opset too old for a case is a counted refusal.
func TestQuantNodeCasesRoundTrip(t *testing.T) {
	var cases []string
	for _, c := range ortPassingCases(t) {
		for _, p := range []string{"test_quantizelinear", "test_dequantizelinear", "test_dynamicquantizelinear",
			"test_qlinearconv", "test_qlinearmatmul", "test_convinteger", "test_matmulinteger"} {
			if strings.HasPrefix(c, p) {
				cases = append(cases, c)
				break
			}
		}
	}
	if len(cases) < 28 {
		t.Fatalf("found %d quantized cases ONNX Runtime passes, want 28", len(cases))
	}
	read, runs, refused := nodeRoundTrip{cases: cases, opsets: allOpsets(), refusal: refusedByOpset, skipUnreadable: true}.run(t)
	t.Logf("%d quantized cases, %d read, %d runs in ONNX Runtime, %d case×opset pairs refused by opset", len(cases), read, runs, refused)
}

// TestQuantExpansionsInORT writes quantization forms older opsets lack
// natively (16-bit types, blocks with run-time scales, per-axis scales at
// opset 11, float16 output) at every opset, runs them in ONNX Runtime and
// compares with the interpreter exactly.
func TestQuantExpansionsInORT(t *testing.T) {
	rt := testfix.ORT(t)
	tmp := t.TempDir()
	xv := make([]float32, 2*3*7)
	for i := range xv {
		xv[i] = float32(math.Sin(float64(i)*1.3)*400) + 0.5*float32(i%3)
	}
	x := canon.NewFloat32Tensor("x", []int64{2, 3, 7}, xv)
	s := func(name string, shape []int64) *canon.Tensor {
		v := make([]float32, canon.NumElements(shape))
		for i := range v {
			v[i] = 0.05 * float32(i+1)
		}
		return canon.NewFloat32Tensor(name, shape, v)
	}
	zero := func(name string, dt canon.DType, shape []int64, v int64) *canon.Tensor {
		n := int(canon.NumElements(shape))
		tt := &canon.Tensor{Name: name, DType: dt, Shape: shape, Data: make([]byte, n*dt.Size())}
		for i := 0; i < n; i++ {
			for k := 0; k < dt.Size(); k++ {
				tt.Data[i*dt.Size()+k] = byte(uint64(v+int64(i)) >> (8 * k))
			}
		}
		return tt
	}
	type qcase struct {
		name  string
		q     *canon.QuantizeLinear
		dq    *canon.DequantizeLinear
		scale *canon.Tensor
		zp    *canon.Tensor
	}
	cases := []qcase{
		{"int16 per tensor", &canon.QuantizeLinear{Axis: 1, Saturate: true}, &canon.DequantizeLinear{Axis: 1}, s("s", []int64{}), zero("z", canon.Int16, []int64{}, -7)},
		{"uint16 per axis", &canon.QuantizeLinear{Axis: 1, Saturate: true}, &canon.DequantizeLinear{Axis: 1}, s("s", []int64{3}), zero("z", canon.Uint16, []int64{3}, 30000)},
		{"int8 blocked", &canon.QuantizeLinear{Axis: 2, BlockSize: 3, Saturate: true}, &canon.DequantizeLinear{Axis: 2, BlockSize: 3}, s("s", []int64{2, 3, 3}), zero("z", canon.Int8, []int64{2, 3, 3}, -4)},
		{"int8 per axis no zero point", &canon.QuantizeLinear{Axis: -1, Saturate: true, OutputDType: canon.Int8}, &canon.DequantizeLinear{Axis: -1, OutputDType: canon.Float16}, s("s", []int64{7}), nil},
	}
	var jobs []*ortJob
	for _, c := range cases {
		// The scale (and zero point) are graph inputs: run-time values.
		g := &canon.Graph{Name: "quant",
			Inputs:  []canon.ValueInfo{{Name: "x", DType: canon.Float32, Shape: canon.DimsOf(2, 3, 7), RankKnown: true}, {Name: "s", DType: canon.Float32, Shape: canon.DimsOf(c.scale.Shape...), RankKnown: true}},
			Outputs: []canon.ValueInfo{{Name: "q"}, {Name: "y"}}}
		feed := []*canon.Tensor{x, c.scale}
		ins := []string{"x", "s"}
		if c.zp != nil {
			g.Inputs = append(g.Inputs, canon.ValueInfo{Name: "z", DType: c.zp.DType, Shape: canon.DimsOf(c.zp.Shape...), RankKnown: true})
			feed = append(feed, c.zp)
			ins = append(ins, "z")
		}
		dqIns := append([]string{"q"}, ins[1:]...)
		g.Nodes = []*canon.Node{{Name: "quant", Op: c.q, Inputs: ins, Outputs: []string{"q"}}, {Name: "dequant", Op: c.dq, Inputs: dqIns, Outputs: []string{"y"}}}
		if err := g.Validate(); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		inputs := map[string]*canon.Tensor{}
		for _, f := range feed {
			inputs[f.Name] = f
		}
		want, err := interp.Run(g, inputs)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		set := filepath.Join(tmp, strings.ReplaceAll(c.name, " ", "_"), "set")
		os.MkdirAll(set, 0o755)
		for i, f := range feed {
			if err := onnxtensor.WriteFile(f, filepath.Join(set, fmt.Sprintf("input_%d.pb", i))); err != nil {
				t.Fatal(err)
			}
		}
		for i, o := range g.Outputs {
			if err := onnxtensor.WriteFile(want[o.Name], filepath.Join(set, fmt.Sprintf("output_%d.pb", i))); err != nil {
				t.Fatal(err)
			}
		}
		for _, opset := range allOpsets() {
			p := filepath.Join(filepath.Dir(set), fmt.Sprintf("m%d.onnx", opset))
			if err := Write(g, p, formats.WriteOptions{Opset: opset}); err != nil {
				t.Errorf("%s at opset %d: %v", c.name, opset, err)
				continue
			}
			jobs = append(jobs, &ortJob{ID: len(jobs), Model: p, Inputs: set, Out: filepath.Join(filepath.Dir(set), fmt.Sprintf("out%d", opset)),
				label: fmt.Sprintf("%s@%d", c.name, opset), want: set})
		}
	}
	results := runORT(t, rt, jobs)
	for _, j := range jobs {
		if res := results[j.ID]; !res.OK {
			t.Errorf("%s: ONNX Runtime: %s", j.label, res.Err)
		} else if err := sameAsExpected(j.Out, j.want); err != nil {
			t.Errorf("%s: %v", j.label, err)
		}
	}
	t.Logf("%d quantization forms, %d runs in ONNX Runtime", len(cases), len(jobs))
}
