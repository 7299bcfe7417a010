package torchexport

import (
	"fmt"
	"math"
	"strings"

	"github.com/modelbridge/modelbridge/canon"
	"github.com/modelbridge/modelbridge/internal/optable"
)

const resizeDetail = "F.interpolate on the spatial axes of 3-D to 5-D inputs, constant scales or sizes: nearest (asymmetric+floor), nearest-exact " +
	"(half_pixel+round_prefer_ceil), linear/bilinear/trilinear and bicubic (a=-0.75, half_pixel or align_corners)"

// resize writes the Resize forms F.interpolate computes: torch maps output
// index d to input coordinate d/scale (nearest, floored), (d+0.5)/scale
// (nearest-exact, floored), (d+0.5)/scale-0.5 (linear and cubic) or
// d·(in-1)/(out-1) (align_corners), with scale the given scale factor or
// out/in for a given size.
func (gen *generator) resize(op *canon.Resize) error {
	x := gen.node.Inputs[0]
	r := gen.rankOf(x)
	if r < 3 || r > 5 {
		return gen.fail("torch interpolates 3-D to 5-D inputs only")
	}
	if op.Scales == nil && op.Sizes == nil {
		return gen.fail("scales or sizes computed at run time; model.py takes them known before running")
	}
	mode, align, err := torchResizeMode(op, r)
	if err != nil {
		return gen.fail("%v", err)
	}
	shape, static := gen.shapeOf(x)
	eff := *op
	if op.Axes != nil {
		if !static {
			return gen.fail("Resize of some axes needs the input's static shape")
		}
		// Resolve to every axis.
		p, err := op.Plan(shape)
		if err != nil {
			return gen.fail("%v", err)
		}
		if op.Sizes != nil {
			eff.Sizes, eff.Scales = p.Out, nil
		} else {
			eff.Scales = make([]float32, r)
			for i := range eff.Scales {
				eff.Scales[i] = 1
			}
			axes, _ := op.ResizeAxes(r)
			for i, a := range axes {
				eff.Scales[a] = op.Scales[i]
			}
		}
		eff.Axes = nil
	}
	if eff.KeepAspect != canon.Stretch {
		return gen.fail("keep_aspect_ratio_policy %s maps coordinates by one scale whose sizes torch would round differently", eff.KeepAspect)
	}
	if eff.CoordTransform == canon.PytorchHalfPixel {
		// Equal to half_pixel except for outputs of length 1.
		if eff.Sizes == nil || !static {
			return gen.fail("pytorch_half_pixel needs constant sizes and a static input shape to check no axis has length 1")
		}
		for _, s := range eff.Sizes[2:] {
			if s <= 1 {
				return gen.fail("pytorch_half_pixel with an output axis of length %d maps to 0, torch to the centre", s)
			}
		}
	}
	tail := ", mode=\"" + mode + "\""
	if mode != "nearest" && mode != "nearest-exact" {
		tail += fmt.Sprintf(", align_corners=%s", pyBool(align))
	}
	if eff.Antialias {
		tail += ", antialias=True"
	}
	if eff.Sizes != nil {
		if static && (shape[0] != eff.Sizes[0] || shape[1] != eff.Sizes[1]) {
			return gen.fail("torch resizes only the spatial axes")
		}
		return gen.call("F.interpolate(%s, size="+pyInts(eff.Sizes[2:], true)+tail+")", 0)
	}
	if eff.Scales[0] != 1 || eff.Scales[1] != 1 {
		return gen.fail("torch resizes only the spatial axes")
	}
	sc := make([]string, 0, r-2)
	for _, s := range eff.Scales[2:] {
		if math.IsInf(float64(s), 0) || !(s > 0) {
			return gen.fail("scale %v", s)
		}
		sc = append(sc, pyFloat(s))
	}
	tuple := "(" + strings.Join(sc, ", ") + ",)"
	if len(sc) > 1 {
		tuple = "(" + strings.Join(sc, ", ") + ")"
	}
	return gen.call("F.interpolate(%s, scale_factor="+tuple+tail+")", 0)
}

