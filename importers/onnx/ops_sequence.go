package onnximport

import (
	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/onnxtensor"
	"github.com/modelbridge/modelbridge/internal/optable"
)

// The sequence ops (opset 11; SequenceMap 17). Later versions only admit
// more element types.
func init() {
	optable.Add(&ops, map[string]opEntry{
		"SequenceConstruct":  {convSequenceConstruct, 11, []string{"SequenceConstruct"}},
		"SequenceEmpty":      {convSequenceEmpty, 11, []string{"SequenceEmpty"}},
		"SequenceAt":         {convSequenceAt, 11, []string{"SequenceAt"}},
		"SequenceInsert":     {convSequenceInsert, 11, []string{"SequenceInsert"}},
		"SequenceErase":      {convSequenceErase, 11, []string{"SequenceErase"}},
		"SequenceLength":     {convSequenceLength, 11, []string{"SequenceLength"}},
		"SplitToSequence":    {convSplitToSequence, 11, []string{"SplitToSequence"}},
		"ConcatFromSequence": {convConcatFromSequence, 11, []string{"ConcatFromSequence"}},
		"SequenceMap":        {convSequenceMap, 17, []string{"SequenceMap"}},
	})
}

// inputs lists the node's inputs from first on (absent ones as "").
func (c *nodeCtx) inputsFrom(first int) []string {
	var out []string
	for i := first; i < len(c.n.Input); i++ {
		out = append(out, c.in(i))
	}
	return out
}

func convSequenceConstruct(c *nodeCtx) error {
	if len(c.n.Input) == 0 {
		return c.errf("needs at least one input (SequenceEmpty makes an empty sequence)")
	}
	return c.emit(&canon.SequenceConstruct{}, c.inputsFrom(0), c.out1())
}

func convSequenceEmpty(c *nodeCtx) error {
	dt := canon.Float32
	if c.has("dtype") {
		d, err := onnxtensor.DType(int32(c.int("dtype", 1)))
		if err != nil {
			return c.errf("dtype: %v", err)
		}
		dt = d
	}
	return c.emit(&canon.SequenceEmpty{DType: dt}, nil, c.out1())
}

func convSequenceAt(c *nodeCtx) error {
	return c.emit(&canon.SequenceAt{}, c.inputsFrom(0), c.out1())
}

func convSequenceInsert(c *nodeCtx) error {
	return c.emit(&canon.SequenceInsert{}, c.inputsFrom(0), c.out1())
}

func convSequenceErase(c *nodeCtx) error {
	return c.emit(&canon.SequenceErase{}, c.inputsFrom(0), c.out1())
}

func convSequenceLength(c *nodeCtx) error {
	return c.emit(&canon.SequenceLength{}, c.inputsFrom(0), c.out1())
}

func convSplitToSequence(c *nodeCtx) error {
	op := &canon.SplitToSequence{Axis: c.int("axis", 0), KeepDims: c.int("keepdims", 1) != 0}
	return c.emit(op, c.inputsFrom(0), c.out1())
}

func convConcatFromSequence(c *nodeCtx) error {
	if !c.has("axis") {
		return c.errf("needs its axis attribute")
	}
	op := &canon.ConcatFromSequence{Axis: c.int("axis", 0), NewAxis: c.int("new_axis", 0) != 0}
	return c.emit(op, c.inputsFrom(0), c.out1())
}

func convSequenceMap(c *nodeCtx) error {
	gp := c.graphAttr("body")
	if c.err != nil {
		return c.err
	}
	formal := make([]canon.ValueInfo, len(c.n.Input))
	for i := range formal {
		formal[i] = c.info(i).TensorType() // a sequence's tensors, or the tensor
	}
	body, caps, err := c.subgraph("body", gp, formal)
	if err != nil {
		return err
	}
	if len(body.Inputs) != len(c.n.Input) {
		return c.errf("the body takes %d inputs; the node has %d", len(body.Inputs), len(c.n.Input))
	}
	op := &canon.SequenceMap{Body: body, Captures: caps}
	return c.emit(op, append(c.inputsFrom(0), caps...), c.n.Output)
}
