package torchscript

import (
	"github.com/modelbridge/modelbridge/canon"
)

// scaleBoxesRunTime is roi_align's box scaling for a spatial_scale known
// only at run time (MultiScaleRoIAlign infers each level's scale from the
// feature and image sizes, 2 ** round(log2(feature / image))): torchvision
// multiplies each float coordinate by the double scale and rounds once to
// the box dtype, as the box widened to float64, multiplied and cast back
// does here; RoiAlign then scales by 1. (torchvision subtracts aligned's
// half pixel before rounding; a power-of-two scale, as the poolers' are,
// makes the product exact, so the one rounding is the same.)
func scaleBoxesRunTime(c *opCall, boxes *tensorVal, scale *dynFloat) (*tensorVal, error) {
	b := c.b()
	dt := b.info(boxes).DType
	wide, err := b.emit1(c.scope, &canon.Cast{To: canon.Float64}, boxes)
	if err != nil {
		return nil, err
	}
	if wide, err = b.emit1(c.scope, &canon.Binary{Fn: canon.Mul}, wide, scale.t); err != nil {
		return nil, err
	}
	return b.emit1(c.scope, &canon.Cast{To: dt}, wide)
}
