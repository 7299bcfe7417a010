package mxnetexport

import (
	"fmt"
	"strconv"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
)

// The logic family. The logical ops take and give bool arrays here (MXNet
// answers in the input dtype, which is bool); Max/Min become pairwise
// maximum/minimum, Sum add_n, Mean add_n then a division; Mod is MXNet's
// mod, which takes the divisor's sign (C's fmod has no MXNet op); Pow is
// power, with an exponent of another dtype cast to the base's float type.
// MXNet 1.x has no bitwise ops outside its numpy extension.

// pairOps are the MXNet ops of a two-operand kind: two arrays, array op
// scalar, scalar op array ("" when MXNet has none).
type pairOps struct{ broadcast, scalar, rscalar string }

var (
	maxOps = pairOps{"broadcast_maximum", "_maximum_scalar", "_maximum_scalar"}
	minOps = pairOps{"broadcast_minimum", "_minimum_scalar", "_minimum_scalar"}
	modOps = pairOps{"broadcast_mod", "_mod_scalar", "_rmod_scalar"}
	powOps = pairOps{"broadcast_power", "_power_scalar", "_rpower_scalar"}
)

func init() {
	w := map[string]opWriter{
		"Not": {"logical_not", func(e *exporter, n *canon.Node) error { return e.single(n, "logical_not", nil, n.Inputs[0]) }},
		"Max": {"broadcast_maximum (pairwise), _maximum_scalar, _copy for one input", (*exporter).extreme},
		"Min": {"broadcast_minimum (pairwise), _minimum_scalar, _copy for one input", (*exporter).extreme},
		"Sum": {"add_n, _copy for one input", (*exporter).sum},
		"Mean": {"add_n then _div_scalar", func(e *exporter, n *canon.Node) error {
			return e.sum(n)
		}},
		"Mod": {"broadcast_mod, _mod_scalar, _rmod_scalar (divisor's sign only: MXNet has no C fmod)", func(e *exporter, n *canon.Node) error {
			if n.Op.(*canon.Mod).Fmod {
				return fmt.Errorf("Mod with fmod=1 (the dividend's sign) cannot be written: MXNet's mod takes the divisor's sign and it has no C fmod")
			}
			return e.pair(n, modOps, n.Inputs[0], n.Inputs[1])
		}},
		"Pow": {"broadcast_power, _power_scalar, _rpower_scalar (an exponent of another dtype cast to a float base's)", (*exporter).pow},
	}
	for fn, mx := range map[canon.LogicFn]string{canon.LogicAnd: "broadcast_logical_and", canon.LogicOr: "broadcast_logical_or", canon.LogicXor: "broadcast_logical_xor"} {
		w[fn.String()] = opWriter{mx, func(e *exporter, n *canon.Node) error { return e.single(n, mx, nil, n.Inputs...) }}
	}
	optable.Add(&writers, w)
	optable.Add(&lacks, map[string]string{
		"BitwiseAnd": "MXNet 1.x has no bitwise ops outside its numpy extension",
		"BitwiseOr":  "MXNet 1.x has no bitwise ops outside its numpy extension",
		"BitwiseXor": "MXNet 1.x has no bitwise ops outside its numpy extension",
		"BitwiseNot": "MXNet 1.x has no bitwise ops outside its numpy extension",
		"BitShift":   "MXNet 1.x has no shift ops outside its numpy extension",
	})
}

// pair writes a op b as the array-array op, or the scalar form when one
// operand is a one-element constant of the other's dtype.
func (e *exporter) pair(n *canon.Node, ops pairOps, a, b string) error {
	out := n.Outputs[0]
	if s, ok := e.scalarOf(b, a, out); ok {
		return e.single(n, ops.scalar, map[string]string{"scalar": s}, a)
	}
	if s, ok := e.scalarOf(a, b, out); ok && ops.rscalar != "" {
		return e.single(n, ops.rscalar, map[string]string{"scalar": s}, b)
	}
	return e.single(n, ops.broadcast, nil, a, b)
}

