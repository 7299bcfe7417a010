package canon

import (
	"fmt"
	"strings"
)

// Extract cuts from g the subgraph that computes outputs from inputs, as
// onnx.utils.extract_model does: the nodes on a path from the inputs to the
// outputs, and the weights they read. g must have been inferred (g.Values);
// the cut shares g's tensor data, so g must stay open while it is used.
func Extract(g *Graph, inputs, outputs []string) (*Graph, error) {
	if len(outputs) == 0 {
		return nil, fmt.Errorf("no outputs to extract")
	}
	producers := g.Producers()
	inits := g.InitializerIndex()
	known := func(name string) bool {
		_, ok := g.Values.Lookup(name)
		return ok
	}
	isInput := map[string]bool{}
	for _, name := range inputs {
		if !known(name) {
			return nil, fmt.Errorf("input %q is not a value of the model%s", name, nearestValues(g, name))
		}
		if inits[name] != nil && producers[name] == nil && !graphInput(g, name) {
			return nil, fmt.Errorf("input %q is a weight; list values computed by the model or fed to it", name)
		}
		isInput[name] = true
	}
	keep := map[*Node]bool{}
	usedInits := map[string]bool{}
	visited := map[string]bool{}
	var walk func(name, neededBy string) error
	walk = func(name, neededBy string) error {
		if name == "" || visited[name] || isInput[name] {
			return nil
		}
		visited[name] = true
		if n := producers[name]; n != nil {
			keep[n] = true
			for _, in := range n.Inputs {
				if err := walk(in, n.Name); err != nil {
					return err
				}
			}
			return nil
		}
		if inits[name] != nil && !graphInput(g, name) {
			usedInits[name] = true
			return nil
		}
		return fmt.Errorf("node %q reads the model input %q, which is not among the cut's inputs (%s); add it to them, or cut later in the graph",
			neededBy, name, strings.Join(inputs, ","))
	}
	for _, name := range outputs {
		if !known(name) {
			return nil, fmt.Errorf("output %q is not a value of the model%s", name, nearestValues(g, name))
		}
		if err := walk(name, "(output)"); err != nil {
			return nil, err
		}
	}
	cut := &Graph{Name: g.Name, Meta: g.Meta}
	cut.Meta.Notes = nil
	for _, name := range inputs {
		v := g.Values.Get(name)
		v.Const = nil
		v.Shape = cloneDims(v.Shape)
		cut.Inputs = append(cut.Inputs, v)
	}
	for _, name := range outputs {
		v := g.Values.Get(name)
		v.Const = nil
		v.Shape = cloneDims(v.Shape)
		cut.Outputs = append(cut.Outputs, v)
	}
	for _, n := range g.Nodes {
		if keep[n] {
			cut.Nodes = append(cut.Nodes, n)
		}
	}
	for _, t := range g.Initializers {
		if usedInits[t.Name] {
			cut.Initializers = append(cut.Initializers, t)
		}
	}
	if err := cut.Validate(); err != nil {
		return nil, fmt.Errorf("the cut graph is not valid: %w", err)
	}
	return cut, nil
}

func graphInput(g *Graph, name string) bool {
	for _, v := range g.Inputs {
		if v.Name == name {
			return true
		}
	}
	return false
}

// nearestValues names a few values whose names contain the missing one, to
// help with a typo.
func nearestValues(g *Graph, name string) string {
	var hits []string
	low := strings.ToLower(name)
	for _, n := range g.Nodes {
		for _, o := range n.Outputs {
			if o != "" && len(hits) < 5 && (strings.Contains(strings.ToLower(o), low) || strings.Contains(low, strings.ToLower(o))) {
				hits = append(hits, o)
			}
		}
	}
	if len(hits) == 0 {
		return " (`modelbridge inspect` lists the graph's values)"
	}
	return " (similar: " + strings.Join(hits, ", ") + ")"
}
