package torchscript

import (
	"math"

	"github.com/modelbridge/modelbridge/canon"
)

// splitWhole is torch.split(x, [n], dim) with n known only at run time:
// PyTorch requires the sizes to add up to the dimension's length (it
// raises otherwise), so the one piece is x itself. torchvision's R-CNN
// heads split their batch of boxes by the count of each image's boxes, one
// image's count here. ok is false for the other forms of split.
func splitWhole(c *opCall, x *tensorVal) (v value, ok bool, err error) {
	items, isList := listItems(c.bound[1])
	if !isList || len(items) != 1 {
		return nil, false, nil
	}
	if _, known := toInt(items[0]); known {
		return nil, false, nil
	}
	if _, isDyn := items[0].(*dynInt); !isDyn {
		return nil, false, nil
	}
	r, err := c.rankOf(x, "the input")
	if err != nil {
		return nil, true, err
	}
	d, err := c.int(2)
	if err != nil {
		return nil, true, err
	}
	if _, err := c.axis(d, r); err != nil {
		return nil, true, err
	}
	return &listVal{items: []value{x}}, true, nil
}

// expandAsRunTime is torch.expand_as(x, other) where other's sizes are
// known only at run time (of rank known at import): an Expand to other's
// shape, read at run time. Expand broadcasts both ways, which is torch's
// expand wherever torch does not raise (x's sizes are 1 or other's).
func expandAsRunTime(c *opCall, x, other *tensorVal) (value, error) {
	if _, err := c.rankOf(x, "the input"); err != nil {
		return nil, err
	}
	if _, err := c.rankOf(other, "the other tensor"); err != nil {
		return nil, err
	}
	shape, err := c.b().emit1(c.scope, &canon.ShapeOf{End: math.MaxInt64}, other)
	if err != nil {
		return nil, err
	}
	return c.b().emit1(c.scope, &canon.Expand{}, x, shape)
}