func (e *exporter) extreme(n *canon.Node) error {
	ops := maxOps
	if n.Op.(*canon.Variadic).Fn == canon.VarMin {
		ops = minOps
	}
	switch len(n.Inputs) {
	case 1:
		return e.single(n, "_copy", nil, n.Inputs[0])
	case 2:
		return e.pair(n, ops, n.Inputs[0], n.Inputs[1])
	}
	in, err := e.values(n.Inputs...)
	if err != nil {
		return err
	}
	out := n.Outputs[0]
	acc := in[0]
	for i, r := range in[1:] {
		name := out
		if i < len(in)-2 {
			name = out + "_" + strconv.Itoa(i)
		}
		acc = ref{e.add(ops.broadcast, name, nil, 1, acc, r), 0}
	}
	e.refs[out] = acc
	return nil
}

// sum writes Sum as add_n (which does not broadcast: inputs of another
// shape are broadcast_to the output's first), and Mean as that sum
// divided by the input count.
func (e *exporter) sum(n *canon.Node) error {
	out := n.Outputs[0]
	mean := n.Op.(*canon.Variadic).Fn == canon.VarMean
	shape, ok := e.shape(out)
	if !ok {
		return fmt.Errorf("%s needs a static output shape (MXNet's add_n does not broadcast)", n.Op.Kind())
	}
	ins := make([]ref, len(n.Inputs))
	for i, name := range n.Inputs {
		r, err := e.broadcastTo(name, shape, fmt.Sprintf("%s_in%d", out, i))
		if err != nil {
			return err
		}
		ins[i] = r
	}
	var r ref
	switch {
	case len(ins) == 1 && !mean:
		return e.finish(out, e.add("_copy", out, nil, 1, ins[0]))
	case len(ins) == 1:
		r = ins[0]
	default:
		name := out
		if mean {
			name = out + "_sum"
		}
		r = ref{e.add("add_n", name, map[string]string{"num_args": strconv.Itoa(len(ins))}, 1, ins...), 0}
	}
	if !mean {
		e.refs[out] = r
		return nil
	}
	return e.finish(out, e.add("_div_scalar", out, map[string]string{"scalar": strconv.Itoa(len(ins))}, 1, r))
}

// pow writes Pow. MXNet's power takes one dtype: a constant exponent of
// another dtype is stored in the base's float dtype, a computed one is
// cast to it; an integer base with an exponent of another dtype is refused
// (ONNX computes that power in double, MXNet would not).
func (e *exporter) pow(n *canon.Node) error {
	x, y := n.Inputs[0], n.Inputs[1]
	dt, et := e.g.Values.Get(x).DType, e.g.Values.Get(y).DType
	if dt == et {
		return e.pair(n, powOps, x, y)
	}
	if !dt.IsFloat() {
		return fmt.Errorf("Pow with a %s base and a %s exponent cannot be written: MXNet's power takes one dtype", dt, et)
	}
	if t, ok := e.consts[y]; ok && t.NumElements() == 1 {
		v, err := t.Float64s()
		if err != nil {
			return err
		}
		return e.single(n, powOps.scalar, map[string]string{"scalar": strconv.FormatFloat(v[0], 'g', -1, 64)}, x)
	}
	xr, err := e.value(x)
	if err != nil {
		return err
	}
	var yr ref
	if t, ok := e.consts[y]; ok {
		v, err := t.Float64s()
		if err != nil {
			return err
		}
		f := make([]float32, len(v))
		for i, s := range v {
			f[i] = float32(s)
		}
		c := canon.NewFloat32Tensor(y+"_"+dt.String(), t.Shape, f)
		if dt != canon.Float32 {
			return fmt.Errorf("Pow with a %s base and a constant %s exponent cannot be written: cast the exponent first", dt, et)
		}
		if yr, err = e.param(c.Name, c); err != nil {
			return err
		}
	} else {
		name, ok := castNames[dt]
		if !ok {
			return fmt.Errorf("MXNet's Cast has no dtype %s", dt)
		}
		yv, err := e.value(y)
		if err != nil {
			return err
		}
		yr = ref{e.add("Cast", n.Outputs[0]+"_exponent", map[string]string{"dtype": name}, 1, yv), 0}
	}
	return e.finish(n.Outputs[0], e.add(powOps.broadcast, n.Outputs[0], nil, 1, xr, yr))
}
