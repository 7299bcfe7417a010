package tfliteimport

import (
	"fmt"

	"github.com/modelbridge/modelbridge/canon"
)

// Weights are permuted once, at import, from TFLite's spellings to the
// canonical ones: CONV_2D OHWI -> OIHW, DEPTHWISE_CONV_2D 1HWO -> OIHW
// (O = C_in·depth_multiplier, one input channel per group),
// TRANSPOSE_CONV OHWI -> IOHW. FULLY_CONNECTED's (out, in) is already OI.
var (
	ohwiToOIHW = []int64{0, 3, 1, 2}
	dwToOIHW   = []int64{3, 0, 1, 2} // (1, H, W, O) -> (O, 1, H, W)
	ohwiToIOHW = []int64{3, 0, 1, 2}
)

// weight returns constant tensor i permuted by perm (nil: as stored) and
// labelled with layout. A float16 weight read through DEQUANTIZE keeps its
// float16 data and gets a Cast to float32. The same tensor asked for in the
// same layout is one initializer.
func (b *builder) weight(i int, perm []int64, layout canon.Layout) (string, error) {
	key := fmt.Sprint(i, "/", layout, perm)
	if n, ok := b.weights[key]; ok {
		return n, nil
	}
	src, half := b.dequantOf[i]
	if !half {
		src = i
	}
	t, err := b.fileTensor(src)
	if err != nil {
		return "", err
	}
	if perm != nil {
		if err := b.take(int64(len(t.Data)), b.tensorTitle(src)); err != nil {
			return "", err
		}
		if t, err = permuteTensor(t, perm); err != nil {
			return "", b.errf("%s: %v", b.tensorTitle(src), err)
		}
		b.bytes += int64(len(t.Data))
	}
	t.Layout = layout
	name := b.addConst(t)
	if half {
		name = b.node(b.tensor(i).name, &canon.Cast{To: canon.Float32}, name)
	}
	b.weights[key] = name
	return name, nil
}

// weightData returns constant tensor i (through a float16 DEQUANTIZE) as a
// canonical tensor in file order, for importers that compute with it.
func (b *builder) weightData(i int) (*canon.Tensor, error) {
	if src, ok := b.dequantOf[i]; ok {
		return b.fileTensor(src)
	}
	return b.fileTensor(i)
}

// isWeight reports whether tensor i is constant, directly or through a
// float16 DEQUANTIZE.
func (b *builder) isWeight(i int) bool {
	if i < 0 {
		return false
	}
	if _, ok := b.dequantOf[i]; ok {
		return true
	}
	return b.isConst(i)
}

// columnsNCHW returns FULLY_CONNECTED weights w (out, H·W·C in NHWC
// order) with columns in NCHW order: shape is (out, H, W, C).
func (b *builder) columnsNCHW(w int, shape []int64) (string, error) {
	t, err := b.permutedColumns(w, shape)
	if err != nil {
		return "", err
	}
	name := b.addConst(t)
	if _, half := b.dequantOf[w]; half {
		name = b.node(b.tensor(w).name, &canon.Cast{To: canon.Float32}, name)
	}
	return name, nil
}

// permutedColumns is weight w's data as (out, C·H·W).
func (b *builder) permutedColumns(w int, shape []int64) (*canon.Tensor, error) {
	t, err := b.weightData(w)
	if err != nil {
		return nil, err
	}
	if canon.NumElements(shape) != canon.NumElements(t.Shape) {
		return nil, b.errf("%s has shape %v; the flattened input has %v", b.tensorTitle(w), t.Shape, shape)
	}
	if err := b.take(int64(len(t.Data)), b.tensorTitle(w)); err != nil {
		return nil, err
	}
	t4 := &canon.Tensor{Name: t.Name, DType: t.DType, Shape: shape, Data: t.Data}
	p, err := permuteTensor(t4, []int64{0, 3, 1, 2})
	if err != nil {
		return nil, b.errf("%s: %v", b.tensorTitle(w), err)
	}
	p.Shape = []int64{shape[0], shape[1] * shape[2] * shape[3]}
	p.Name, p.Layout = t.Name+"/nchw_columns", "OI"
	return p, nil
}
