package torchscript

import (
	"fmt"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/pickle"
)

// Quantized weights in a TorchScript archive: torch._utils._rebuild_qtensor
// rebuilds a tensor whose storage (QInt8Storage, QUInt8Storage,
// QInt32Storage) holds the integers, with quantizer parameters
// (torch.per_tensor_affine, scale, zero_point) or (torch.per_channel_affine,
// scales, zero_points, axis).

// quantizedStorageDTypes are the integer types of the quantized storages.
var quantizedStorageDTypes = map[string]canon.DType{
	"QInt8Storage": canon.Int8, "QUInt8Storage": canon.Uint8, "QInt32Storage": canon.Int32,
}

// qschemeName is a torch.qscheme global (torch.per_tensor_affine, ...).
type qschemeName string

// qtensorRef is a quantized tensor from the archive: real = (ints - zp)·scale,
// per tensor or per channel along axis.
type qtensorRef struct {
	ints       *tensorRef
	perChannel bool
	scale      float64 // per tensor
	zeroPoint  int64   // per tensor
	scales     *tensorRef
	zeroPoints *tensorRef
	axis       int64
}

// quantizedGlobal resolves the globals a quantized archive adds.
func quantizedGlobal(module, name string) (pickle.Value, bool) {
	switch {
	case module == "torch._utils" && name == "_rebuild_qtensor":
		return rebuildQTensor, true
	case module == "torch" && quantizedStorageDTypes[name] != canon.Undefined:
		return &storageClass{Global: pickle.Global{Module: module, Name: name}, dtype: quantizedStorageDTypes[name]}, true
	case module == "torch" && (name == "per_tensor_affine" || name == "per_channel_affine" || name == "per_channel_affine_float_qparams" || name == "per_tensor_symmetric" || name == "per_channel_symmetric"):
		return qschemeName(name), true
	}
	return nil, false
}

var rebuildQTensor = &pickle.Func{
	Global: pickle.Global{Module: "torch._utils", Name: "_rebuild_qtensor"},
	Fn: func(args []pickle.Value) (pickle.Value, error) {
		if len(args) < 5 {
			return nil, fmt.Errorf("_rebuild_qtensor: %d arguments, want at least 5", len(args))
		}
		t, err := rebuildTensor.Fn(args[:4])
		if err != nil {
			return nil, fmt.Errorf("_rebuild_qtensor: %v", err)
		}
		q := &qtensorRef{ints: t.(*tensorRef)}
		params, ok := args[4].(*pickle.Tuple)
		if !ok || len(params.Items) == 0 {
			return nil, fmt.Errorf("_rebuild_qtensor: quantizer parameters %s are not a tuple", pickle.Format(args[4]))
		}
		scheme, _ := params.Items[0].(qschemeName)
		switch {
		case scheme == "per_tensor_affine" && len(params.Items) == 3:
			sc, ok1 := params.Items[1].(float64)
			zp, ok2 := params.Items[2].(int64)
			if !ok1 || !ok2 {
				return nil, fmt.Errorf("_rebuild_qtensor: per-tensor parameters %s are not (scale, zero_point)", pickle.Format(params))
			}
			q.scale, q.zeroPoint = sc, zp
		case scheme == "per_channel_affine" && len(params.Items) == 4:
			sc, ok1 := params.Items[1].(*tensorRef)
			zp, ok2 := params.Items[2].(*tensorRef)
			axis, ok3 := params.Items[3].(int64)
			if !ok1 || !ok2 || !ok3 {
				return nil, fmt.Errorf("_rebuild_qtensor: per-channel parameters %s are not (scales, zero_points, axis)", pickle.Format(params))
			}
			q.perChannel, q.scales, q.zeroPoints, q.axis = true, sc, zp, axis
		default:
			return nil, fmt.Errorf("_rebuild_qtensor: quantization scheme %s is not read (only per_tensor_affine and per_channel_affine are)", pickle.Format(params.Items[0]))
		}
		return q, nil
	},
}

// qweight is a quantized weight loaded from the archive.
type qweight struct {
	ints   *canon.Tensor // int8 or uint8
	scales []float64     // one, or one per channel along axis
	zps    []int64
	axis   int64
}

// load reads the integers and the quantization parameters.
func (q *qtensorRef) load(a *archive, name string) (*qweight, error) {
	ints, err := q.ints.load(a, name)
	if err != nil {
		return nil, err
	}
	if ints.DType != canon.Int8 && ints.DType != canon.Uint8 {
		return nil, fmt.Errorf("%s: quantized weight %s holds %s integers; only qint8 and quint8 weights are read", a.path, name, ints.DType)
	}
	w := &qweight{ints: ints}
	if !q.perChannel {
		w.scales, w.zps = []float64{q.scale}, []int64{q.zeroPoint}
		return w, nil
	}
	st, err := q.scales.load(a, name+".scales")
	if err != nil {
		return nil, err
	}
	zt, err := q.zeroPoints.load(a, name+".zero_points")
	if err != nil {
		return nil, err
	}
	if w.scales, err = st.Float64s(); err != nil {
		return nil, fmt.Errorf("%s: quantized weight %s: scales: %v", a.path, name, err)
	}
	zs, err := zt.Float64s()
	if err != nil {
		return nil, fmt.Errorf("%s: quantized weight %s: zero points: %v", a.path, name, err)
	}
	for _, z := range zs {
		w.zps = append(w.zps, int64(z))
	}
	if q.axis < 0 || q.axis >= int64(len(ints.Shape)) || int64(len(w.scales)) != ints.Shape[q.axis] || len(w.zps) != len(w.scales) {
		return nil, fmt.Errorf("%s: quantized weight %s of shape %v: %d scales and %d zero points along axis %d do not match", a.path, name, ints.Shape, len(w.scales), len(w.zps), q.axis)
	}
	w.axis = q.axis
	return w, nil
}
