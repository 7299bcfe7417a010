package runtimes

import (
	"fmt"
	"os"
	"path/filepath"

	"google.golang.org/protobuf/proto"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/interrupt"
	"github.com/modelbridge/modelbridge/internal/onnxpb"
	"github.com/modelbridge/modelbridge/internal/onnxtensor"
)

// ORTAllValues runs an ONNX file in ONNX Runtime on one sample with every
// node output of the main graph made a graph output, and returns the values
// by name. Graph optimizations are off, so that each value is what its own
// node computes.
func ORTAllValues(model string, sample Sample) (map[string]*canon.Tensor, string, error) {
	b, err := os.ReadFile(model)
	if err != nil {
		return nil, "", err
	}
	mp := &onnxpb.ModelProto{}
	if err := proto.Unmarshal(b, mp); err != nil {
		return nil, "", fmt.Errorf("%s: not an ONNX model: %v", model, err)
	}
	g := mp.GetGraph()
	for _, t := range g.GetInitializer() {
		if t.GetDataLocation() == onnxpb.TensorProto_EXTERNAL {
			return nil, "", fmt.Errorf("%s keeps its weights in external data, which a copy with more outputs cannot reach; compare its layers with --runtime interp", model)
		}
	}
	have := map[string]bool{}
	for _, o := range g.GetOutput() {
		have[o.GetName()] = true
	}
	for _, n := range g.GetNode() {
		for _, o := range n.GetOutput() {
			if o != "" && !have[o] {
				have[o] = true
				// No type: ONNX Runtime infers it from the producing node.
				g.Output = append(g.Output, &onnxpb.ValueInfoProto{Name: proto.String(o)})
			}
		}
	}
	dir, remove, err := interrupt.TempDir("modelbridge-layers-")
	if err != nil {
		return nil, "", err
	}
	defer remove()
	out, err := proto.Marshal(mp)
	if err != nil {
		return nil, "", err
	}
	copyPath := filepath.Join(dir, "all_values.onnx")
	if err := os.WriteFile(copyPath, out, 0o644); err != nil {
		return nil, "", err
	}
	res, err := runORT(copyPath, "disabled", []Sample{sample})
	if err != nil {
		return nil, "", err
	}
	if len(res.Names) != len(res.Outputs[0]) {
		return nil, "", fmt.Errorf("%s: ONNX Runtime returned %d values for %d names", model, len(res.Outputs[0]), len(res.Names))
	}
	vals := map[string]*canon.Tensor{}
	for i, name := range res.Names {
		vals[name] = res.Outputs[0][i]
	}
	return vals, res.Runtime + ", optimizations off", nil
}

// ONNXSignature reads an ONNX file's inputs (those without an initializer)
// and outputs, for running in ONNX Runtime a model modelbridge cannot
// import.
func ONNXSignature(model string) (inputs, outputs []canon.ValueInfo, err error) {
	b, err := os.ReadFile(model)
	if err != nil {
		return nil, nil, err
	}
	mp := &onnxpb.ModelProto{}
	if err := proto.Unmarshal(b, mp); err != nil {
		return nil, nil, fmt.Errorf("%s: not an ONNX model: %v", model, err)
	}
	inits := map[string]bool{}
	for _, t := range mp.GetGraph().GetInitializer() {
		inits[t.GetName()] = true
	}
	convert := func(vs []*onnxpb.ValueInfoProto, skipInits bool) ([]canon.ValueInfo, error) {
		var out []canon.ValueInfo
		for _, v := range vs {
			if skipInits && inits[v.GetName()] {
				continue
			}
			tt := v.GetType().GetTensorType()
			dt, err := onnxtensor.DType(tt.GetElemType())
			if err != nil {
				return nil, fmt.Errorf("%s: value %q: %v", model, v.GetName(), err)
			}
			vi := canon.ValueInfo{Name: v.GetName(), DType: dt, RankKnown: tt.GetShape() != nil, Shape: []canon.Dim{}}
			for _, d := range tt.GetShape().GetDim() {
				if _, ok := d.GetValue().(*onnxpb.TensorShapeProto_Dimension_DimValue); ok && d.GetDimValue() >= 0 {
					vi.Shape = append(vi.Shape, canon.Dim{Size: d.GetDimValue()})
				} else {
					vi.Shape = append(vi.Shape, canon.Dim{Size: -1, Param: d.GetDimParam()})
				}
			}
			out = append(out, vi)
		}
		return out, nil
	}
	if inputs, err = convert(mp.GetGraph().GetInput(), true); err != nil {
		return nil, nil, err
	}
	if outputs, err = convert(mp.GetGraph().GetOutput(), false); err != nil {
		return nil, nil, err
	}
	return inputs, outputs, nil
}
