package onnximport

import (
	"github.com/modelbridge/modelbridge/canon"
)

// Scan-8 runs its body over a batch: every state input is (batch, ...),
// every scan input (batch, sequence, ...), and the body sees one batch
// element's values. It is read as its exact expansion: a Loop over the
// batch whose body picks element b of each input (Gather) and runs a
// Scan-9 over that element's sequences; the Loop stacks each result along
// a new first axis, which is the batch axis of Scan-8's outputs.
func convScan8(c *nodeCtx) error {
	gp := c.graphAttr("body")
	if !c.has("num_scan_inputs") {
		c.fail("needs its num_scan_inputs attribute")
	}
	m := c.int("num_scan_inputs", 0)
	directions := c.ints("directions")
	if c.err != nil {
		return c.err
	}
	if len(c.n.Input) < 2 {
		return c.errf("Scan-8 takes sequence_lens, then the states and scan inputs; it has %d inputs", len(c.n.Input))
	}
	if c.in(0) != "" {
		return c.errf("sequence_lens is given: Scan-8 with per-element sequence lengths is not read; upgrade the model to opset 9 or newer with onnx.version_converter")
	}
	rest := c.n.Input[1:]
	if m < 1 || int(m) > len(rest) {
		return c.errf("num_scan_inputs %d must be between 1 and the node's %d state and scan inputs", m, len(rest))
	}
	formal := make([]canon.ValueInfo, len(rest))
	for i, name := range rest {
		if name == "" {
			return c.errf("input %d is empty", i+1)
		}
		formal[i] = canon.ValueInfo{DType: c.im.vals.Get(name).DType}
	}
	body, bodyCaps, err := c.subgraph("body", gp, formal)
	if err != nil {
		return err
	}
	batch, err := c.batchCount(rest[0])
	if err != nil {
		return err
	}

	fresh := func(what string) string { return c.im.fresh(c.name + "/" + what) }
	iter, cond := fresh("batch_index"), fresh("cond")
	loopBody := &canon.Graph{Name: c.name + "_batch",
		Inputs: []canon.ValueInfo{{Name: iter, DType: canon.Int64, RankKnown: true}, {Name: cond, DType: canon.Bool, RankKnown: true}}}
	var picked []string
	for _, name := range rest {
		p := fresh("element")
		loopBody.Nodes = append(loopBody.Nodes, &canon.Node{Name: p, Op: &canon.Gather{Axis: 0}, Inputs: []string{name, iter}, Outputs: []string{p}})
		picked = append(picked, p)
	}
	var scanOuts []string
	for range body.Outputs {
		scanOuts = append(scanOuts, fresh("result"))
	}
	scan := &canon.Scan{Body: body, NumScanInputs: m, InputDirections: directions, Captures: bodyCaps}
	loopBody.Nodes = append(loopBody.Nodes, &canon.Node{Name: fresh("scan"), Op: scan, Inputs: append(picked, bodyCaps...), Outputs: scanOuts})
	condOut := fresh("cond_out")
	loopBody.Nodes = append(loopBody.Nodes, &canon.Node{Name: condOut, Op: &canon.Identity{}, Inputs: []string{cond}, Outputs: []string{condOut}})
	loopBody.Outputs = append(loopBody.Outputs, canon.ValueInfo{Name: condOut})
	for _, o := range scanOuts {
		loopBody.Outputs = append(loopBody.Outputs, canon.ValueInfo{Name: o})
	}
	caps := union(rest, bodyCaps)
	return c.emit(&canon.Loop{Body: loopBody, Captures: caps}, append([]string{batch, ""}, caps...), c.n.Output)
}

// batchCount is a scalar int64 value holding the length of x's first axis:
// a constant when the shape is known, Shape and Squeeze otherwise.
func (c *nodeCtx) batchCount(x string) (string, error) {
	v := c.im.vals.Get(x)
	if v.RankKnown && len(v.Shape) > 0 && v.Shape[0].Known() {
		return c.emitAux("batch", &canon.Constant{Value: canon.NewInt64Tensor("", []int64{}, []int64{v.Shape[0].Size})})
	}
	dims, err := c.emitAux("batch_dims", &canon.ShapeOf{Start: 0, End: 1}, x)
	if err != nil {
		return "", err
	}
	return c.emitAux("batch", &canon.Squeeze{Axes: []int64{0}}, dims)
}
