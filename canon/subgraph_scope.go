package canon

import "fmt"

// loopFormal is the type of each of a Loop body's inputs on every
// iteration: the iteration number, the condition, then each carried value
// as carriedType keeps it. in are the node's input types.
func loopFormal(o *Loop, in []ValueInfo) []ValueInfo {
	formal := []ValueInfo{{DType: Int64, RankKnown: true}, {DType: Bool, RankKnown: true}}
	for i := 0; i < o.Carried(); i++ {
		var init ValueInfo
		if 2+i < len(in) {
			init = in[2+i]
		}
		formal = append(formal, carriedType(init, o.Body.Inputs[2+i]))
	}
	return formal
}

// scanFormal is the type of each of a Scan body's inputs on every step
// (states, then one slice of each scan input), and the number of steps
// where the first scan input's type tells it (seq, or seq unchanged).
func scanFormal(o *Scan, in []ValueInfo, seq Dim) ([]ValueInfo, Dim, error) {
	n, m := o.States(), int(o.NumScanInputs)
	if len(in) < n+m {
		return nil, seq, fmt.Errorf("has %d inputs for %d states and %d scan inputs", len(in), n, m)
	}
	formal := make([]ValueInfo, 0, n+m)
	for i := 0; i < n; i++ {
		formal = append(formal, carriedType(in[i], o.Body.Inputs[i]))
	}
	for j := 0; j < m; j++ {
		x := in[n+j]
		slice := ValueInfo{DType: x.DType}
		if x.RankKnown {
			axis := o.InputAxis(j)
			if axis < -int64(len(x.Shape)) || axis >= int64(len(x.Shape)) {
				return nil, seq, fmt.Errorf("scan input %d has rank %d; axis %d is out of range", j, len(x.Shape), axis)
			}
			if axis < 0 {
				axis += int64(len(x.Shape))
			}
			if j == 0 {
				seq = x.Shape[axis]
			} else if d := x.Shape[axis]; d.Known() && seq.Known() && d.Size != seq.Size {
				return nil, seq, fmt.Errorf("scan inputs have %d and %d slices along their axes: they must match", seq.Size, d.Size)
			}
			slice.RankKnown = true
			slice.Shape = append(cloneDims(x.Shape[:axis]), cloneDims(x.Shape[axis+1:])...)
		}
		formal = append(formal, slice)
	}
	return formal, seq, nil
}

// SubgraphScopes returns each subgraph of n as it runs inside n
// (ScopeGraph): its formal inputs typed as shape inference types them
// (the same on every iteration or step), followed by the captured values.
// in are the types of n's inputs. A writer that emits a subgraph's nodes
// as code infers the scope to type its values.
func SubgraphScopes(n *Node, in []ValueInfo) ([]NamedGraph, error) {
	o, ok := n.Op.(SubgraphOwner)
	if !ok || isNilOp(n.Op) {
		return nil, nil
	}
	var formal []ValueInfo
	switch op := n.Op.(type) {
	case *Loop:
		if op.Body != nil {
			formal = loopFormal(op, in)
		}
	case *Scan:
		if op.Body != nil {
			var err error
			if formal, _, err = scanFormal(op, in, Dim{Size: -1}); err != nil {
				return nil, nodeErrorf(n, "%v", err)
			}
		}
	}
	caps := o.CaptureNames()
	if len(in) < len(caps) {
		return nil, nodeErrorf(n, "has %d inputs for %d captures", len(in), len(caps))
	}
	capTypes := in[len(in)-len(caps):]
	var out []NamedGraph
	for _, s := range o.Subgraphs() {
		if s.Graph == nil {
			return nil, nodeErrorf(n, "subgraph %s is missing", s.Attr)
		}
		out = append(out, NamedGraph{Attr: s.Attr, Graph: ScopeGraph(s.Graph, formal, caps, capTypes)})
	}
	return out, nil
}

// tightLoopFormal is loopFormal with each carried value's open dims (and
// an undeclared type) taken from its initial value, so that a loop that
// keeps a value's symbolic size (a batch N) keeps it in its outputs. It is
// sound only when the body, given these types, yields the same ones for
// every carried value (then every iteration does): the caller checks that
// with keepsTypes. changed reports whether it differs from loopFormal.
func tightLoopFormal(o *Loop, in []ValueInfo) (formal []ValueInfo, changed bool) {
	formal = loopFormal(o, in)
	for i := 0; i < o.Carried(); i++ {
		if 2+i >= len(in) {
			break
		}
		init, f := in[2+i], formal[2+i]
		if !init.RankKnown || (f.DType != Undefined && f.DType != init.DType) || (f.RankKnown && len(f.Shape) != len(init.Shape)) {
			continue
		}
		t := ValueInfo{DType: init.DType, RankKnown: true, Shape: cloneDims(init.Shape)}
		if f.RankKnown {
			for k, d := range f.Shape {
				if d.Known() || d.Param != "" {
					t.Shape[k] = d
				}
			}
		}
		if !sameDims(t, f) {
			formal[2+i], changed = t, true
		}
	}
	return formal, changed
}

// keepsTypes reports whether the body's carried outputs (body, as
// inferSubgraph returns them) have exactly the types formal gave the
// carried inputs.
func keepsTypes(o *Loop, formal, body []ValueInfo) bool {
	for i := 0; i < o.Carried(); i++ {
		if 1+i >= len(body) || 2+i >= len(formal) {
			return false
		}
		f, b := formal[2+i], body[1+i]
		if b.DType != f.DType || !sameDims(f, b) {
			return false
		}
	}
	return true
}

// sameDims reports whether a and b have the same rank and dims (sizes, or
// the same symbolic names).
func sameDims(a, b ValueInfo) bool {
	if a.RankKnown != b.RankKnown || len(a.Shape) != len(b.Shape) {
		return false
	}
	for i := range a.Shape {
		x, y := a.Shape[i], b.Shape[i]
		if x.Known() != y.Known() || (x.Known() && x.Size != y.Size) || (!x.Known() && (x.Param == "" || x.Param != y.Param)) {
			return false
		}
	}
	return true
}
