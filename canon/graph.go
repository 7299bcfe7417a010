// Package canon is modelbridge's canonical intermediate representation: a
// graph of typed operations over named values, where every weight tensor
// carries an explicit layout. Importers produce it, optimizer passes rewrite
// it, exporters consume it and the interpreter runs it. Nothing in it knows
// which framework a model came from.
package canon

import (
	"errors"
	"io"
)

// Dim is one dimension of a value's shape: a known size, or unknown
// (Size < 0) with an optional symbolic name such as "batch".
type Dim struct {
	Size  int64
	Param string
}

// Known reports whether the dimension has a concrete size.
func (d Dim) Known() bool { return d.Size >= 0 }

// ValueInfo is the type of a value flowing between nodes.
type ValueInfo struct {
	Name  string
	DType DType
	// Shape lists the dimensions; it is meaningful only when RankKnown.
	Shape     []Dim
	RankKnown bool
	// Const, when set, is the value's content, known before running the graph
	// (initializers, Constant nodes, and small integer tensors computed from
	// static shapes by shape inference, such as Shape -> Gather chains).
	Const *Tensor
	// Kind says whether the value is a tensor (the zero kind), a sequence
	// of tensors or an optional (see valuekind.go). For a sequence or an
	// optional, DType and Shape describe the tensors it holds.
	Kind ValueKind
}

// StaticShape returns the concrete shape and true when every dimension is known.
func (v ValueInfo) StaticShape() ([]int64, bool) {
	if !v.RankKnown {
		return nil, false
	}
	out := make([]int64, len(v.Shape))
	for i, d := range v.Shape {
		if !d.Known() {
			return nil, false
		}
		out[i] = d.Size
	}
	return out, true
}

// DimsOf makes a fully known shape from sizes.
func DimsOf(sizes ...int64) []Dim {
	out := make([]Dim, len(sizes))
	for i, s := range sizes {
		out[i] = Dim{Size: s}
	}
	return out
}

// Node is one operation. Inputs name the values it reads, in the order its
// op's Signature gives; an absent optional input is "". Outputs name the
// values it defines; an unused optional output may be "".
type Node struct {
	Name    string
	Op      Op
	Inputs  []string
	Outputs []string
}

// Metadata describes where a graph came from.
type Metadata struct {
	Producer        string
	ProducerVersion string
	// SourceFormat is the importer's format name ("onnx", "torch", ...).
	SourceFormat string
	// SourceIRVersion and SourceOpset are the ONNX IR version and default
	// opset of the file read, when the source was ONNX.
	SourceIRVersion int64
	SourceOpset     int64
	Domain          string
	ModelVersion    int64
	DocString       string
	// Props holds free-form key/value metadata, in file order.
	Props []KeyValue
	// Notes are what a user should hear about how the file was read: data
	// that was densified, entries that were skipped. Commands print them.
	Notes []string
	// SourceFiles lists every file the importer read besides the one it
	// was given (ONNX external data, an MXNet params file), so that
	// commands can refuse to overwrite any part of their input.
	SourceFiles []string
	// WeightsMissing marks a graph read without its weights (an MXNet
	// symbol with no params file): its weights are graph inputs. It can be
	// inspected and drawn, not converted or run as if it were the model.
	WeightsMissing bool
	// SourceOps counts the file's own ops as its format names them (ONNX
	// op types, "domain:Type" outside the default domain; MXNet ops),
	// before import folds or fuses any; nil when the importer does not
	// record them.
	SourceOps map[string]int
}

// KeyValue is one metadata property.
type KeyValue struct{ Key, Value string }

// Graph is a whole model: typed inputs and outputs, nodes in topological
// order, and the weights they use.
type Graph struct {
	Name         string
	Inputs       []ValueInfo
	Outputs      []ValueInfo
	Nodes        []*Node
	Initializers []*Tensor
	Meta         Metadata

	// Values holds the inferred type of every value (inputs, initializers,
	// node outputs), filled by Infer.
	Values *ValueTable

	resources []io.Closer
}

// Initializer returns the initializer with the given name, or nil.
func (g *Graph) Initializer(name string) *Tensor {
	for _, t := range g.Initializers {
		if t.Name == name {
			return t
		}
	}
	return nil
}

// InitializerIndex maps initializer names to tensors.
func (g *Graph) InitializerIndex() map[string]*Tensor {
	m := make(map[string]*Tensor, len(g.Initializers))
	for _, t := range g.Initializers {
		m[t.Name] = t
	}
	return m
}

// Producers maps each value name to the node that defines it.
func (g *Graph) Producers() map[string]*Node {
	m := make(map[string]*Node)
	for _, n := range g.Nodes {
		for _, o := range n.Outputs {
			if o != "" {
				m[o] = n
			}
		}
	}
	return m
}

// Consumers maps each value name to the nodes that read it, in node order.
func (g *Graph) Consumers() map[string][]*Node {
	m := make(map[string][]*Node)
	for _, n := range g.Nodes {
		for _, in := range n.Inputs {
			if in != "" {
				m[in] = append(m[in], n)
			}
		}
	}
	return m
}

// AddResource ties the lifetime of r (a memory mapping, an open file the
// tensor data points into) to the graph. Close releases it.
func (g *Graph) AddResource(r io.Closer) { g.resources = append(g.resources, r) }

// Close releases the resources that tensor data may point into. Tensors read
// from the graph must not be used afterwards.
func (g *Graph) Close() error {
	var errs []error
	for _, r := range g.resources {
		errs = append(errs, r.Close())
	}
	g.resources = nil
	return errors.Join(errs...)
}

// ParamStats counts a graph's weights. A weight shared under several names
// (see SameData) counts once; Shared counts its extra names.
type ParamStats struct {
	Tensors  int
	Shared   int
	Elements int64
	Bytes    int64
	ByDType  map[DType]int64 // bytes by dtype
}

// Params summarizes the initializers.
func (g *Graph) Params() ParamStats {
	s := ParamStats{ByDType: map[DType]int64{}}
	alias := g.SharedNames()
	for _, t := range g.Initializers {
		if _, ok := alias[t.Name]; ok {
			s.Shared++
			continue
		}
		s.Tensors++
		s.Elements += t.NumElements()
		n := int64(len(t.Data)) + t.StringBytes() // a string tensor's text
		s.Bytes += n
		s.ByDType[t.DType] += n
	}
	return s
}
