package mxnetexport

import (
	"fmt"
	"strconv"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
)

// The normalization family and LpPool/GlobalLpPool. MXNet's LayerNorm
// normalizes over one axis, its lp pooling raises x (not |x|) to the power
// p, so only p=2 is written.

func init() {
	optable.Add(&writers, map[string]opWriter{
		"LayerNormalization": {"LayerNorm over the last axis (1-D scale and bias; zeros for a missing bias); no Mean/InvStdDev outputs", (*exporter).layerNorm},
		"GroupNormalization": {"GroupNorm with gamma and beta per group (MXNet 1.x's shape) when constant and equal over each group's channels; otherwise unit GroupNorm, then broadcast_mul and broadcast_add per channel", (*exporter).groupNorm},
		"InstanceNormalization": {"InstanceNorm", func(e *exporter, n *canon.Node) error {
			return e.single(n, "InstanceNorm", map[string]string{"eps": f32(n.Op.(*canon.InstanceNorm).Epsilon)}, n.Inputs...)
		}},
		"LpPool": {"Pooling pool_type=lp p_value=2 (MXNet raises x, not |x|, to other powers)", func(e *exporter, n *canon.Node) error {
			op := n.Op.(*canon.LpPool)
			if op.P != 2 {
				return fmt.Errorf("LpPool with p=%d: MXNet's lp pooling raises x, not |x|, to the power p, which matches only for p=2", op.P)
			}
			return e.pool(n, "lp", op.Kernel, op.Strides, op.Dilations, op.PadsBegin, op.PadsEnd, op.CeilMode, nil)
		}},
		"GlobalLpPool": {"Pooling global_pool=True pool_type=lp p_value=2", func(e *exporter, n *canon.Node) error {
			if p := n.Op.(*canon.GlobalLpPool).P; p != 2 {
				return fmt.Errorf("GlobalLpPool with p=%d: MXNet's lp pooling raises x, not |x|, to the power p, which matches only for p=2", p)
			}
			nd := 2
			if r, ok := e.rank(n.Inputs[0]); ok && r > 2 {
				nd = r - 2
			}
			return e.single(n, "Pooling", map[string]string{"global_pool": "True", "kernel": tuple(ones(nd)), "pool_type": "lp", "p_value": "2"}, n.Inputs[0])
		}},
	})
	optable.Add(&lacks, map[string]string{
		"LpNormalization":           "MXNet's L2Normalization adds eps inside the root and has no L1 form",
		"MeanVarianceNormalization": "MXNet has no mean-variance normalization op",
		"MaxUnpool":                 "MXNet 1.x has no unpooling op",
	})
}

func (e *exporter) layerNorm(n *canon.Node) error {
	op := n.Op.(*canon.LayerNorm)
	for _, o := range n.Outputs[1:] {
		if o != "" {
			return fmt.Errorf("MXNet's LayerNorm outputs the standard deviation, not the InvStdDev; the Mean and InvStdDev outputs cannot be written")
		}
	}
	r, ok := e.rank(n.Inputs[0])
	if !(op.Axis == -1 || ok && op.Axis == int64(r-1)) {
		return fmt.Errorf("LayerNormalization over axes from %d: MXNet's LayerNorm normalizes over one axis", op.Axis)
	}
	xs, okx := e.shape(n.Inputs[0])
	ss, oks := e.shape(n.Inputs[1])
	if !okx || !oks || len(ss) != 1 || ss[0] != xs[len(xs)-1] {
		return fmt.Errorf("MXNet's LayerNorm takes a scale of the last axis' size; this one has shape %v", ss)
	}
	ins := []string{n.Inputs[0], n.Inputs[1]}
	bias := ""
	if len(n.Inputs) > 2 {
		bias = n.Inputs[2]
	}
	if bias != "" {
		if bs, ok := e.shape(bias); !ok || len(bs) != 1 || bs[0] != ss[0] {
			return fmt.Errorf("MXNet's LayerNorm takes a bias of the last axis' size; this one has shape %v", bs)
		}
		ins = append(ins, bias)
	} else {
		dt := canon.Float32
		if v, ok := e.g.Values.Lookup(n.Inputs[1]); ok && v.DType != canon.Undefined {
			dt = v.DType
		}
		zeros := &canon.Tensor{Name: e.unused(n.Outputs[0] + "_beta"), DType: dt, Shape: []int64{ss[0]}, Data: make([]byte, int(ss[0])*dt.Size())}
		if _, err := e.param(zeros.Name, zeros); err != nil {
			return err
		}
		ins = append(ins, zeros.Name)
	}
	return e.single(n, "LayerNorm", map[string]string{"axis": "-1", "eps": f32(op.Epsilon)}, ins...)
}