// torchResizeMode is F.interpolate's mode and align_corners for op on a
// rank-r input, or why torch has none.
func torchResizeMode(op *canon.Resize, r int) (string, bool, error) {
	ct := op.CoordTransform
	switch op.Mode {
	case canon.ResizeNearest:
		switch {
		case ct == canon.Asymmetric && op.Nearest == canon.Floor:
			return "nearest", false, nil
		case ct == canon.HalfPixel && op.Nearest == canon.RoundPreferCeil, ct == canon.TFHalfPixelForNN && op.Nearest == canon.Floor:
			return "nearest-exact", false, nil
		}
		return "", false, fmt.Errorf("nearest resize with %s coordinates and %s rounding; torch computes asymmetric+floor (nearest) or half_pixel+round_prefer_ceil (nearest-exact)", ct, op.Nearest)
	case canon.ResizeLinear, canon.ResizeCubic:
		// A linear tap outside the input only ever meets the edge value
		// (so exclude_outside changes nothing); cubic taps do not.
		if op.ExcludeOutside && op.Mode == canon.ResizeCubic {
			return "", false, fmt.Errorf("exclude_outside: torch's bicubic always repeats the edge")
		}
		if ct != canon.HalfPixel && ct != canon.AlignCorners && ct != canon.PytorchHalfPixel {
			return "", false, fmt.Errorf("%s resize with %s coordinates; torch computes half_pixel or align_corners", op.Mode, ct)
		}
		align := ct == canon.AlignCorners
		if op.Mode == canon.ResizeCubic {
			if r != 4 {
				return "", false, fmt.Errorf("torch's bicubic mode takes 4-D inputs only")
			}
			if op.CubicCoeffA != -0.75 {
				return "", false, fmt.Errorf("cubic_coeff_a %v: torch's bicubic uses -0.75", op.CubicCoeffA)
			}
			if op.Antialias {
				return "", false, fmt.Errorf("antialiased bicubic: torch's kernel support differs from ONNX's")
			}
			return "bicubic", align, nil
		}
		if op.Antialias {
			return "", false, fmt.Errorf("antialiased linear: torch's kernel support differs from ONNX's")
		}
		return [...]string{3: "linear", 4: "bilinear", 5: "trilinear"}[r], align, nil
	}
	return "", false, fmt.Errorf("mode %s", op.Mode)
}

func init() {
	optable.Add(&opWriters, map[string]opWriter{
		"GridSample": {write: writeGridSample, floatOnly: "grid sampling",
			detail: "F.grid_sample on 4-D inputs, and 5-D ones but nearest (torch rounds halves away from zero in 3-D); not bicubic with border padding (torch clamps each tap)"},
		"AffineGrid": {write: writeAffineGrid, floatOnly: "affine grids", detail: "F.affine_grid; constant size only"},
		"Col2Im": {write: writeCol2Im, floatOnly: "fold",
			detail: "F.fold on two image axes with symmetric padding; constant shapes only"},
	})
}

func writeGridSample(gen *generator, n *canon.Node) error {
	op := n.Op.(*canon.GridSample)
	r := gen.rankOf(n.Inputs[0])
	mode := map[canon.ResizeMode]string{canon.ResizeNearest: "nearest", canon.ResizeLinear: "bilinear", canon.ResizeCubic: "bicubic"}[op.Mode]
	switch {
	case r != 4 && r != 5:
		return gen.fail("F.grid_sample takes 4-D and 5-D inputs; this one has rank %d", r)
	case r == 5 && op.Mode == canon.ResizeNearest:
		return gen.fail("3-D nearest grid sampling: torch rounds halves away from zero, ONNX to even")
	case r == 5 && op.Mode == canon.ResizeCubic:
		return gen.fail("torch's bicubic grid sampling takes 4-D inputs only")
	case op.Mode == canon.ResizeCubic && op.Padding == canon.GridBorder:
		return gen.fail("bicubic with border padding: torch clamps each tap, ONNX the sampling point")
	}
	return gen.call(fmt.Sprintf("F.grid_sample(%%s, %%s, mode=%q, padding_mode=%q, align_corners=%s)", mode, op.Padding.String(), pyBool(op.AlignCorners)), 0, 1)
}

func writeAffineGrid(gen *generator, n *canon.Node) error {
	op := n.Op.(*canon.AffineGrid)
	if op.Size == nil {
		return gen.fail("size computed at run time; F.affine_grid takes a constant size")
	}
	for _, d := range op.Size[2:] {
		if op.AlignCorners && d == 1 {
			return gen.fail("an axis of size 1 with align_corners: torch samples it at 0, ONNX at -1")
		}
	}
	return gen.call("F.affine_grid(%s, "+pyInts(op.Size, false)+", align_corners="+pyBool(op.AlignCorners)+")", 0)
}

func writeCol2Im(gen *generator, n *canon.Node) error {
	op := n.Op.(*canon.Col2Im)
	if op.ImageShape == nil || op.BlockShape == nil {
		return gen.fail("shapes computed at run time; F.fold takes constant sizes")
	}
	p, err := op.Plan(op.ImageShape, op.BlockShape)
	if err != nil {
		return gen.fail("%v", err)
	}
	if len(op.ImageShape) != 2 {
		return gen.fail("F.fold folds two image axes; this Col2Im has %d", len(op.ImageShape))
	}
	for i := range p.PadsBegin {
		if p.PadsBegin[i] != p.PadsEnd[i] {
			return gen.fail("pads %v/%v are not symmetric, which F.fold's padding needs", p.PadsBegin, p.PadsEnd)
		}
	}
	return gen.call("F.fold(%s, "+pyInts(op.ImageShape, true)+", "+pyInts(op.BlockShape, true)+", dilation="+pyInts(p.Dilations, true)+
		", padding="+pyInts(p.PadsBegin, true)+", stride="+pyInts(p.Strides, true)+")", 0)
}
