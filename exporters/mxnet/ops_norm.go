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
		"GroupNormalization": {"GroupNorm with per-channel gamma and beta (MXNet 2's shape; MXNet 1.x wants them per group)", func(e *exporter, n *canon.Node) error {
			op := n.Op.(*canon.GroupNorm)
			return e.single(n, "GroupNorm", map[string]string{"num_groups": strconv.FormatInt(op.NumGroups, 10), "eps": f32(op.Epsilon)}, n.Inputs...)
		}},
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
		"RMSNormalization":          "MXNet 1.x has no RMS normalization op",
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
		if v, ok := e.g.Values[n.Inputs[1]]; ok && v.DType != canon.Undefined {
			dt = v.DType
		}
		zeros := &canon.Tensor{Name: e.unique(n.Outputs[0] + "_beta"), DType: dt, Shape: []int64{ss[0]}, Data: make([]byte, int(ss[0])*dt.Size())}
		if _, err := e.param(zeros.Name, zeros); err != nil {
			return err
		}
		ins = append(ins, zeros.Name)
	}
	return e.single(n, "LayerNorm", map[string]string{"axis": "-1", "eps": f32(op.Epsilon)}, ins...)
}