// groupNorm writes GroupNorm, whose gamma and beta MXNet 1.x takes per
// group: the per-channel canonical ones when each group's channels share
// their values, or else a unit GroupNorm followed by the per-channel
// scale and shift.
func (e *exporter) groupNorm(n *canon.Node) error {
	op := n.Op.(*canon.GroupNorm)
	attrs := map[string]string{"num_groups": strconv.FormatInt(op.NumGroups, 10), "eps": f32(op.Epsilon)}
	x, err := e.value(n.Inputs[0])
	if err != nil {
		return err
	}
	out := n.Outputs[0]
	scale, okS := groupValues(e.consts[n.Inputs[1]], op.NumGroups)
	bias, okB := groupValues(e.consts[n.Inputs[2]], op.NumGroups)
	uniform := okS && okB
	if !uniform {
		scale, bias = make([]float32, op.NumGroups), make([]float32, op.NumGroups)
		for i := range scale {
			scale[i] = 1
		}
	}
	g := []int64{op.NumGroups}
	gamma, err := e.param(e.unused(out+"_gamma"), canon.NewFloat32Tensor("", g, scale))
	if err != nil {
		return err
	}
	beta, err := e.param(e.unused(out+"_beta"), canon.NewFloat32Tensor("", g, bias))
	if err != nil {
		return err
	}
	if uniform {
		return e.finish(out, e.add("GroupNorm", out, attrs, 1, x, gamma, beta))
	}
	r, ok := e.rank(n.Inputs[0])
	if !ok {
		return fmt.Errorf("GroupNorm with per-channel scale needs the input rank")
	}
	shape := tuple(append([]int64{-1}, ones(r-2)...))
	normed := ref{e.add("GroupNorm", out+"_normalized", attrs, 1, x, gamma, beta), 0}
	cur := normed
	for k, name := range []string{"broadcast_mul", "broadcast_add"} {
		v, err := e.value(n.Inputs[1+k])
		if err != nil {
			return err
		}
		col := ref{e.add("Reshape", out+"_"+[]string{"scale", "bias"}[k]+"_column", map[string]string{"shape": shape}, 1, v), 0}
		label := out
		if k == 0 {
			label = out + "_scaled"
		}
		cur = ref{e.add(name, label, nil, 1, cur, col), 0}
	}
	e.refs[out] = cur
	return nil
}

// groupValues returns a constant f32 per-channel vector as one value per
// group when each group's channels share it.
func groupValues(t *canon.Tensor, groups int64) ([]float32, bool) {
	if t == nil || t.DType != canon.Float32 || len(t.Shape) != 1 || groups < 1 || t.Shape[0]%groups != 0 {
		return nil, false
	}
	v, err := t.Float64s()
	if err != nil {
		return nil, false
	}
	per := int(t.Shape[0] / groups)
	out := make([]float32, groups)
	for k := range out {
		for _, x := range v[k*per : (k+1)*per] {
			if x != v[k*per] {
				return nil, false
			}
		}
		out[k] = float32(v[k*per])
	}
	return out, true
}

// unused returns base, or base_1, base_2..., the first name no node,
// parameter or value uses yet, without reserving it: param reserves the
// name it is given, so the symbol's variable and the params key agree.
func (e *exporter) unused(base string) string {
	taken := func(n string) bool {
		_, ref := e.refs[n]
		return e.names[n] || ref || e.consts[n] != nil
	}
	name := base
	for i := 1; taken(name); i++ {
		name = fmt.Sprintf("%s_%d", base, i)
	}
	return name
}
