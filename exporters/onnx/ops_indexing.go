package onnxexport

import (
	"encoding/binary"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/onnxpb"
	"github.com/modelbridge/modelbridge/internal/optable"
)

// The indexing family: GatherElements, GatherND, ScatterElements,
// ScatterND, OneHot, Compress, Trilu.

func init() {
	optable.Add(&exports, map[string]exportEntry{
		"GatherElements": {onnx: "GatherElements", native: 11, write: func(b *builder, n *canon.Node) error {
			b.emit(n.Name, "GatherElements", n.Inputs, n.Outputs, attrInt("axis", n.Op.(*canon.GatherElements).Axis))
			return nil
		}},
		"GatherND": {onnx: "GatherND", native: 12, write: writeGatherND,
			below: "GatherND-11 with the batch coordinates prepended to a constant-shaped index tensor"},
		"ScatterElements": {onnx: "ScatterElements", native: 11, write: writeScatterElements},
		"ScatterND":       {onnx: "ScatterND", native: 11, write: writeScatterND},
		"OneHot":          {onnx: "OneHot", native: 11, write: writeOneHot},
		"Compress": {onnx: "Compress", native: 11, write: func(b *builder, n *canon.Node) error {
			op := n.Op.(*canon.Compress)
			if op.Flatten {
				b.emit(n.Name, "Compress", n.Inputs, n.Outputs)
			} else {
				b.emit(n.Name, "Compress", n.Inputs, n.Outputs, attrInt("axis", op.Axis))
			}
			return nil
		}},
		"Trilu": {onnx: "Trilu", native: 14, write: writeTrilu,
			below: "Where with a constant mask (static matrix shape, constant k)"},
	})
}

func writeGatherND(b *builder, n *canon.Node) error {
	op := n.Op.(*canon.GatherND)
	if b.opset >= 12 {
		b.emit(n.Name, "GatherND", n.Inputs, n.Outputs, attrInt("batch_dims", op.BatchDims))
		return nil
	}
	if op.BatchDims == 0 {
		b.emit(n.Name, "GatherND", n.Inputs, n.Outputs)
		return nil
	}
	// GatherND-11 has no batch_dims: prepend each entry's batch coordinates
	// to its index tuple, which gives the same output shape and values.
	idx := n.Inputs[1]
	shape, ok := b.types.Get(idx).StaticShape()
	dt := b.dtype(idx)
	if !ok || (dt != canon.Int64 && dt != canon.Int32) {
		return b.needOpset(n, "GatherND with batch_dims and an index tensor of unknown shape", 12)
	}
	bd := int(op.BatchDims)
	lead := shape[:len(shape)-1]
	count := canon.NumElements(lead)
	grid := make([]int64, 0, count*int64(bd))
	coord := make([]int64, len(lead))
	for range count {
		grid = append(grid, coord[:bd]...)
		for a := len(coord) - 1; a >= 0; a-- {
			coord[a]++
			if coord[a] < lead[a] {
				break
			}
			coord[a] = 0
		}
	}
	g := intTensor(dt, append(append([]int64{}, lead...), int64(bd)), grid)
	full := b.unique(prefix(n) + "_batch_indices")
	b.emit(b.unique(prefix(n)+"_batch_concat"), "Concat", []string{b.param(n, "batch_grid", g), idx}, []string{full}, attrInt("axis", -1))
	b.emit(n.Name, "GatherND", []string{n.Inputs[0], full}, n.Outputs)
	b.expanded = true
	return nil
}

// intTensor encodes v as an i32 or i64 tensor.
func intTensor(dt canon.DType, shape []int64, v []int64) *canon.Tensor {
	if dt == canon.Int64 {
		return canon.NewInt64Tensor("", shape, v)
	}
	data := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(data[4*i:], uint32(x))
	}
	return &canon.Tensor{DType: canon.Int32, Shape: shape, Data: data}
}

// reductionAttrs is a scatter's reduction attribute, or an error when the
// target opset does not define it (add and mul: 16, max and min: 18).
func (b *builder) reductionAttrs(n *canon.Node, r canon.ScatterReduction) (attrs []*onnxpb.AttributeProto, err error) {
	if r == canon.ScatterNone {
		return nil, nil
	}
	min := 16
	if r == canon.ScatterMax || r == canon.ScatterMin {
		min = 18
	}
	if b.opset < min {
		return nil, b.needOpset(n, n.Op.Kind()+" with reduction "+r.String(), min)
	}
	return []*onnxpb.AttributeProto{attrString("reduction", r.String())}, nil
}

func writeScatterElements(b *builder, n *canon.Node) error {
	op := n.Op.(*canon.ScatterElements)
	attrs, err := b.reductionAttrs(n, op.Reduction)
	if err != nil {
		return err
	}
	b.emit(n.Name, "ScatterElements", n.Inputs, n.Outputs, append(attrs, attrInt("axis", op.Axis))...)
	return nil
}

func writeScatterND(b *builder, n *canon.Node) error {
	attrs, err := b.reductionAttrs(n, n.Op.(*canon.ScatterND).Reduction)
	if err != nil {
		return err
	}
	b.emit(n.Name, "ScatterND", n.Inputs, n.Outputs, attrs...)
	return nil
}

func writeOneHot(b *builder, n *canon.Node) error {
	op := n.Op.(*canon.OneHot)
	idx := n.Inputs[0]
	switch b.dtype(idx) {
	case canon.Uint8, canon.Uint16, canon.Uint32, canon.Uint64:
	default:
		if !op.NegativeIndices {
			return b.opError(n, "OneHot reading negative indices as out of range (ONNX opset 9 and 10) cannot be written at opset %d, where they count from the end; re-import the model at opset 11 or newer, or use unsigned indices", b.opset)
		}
	}
	depth := in(n, 2)
	if depth == "" {
		depth = b.i64Param(n, "depth", []int64{op.Depth})
	}
	b.emit(n.Name, "OneHot", []string{idx, depth, n.Inputs[1]}, n.Outputs, attrInt("axis", op.Axis))
	return nil
}

func writeTrilu(b *builder, n *canon.Node) error {
	op := n.Op.(*canon.Trilu)
	if b.opset >= 14 {
		ins := []string{n.Inputs[0], in(n, 1)}
		if ins[1] == "" && op.K != 0 {
			ins[1] = b.param(n, "k", canon.NewInt64Tensor("", []int64{}, []int64{op.K}))
		}
		b.emit(n.Name, "Trilu", ins, n.Outputs, attrBool("upper", op.Upper))
		return nil
	}
	x := n.Inputs[0]
	shape, ok := b.types.Get(x).StaticShape()
	dt := b.dtype(x)
	if in(n, 1) != "" || !ok || len(shape) < 2 || dt == canon.Undefined {
		return b.needOpset(n, "Trilu with a run-time k or an input of unknown shape", 14)
	}
	if dt == canon.BFloat16 && b.opset < 16 {
		return b.needOpset(n, "Trilu on bf16 data (written with Where)", 16)
	}
	// canon's expansion: Where(constant triangle, x, 0).
	return b.writeExpansion(n)
}
