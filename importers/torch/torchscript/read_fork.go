package torchscript

import (
	"archive/zip"
	"bytes"
	"fmt"
	"slices"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/formats"
)

// readForked imports the archive as readOnce does; when the run asks for a
// rank-changing if to be split (control_fork.go), it imports the archive
// again once per branch of that if and joins the two runs into one graph
// whose If carries each branch with the code after it.
func readForked(zr *zip.Reader, data []byte, path string, opts formats.ReadOptions, inferred map[string]inferredDType, plan *forkState) (*canon.Graph, readResult, error) {
	g, res, err := readOnce(zr, data, path, opts, inferred, plan)
	if err == nil || res.forks == nil || res.forks.request == nil {
		return g, res, err
	}
	if g != nil {
		g.Close()
	}
	split := *res.forks.request
	gThen, resThen, err := readForked(zr, data, path, opts, inferred, plan.with(split.ordinal, true, nil))
	resThen.uses = append(res.uses, resThen.uses...)
	if err != nil {
		return nil, resThen, err
	}
	gElse, resElse, err := readForked(zr, data, path, opts, inferred, plan.with(split.ordinal, false, graphNames(gThen, resThen.weights)))
	resThen.uses = append(resThen.uses, resElse.uses...)
	if err != nil {
		gThen.Close()
		return nil, resThen, err
	}
	if err := graftBranch(gThen, resThen, gElse, resElse, split); err != nil {
		gThen.Close()
		gElse.Close()
		return nil, resThen, fmt.Errorf("%s: %w", path, err)
	}
	gThen.AddResource(graphCloser{gElse})
	for k := range resElse.weights {
		resThen.weights[k] = true
	}
	return gThen, resThen, nil
}

// graphCloser releases a graph whose tensors another graph now holds.
type graphCloser struct{ g *canon.Graph }

func (c graphCloser) Close() error { return c.g.Close() }

// graftBranch makes the If that closes the split if's tail in gThen (whose
// else branch is a stand-in) take its else branch from gElse, the run that
// took the other branch, with the constants that branch made.
func graftBranch(gThen *canon.Graph, resThen readResult, gElse *canon.Graph, resElse readResult, split rankSplit) error {
	a, okA := resThen.forks.nodes[split.ordinal]
	e, okE := resElse.forks.nodes[split.ordinal]
	if !okA || !okE || !a.takeThen || e.takeThen {
		return fmt.Errorf("internal error: the imports that split the if at %s did not both reach it", split.where)
	}
	// Both runs import the code before the if alike; check it.
	if a.index != e.index || len(a.node.Inputs) == 0 || len(e.node.Inputs) == 0 || a.node.Inputs[0] != e.node.Inputs[0] {
		return fmt.Errorf("internal error: the two imports of the code before the if at %s differ (%d and %d nodes)", split.where, a.index, e.index)
	}
	for i := 0; i < a.index; i++ {
		x, y := a.graph.Nodes[i], e.graph.Nodes[i]
		if x.Name != y.Name || x.Op.Kind() != y.Op.Kind() || !slices.Equal(x.Inputs, y.Inputs) || !slices.Equal(x.Outputs, y.Outputs) {
			return fmt.Errorf("internal error: the two imports of the code before the if at %s differ at node %d (%s and %s)", split.where, i, x.Name, y.Name)
		}
	}
	ifA := a.node.Op.(*canon.If)
	ifE := e.node.Op.(*canon.If)
	if len(ifA.Then.Outputs) != len(ifE.Else.Outputs) {
		return fmt.Errorf("the two branches of the if at %s, each with the code after it, end with %d and %d results", split.where, len(ifA.Then.Outputs), len(ifE.Else.Outputs))
	}
	if err := takeInitializers(gThen, gElse, resElse.weights, split.where); err != nil {
		return err
	}
	ifA.Else = ifE.Else
	ifA.Captures = mergeCaptures(freeNames(ifA.Then), freeNames(ifA.Else))
	a.node.Inputs = append([]string{a.node.Inputs[0]}, ifA.Captures...)
	for i := range ifA.Then.Outputs {
		loose := canon.LooseType(ifA.Then.Outputs[i], ifA.Else.Outputs[i])
		ifA.Then.Outputs[i] = renamed(loose, ifA.Then.Outputs[i].Name)
		ifA.Else.Outputs[i] = renamed(loose, ifA.Else.Outputs[i].Name)
		redeclare(gThen, a.node.Outputs[i], loose)
	}
	for _, n := range gElse.Meta.Notes {
		if !slices.Contains(gThen.Meta.Notes, n) {
			gThen.Meta.Notes = append(gThen.Meta.Notes, n)
		}
	}
	gThen.Meta.Notes = append(gThen.Meta.Notes, fmt.Sprintf("%s: the if gives %s rank %d in one branch and %d in the other; each branch of the If carries its own copy of the code after it, to the results", split.where, split.value, split.thenRank, split.elseRank))
	return nil
}

