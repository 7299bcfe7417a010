package pt2

import (
	"fmt"
	"sort"
	"strings"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/importers/torch/torchscript"
)

// torch.export's higher-order operators carry control flow: their
// branches and bodies are graphs of their own (GraphArgument), whose
// inputs are the operator's operands; the program passes every tensor a
// branch or body reads as an operand, parameters included, and every size
// it reads. Each becomes a canonical If, Loop or Scan whose subgraph reads
// outer values as explicit captures.

// higherOrderPrefix starts the target of every higher-order operator.
const higherOrderPrefix = "torch.ops.higher_order."

// maxSubgraphDepth bounds how deep subgraphs nest (a hostile file could
// nest them without end).
const maxSubgraphDepth = 16

// higherOrderArgs are the operators read, with their arguments in order.
var higherOrderArgs = map[string][]string{
	"cond":       {"pred", "true_fn", "false_fn", "operands"},
	"while_loop": {"cond_fn", "body_fn", "carried_inputs", "additional_inputs"},
	"map_impl":   {"f", "xs", "pos_args"},
}

// runHigherOrder emits higher-order operator op (the target after
// torch.ops.higher_order.).
func (im *importer) runHigherOrder(n *node, op string) error {
	want, ok := higherOrderArgs[op]
	if !ok {
		known := make([]string, 0, len(higherOrderArgs))
		for k := range higherOrderArgs {
			known = append(known, k)
		}
		sort.Strings(known)
		return &UnsupportedOpError{Op: n.Target, Reason: fmt.Sprintf("of the higher-order operators only %s are read; export the model to ONNX", strings.Join(known, ", "))}
	}
	if len(n.Inputs) != len(want) {
		return fmt.Errorf("%s takes %d arguments (%s), the node passes %d", op, len(want), strings.Join(want, ", "), len(n.Inputs))
	}
	args := make([]*argument, len(n.Inputs))
	for i := range n.Inputs {
		// PyTorch writes the arguments of a higher-order operator by
		// position, unnamed.
		if name := n.Inputs[i].Name; name != "" && name != want[i] {
			return fmt.Errorf("argument %d of %s is named %q; want %s", i, op, name, want[i])
		}
		args[i] = &n.Inputs[i].Arg
	}
	scope := scopeOf(n.Metadata)
	switch op {
	case "cond":
		return im.runCond(n, scope, args)
	case "while_loop":
		return im.runWhileLoop(n, scope, args)
	}
	return im.runMap(n, scope, args)
}

// runCond reads torch.cond(pred, true_fn, false_fn, operands): an If on a
// run-time predicate (a tensor of one element, or a comparison of sizes);
// a predicate known at import picks its branch outright.
func (im *importer) runCond(n *node, scope string, args []*argument) error {
	trueFn, err := graphOf(args[1], "true_fn")
	if err != nil {
		return err
	}
	falseFn, err := graphOf(args[2], "false_fn")
	if err != nil {
		return err
	}
	operands, err := im.operandList(args[3], "operands")
	if err != nil {
		return err
	}
	var pred any
	switch a := args[0]; {
	case a.AsTensor != nil:
		if pred, err = im.tensor(a.AsTensor.Name); err != nil {
			return fmt.Errorf("pred: %w", err)
		}
	case a.AsSymBool != nil:
		if pred, err = im.symBool(a.AsSymBool); err != nil {
			return fmt.Errorf("pred: %w", err)
		}
	case a.AsBool != nil:
		pred = *a.AsBool
	default:
		return fmt.Errorf("pred is %s; want a bool tensor or a symbolic bool", describeArg(a))
	}
	var res []*torchscript.Tensor
	switch p := pred.(type) {
	case bool:
		chosen := falseFn
		if p {
			chosen = trueFn
		}
		im.notes = append(im.notes, fmt.Sprintf("cond %s: the predicate is %v at import; only %s is imported", describeOutputs(n.Outputs), p, chosen.Name))
		res, err = im.runGraph(chosen, operands)
	case *torchscript.Tensor:
		branch := func(ga *graphArgument) torchscript.SubgraphFn {
			return func([]*torchscript.Tensor) ([]*torchscript.Tensor, error) { return im.runGraph(ga, operands) }
		}
		res, err = im.prog.If(scope, p, branch(trueFn), branch(falseFn))
	default:
		return fmt.Errorf("pred is a %T", pred)
	}
	if err != nil {
		return err
	}
	return im.bindResults(n, res)
}

