// Package tfliteimport reads TensorFlow Lite models (.tflite flatbuffers,
// schema version 3). The main subgraph becomes a canonical graph: NHWC
// activations are held as NCHW between the ops that have a canonical
// layout (Transposes only where a graph input or output keeps the file's
// NHWC shape, or where an op without an NCHW form reads such a value),
// OHWI / 1HWO / transposed-convolution OHWI weights are permuted once to
// OIHW / IOHW, and quantized integer kernels are written as exact integer
// arithmetic that reproduces TFLite's reference kernels bit for bit (see
// fixedpoint.go). Ops whose integer semantics the canonical ops cannot
// reproduce exactly are refused by name.
package tfliteimport

import (
	"fmt"
	"strings"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/formats"
	"github.com/modelbridge/modelbridge/internal/databudget"
	"github.com/modelbridge/modelbridge/internal/mmapfile"
	"github.com/modelbridge/modelbridge/internal/panicerr"
	"github.com/modelbridge/modelbridge/internal/tflitefb"
)

func init() {
	formats.RegisterImporter(&formats.Importer{
		Name:       "tflite",
		Extensions: []string{".tflite"},
		Sniff:      Sniff,
		Read:       Read,
		Ops:        Ops,
	})
}

// Sniff recognizes the flatbuffer file identifier TFL3 at offset 4.
func Sniff(head []byte) bool { return len(head) >= 8 && string(head[4:8]) == "TFL3" }

// Read imports the .tflite file at path.
func Read(path string, opts formats.ReadOptions) (g *canon.Graph, err error) {
	defer panicerr.Recover(path, &err)
	mp, err := mmapfile.Open(path)
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			mp.Close()
		}
	}()
	g, err = ReadBytes(path, mp.Data, opts)
	if err != nil {
		return nil, err
	}
	g.AddResource(mp)
	return g, nil
}

