package mxnetexport

import (
	"fmt"
	"math"
	"strconv"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
)

// bilinearResize writes a linear Resize of H and W as
// _contrib_BilinearResize2D to the output size. MXNet (1.6+) maps output
// index d to (d+0.5)·in/out-0.5 clamped at 0 (0 for an output of one), or
// with align_corners to d·(in-1)/(out-1): ONNX's pytorch_half_pixel and
// align_corners, and half_pixel when no output axis has length 1.
func (e *exporter) bilinearResize(n *canon.Node, op *canon.Resize) error {
	if op.Mode != canon.ResizeLinear || op.Antialias || op.KeepAspect != canon.Stretch {
		return fmt.Errorf("Resize mode %s (antialias %v, keep-aspect %s): MXNet resizes nearest by integer factors or bilinearly only", op.Mode, op.Antialias, op.KeepAspect)
	}
	if op.Scales == nil && op.Sizes == nil {
		return fmt.Errorf("Resize with scales or sizes computed at run time: MXNet's BilinearResize2D takes fixed sizes")
	}
	in, ok := e.shape(n.Inputs[0])
	if !ok || len(in) != 4 {
		return fmt.Errorf("bilinear Resize needs a static 4-D (N, C, H, W) input for MXNet's BilinearResize2D")
	}
	p, err := op.Plan(in)
	if err != nil {
		return err
	}
	if p.Out[0] != in[0] || p.Out[1] != in[1] {
		return fmt.Errorf("MXNet's BilinearResize2D resizes H and W only (output %v from %v)", p.Out, in)
	}
	align := false
	switch op.CoordTransform {
	case canon.AlignCorners:
		align = true
	case canon.PytorchHalfPixel:
	case canon.HalfPixel:
		for _, k := range []int{2, 3} {
			if p.Out[k] == 1 && in[k] > 1 {
				return fmt.Errorf("half_pixel Resize to length 1 samples the centre; MXNet's BilinearResize2D samples the first row")
			}
		}
	default:
		return fmt.Errorf("linear Resize with %s coordinates: MXNet's BilinearResize2D maps half-pixel or aligned corners", op.CoordTransform)
	}
	// MXNet derives the coordinate scale from the sizes; a given scale
	// must produce them exactly.
	if op.Scales != nil && op.CoordTransform != canon.AlignCorners {
		for _, k := range []int{2, 3} {
			if f := float64(in[k]) * p.Scales[k]; f != math.Floor(f) {
				return fmt.Errorf("scale %g of axis %d does not give a whole output size; MXNet maps by the sizes", p.Scales[k], k)
			}
		}
	}
	attrs := map[string]string{"height": strconv.FormatInt(p.Out[2], 10), "width": strconv.FormatInt(p.Out[3], 10),
		"align_corners": boolean(align)}
	return e.single(n, "_contrib_BilinearResize2D", attrs, n.Inputs[0])
}

func init() {
	optable.Add(&writers, map[string]opWriter{
		"GridSample": {"BilinearSampler on a channel-first grid (linear, zeros padding, align_corners, 4-D)", func(e *exporter, n *canon.Node) error {
			op := n.Op.(*canon.GridSample)
			if op.Mode != canon.ResizeLinear || op.Padding != canon.GridZeros || !op.AlignCorners {
				return fmt.Errorf("GridSample %s/%s/align_corners=%v: MXNet's BilinearSampler samples linearly with zeros padding and aligned corners only", op.Mode, op.Padding, op.AlignCorners)
			}
			if r, ok := e.rank(n.Inputs[0]); !ok || r != 4 {
				return fmt.Errorf("MXNet's BilinearSampler takes 4-D input")
			}
			in, err := e.values(n.Inputs[0], n.Inputs[1])
			if err != nil {
				return err
			}
			out := n.Outputs[0]
			grid := ref{e.add("transpose", out+"_grid", map[string]string{"axes": "(0, 3, 1, 2)"}, 1, in[1]), 0}
			return e.finish(out, e.add("BilinearSampler", out, nil, 1, in[0], grid))
		}},
		"AffineGrid": {"GridGenerator transform_type=affine, transposed to channel-last (2-D, align_corners)", func(e *exporter, n *canon.Node) error {
			op := n.Op.(*canon.AffineGrid)
			if !op.AlignCorners || len(op.Size) != 4 {
				return fmt.Errorf("AffineGrid with align_corners=%v and size %v: MXNet's GridGenerator makes 2-D grids with aligned corners only", op.AlignCorners, op.Size)
			}
			th, err := e.value(n.Inputs[0])
			if err != nil {
				return err
			}
			out := n.Outputs[0]
			flat := ref{e.add("Reshape", out+"_theta", map[string]string{"shape": "(-1, 6)"}, 1, th), 0}
			grid := ref{e.add("GridGenerator", out+"_grid", map[string]string{"transform_type": "affine", "target_shape": tuple(op.Size[2:])}, 1, flat), 0}
			return e.finish(out, e.add("transpose", out, map[string]string{"axes": "(0, 2, 3, 1)"}, 1, grid))
		}},
	})
}

func init() {
	optable.Add(&writers, map[string]opWriter{
		"Col2Im": {"col2im (MXNet 1.6+; symmetric padding, constant shapes)", func(e *exporter, n *canon.Node) error {
			op := n.Op.(*canon.Col2Im)
			if op.ImageShape == nil || op.BlockShape == nil {
				return fmt.Errorf("Col2Im with shapes computed at run time: MXNet's col2im takes fixed sizes")
			}
			p, err := op.Plan(op.ImageShape, op.BlockShape)
			if err != nil {
				return err
			}
			for i := range p.PadsBegin {
				if p.PadsBegin[i] != p.PadsEnd[i] {
					return fmt.Errorf("Col2Im pads %v/%v are not symmetric, which MXNet's col2im needs", p.PadsBegin, p.PadsEnd)
				}
			}
			return e.single(n, "col2im", map[string]string{"output_size": tuple(op.ImageShape), "kernel": tuple(op.BlockShape),
				"stride": tuple(p.Strides), "dilate": tuple(p.Dilations), "pad": tuple(p.PadsBegin)}, n.Inputs[0])
		}},
	})
}

// fullRankResize restates a Resize of some axes over every axis, from the
// input's static shape.
func fullRankResize(e *exporter, n *canon.Node, op *canon.Resize) (*canon.Resize, error) {
	in, ok := e.shape(n.Inputs[0])
	if !ok || (op.Scales == nil && op.Sizes == nil) || op.KeepAspect != canon.Stretch {
		return nil, fmt.Errorf("Resize of axes %v needs a static input shape and constant stretched scales or sizes for MXNet", op.Axes)
	}
	p, err := op.Plan(in)
	if err != nil {
		return nil, err
	}
	eff := *op
	eff.Axes, eff.Roi = nil, nil
	if op.Sizes != nil {
		eff.Sizes = p.Out
		return &eff, nil
	}
	eff.Scales = make([]float32, len(in))
	axes, _ := op.ResizeAxes(len(in))
	for i := range eff.Scales {
		eff.Scales[i] = 1
	}
	for i, a := range axes {
		eff.Scales[a] = op.Scales[i]
	}
	return &eff, nil
}