// takeInitializers adds to gThen the initializers of gElse it lacks. A
// weight both read has the same name in both; anything else of one name
// must be the same tensor.
func takeInitializers(gThen, gElse *canon.Graph, weights map[string]bool, where string) error {
	have := gThen.InitializerIndex()
	for _, t := range gElse.Initializers {
		old, ok := have[t.Name]
		if !ok {
			gThen.Initializers = append(gThen.Initializers, t)
			continue
		}
		if old.DType != t.DType || !sameInts(old.Shape, t.Shape) || !bytes.Equal(old.Data, t.Data) {
			return fmt.Errorf("internal error: the branches of the if at %s each made a constant %s, and they differ", where, t.Name)
		}
	}
	return nil
}

// graphNames are the names g and its subgraphs define, except its weights,
// which a run of another branch reads under the same names.
func graphNames(g *canon.Graph, weights map[string]bool) map[string]bool {
	names := map[string]bool{}
	var walk func(g *canon.Graph)
	walk = func(g *canon.Graph) {
		for _, v := range g.Inputs {
			names[v.Name] = true
		}
		for _, v := range g.Outputs {
			names[v.Name] = true
		}
		for _, t := range g.Initializers {
			if !weights[t.Name] {
				names[t.Name] = true
			}
		}
		for _, n := range g.Nodes {
			names[n.Name] = true
			for _, o := range n.Outputs {
				names[o] = true
			}
			if o, ok := n.Op.(canon.SubgraphOwner); ok {
				for _, s := range o.Subgraphs() {
					if s.Graph != nil {
						walk(s.Graph)
					}
				}
			}
		}
	}
	walk(g)
	return names
}

// weightNames are the initializers b made for module weights.
func weightNames(b *builder) map[string]bool {
	out := make(map[string]bool, len(b.inits))
	for _, name := range b.inits {
		out[name] = true
	}
	return out
}

// redeclare gives the value name, and the declared outputs that pass it on
// unchanged (through Identity nodes, as tails end), the type info.
func redeclare(g *canon.Graph, name string, info canon.ValueInfo) {
	var walk func(g *canon.Graph, name string)
	walk = func(g *canon.Graph, name string) {
		for i := range g.Outputs {
			if g.Outputs[i].Name == name {
				g.Outputs[i] = renamed(info, name)
			}
		}
		for _, n := range g.Nodes {
			if _, ok := n.Op.(*canon.Identity); ok && len(n.Inputs) == 1 && n.Inputs[0] == name {
				walk(g, n.Outputs[0])
			}
			if o, ok := n.Op.(canon.SubgraphOwner); ok {
				for _, s := range o.Subgraphs() {
					if s.Graph != nil {
						walk(s.Graph, name)
					}
				}
			}
		}
	}
	walk(g, name)
}

func renamed(v canon.ValueInfo, name string) canon.ValueInfo {
	v.Name = name
	return v
}