// ReadBytes imports a .tflite model held in memory; path only names it in
// messages. Constant tensors are views into data.
func ReadBytes(path string, data []byte, opts formats.ReadOptions) (g *canon.Graph, err error) {
	defer panicerr.Recover(path, &err)
	m, err := parseModel(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(m.subgraphs) > 1 {
		return nil, fmt.Errorf("%s: the model has %d subgraphs (%s); only single-subgraph models are supported until canonical control flow reads TFLite's WHILE/IF bodies", path, len(m.subgraphs), quoteNames(m.subgraphs))
	}
	if len(opts.InputShapes) > 0 || opts.DynamicBatch {
		return nil, fmt.Errorf("%s: TFLite models are read with the shapes the file records; --input-shape and --dynamic-batch are not supported for .tflite", path)
	}
	b := &builder{
		path: path, m: m, s: &m.main,
		g:          &canon.Graph{Name: m.main.name},
		taken:      map[string]bool{},
		vals:       map[int][]held{},
		graphInput: map[string]bool{},
		dequantOf:  map[int]int{},
		weights:    map[string]string{},
		flatSrc:    map[int]int{},
		budget:     databudget.ForInput(int64(len(data))),
	}
	if b.g.Name == "" {
		b.g.Name = "main"
	}
	b.g.Meta = canon.Metadata{SourceFormat: "tflite", Producer: "tflite", ProducerVersion: fmt.Sprintf("schema %d", m.version), DocString: m.description, SourceOps: map[string]int{}}
	if err := b.declareInputs(); err != nil {
		return nil, err
	}
	for i := range b.s.operators {
		op := &b.s.operators[i]
		b.g.Meta.SourceOps[op.opcode.name()]++
		if err := b.convert(op); err != nil {
			return nil, err
		}
	}
	if err := b.declareOutputs(); err != nil {
		return nil, err
	}
	if len(b.innerTransposes) > 0 {
		b.g.Meta.Notes = append(b.g.Meta.Notes, fmt.Sprintf("%d Transpose ops inside the graph, where an op without an NCHW form reads an NCHW value: %s", len(b.innerTransposes), quoteNames(b.innerTransposes)))
	}
	return b.g, nil
}

// declareInputs makes the subgraph's inputs graph inputs, in the file's
// shapes and types. An input read only as a TRANSPOSE_CONV output_shape is
// not declared: the output shape the file records is used instead.
func (b *builder) declareInputs() error {
	shapeOnly := map[int]bool{}
	other := map[int]bool{}
	for _, op := range b.s.operators {
		for k, in := range op.inputs {
			if in < 0 {
				continue
			}
			if op.opcode.builtin == tflitefb.BuiltinOperatorTRANSPOSE_CONV && k == 0 {
				shapeOnly[in] = true
			} else {
				other[in] = true
			}
		}
	}
	for _, i := range b.s.inputs {
		t := b.tensor(i)
		if shapeOnly[i] && !other[i] {
			b.g.Meta.Notes = append(b.g.Meta.Notes, fmt.Sprintf("input %q (a TRANSPOSE_CONV output_shape) is not a graph input: the output shape the file records is used", t.name))
			continue
		}
		dt, err := dtypeOf(t.dtype)
		if err != nil {
			return b.errf("input %s: %v", b.tensorTitle(i), err)
		}
		if t.hasRankFal {
			return b.errf("input %s has an unknown rank; modelbridge needs the input's shape", b.tensorTitle(i))
		}
		for k, d := range t.signature {
			if d < 0 && k < len(t.shape) {
				b.g.Meta.Notes = append(b.g.Meta.Notes, fmt.Sprintf("input %q: axis %d is dynamic in the file; it is read with the size %d the file records", t.name, k, t.shape[k]))
			}
		}
		name := b.fresh(t.name)
		b.g.Inputs = append(b.g.Inputs, canon.ValueInfo{Name: name, DType: dt, Shape: canon.DimsOf(t.shape...), RankKnown: true})
		b.graphInput[name] = true
		b.define(i, name, fileForm)
	}
	return nil
}

// declareOutputs makes the subgraph's outputs graph outputs in the file's
// layout, named as the file names them.
func (b *builder) declareOutputs() error {
	for _, i := range b.s.outputs {
		t := b.tensor(i)
		if len(b.vals[i]) > 0 && b.vals[i][0].form == nchwForm && b.rank4(i) {
			// The NCHW value gives up its name to the NHWC output.
			old := b.vals[i][0].name
			inner := b.fresh(old + "/nchw")
			b.renameValue(old, inner)
			b.vals[i] = []held{{inner, nchwForm}}
			b.emit(old, &canon.Transpose{Perm: nchwToNHWC}, []string{inner}, old)
			b.vals[i] = append(b.vals[i], held{old, fileForm})
		}
		name, err := b.value(i, fileForm)
		if err != nil {
			return fmt.Errorf("output: %w", err)
		}
		dt, err := dtypeOf(t.dtype)
		if err != nil {
			return b.errf("output %s: %v", b.tensorTitle(i), err)
		}
		b.g.Outputs = append(b.g.Outputs, canon.ValueInfo{Name: name, DType: dt})
	}
	return nil
}

// renameValue renames a value everywhere it is written or read.
func (b *builder) renameValue(old, to string) {
	for _, n := range b.g.Nodes {
		for k, v := range n.Inputs {
			if v == old {
				n.Inputs[k] = to
			}
		}
		for k, v := range n.Outputs {
			if v == old {
				n.Outputs[k] = to
			}
		}
	}
}

// convert converts one operator.
func (b *builder) convert(op *operatorDef) error {
	name := op.opcode.name()
	e, ok := opTable[op.opcode.builtin]
	if !ok || op.opcode.builtin == tflitefb.BuiltinOperatorCUSTOM {
		return b.errf("operator %d: %s is not supported by the TFLite importer%s", op.index, name, lacksHint(op.opcode.builtin))
	}
	if len(op.outputs) == 0 {
		return b.errf("operator %d (%s) has no outputs", op.index, name)
	}
	c := &opCtx{b: b, op: op}
	if err := e.fn(c); err != nil {
		if strings.HasPrefix(err.Error(), b.path+": ") {
			return err
		}
		return c.errf("%v", err)
	}
	return nil
}

// opCtx is one operator being converted.
type opCtx struct {
	b  *builder
	op *operatorDef
}

func (c *opCtx) errf(format string, args ...any) error {
	out := ""
	if len(c.op.outputs) > 0 {
		out = fmt.Sprintf(", output %q", c.b.tensor(c.op.outputs[0]).name)
	}
	return fmt.Errorf("%s: operator %d (%s%s): %s", c.b.path, c.op.index, c.op.opcode.name(), out, fmt.Sprintf(format, args...))
}

// in is the tensor index of input k, or -1 when absent.
func (c *opCtx) in(k int) int {
	if k >= len(c.op.inputs) {
		return -1
	}
	return c.op.inputs[k]
}

// need is the tensor index of required input k.
func (c *opCtx) need(k int) (int, error) {
	i := c.in(k)
	if i < 0 {
		return 0, c.errf("input %d is required", k)
	}
	return i, nil
}

func (c *opCtx) out(k int) int { return c.op.outputs[k] }