// runWhileLoop reads torch.while_loop(cond_fn, body_fn, carried_inputs,
// additional_inputs): both functions take the carried tensors then the
// additional ones; the loop runs while cond_fn holds.
func (im *importer) runWhileLoop(n *node, scope string, args []*argument) error {
	condFn, err := graphOf(args[0], "cond_fn")
	if err != nil {
		return err
	}
	bodyFn, err := graphOf(args[1], "body_fn")
	if err != nil {
		return err
	}
	carriedArgs, err := im.operandList(args[2], "carried_inputs")
	if err != nil {
		return err
	}
	carried, err := tensorsOnly(carriedArgs, "carried_inputs")
	if err != nil {
		return err
	}
	extra, err := im.operandList(args[3], "additional_inputs")
	if err != nil {
		return err
	}
	withExtra := func(c []*torchscript.Tensor) []any {
		out := make([]any, 0, len(c)+len(extra))
		for _, t := range c {
			out = append(out, t)
		}
		return append(out, extra...)
	}
	cond := func(c []*torchscript.Tensor) (*torchscript.Tensor, error) {
		outs, err := im.runGraph(condFn, withExtra(c))
		if err != nil {
			return nil, err
		}
		if len(outs) != 1 {
			return nil, fmt.Errorf("%s returns %d values; want one bool tensor", condFn.Name, len(outs))
		}
		return outs[0], nil
	}
	body := func(c []*torchscript.Tensor) ([]*torchscript.Tensor, error) { return im.runGraph(bodyFn, withExtra(c)) }
	res, err := im.prog.WhileLoop(scope, carried, cond, body)
	if err != nil {
		return err
	}
	return im.bindResults(n, res)
}

// runMap reads map_impl(f, xs, pos_args), torch._higher_order_ops.map:
// f runs on each slice of xs along their leading axis, with pos_args
// after the slices; its results are stacked.
func (im *importer) runMap(n *node, scope string, args []*argument) error {
	f, err := graphOf(args[0], "f")
	if err != nil {
		return err
	}
	xsArgs, err := im.operandList(args[1], "xs")
	if err != nil {
		return err
	}
	xs, err := tensorsOnly(xsArgs, "xs")
	if err != nil {
		return err
	}
	pos, err := im.operandList(args[2], "pos_args")
	if err != nil {
		return err
	}
	body := func(slices []*torchscript.Tensor) ([]*torchscript.Tensor, error) {
		in := make([]any, 0, len(slices)+len(pos))
		for _, t := range slices {
			in = append(in, t)
		}
		return im.runGraph(f, append(in, pos...))
	}
	res, err := im.prog.Map(scope, xs, body)
	if err != nil {
		return err
	}
	return im.bindResults(n, res)
}

// graphOf is a subgraph argument.
func graphOf(a *argument, what string) (*graphArgument, error) {
	if a.AsGraph == nil {
		return nil, fmt.Errorf("%s is %s; want a subgraph", what, describeArg(a))
	}
	if a.AsGraph.Graph == nil {
		return nil, fmt.Errorf("%s (%s) has no graph", what, a.AsGraph.Name)
	}
	return a.AsGraph, nil
}

// operandList is a list of operands: tensors, and sizes (symbolic ints,
// which PyTorch lists among the tensors by name when a branch or body reads
// a size). An empty list may be written as any empty list.
func (im *importer) operandList(a *argument, what string) ([]any, error) {
	switch {
	case a.AsTensors != nil:
		out := make([]any, len(a.AsTensors))
		for i, ta := range a.AsTensors {
			if v, ok := im.syms[ta.Name]; ok {
				out[i] = v
				continue
			}
			t, err := im.tensor(ta.Name)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", what, err)
			}
			out[i] = t
		}
		return out, nil
	case a.AsSymInts != nil:
		out := make([]any, len(a.AsSymInts))
		for i := range a.AsSymInts {
			v, err := im.symInt(&a.AsSymInts[i])
			if err != nil {
				return nil, fmt.Errorf("%s: %w", what, err)
			}
			out[i] = v
		}
		return out, nil
	case a.AsInts != nil:
		out := make([]any, len(a.AsInts))
		for i, v := range a.AsInts {
			out[i] = v
		}
		return out, nil
	case isEmptyList(a):
		return nil, nil
	}
	return nil, fmt.Errorf("%s is %s; only tensors and sizes are supported as operands", what, describeArg(a))
}

