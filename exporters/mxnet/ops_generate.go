package mxnetexport

import (
	"fmt"
	"strconv"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
)

// The generate family. MXNet 1.x's symbol API has depth_to_space and
// space_to_depth (DCR order), SequenceReverse (time axis 0), and the
// generators _arange, _full and _eye, which take every parameter as an
// attribute: bounds and shapes must be known before running.

func init() {
	optable.Add(&writers, map[string]opWriter{
		"DepthToSpace": {"depth_to_space (DCR order only)", func(e *exporter, n *canon.Node) error {
			op := n.Op.(*canon.DepthToSpace)
			if op.CRD {
				return fmt.Errorf("DepthToSpace in CRD order cannot be written: MXNet's depth_to_space is DCR")
			}
			return e.single(n, "depth_to_space", map[string]string{"block_size": strconv.FormatInt(op.Blocksize, 10)}, n.Inputs[0])
		}},
		"SpaceToDepth": {"space_to_depth", func(e *exporter, n *canon.Node) error {
			b := n.Op.(*canon.SpaceToDepth).Blocksize
			return e.single(n, "space_to_depth", map[string]string{"block_size": strconv.FormatInt(b, 10)}, n.Inputs[0])
		}},
		"ReverseSequence": {"SequenceReverse use_sequence_length=True (time axis 0, batch axis 1)", (*exporter).reverseSequence},
		"Range":           {"_arange (constant bounds)", (*exporter).arange},
		"ConstantOfShape": {"_full (constant shape)", (*exporter).full},
	})
	optable.Add(&lacks, map[string]string{
		"NonZero": "MXNet 1.x's symbol API has no nonzero (only the numpy interface's _npx_nonzero)",
		"Unique":  "MXNet 1.x's symbol API has no unique (only the numpy interface's _np_unique)",
		"EyeLike": "MXNet 1.x has no eye_like; _eye takes no input, so the model's input would be dropped",
	})
}

// mxDTypes are the MXNet dtype names of canonical dtypes.
var mxDTypes = map[canon.DType]string{
	canon.Float32: "float32", canon.Float64: "float64", canon.Float16: "float16",
	canon.Int8: "int8", canon.Int32: "int32", canon.Int64: "int64", canon.Uint8: "uint8", canon.Bool: "bool",
}

func genDType(kind string, dt canon.DType) (string, error) {
	s, ok := mxDTypes[dt]
	if !ok {
		return "", fmt.Errorf("%s of dtype %s cannot be written: MXNet has no such dtype", kind, dt)
	}
	return s, nil
}

func (e *exporter) reverseSequence(n *canon.Node) error {
	op := n.Op.(*canon.ReverseSequence)
	if op.TimeAxis != 0 {
		return fmt.Errorf("ReverseSequence with time axis %d cannot be written: MXNet's SequenceReverse reverses axis 0", op.TimeAxis)
	}
	attrs := map[string]string{"use_sequence_length": "True", "axis": "0"}
	return e.single(n, "SequenceReverse", attrs, n.Inputs[0], n.Inputs[1])
}

// scalarConst is constant input name's one value, as MXNet writes it.
func (e *exporter) scalarConst(kind, name string) (string, error) {
	t := e.consts[name]
	if t == nil {
		return "", fmt.Errorf("%s bound %s is computed at run time; MXNet's _arange takes constant attributes", kind, name)
	}
	v, err := t.Float64s()
	if err != nil || len(v) != 1 {
		return "", fmt.Errorf("%s bound %s must hold one number", kind, name)
	}
	return strconv.FormatFloat(v[0], 'g', -1, 64), nil
}

func (e *exporter) arange(n *canon.Node) error {
	dt, err := genDType("Range", e.g.Values.Get(n.Inputs[0]).DType)
	if err != nil {
		return err
	}
	var b [3]string
	for i := range b {
		if b[i], err = e.scalarConst("Range", n.Inputs[i]); err != nil {
			return err
		}
	}
	attrs := map[string]string{"start": b[0], "stop": b[1], "step": b[2], "repeat": "1", "dtype": dt}
	return e.finish(n.Outputs[0], e.add("_arange", n.Outputs[0], attrs, 1))
}

func (e *exporter) full(n *canon.Node) error {
	op := n.Op.(*canon.ConstantOfShape)
	dt, err := genDType("ConstantOfShape", op.Value.DType)
	if err != nil {
		return err
	}
	v, err := op.Value.Float64s()
	if err != nil || len(v) != 1 {
		return fmt.Errorf("ConstantOfShape value must hold one number")
	}
	attrs := map[string]string{"shape": tuple(op.Shape), "value": strconv.FormatFloat(v[0], 'g', -1, 64), "dtype": dt}
	if len(op.Shape) == 0 {
		attrs["shape"] = "()"
	}
	return e.finish(n.Outputs[0], e.add("_full", n.Outputs[0], attrs, 1))
}
