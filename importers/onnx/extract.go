package onnximport

import (
	"fmt"
	"strings"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/formats"
	"github.com/modelbridge/modelbridge/internal/mmapfile"
	"github.com/modelbridge/modelbridge/internal/onnxpb"
	"github.com/modelbridge/modelbridge/internal/onnxtensor"
)

// Cut names the part of an ONNX graph to import, as onnx.utils.extract_model
// takes it: the values that become its inputs and outputs. Only the nodes
// between them are read, so an op modelbridge lacks outside the cut does not
// stop the import.
type Cut struct {
	// Inputs are the new graph inputs; a value the file declares no type
	// for (in its inputs, outputs or value_info) needs DType and Shape here.
	// None means the model's own inputs.
	Inputs  []canon.ValueInfo
	Outputs []string
}

// ReadCut imports the part of the ONNX model at path that cut names.
func ReadCut(path string, opts formats.ReadOptions, cut Cut) (*canon.Graph, error) {
	m, err := mmapfile.Open(path)
	if err != nil {
		return nil, err
	}
	g := &canon.Graph{}
	g.AddResource(m)
	im := &importer{g: g, opts: opts, tr: &onnxtensor.Reader{BaseDir: dirOf(path), Graph: g}, cut: &cut}
	if err := im.readGuarded(m.Data); err != nil {
		g.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if err := g.Validate(); err != nil {
		g.Close()
		return nil, fmt.Errorf("%s: the cut graph is not valid: %w", path, err)
	}
	return g, nil
}

// apply keeps the nodes of gp that compute the cut's outputs from its inputs
// and the initializers they read, and declares the new inputs and outputs.
func (c *Cut) apply(gp *onnxpb.GraphProto, inits []*canon.Tensor) ([]*canon.Tensor, error) {
	declared := map[string]*onnxpb.ValueInfoProto{}
	for _, list := range [][]*onnxpb.ValueInfoProto{gp.ValueInfo, gp.Output, gp.Input} {
		for _, vi := range list {
			declared[vi.GetName()] = vi
		}
	}
	producer := map[string]*onnxpb.NodeProto{}
	for _, n := range gp.Node {
		for _, o := range n.Output {
			if o != "" {
				producer[o] = n
			}
		}
	}
	isInit := map[string]bool{}
	for _, t := range inits {
		isInit[t.Name] = true
	}
	isGraphInput := map[string]bool{}
	for _, vi := range gp.Input {
		isGraphInput[vi.GetName()] = !isInit[vi.GetName()]
	}
	exists := func(name string) bool {
		return producer[name] != nil || isInit[name] || declared[name] != nil
	}
	if c.Inputs == nil {
		for _, vi := range gp.Input {
			if !isInit[vi.GetName()] {
				c.Inputs = append(c.Inputs, canon.ValueInfo{Name: vi.GetName()})
			}
		}
	}
	isCutInput := map[string]bool{}
	var names []string
	for _, v := range c.Inputs {
		if !exists(v.Name) {
			return nil, fmt.Errorf("input %q is not a value of the model", v.Name)
		}
		isCutInput[v.Name] = true
		names = append(names, v.Name)
	}
	keep := map[*onnxpb.NodeProto]bool{}
	usedInit := map[string]bool{}
	visited := map[string]bool{}
	var walk func(name, neededBy string) error
	walk = func(name, neededBy string) error {
		if name == "" || visited[name] || isCutInput[name] {
			return nil
		}
		visited[name] = true
		if n := producer[name]; n != nil {
			keep[n] = true
			for _, in := range n.Input {
				if err := walk(in, cutNodeLabel(n)); err != nil {
					return err
				}
			}
			for _, in := range outerReads(n) {
				if err := walk(in, cutNodeLabel(n)); err != nil {
					return err
				}
			}
			return nil
		}
		if isInit[name] && !isGraphInput[name] {
			usedInit[name] = true
			return nil
		}
		if isGraphInput[name] {
			return fmt.Errorf("node %s reads the model input %q, which is not among the cut's inputs (%s); add it to them, or cut later in the graph", neededBy, name, strings.Join(names, ","))
		}
		return fmt.Errorf("value %q, read by node %s, is not defined in the model", name, neededBy)
	}
	for _, o := range c.Outputs {
		if !exists(o) {
			return nil, fmt.Errorf("output %q is not a value of the model", o)
		}
		if err := walk(o, "(output)"); err != nil {
			return nil, err
		}
	}

	var nodes []*onnxpb.NodeProto
	for _, n := range gp.Node {
		if keep[n] {
			nodes = append(nodes, n)
		}
	}
	gp.Node = nodes
	gp.Input = nil
	for _, v := range c.Inputs {
		vi := declared[v.Name]
		if v.DType != canon.Undefined {
			var err error
			if vi, err = valueInfoProto(v); err != nil {
				return nil, fmt.Errorf("input %q: %w", v.Name, err)
			}
		}
		if vi == nil || vi.GetType() == nil {
			return nil, fmt.Errorf("input %q has no type in the file (no value_info); its type is needed to cut there", v.Name)
		}
		gp.Input = append(gp.Input, vi)
	}
	gp.Output = nil
	for _, o := range c.Outputs {
		vi := declared[o]
		if vi == nil {
			vi = &onnxpb.ValueInfoProto{Name: &o}
		}
		gp.Output = append(gp.Output, vi)
	}
	gp.ValueInfo = nil
	var kept []*canon.Tensor
	for _, t := range inits {
		if usedInit[t.Name] {
			kept = append(kept, t)
		}
	}
	return kept, nil
}

// outerReads lists the values a node's subgraphs (If, Loop, Scan bodies)
// read from the enclosing graph: names they use but do not define.
func outerReads(n *onnxpb.NodeProto) []string {
	var out []string
	for _, a := range n.Attribute {
		subs := a.Graphs
		if a.G != nil {
			subs = append(subs, a.G)
		}
		for _, sg := range subs {
			defined := map[string]bool{}
			for _, vi := range sg.Input {
				defined[vi.GetName()] = true
			}
			for _, t := range sg.Initializer {
				defined[t.GetName()] = true
			}
			for _, sn := range sg.Node {
				for _, in := range append(append([]string{}, sn.Input...), outerReads(sn)...) {
					if in != "" && !defined[in] {
						out = append(out, in)
					}
				}
				for _, o := range sn.Output {
					defined[o] = true
				}
			}
		}
	}
	return out
}

func cutNodeLabel(n *onnxpb.NodeProto) string {
	if n.GetName() != "" {
		return fmt.Sprintf("%q (%s)", n.GetName(), n.GetOpType())
	}
	return n.GetOpType()
}

// valueInfoProto declares a canonical value's type in ONNX terms.
func valueInfoProto(v canon.ValueInfo) (*onnxpb.ValueInfoProto, error) {
	et, ok := onnxtensor.DataType(v.DType)
	if !ok {
		return nil, fmt.Errorf("element type %s has no ONNX equivalent", v.DType)
	}
	tt := &onnxpb.TypeProto_Tensor{ElemType: &et}
	if v.RankKnown {
		tt.Shape = &onnxpb.TensorShapeProto{}
		for _, d := range v.Shape {
			dim := &onnxpb.TensorShapeProto_Dimension{}
			switch {
			case d.Known():
				size := d.Size
				dim.Value = &onnxpb.TensorShapeProto_Dimension_DimValue{DimValue: size}
			case d.Param != "":
				dim.Value = &onnxpb.TensorShapeProto_Dimension_DimParam{DimParam: d.Param}
			}
			tt.Shape.Dim = append(tt.Shape.Dim, dim)
		}
	}
	name := v.Name
	return &onnxpb.ValueInfoProto{Name: &name, Type: &onnxpb.TypeProto{Value: &onnxpb.TypeProto_TensorType{TensorType: tt}}}, nil
}