// tensorsOnly is vals, which must all be tensors.
func tensorsOnly(vals []any, what string) ([]*torchscript.Tensor, error) {
	out := make([]*torchscript.Tensor, len(vals))
	for i, v := range vals {
		t, ok := v.(*torchscript.Tensor)
		if !ok {
			return nil, fmt.Errorf("%s: item %d is a size, not a tensor; only tensors are supported there", what, i)
		}
		out[i] = t
	}
	return out, nil
}

func isEmptyList(a *argument) bool {
	return a.AsFloats != nil && len(a.AsFloats) == 0 ||
		a.AsBools != nil && len(a.AsBools) == 0 || a.AsStrings != nil && len(a.AsStrings) == 0 ||
		a.AsOptionalTensors != nil && len(a.AsOptionalTensors) == 0
}

// runGraph replays subgraph ga on args in the graph being built (the
// Program's current subgraph): its inputs take args in order, its nodes
// run in a scope of their own, and its outputs are returned.
func (im *importer) runGraph(ga *graphArgument, args []any) ([]*torchscript.Tensor, error) {
	if im.depth+1 > maxSubgraphDepth {
		return nil, fmt.Errorf("subgraph %s nests deeper than %d levels", ga.Name, maxSubgraphDepth)
	}
	gr := ga.Graph
	sub := &importer{
		path:    fmt.Sprintf("subgraph %s", ga.Name),
		ep:      im.ep,
		gr:      gr,
		weights: im.weights,
		prog:    im.prog,
		tensors: map[string]*torchscript.Tensor{},
		syms:    map[string]any{},
		lazy:    map[string]*canon.Tensor{},
		consts:  im.consts,
		depth:   im.depth + 1,
	}
	if len(gr.Inputs) != len(args) {
		return nil, fmt.Errorf("%s: takes %d inputs, the operator passes %d", sub.path, len(gr.Inputs), len(args))
	}
	for i, in := range gr.Inputs {
		if err := sub.bindInput(&in, args[i]); err != nil {
			return nil, fmt.Errorf("%s: input %d: %w", sub.path, i, err)
		}
	}
	for i := range gr.Nodes {
		if err := sub.runNode(&gr.Nodes[i], i); err != nil {
			return nil, err
		}
	}
	im.notes = append(im.notes, sub.notes...)
	im.skippedAsserts += sub.skippedAsserts
	outs := make([]*torchscript.Tensor, len(gr.Outputs))
	for i, o := range gr.Outputs {
		if o.AsTensor == nil {
			return nil, fmt.Errorf("%s: output %d is %s; only tensor results are supported", sub.path, i, describeArg(&o))
		}
		t, err := sub.tensor(o.AsTensor.Name)
		if err != nil {
			return nil, fmt.Errorf("%s: output %d: %w", sub.path, i, err)
		}
		outs[i] = t
	}
	return outs, nil
}

// bindInput binds a subgraph input to the operand passed for it: a tensor,
// or a size.
func (im *importer) bindInput(in *argument, v any) error {
	t, isTensor := v.(*torchscript.Tensor)
	switch {
	case in.AsTensor != nil && isTensor:
		return im.defineTensor(in.AsTensor.Name, t)
	case in.AsTensor != nil:
		return fmt.Errorf("%s is a tensor, the operator passes a size", in.AsTensor.Name)
	case in.AsSymInt != nil && in.AsSymInt.AsName != nil && !isTensor:
		return im.defineSym(*in.AsSymInt.AsName, v)
	case in.AsSymInt != nil:
		return fmt.Errorf("a size is expected, the operator passes a tensor")
	}
	return fmt.Errorf("%s; only tensors and sizes are supported", describeArg(in))
}

// bindResults names a higher-order operator's results after the node's
// outputs: one tensor each, or (as some PyTorch versions write a single
// result) one list of tensors.
func (im *importer) bindResults(n *node, res []*torchscript.Tensor) error {
	var names []string
	if len(n.Outputs) == 1 && n.Outputs[0].AsTensors != nil {
		for _, ta := range n.Outputs[0].AsTensors {
			names = append(names, ta.Name)
		}
	} else {
		for i := range n.Outputs {
			o := &n.Outputs[i]
			if o.AsTensor == nil {
				return fmt.Errorf("output %d is %s; only tensor results are supported", i, describeArg(o))
			}
			names = append(names, o.AsTensor.Name)
		}
	}
	if len(names) != len(res) {
		return fmt.Errorf("the program expects %d results, the operator computes %d", len(names), len(res))
	}
	im.target = n.Target
	for i, name := range names {
		if err := im.defineTensor(name, res[i]); err != nil {
			return err
		}
	}
	return nil
}
