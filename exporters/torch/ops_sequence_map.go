package torchexport

import (
	"fmt"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
)

func init() {
	optable.Add(&opWriters, map[string]opWriter{
		"SequenceMap": {write: writeSequenceMap,
			detail: "Python for over the first list's positions, the body's nodes written inside it; further lists are read at the same position (their lengths checked), tensors passed whole; each body output appended to a list"},
	})
}

func writeSequenceMap(gen *generator, n *canon.Node) error {
	op := n.Op.(*canon.SequenceMap)
	scopes, err := gen.scopes()
	if err != nil {
		return err
	}
	body := scopes[0].Graph
	first, err := gen.in(0)
	if err != nil {
		return err
	}
	length := gen.vars.claim("length")
	pos := gen.vars.claim("pos")
	pre := []string{fmt.Sprintf("%s = len(%s)", length, first)}
	var head []string
	bind := make([]string, op.Mapped())
	for i := range bind {
		e, err := gen.in(i)
		if err != nil {
			return err
		}
		if gen.g.Values.Get(n.Inputs[i]).Kind != canon.SequenceValue {
			bind[i] = e // a tensor: every position reads it whole
			continue
		}
		if i > 0 {
			pre = append(pre, fmt.Sprintf("if len(%s) != %s:", e, length),
				fmt.Sprintf("    raise ValueError(%s %% (len(%s), %s))", pyString(fmt.Sprintf("SequenceMap %s: input %d has %%d tensors, the first sequence %%d", n.Name, i)), e, length))
		}
		bind[i] = gen.vars.claim(localName(body.Inputs[i].Name, "item"))
		head = append(head, fmt.Sprintf("%s = %s[%s]", bind[i], e, pos))
	}
	code, err := gen.writeSubgraph(scopes[0].Attr, body, bind)
	if err != nil {
		return err
	}
	lines := append(head, code.lines...)
	for j := range body.Outputs {
		list := gen.outVar(j, body.Outputs[j].Name+"_list")
		pre = append(pre, list+" = []")
		lines = append(lines, list+".append("+code.outs[j]+")")
	}
	gen.forward = append(gen.forward, pre...)
	gen.forward = append(gen.forward, fmt.Sprintf("for %s in range(%s):", pos, length))
	gen.forward = append(gen.forward, indent(lines)...)
	return nil
}
