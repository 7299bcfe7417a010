package runtimes

import (
	"fmt"
	"os"
	"path/filepath"

	"google.golang.org/protobuf/proto"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/onnxpb"
)

// ORTAllValues runs an ONNX file in ONNX Runtime on one sample with every
// node output of the main graph made a graph output, and returns the values
// by name. Graph optimizations are off, so that each value is what its own
// node computes.
func ORTAllValues(model string, sample Sample) (map[string]*canon.Tensor, string, error) {
	if err := FindORT(); err != nil {
		return nil, "", err
	}
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
	dir, err := os.MkdirTemp("", "modelbridge-layers-")
	if err != nil {
		return nil, "", err
	}
	defer os.RemoveAll(dir)
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
