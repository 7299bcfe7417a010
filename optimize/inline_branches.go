package optimize

import "github.com/modelbridge/modelbridge/canon"

// inlineConstantBranches replaces an If whose condition is a constant by
// the nodes of the branch it always takes: the branch's values get fresh
// names, its captures become the outer values the node passed, and its
// outputs take the If's output names. Other passes then see those nodes.
func inlineConstantBranches(g *canon.Graph) (bool, error) {
	ix := newIndex(g)
	var nm *namer
	changed := false
	out := make([]*canon.Node, 0, len(g.Nodes))
	for _, n := range g.Nodes {
		op, ok := n.Op.(*canon.If)
		cond := (*canon.Tensor)(nil)
		if ok && len(n.Inputs) > 0 {
			cond = ix.constant(n.Inputs[0])
		}
		if cond == nil || cond.DType != canon.Bool || len(cond.Data) != 1 || op.Then == nil || op.Else == nil {
			out = append(out, n)
			continue
		}
		if nm == nil {
			nm = newNamer(g)
			addSubgraphNames(nm, g)
		}
		branch := op.Else
		if cond.Data[0] != 0 {
			branch = op.Then
		}
		out = append(out, inlineBranch(g, nm, n, branch)...)
		changed = true
	}
	g.Nodes = out
	return changed, nil
}

// inlineBranch returns the nodes that compute n's outputs from branch,
// adding the branch's initializers to g under fresh names.
func inlineBranch(g *canon.Graph, nm *namer, n *canon.Node, branch *canon.Graph) []*canon.Node {
	rename := map[string]string{}
	for i, c := range n.Op.(*canon.If).Captures {
		rename[c] = n.Inputs[1+i]
	}
	for _, t := range branch.Initializers {
		c := *t
		c.Name = nm.fresh(n.Name + "/" + t.Name)
		rename[t.Name] = c.Name
		g.Initializers = append(g.Initializers, &c)
	}
	// A value computed in the branch and listed once is written straight
	// under the If's output name.
	direct := directOutputs(branch)
	for k, o := range branch.Outputs {
		if k < len(n.Outputs) && n.Outputs[k] != "" && direct[o.Name] {
			rename[o.Name] = n.Outputs[k]
		}
	}
	nodes := copyNodes(nm, n.Name+"/", branch, rename)
	for k, o := range branch.Outputs {
		if k >= len(n.Outputs) || n.Outputs[k] == "" || rename[o.Name] == n.Outputs[k] {
			continue
		}
		nodes = append(nodes, &canon.Node{Name: nm.fresh(n.Name + "/" + n.Outputs[k]), Op: &canon.Identity{},
			Inputs: []string{rename[o.Name]}, Outputs: []string{n.Outputs[k]}})
	}
	return nodes
}

// directOutputs names the outputs of sub that its nodes compute and that
// it lists once: a copy of sub may write them under the names its owner's
// outputs have.
func directOutputs(sub *canon.Graph) map[string]bool {
	listed := map[string]int{}
	for _, o := range sub.Outputs {
		listed[o.Name]++
	}
	direct := map[string]bool{}
	for _, n := range sub.Nodes {
		for _, o := range n.Outputs {
			if o != "" && listed[o] == 1 {
				direct[o] = true
			}
		}
	}
	return direct
}

// copyNodes returns copies of sub's nodes named base+name, reading the
// values rename gives for sub's inputs, captures and initializers, and
// writing each value under the name rename gives or a fresh base+name,
// which it adds to rename.
func copyNodes(nm *namer, base string, sub *canon.Graph, rename map[string]string) []*canon.Node {
	nodes := make([]*canon.Node, 0, len(sub.Nodes))
	for _, sn := range sub.Nodes {
		nn := &canon.Node{Name: nm.fresh(base + sn.Name), Op: sn.Op}
		for _, in := range sn.Inputs {
			nn.Inputs = append(nn.Inputs, rename[in])
		}
		for _, o := range sn.Outputs {
			if o == "" {
				nn.Outputs = append(nn.Outputs, "")
				continue
			}
			if _, ok := rename[o]; !ok {
				rename[o] = nm.fresh(base + o)
			}
			nn.Outputs = append(nn.Outputs, rename[o])
		}
		nodes = append(nodes, nn)
	}
	return nodes
}

// addSubgraphNames marks every name used inside g's subgraphs, at any
// depth, so that names made in g never shadow one of them when written to
// a format whose subgraphs read outer values by name.
func addSubgraphNames(nm *namer, g *canon.Graph) {
	for _, n := range g.Nodes {
		if o, ok := n.Op.(canon.SubgraphOwner); ok {
			for _, c := range o.CaptureNames() {
				nm.used[c] = true
			}
			for _, s := range o.Subgraphs() {
				if s.Graph != nil {
					nm.addGraph(s.Graph)
					addSubgraphNames(nm, s.Graph)
				}
			}
		}
	}
}
