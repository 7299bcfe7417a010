package torchexport

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
)

// Sequences are Python lists of tensors and optionals are a value or None
// in model.py. Positions are checked as ONNX checks them (Python's slices
// would clamp an out-of-range one instead of failing).

func init() {
	optable.Add(&opWriters, map[string]opWriter{
		"SequenceConstruct": {write: writeSequenceConstruct, detail: "a Python list"},
		"SequenceEmpty":     {write: func(gen *generator, _ *canon.Node) error { gen.assign("[]"); return nil }, detail: "an empty Python list"},
		"SequenceAt":        {write: writeSequenceAt, detail: "list indexing at a checked position"},
		"SequenceInsert":    {write: writeSequenceInsert, detail: "a new list with the tensor spliced in at a checked position"},
		"SequenceErase":     {write: writeSequenceErase, detail: "a new list without the tensor at a checked position"},
		"SequenceLength":    {write: writeSequenceLength, detail: "torch.tensor(len(list))"},
		"SplitToSequence":   {write: writeSplitToSequence, detail: "list(torch.split) or list(torch.unbind)"},
		"ConcatFromSequence": {write: writeConcatFromSequence,
			detail: "torch.cat, or torch.stack for a new axis"},
		"Optional": {write: writeOptional, detail: "the value itself, or None for an empty optional"},
		"OptionalHasElement": {write: writeOptionalHasElement,
			detail: "torch.tensor(value is not None)"},
		"OptionalGetElement": {write: writeOptionalGetElement,
			detail: "the value, failing on None as ONNX does on an empty optional"},
	})
}

// seqPosition is the checked list index of position input i for a list
// of length n ("len(s)"): in [-n, n-1], or [-n, n] when inserting.
func (gen *generator) seqPosition(i int, n string, inserting bool) (string, error) {
	p, err := gen.in(i)
	if err != nil {
		return "", err
	}
	hi := "n - 1"
	if inserting {
		hi = "n"
	}
	check := gen.localFn("position", "p, n", []string{
		"p = int(p)",
		"if p < -n or p > " + hi + ":",
		"    raise IndexError(\"position %d is outside the sequence of %d tensors\" % (p, n))",
		"return p + n if p < 0 else p",
	})
	return gen.genTemp("pos", fmt.Sprintf("%s(%s, %s)", check, p, n)), nil
}

func writeSequenceConstruct(gen *generator, n *canon.Node) error {
	items := make([]string, len(n.Inputs))
	for i := range n.Inputs {
		e, err := gen.in(i)
		if err != nil {
			return err
		}
		items[i] = e
	}
	gen.assign("[" + strings.Join(items, ", ") + "]")
	return nil
}

func writeSequenceAt(gen *generator, n *canon.Node) error {
	s, err := gen.in(0)
	if err != nil {
		return err
	}
	p, err := gen.seqPosition(1, "len("+s+")", false)
	if err != nil {
		return err
	}
	gen.assign(s + "[" + p + "]")
	return nil
}

func writeSequenceInsert(gen *generator, n *canon.Node) error {
	s, err := gen.in(0)
	if err != nil {
		return err
	}
	t, err := gen.in(1)
	if err != nil {
		return err
	}
	if len(n.Inputs) < 3 || n.Inputs[2] == "" {
		gen.assign(s + " + [" + t + "]")
		return nil
	}
	p, err := gen.seqPosition(2, "len("+s+")", true)
	if err != nil {
		return err
	}
	gen.assign(fmt.Sprintf("%s[:%s] + [%s] + %s[%s:]", s, p, t, s, p))
	return nil
}

func writeSequenceErase(gen *generator, n *canon.Node) error {
	s, err := gen.in(0)
	if err != nil {
		return err
	}
	p := "len(" + s + ") - 1"
	if len(n.Inputs) > 1 && n.Inputs[1] != "" {
		if p, err = gen.seqPosition(1, "len("+s+")", false); err != nil {
			return err
		}
	} else {
		p = gen.genTemp("pos", p)
		gen.forward = append(gen.forward, "if "+p+" < 0:", "    raise IndexError(\"the sequence is empty: there is no tensor to erase\")")
	}
	gen.assign(fmt.Sprintf("%s[:%s] + %s[%s + 1:]", s, p, s, p))
	return nil
}

func writeSequenceLength(gen *generator, _ *canon.Node) error {
	return gen.call("torch.tensor(len(%s), dtype=torch.int64)", 0)
}

func writeSplitToSequence(gen *generator, n *canon.Node) error {
	op := n.Op.(*canon.SplitToSequence)
	x, err := gen.in(0)
	if err != nil {
		return err
	}
	dim := strconv.FormatInt(op.Axis, 10)
	if len(n.Inputs) < 2 || n.Inputs[1] == "" {
		if op.KeepDims {
			gen.assign(fmt.Sprintf("list(torch.split(%s, 1, dim=%s))", x, dim))
		} else {
			gen.assign(fmt.Sprintf("list(torch.unbind(%s, dim=%s))", x, dim))
		}
		return nil
	}
	// torch.split takes a piece length (the last piece shorter) or a
	// list of lengths, as ONNX's scalar and 1-D split do.
	sizes := ""
	if v, ok := gen.constInts(1); ok {
		if gen.rankOf(n.Inputs[1]) == 0 {
			if v[0] <= 0 {
				return gen.fail("split %d must be positive", v[0])
			}
			sizes = strconv.FormatInt(v[0], 10)
		} else {
			sizes = pyInts(v, false)
		}
	} else {
		s, err := gen.in(1)
		if err != nil {
			return err
		}
		switch gen.rankOf(n.Inputs[1]) {
		case 0:
			sizes = "int(" + s + ")"
		case 1:
			sizes = s + ".tolist()"
		default:
			return gen.fail("the rank of split %q is unknown: a piece length and a list of lengths are written differently", n.Inputs[1])
		}
	}
	gen.assign(fmt.Sprintf("list(torch.split(%s, %s, dim=%s))", x, sizes, dim))
	return nil
}

func writeConcatFromSequence(gen *generator, n *canon.Node) error {
	op := n.Op.(*canon.ConcatFromSequence)
	f := "torch.cat"
	if op.NewAxis {
		f = "torch.stack"
	}
	return gen.call(f+"(%s, dim="+strconv.FormatInt(op.Axis, 10)+")", 0)
}

func writeOptional(gen *generator, n *canon.Node) error {
	if len(n.Inputs) == 0 || n.Inputs[0] == "" {
		gen.assign("None")
		return nil
	}
	return gen.alias()
}

func writeOptionalHasElement(gen *generator, n *canon.Node) error {
	if len(n.Inputs) == 0 || n.Inputs[0] == "" {
		gen.assign("torch.tensor(False)")
		return nil
	}
	return gen.call("torch.tensor(%s is not None)", 0)
}

func writeOptionalGetElement(gen *generator, _ *canon.Node) error {
	x, err := gen.in(0)
	if err != nil {
		return err
	}
	gen.forward = append(gen.forward, "if "+x+" is None:", "    raise ValueError(\"the optional is empty\")")
	return gen.alias()
}
